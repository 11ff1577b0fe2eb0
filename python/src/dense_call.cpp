#include "dense_call.hpp"

#include <cstring>
#include <optional>

#include <ufunc/core/error.hpp>

#include "attributes.hpp"
#include "dtypes.hpp"
#include "numpy_api.hpp"

namespace ufunc::python {

namespace {

// The largest call taken here: the general path releases the GIL from this size on
// (parsed_call::release_gil), and the dense path never does.
constexpr npy_intp most_elements = (1 << 14) - 1;

// An exact ndarray (no subclass to wrap results back into) that the loop can read in place.
bool dense_operand(PyObject* o) {
  if (!PyArray_CheckExact(o)) return false;
  auto* a = reinterpret_cast<PyArrayObject*>(o);
  return PyArray_ISCARRAY_RO(a) && PyArray_ISNOTSWAPPED(a);
}

bool same_shape(PyArrayObject* a, PyArrayObject* b) {
  const int nd = PyArray_NDIM(a);
  return PyArray_NDIM(b) == nd &&
         std::memcmp(PyArray_DIMS(a), PyArray_DIMS(b), static_cast<std::size_t>(nd) * sizeof(npy_intp)) == 0;
}

// An output that the loop may write: the same elements as an input (in place), or none of them.
// Anything else is left to the general path, which refuses partial overlap in its own words.
bool separate_or_same(PyArrayObject* in, PyArrayObject* out) {
  const auto* i = static_cast<const char*>(PyArray_DATA(in));
  const auto* o = static_cast<const char*>(PyArray_DATA(out));
  if (i == o) return PyArray_ITEMSIZE(in) == PyArray_ITEMSIZE(out);
  return i + PyArray_NBYTES(in) <= o || o + PyArray_NBYTES(out) <= i;
}

}  // namespace

PyObject* try_dense_call(const ufunc::function& f, const call_arguments& arguments) {
  const int nin = f.nin();
  if (f.nout() != 1 || nin > 3 || arguments.npositional != nin || arguments.kwdict != nullptr) return nullptr;
  PyObject* out = nullptr;
  if (arguments.kwnames != nullptr) {
    // out= alone; the compiler interns keyword names, so identity is the test (others: general path).
    if (PyTuple_GET_SIZE(arguments.kwnames) != 1 || PyTuple_GET_ITEM(arguments.kwnames, 0) != UFUNC_PY_NAME("out"))
      return nullptr;
    out = arguments.positional[nin];
    if (out == Py_None) out = nullptr;
    if (out != nullptr && (!dense_operand(out) || !PyArray_ISWRITEABLE(reinterpret_cast<PyArrayObject*>(out))))
      return nullptr;
  }
  // Arrays, and Python floats beside them (NEP 50's weak scalars: np.add(x, 2.0)).
  PyArrayObject* arrays[4] = {};
  std::optional<weak_scalar> scalars[3];
  detail::dense_input inputs[3];
  PyArrayObject* first = nullptr;
  for (int i = 0; i < nin; ++i) {
    PyObject* o = arguments.positional[i];
    if (PyFloat_CheckExact(o)) {
      inputs[i].scalar = &scalars[i].emplace(PyFloat_AS_DOUBLE(o));
      continue;
    }
    if (!dense_operand(o)) return nullptr;
    arrays[i] = reinterpret_cast<PyArrayObject*>(o);
    if (first == nullptr)
      first = arrays[i];
    else if (!same_shape(first, arrays[i]))
      return nullptr;
  }
  // 0-d results are NumPy scalars and empty ones run no loop: the general path has both.
  if (first == nullptr) return nullptr;
  const npy_intp n = PyArray_SIZE(first);
  if (PyArray_NDIM(first) == 0 || n == 0 || n > most_elements) return nullptr;
  auto* out_array = reinterpret_cast<PyArrayObject*>(out);
  if (out != nullptr && !same_shape(first, out_array)) return nullptr;

  ufunc::dtype out_type;
  try {
    for (int i = 0; i < nin; ++i)
      if (arrays[i] != nullptr) inputs[i].type = from_descr(PyArray_DESCR(arrays[i]));
    if (out != nullptr) out_type = from_descr(PyArray_DESCR(out_array));
  } catch (const ufunc::error&) {
    return nullptr;  // a dtype without loops: the general path names it
  }
  const auto loop = f.find_dense_loop({inputs, static_cast<std::size_t>(nin)}, n, default_target());
  if (loop.fn == nullptr) return nullptr;

  nb::object result;
  if (out != nullptr) {
    if (out_type != loop.types.output(0)) return nullptr;  // a cast into out=
    for (int i = 0; i < nin; ++i)
      if (arrays[i] != nullptr && !separate_or_same(arrays[i], out_array)) return nullptr;
    arrays[nin] = out_array;
    result = nb::borrow(out);
  } else {
    PyObject* r = PyArray_NewFromDescr(&PyArray_Type, to_descr(loop.types.output(0)), PyArray_NDIM(first),
                                       PyArray_DIMS(first), nullptr, nullptr, 0, nullptr);
    if (r == nullptr) throw nb::python_error();
    result = nb::steal(r);
    arrays[nin] = reinterpret_cast<PyArrayObject*>(r);
  }
  char* args[4] = {};
  for (int i = 0; i <= nin; ++i)
    if (arrays[i] != nullptr) args[i] = static_cast<char*>(PyArray_DATA(arrays[i]));
  detail::run_dense_loop(loop, f.name(), {inputs, static_cast<std::size_t>(nin)}, args, n);
  return result.release().ptr();
}

}  // namespace ufunc::python
