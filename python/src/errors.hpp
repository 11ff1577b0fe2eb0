// The library's exceptions as NumPy raises them (ValueError for shapes, TypeError subclasses for
// loops and casts, numpy.exceptions.AxisError, OverflowError, FloatingPointError, MemoryError), and
// its floating-point error policies as np.seterr / np.geterr / np.seterrcall, warnings going to
// Python's warnings module as RuntimeWarning.
#pragma once

#include <nanobind/nanobind.h>

namespace ufunc::python {

namespace nb = nanobind;

void bind_errors(nb::module_& m);

/// Sets the Python error for the exception being handled (call inside a catch block): the library's
/// as NumPy raises them, nanobind's as theirs. For type slots (tp_call), which nanobind does not wrap.
void raise_current_exception() noexcept;

}  // namespace ufunc::python
