// ufunc.as_numpy_ufunc(f): a real numpy.ufunc whose loops are f's host loops. NumPy's own machinery
// then does the rest (type resolution, casting, buffering, broadcasting, out=, where=, the methods,
// np.errstate, __array_ufunc__ dispatch), so code that only takes numpy.ufunc objects (dask, xarray,
// np.vectorize-free pipelines) takes the library's loops unchanged: NumPy's frompyfunc, with compiled
// loops.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>

#include <ufunc/core/error.hpp>
#include <ufunc/core/function.hpp>

#include "dtypes.hpp"
#include "numpy_api.hpp"
#include "python_ufunc.hpp"

#include <numpy/ufuncobject.h>  // after numpy_api.hpp; this file alone imports NumPy's ufunc API

namespace ufunc::python {

namespace {

// One of f's loops as NumPy calls it.
struct numpy_loop {
  inner_loop_fn fn = nullptr;
  const void* data = nullptr;
  inner_loop_fn scalar_fn = nullptr;  // NumPy's scalar loop where its bits differ from fn's (else fn)
  const void* scalar_data = nullptr;
  reduce_loop_fn fold = nullptr;  // the library's reduction fold (pairwise float sums, as NumPy's)
  int nin = 0, nargs = 0;
  std::int64_t itemsize[max_operands] = {};
  std::shared_ptr<const void> keepalive;
};

// What NumPy's ufunc points into: it keeps the pointers, not copies, so this lives as long as the
// ufunc (owned by a capsule in its `obj` field, released by NumPy's ufunc_dealloc).
struct numpy_tables {
  std::deque<numpy_loop> loops;
  std::vector<PyUFuncGenericFunction> functions;
  std::vector<void*> data;
  std::vector<char> types;
  std::string name, doc;
  nb::object owner;  // the Python ufunc that owns a ufunc made from Python
};

// Whether the loop must run element by element: NumPy's reduce passes the accumulator as an input
// and the output at one address (step 0), accumulate passes out[i-1] and out[i]; the library's SIMD
// loops, like NumPy's, take only exact in-place operation (the same address and step).
bool needs_sequential_run(char* const* args, const npy_intp* steps, npy_intp n, const numpy_loop& loop) {
  if (n < 2) return false;
  const auto low = [&](int k) { return steps[k] >= 0 ? args[k] : args[k] + (n - 1) * steps[k]; };
  const auto high = [&](int k) { return (steps[k] >= 0 ? args[k] + (n - 1) * steps[k] : args[k]) + loop.itemsize[k]; };
  for (int o = loop.nin; o < loop.nargs; ++o) {
    if (steps[o] == 0) return true;
    for (int k = 0; k < loop.nargs; ++k) {
      if (k == o) continue;
      if (args[k] == args[o] && steps[k] == steps[o] && loop.itemsize[k] == loop.itemsize[o]) continue;
      if (low(k) < high(o) && low(o) < high(k)) return true;
    }
  }
  return false;
}

// NumPy's inner-loop signature (dimensions[0] is the count) onto the library's (the count itself).
void run_numpy_loop(char** args, const npy_intp* dimensions, const npy_intp* steps, void* data) {
  const auto& loop = *static_cast<const numpy_loop*>(data);
  const npy_intp n = dimensions[0];
  static_assert(sizeof(npy_intp) == sizeof(std::int64_t));
  const auto* library_steps = reinterpret_cast<const std::int64_t*>(steps);
  // NumPy's reduce: the accumulator in and out at one address, the run as the second input.
  if (loop.fold != nullptr && args[0] == args[2] && steps[0] == 0 && steps[2] == 0 && args[1] != args[0]) {
    loop.fold(args[0], args[1], n, steps[1], loop.data);
    return;
  }
  bool broadcast_input = false;
  for (int k = 0; k < loop.nin; ++k) broadcast_input = broadcast_input || steps[k] == 0;
  if (!needs_sequential_run(args, steps, n, loop)) {
    // NumPy's SIMD loops run its scalar loop on a broadcast input: the same bits here.
    if (broadcast_input)
      loop.scalar_fn(args, n, library_steps, loop.scalar_data);
    else
      loop.fn(args, n, library_steps, loop.data);
    return;
  }
  char* at[max_operands];
  for (npy_intp i = 0; i < n; ++i) {
    for (int k = 0; k < loop.nargs; ++k) at[k] = args[k] + i * steps[k];
    loop.scalar_fn(at, 1, library_steps, loop.scalar_data);
  }
}

void release_tables(PyObject* capsule) {
  delete static_cast<numpy_tables*>(PyCapsule_GetPointer(capsule, "ufunc.numpy_tables"));
}

// NumPy's ufunc API table, filled on first use (this file's alone).
void import_umath_once() {
  static bool imported = false;  // under the GIL; a failed import is retried (its Python error raised each time)
  if (imported) return;
  if (_import_umath() < 0) throw nb::python_error();
  imported = true;
}

// NumPy's type number of a dtype as a ufunc type code; none for dtypes NumPy does not number
// (ml_dtypes' bfloat16 is a user type, outside the char that PyUFunc_FromFuncAndData takes).
std::optional<char> numpy_type_code(ufunc::dtype t) {
  if (t == bfloat16) return std::nullopt;
  PyArray_Descr* descr = to_descr(t);
  const int number = descr->type_num;
  Py_DECREF(descr);
  if (number < 0 || number >= NPY_NTYPES_LEGACY) return std::nullopt;
  return static_cast<char>(number);
}

nb::object make_numpy_ufunc(const ufunc::function& f, nb::object owner) {
  import_umath_once();
  auto tables = std::make_unique<numpy_tables>();
  tables->name = f.name();
  tables->doc = f.doc();
  tables->owner = std::move(owner);
  bool all_reorderable = true;
  for (const auto& text : f.types()) {
    const auto types = type_signature::parse(text);
    std::vector<char> codes;
    for (int k = 0; k < types.nargs(); ++k)
      if (const auto code = numpy_type_code(types[k])) codes.push_back(*code);
    if (static_cast<int>(codes.size()) != types.nargs()) continue;  // a bfloat16 loop
    std::vector<dtype> inputs;
    for (int k = 0; k < types.nin(); ++k) inputs.push_back(types.input(k));
    call_options exact;
    exact.signature = text;
    const loop_entry entry = f.resolve_loop(inputs, exact);
    if (entry.host == nullptr) continue;  // device code only
    auto& loop = tables->loops.emplace_back();
    loop.fn = entry.host;
    loop.data = entry.host_data;
    loop.scalar_fn = entry.host_scalar != nullptr ? entry.host_scalar : entry.host;
    loop.scalar_data = entry.host_scalar != nullptr ? entry.host_scalar_data : entry.host_data;
    if (types.nin() == 2 && types.nout() == 1) loop.fold = entry.reduce;
    loop.nin = types.nin();
    loop.nargs = types.nargs();
    for (int k = 0; k < types.nargs(); ++k) loop.itemsize[k] = static_cast<std::int64_t>(types[k].itemsize());
    loop.keepalive = entry.keepalive;
    all_reorderable = all_reorderable && entry.reorderable;
    tables->functions.push_back(&run_numpy_loop);
    tables->data.push_back(&loop);
    tables->types.insert(tables->types.end(), codes.begin(), codes.end());
  }
  if (tables->loops.empty())
    throw dtype_error("ufunc '" + f.name() + "' has no host loop over NumPy's dtypes to make a numpy.ufunc of");
  // NumPy's identity: the library's as a Python scalar; without one, reorderable (reduce over several
  // axes) where every loop may regroup, as NumPy's maximum and minimum.
  int identity = all_reorderable ? PyUFunc_ReorderableNone : PyUFunc_None;
  nb::object identity_value;
  if (f.identity()) {
    identity = PyUFunc_IdentityValue;
    identity_value = scalar_to_python(*f.identity());
  }
  PyObject* u = PyUFunc_FromFuncAndDataAndSignatureAndIdentity(
      tables->functions.data(), tables->data.data(), tables->types.data(), static_cast<int>(tables->loops.size()),
      f.nin(), f.nout(), identity, tables->name.c_str(), tables->doc.c_str(), 0, nullptr,
      identity_value.is_valid() ? identity_value.ptr() : nullptr);
  if (u == nullptr) throw nb::python_error();
  nb::object result = nb::steal(u);
  PyObject* capsule = PyCapsule_New(tables.get(), "ufunc.numpy_tables", release_tables);
  if (capsule == nullptr) throw nb::python_error();
  tables.release();
  reinterpret_cast<PyUFuncObject*>(u)->obj = capsule;  // released by NumPy's ufunc_dealloc
  return result;
}

}  // namespace

void bind_numpy_ufunc(nb::module_& m) {
  m.def(
      "as_numpy_ufunc",
      [](nb::handle f) {
        if (!nb::isinstance<python_ufunc>(f))
          throw nb::type_error("as_numpy_ufunc takes an elementwise ufunc.ufunc (built-in or made from Python)");
        const auto& u = nb::cast<const python_ufunc&>(f);
        return make_numpy_ufunc(*u.function, u.owned ? nb::borrow(f) : nb::object());
      },
      nb::arg("f"),
      "A numpy.ufunc over f's host loops (bfloat16 loops left out): NumPy's machinery (type resolution,\n"
      "casting, broadcasting, the methods, np.errstate) around the library's compiled loops.\n\n"
      "    add = ufunc.as_numpy_ufunc(ufunc.add); isinstance(add, np.ufunc)  # True");
}

}  // namespace ufunc::python
