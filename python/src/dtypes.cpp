#include "dtypes.hpp"

#include <string>

#include <ufunc/core/error.hpp>

namespace ufunc::python {

namespace {

// ml_dtypes' bfloat16 has no fixed type number: its descriptor says who it is.
bool is_bfloat16(const PyArray_Descr* descr) {
  return descr->type == 'E' && descr->kind == 'V' && PyDataType_ELSIZE(descr) == 2;
}

std::string describe(PyArray_Descr* descr) {
  nb::handle h(reinterpret_cast<PyObject*>(descr));
  try {
    return nb::cast<std::string>(nb::str(h));
  } catch (...) {
    return "this dtype";
  }
}

}  // namespace

ufunc::dtype from_descr(PyArray_Descr* descr) {
  if (PyDataType_ISBYTESWAPPED(descr) && descr->type_num != NPY_BOOL)
    throw dtype_error("dtype " + describe(descr) + " is not in native byte order");
  switch (descr->type_num) {
    case NPY_BOOL:
      return bool_;
    case NPY_BYTE:
      return int8;
    case NPY_UBYTE:
      return uint8;
    case NPY_SHORT:
      return int16;
    case NPY_USHORT:
      return uint16;
    case NPY_INT:
      return int32;
    case NPY_UINT:
      return uint32;
    case NPY_LONG:
    case NPY_LONGLONG:
      return int64;
    case NPY_ULONG:
    case NPY_ULONGLONG:
      return uint64;
    case NPY_HALF:
      return float16;
    case NPY_FLOAT:
      return float32;
    case NPY_DOUBLE:
      return float64;
    case NPY_CFLOAT:
      return complex64;
    case NPY_CDOUBLE:
      return complex128;
    default:
      break;
  }
  if (is_bfloat16(descr)) return bfloat16;
  throw dtype_error("ufunc has no loops for dtype " + describe(descr) +
                    " (it has bool, the integers of 8 to 64 bits, float16, bfloat16, float32, float64, complex64 "
                    "and complex128)");
}

ufunc::dtype from_object(nb::handle object) {
  if (object.is_none()) throw dtype_error("a dtype is needed, not None");
  PyArray_Descr* descr = nullptr;
  if (!PyArray_DescrConverter(object.ptr(), &descr)) throw nb::python_error();
  const nb::object owner = nb::steal(reinterpret_cast<PyObject*>(descr));
  return from_descr(descr);
}

PyArray_Descr* to_descr(ufunc::dtype type) {
  int number = NPY_NOTYPE;
  switch (type.type_id()) {
    case dtype::id::bool_:
      number = NPY_BOOL;
      break;
    case dtype::id::int8:
      number = NPY_BYTE;
      break;
    case dtype::id::uint8:
      number = NPY_UBYTE;
      break;
    case dtype::id::int16:
      number = NPY_SHORT;
      break;
    case dtype::id::uint16:
      number = NPY_USHORT;
      break;
    case dtype::id::int32:
      number = NPY_INT;
      break;
    case dtype::id::uint32:
      number = NPY_UINT;
      break;
    case dtype::id::int64:
      number = NPY_LONG;
      break;
    case dtype::id::uint64:
      number = NPY_ULONG;
      break;
    case dtype::id::float16:
      number = NPY_HALF;
      break;
    case dtype::id::float32:
      number = NPY_FLOAT;
      break;
    case dtype::id::float64:
      number = NPY_DOUBLE;
      break;
    case dtype::id::complex64:
      number = NPY_CFLOAT;
      break;
    case dtype::id::complex128:
      number = NPY_CDOUBLE;
      break;
    case dtype::id::bfloat16: {
      // Kept for the process: ml_dtypes registers the type once.
      static PyArray_Descr* bfloat16_descr = [] {
        nb::object type;
        try {
          type = nb::module_::import_("ml_dtypes").attr("bfloat16");
        } catch (const nb::python_error&) {
          throw dtype_error("bfloat16 arrays need the ml_dtypes package (pip install ml_dtypes)");
        }
        PyArray_Descr* d = nullptr;
        if (!PyArray_DescrConverter(type.ptr(), &d)) throw nb::python_error();
        return d;
      }();
      Py_INCREF(bfloat16_descr);
      return bfloat16_descr;
    }
  }
  return PyArray_DescrFromType(number);
}

nb::object to_numpy_dtype(ufunc::dtype type) { return nb::steal(reinterpret_cast<PyObject*>(to_descr(type))); }

}  // namespace ufunc::python
