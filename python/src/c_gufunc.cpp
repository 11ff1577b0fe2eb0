// ufunc.from_c_gufunc: a generalized ufunc whose loop is a C function with NumPy's gufunc loop
// ABI (PyUFuncGenericFunction: args, dimensions, steps, data), for the cpu and parallel targets.
// A loop written for numpy's PyUFunc_FromFuncAndDataAndSignature, a Numba @cfunc of that type or
// a ctypes callback runs under the library's gufunc engine: its broadcasting of the loop
// dimensions, core-size checks, axes=/axis=/keepdims=, out=, type resolution and casting, and
// the parallel target's split of the loop dimensions.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <ufunc/core/error.hpp>
#include <ufunc/gufunc/gufunc.hpp>

#include "python_ufunc.hpp"

namespace ufunc::python {

namespace {

// NumPy's gufunc inner loop: dimensions = {n, the size of each named core dimension in the
// signature's order}; steps = {the nargs outer steps, then every operand's core strides in
// its signature order}; data is null.
using numpy_gufunc_loop = void (*)(char** args, const std::int64_t* dimensions, const std::int64_t* steps, void* data);

struct c_gufunc_loop {
  numpy_gufunc_loop fn;
  ufunc::gufunc::signature signature;
};

void run_c_gufunc(char* const* args, std::int64_t n, const std::int64_t* steps, const ufunc::gufunc::core_layout& core,
                  const void* fn) {
  const auto& loop = *static_cast<const c_gufunc_loop*>(fn);
  const auto& sig = loop.signature;
  const int nargs = sig.nin + sig.nout;
  std::vector<std::int64_t> dimensions(1 + sig.dims.size(), 1), all_steps(steps, steps + nargs);
  dimensions[0] = n;
  for (int p = 0; p < nargs; ++p) {
    const auto& dims = sig.operands[std::size_t(p)];
    for (std::size_t j = 0; j < dims.size(); ++j) {
      dimensions[1 + std::size_t(dims[j])] = core.extents[p][j];
      all_steps.push_back(core.strides[p][j]);
    }
  }
  char* operands[max_operands];
  for (int p = 0; p < nargs; ++p) operands[p] = args[p];
  loop.fn(operands, dimensions.data(), all_steps.data(), nullptr);
}

}  // namespace

void bind_c_gufunc(nb::module_& m) {
  m.def(
      "from_c_gufunc",
      [](std::uintptr_t address, std::string_view signature, std::string_view types, std::string name,
         nb::handle keep) {
        if (address == 0) throw value_error("from_c_gufunc: the function's address is null");
        auto g = std::make_shared<ufunc::gufunc::function>(name, signature);
        const auto loop_types = type_signature::parse(types);
        if (loop_types.nin() != g->nin() || loop_types.nout() != g->nout())
          throw value_error("from_c_gufunc: types '" + std::string(types) + "' have " +
                            std::to_string(loop_types.nin()) + " inputs and " + std::to_string(loop_types.nout()) +
                            " outputs; signature " + g->signature_text() + " has " + std::to_string(g->nin()) +
                            " and " + std::to_string(g->nout()));
        auto loop = std::make_shared<const c_gufunc_loop>(
            c_gufunc_loop{reinterpret_cast<numpy_gufunc_loop>(address), g->signature()});
        g->add_loop(loop_types, run_c_gufunc, loop.get(), loop);
        nb::object o = wrap_owned_gufunc(std::move(g));
        // The C function lives as long as what made it (a Numba cfunc, a ctypes callback or library).
        o.attr("_function_owner") = keep;
        return o;
      },
      nb::arg("address"), nb::arg("signature"), nb::arg("types"), nb::arg("name") = "c_gufunc",
      nb::arg("owner").none() = nb::none(),
      "A generalized ufunc with core signature `signature` ('(n),(n)->()') whose loop for `types` ('dd->d') "
      "is the C function at `address`, of NumPy's gufunc loop type: void(char** args, intp* dimensions, intp* "
      "steps, void* data). For the cpu and parallel targets.");
}

}  // namespace ufunc::python
