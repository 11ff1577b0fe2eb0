// Attribute lookups on the per-call path: an interned name, and no AttributeError raised and
// caught for an object that lacks the attribute (the protocol checks every device operand takes).
#pragma once

#include <nanobind/nanobind.h>

namespace ufunc::python {

namespace nb = nanobind;

/// `name` as an interned Python string, made once: keyword and attribute lookups by a C string
/// would make and hash a new string on every call.
#define UFUNC_PY_NAME(name)                                             \
  ([]() -> PyObject* {                                                  \
    static PyObject* const interned = PyUnicode_InternFromString(name); \
    return interned;                                                    \
  }())

/// `o.name`, or an invalid object where `o` has no such attribute.
inline nb::object optional_attr(nb::handle o, PyObject* name) {
  PyObject* value = nullptr;
#if PY_VERSION_HEX >= 0x030D0000
  const int found = PyObject_GetOptionalAttr(o.ptr(), name, &value);
#else
  const int found = _PyObject_LookupAttr(o.ptr(), name, &value);
#endif
  if (found < 0) throw nb::python_error();
  return nb::steal(value);
}

}  // namespace ufunc::python
