#include "results.hpp"

#include <memory>

#include <ufunc/core/error.hpp>

#include "device_array.hpp"
#include "dtypes.hpp"
#include "numpy_api.hpp"

namespace ufunc::python {

namespace {

// The capsule that a NumPy array's base holds: one reference to the library's buffer.
void release_owner(PyObject* capsule) {
  delete static_cast<std::shared_ptr<void>*>(PyCapsule_GetPointer(capsule, "ufunc.buffer"));
}

}  // namespace

nb::object host_result(const ufunc::array& a, nb::handle base) {
  nb::object owner;
  if (base.is_valid()) {
    owner = nb::borrow(base);
  } else if (a.owner()) {
    auto* held = new std::shared_ptr<void>(a.owner());
    PyObject* capsule = PyCapsule_New(held, "ufunc.buffer", release_owner);
    if (capsule == nullptr) {
      delete held;
      throw nb::python_error();
    }
    owner = nb::steal(capsule);
  } else {
    throw value_error("internal: a result over memory that nothing owns");
  }
  PyArray_Descr* descr = to_descr(a.type());  // stolen by NewFromDescr
  static_assert(sizeof(npy_intp) == sizeof(std::int64_t));
  const int flags = a.writeable() ? NPY_ARRAY_WRITEABLE : 0;
  PyObject* r = PyArray_NewFromDescr(&PyArray_Type, descr, static_cast<int>(a.ndim()),
                                     reinterpret_cast<npy_intp*>(const_cast<std::int64_t*>(a.shape().data())),
                                     reinterpret_cast<npy_intp*>(const_cast<std::int64_t*>(a.strides().data())),
                                     a.data(), flags, nullptr);
  if (r == nullptr) throw nb::python_error();
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(r), owner.release().ptr()) != 0) {
    Py_DECREF(r);
    throw nb::python_error();
  }
  return nb::steal(r);
}

nb::object to_python(const ufunc::array& a, const import_context& context, bool keep_0d) {
  if (nb::object given = context.source_of(a); given.is_valid()) return given;
  if (!a.device().is_host()) return nb::cast(device_array{context.stream_owner, a});
  nb::handle base;
  nb::object viewed;
  if (!a.owner()) {
    viewed = context.owner_of(a);
    if (!viewed.is_valid()) return host_result(a.copy());
    base = viewed;
  }
  nb::object r = host_result(a, base);
  if (a.ndim() == 0 && !keep_0d) return nb::steal(PyArray_Return(reinterpret_cast<PyArrayObject*>(r.release().ptr())));
  return r;
}

}  // namespace ufunc::python
