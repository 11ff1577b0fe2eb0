// ufunc._core: the library's ufuncs for Python (python/ufunc/__init__.py is the package around it).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#define UFUNC_PYTHON_IMPORTS_NUMPY
#include "numpy_api.hpp"

#include <ufunc/core/target.hpp>
#include <ufunc/core/transfer.hpp>

#include "call_arguments.hpp"
#include "device_array.hpp"
#include "errors.hpp"
#include "fusion.hpp"
#include "operands.hpp"
#include "python_ufunc.hpp"
#include "results.hpp"

namespace ufunc::python {
void bind_gufunc(nb::module_& m);
void bind_kernels(nb::module_& m);
void bind_c_function(nb::module_& m);
void bind_c_gufunc(nb::module_& m);
}  // namespace ufunc::python

namespace {

namespace nb = nanobind;
using namespace ufunc::python;

// NumPy's import_array() returns from the calling function on failure; this one reports it.
bool load_numpy() {
  import_array1(false);
  return true;
}

}  // namespace

NB_MODULE(_core, m) {
  if (!load_numpy()) throw nb::python_error();
  bind_errors(m);
  bind_device_array(m);
  bind_ufunc(m);
  bind_numpy_ufunc(m);
  bind_gufunc(m);
  bind_kernels(m);
  bind_c_function(m);
  bind_c_gufunc(m);
  bind_fusion(m);

  m.def(
      "set_target",
      [](nb::handle name) {
        nb::object previous = nb::none();
        if (default_target()) previous = nb::str(std::string(ufunc::to_string(*default_target())).c_str());
        if (name.is_none()) {
          default_target().reset();
        } else {
          const auto t = ufunc::target_from_string(nb::cast<std::string>(name));
          ufunc::require_target(t);
          default_target() = t;
        }
        return previous;
      },
      nb::arg("target").none(),
      "Sets the target of calls that name none ('cpu', 'parallel', 'cuda', 'automatic', or None for the "
      "library's default); returns the previous one.");
  m.def("get_target",
        [] { return std::string(ufunc::to_string(default_target() ? *default_target() : ufunc::call_target())); });
  m.def("available_targets", [] {
    nb::list l;
    for (auto t : ufunc::registered_targets())
      if (ufunc::target_available(t)) l.append(nb::str(std::string(ufunc::to_string(t)).c_str()));
    return l;
  });
  m.def("cuda_available", [] { return ufunc::cuda_available(); });
  m.def(
      "to_device",
      [](nb::handle a, int device) {
        import_context context;
        const auto host = context.input_array(a);
        return nb::cast(device_array{{}, ufunc::to_device(host, device)});
      },
      nb::arg("a"), nb::arg("device") = 0, "A C-ordered copy of a host array on a CUDA device.");
  m.def(
      "to_host",
      [](nb::handle a) {
        import_context context;
        const auto in = context.input_array(a);
        const auto host = ufunc::to_host(in);
        // A host array comes back as it is: the caller's own object.
        if (host.data() == in.data())
          return PyArray_Check(a.ptr()) ? nb::borrow(a) : nb::module_::import_("numpy").attr("asarray")(a);
        return host_result(host);
      },
      nb::arg("a"), "A host copy (NumPy array) of a device array; waits for the stream.");
}
