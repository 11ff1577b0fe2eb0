#include "operands.hpp"

#include <nanobind/stl/string.h>

#include <complex>
#include <string>

#include <ufunc/core/error.hpp>

#include "attributes.hpp"
#include "device_array.hpp"
#include "dlpack.hpp"
#include "dtypes.hpp"
#include "numpy_api.hpp"

namespace ufunc::python {

namespace {

ufunc::array view_of_numpy(PyArrayObject* a) {
  const auto type = from_descr(PyArray_DESCR(a));
  const int nd = PyArray_NDIM(a);
  dim_vector shape(PyArray_DIMS(a), PyArray_DIMS(a) + nd);
  dim_vector strides(PyArray_STRIDES(a), PyArray_STRIDES(a) + nd);
  // Borrowed: the caller's reference keeps the memory alive for the call, and results that view
  // it are given the NumPy array as their base (import_context::owner_of).
  ufunc::array view(PyArray_DATA(a), type, std::move(shape), std::move(strides));
  return PyArray_ISWRITEABLE(a) ? view : view.as_readonly();
}

// __cuda_array_interface__ (version 2 or 3): Numba's and CuPy's dict of a device pointer.
ufunc::array import_cuda_array_interface(nb::handle object, const nb::dict& cai, nb::object& keep) {
  const auto typestr = nb::cast<std::string>(cai["typestr"]);
  const nb::object np_dtype = nb::module_::import_("numpy").attr("dtype")(typestr);
  const auto type = from_object(np_dtype);
  const nb::tuple shape_t = nb::borrow<nb::tuple>(cai["shape"]);
  dim_vector shape;
  for (nb::handle e : shape_t) shape.push_back(nb::cast<std::int64_t>(e));
  dim_vector strides;
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    for (nb::handle e : nb::borrow<nb::tuple>(cai["strides"])) strides.push_back(nb::cast<std::int64_t>(e));
  }
  const nb::tuple data = nb::borrow<nb::tuple>(cai["data"]);
  const auto pointer = nb::cast<std::uintptr_t>(data[0]);
  const bool read_only = nb::cast<bool>(data[1]);
  // The pointer's device: the current device when the producer made the dict; ufunc asks CUDA
  // where a pointer lives only in CUDA builds, so it takes device 0 unless told otherwise.
  int device = 0;
  if (nb::hasattr(object, "device") && nb::hasattr(object.attr("device"), "id"))
    device = nb::cast<int>(object.attr("device").attr("id"));
  keep = nb::borrow(object);
  ufunc::array a(reinterpret_cast<void*>(pointer), type, std::move(shape), std::move(strides), {},
                 ufunc::device::cuda(device));
  return read_only ? a.as_readonly() : a;
}

}  // namespace

std::optional<weak_scalar> weak_scalar_of(PyObject* o, int& beyond_int64) {
  if (PyBool_Check(o)) return weak_scalar(o == Py_True);
  if (PyLong_CheckExact(o) || (PyLong_Check(o) && !PyArray_IsScalar(o, Generic))) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) throw nb::python_error();
      return weak_scalar(static_cast<std::int64_t>(v));
    }
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (!PyErr_Occurred()) {
        beyond_int64 = std::max(beyond_int64, 1);
        return weak_scalar(static_cast<std::uint64_t>(u));
      }
      PyErr_Clear();
    }
    const double d = PyLong_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      throw overflow_error("Python int too large to convert to C long");
    }
    beyond_int64 = 2;
    return weak_scalar(d);
  }
  if (PyArray_IsScalar(o, Generic)) return std::nullopt;  // np.float64 is a float subclass, but strong
  if (PyFloat_Check(o)) return weak_scalar(PyFloat_AS_DOUBLE(o));
  if (PyComplex_Check(o))
    return weak_scalar(std::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
  return std::nullopt;
}

ufunc::array import_context::remember(nb::handle object, ufunc::array a, bool for_output) {
  if (!a.device().is_host()) device_array_ = true;
  if (for_output || results_may_view_inputs) {
    entry e{nb::borrow(object), a};
    if (count_ < inline_entries) {
      first_[count_] = std::move(e);
    } else {
      more_.push_back(std::move(e));
    }
    ++count_;
  }
  return a;
}

