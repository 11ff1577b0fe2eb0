// Between NumPy's dtypes and ufunc's: NumPy's type numbers and ml_dtypes' bfloat16 on one side,
// ufunc::dtype on the other.
#pragma once

#include <nanobind/nanobind.h>

#include <ufunc/core/dtype.hpp>

#include "numpy_api.hpp"

namespace ufunc::python {

namespace nb = nanobind;

/// The ufunc dtype of a NumPy descriptor; TypeError (dtype_error) for one ufunc has no loops for
/// (object, strings, long double, structured, datetimes), naming it.
[[nodiscard]] ufunc::dtype from_descr(PyArray_Descr* descr);
/// The ufunc dtype of anything np.dtype() takes ("float32", np.float32, a dtype, ml_dtypes.bfloat16).
[[nodiscard]] ufunc::dtype from_object(nb::handle object);
/// A new reference to the NumPy descriptor of `type` (bfloat16's from ml_dtypes, imported on
/// first use; TypeError if it is not installed).
[[nodiscard]] PyArray_Descr* to_descr(ufunc::dtype type);
/// The same as a NumPy dtype object.
[[nodiscard]] nb::object to_numpy_dtype(ufunc::dtype type);

}  // namespace ufunc::python
