// The library's arrays as Python objects: host arrays become NumPy arrays that own the library's
// buffer (no copy); device arrays become ufunc.device_array; outputs the caller passed come back as
// the very objects passed.
#pragma once

#include <nanobind/nanobind.h>

#include <ufunc/core/array.hpp>

#include "operands.hpp"

namespace ufunc::python {

namespace nb = nanobind;

/// A NumPy array over host array `a`'s memory, keeping it alive; `base` (when given) is the
/// Python object that owns memory `a` borrows.
[[nodiscard]] nb::object host_result(const ufunc::array& a, nb::handle base = {});

/// A call's result: the caller's own object where `a` is an output it passed, else a new NumPy
/// array or device array. A 0-d host result becomes a NumPy scalar, as NumPy's ufuncs return,
/// unless `keep_0d`.
[[nodiscard]] nb::object to_python(const ufunc::array& a, const import_context& context, bool keep_0d = false);

}  // namespace ufunc::python