ufunc::array import_context::import_object(nb::handle object, bool for_output) {
  PyObject* o = object.ptr();
  if (PyArray_Check(o)) {
    auto* a = reinterpret_cast<PyArrayObject*>(o);
    if (PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)) return remember(object, view_of_numpy(a), for_output);
    if (for_output) throw value_error("an output array must be aligned and in native byte order");
    // NumPy buffers such inputs; here they are copied once, aligned and native.
    PyArray_Descr* native = PyArray_DescrNewByteorder(PyArray_DESCR(a), NPY_NATIVE);
    if (native == nullptr) throw nb::python_error();
    PyObject* copy =
        PyArray_FromAny(o, native, 0, 0, NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED | NPY_ARRAY_FORCECAST, nullptr);
    if (copy == nullptr) throw nb::python_error();
    temporaries_.push_back(nb::steal(copy));
    return remember(copy, view_of_numpy(reinterpret_cast<PyArrayObject*>(copy)), false);
  }
  if (const auto* d = device_array_of(object)) return remember(object, *d, for_output);
  if (!PyArray_IsScalar(o, Generic)) {
    if (const auto producer = dlpack_producer_of(object))
      return remember(object, import_dlpack(*producer, dlpack_stream), for_output);
    if (const nb::object cai = optional_attr(object, UFUNC_PY_NAME("__cuda_array_interface__")); cai.is_valid()) {
      nb::object keep;
      auto a = import_cuda_array_interface(object, nb::borrow<nb::dict>(cai), keep);
      return remember(keep, a, for_output);
    }
  }
  if (for_output)
    throw value_error("out= must be arrays ufunc can write in place (NumPy, DLPack or __cuda_array_interface__), not " +
                      nb::cast<std::string>(nb::str(object.type().attr("__name__"))));
  // Lists, tuples, NumPy scalars, objects with __array__: as np.asarray.
  PyObject* converted = PyArray_FromAny(o, nullptr, 0, 0, 0, nullptr);
  if (converted == nullptr) throw nb::python_error();
  temporaries_.push_back(nb::steal(converted));
  return import_object(converted, false);
}

ufunc::operand import_context::input(nb::handle object) {
  if (PyArray_Check(object.ptr())) return import_object(object, false);
  if (auto w = weak_scalar_of(object.ptr(), beyond_int64_)) return *w;
  return import_object(object, false);
}

void import_context::check_python_ints(std::span<const ufunc::operand> inputs) const {
  if (beyond_int64_ == 0) return;
  // NumPy: a Python int outside int64 joins only operands that can hold it: an unsigned integer array
  // (up to 2^64 - 1; the loop then checks its own range) or a float or complex one (as a float).
  bool holds = false;
  for (const auto& op : inputs) {
    if (op.is_scalar()) continue;
    const auto k = op.as_array().type().kind();
    holds = holds || k == dtype_kind::floating || k == dtype_kind::complex ||
            (beyond_int64_ == 1 && k == dtype_kind::unsigned_int);
  }
  if (!holds) throw overflow_error("Python int too large to convert to C long");
}

ufunc::array import_context::input_array(nb::handle object) { return import_object(object, false); }

ufunc::array import_context::output_array(nb::handle object) {
  auto a = import_object(object, true);
  if (!a.writeable()) throw value_error("output array is read-only");
  return a;
}

nb::object import_context::source_of(const ufunc::array& a) const {
  nb::object found;
  for_each_entry([&](const entry& e) {
    const auto& b = e.array;
    if (!found.is_valid() && b.data() == a.data() && b.type() == a.type() && b.shape() == a.shape() &&
        b.strides() == a.strides() && b.device() == a.device())
      found = e.object;
  });
  return found;
}

nb::object import_context::owner_of(const ufunc::array& a) const {
  nb::object found;
  for_each_entry([&](const entry& e) {
    if (!found.is_valid() && e.array.device() == a.device() && detail::may_share_memory(e.array, a)) found = e.object;
  });
  return found;
}

}  // namespace ufunc::python
