// The common call from Python without the general call's machinery: f(a, b) or f(a, b, out=c) on
// NumPy arrays that are C-contiguous, aligned and native, of one shape, of exactly the dtypes of
// the loop they resolve to (and Python floats beside them, as weak scalars), and small enough to
// run on the calling thread. What NumPy users call
// most; the general path (parse_call, operands, function::call) costs several times the loop there.
#pragma once

#include <Python.h>

#include <ufunc/core/function.hpp>

#include "call_arguments.hpp"

namespace ufunc::python {

/// The call's result (a new reference: a new NumPy array, or out= itself), or null where the call
/// needs the general path, with no Python error set. Errors of the loop (errstate's raise) throw.
[[nodiscard]] PyObject* try_dense_call(const ufunc::function& f, const call_arguments& arguments);

}  // namespace ufunc::python
