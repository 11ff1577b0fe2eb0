// ufunc.ufunc: a library ufunc as a Python object with NumPy's call signature, attributes and
// methods (reduce, accumulate, reduceat, outer, at), plus target= and stream=.
#pragma once

#include <nanobind/nanobind.h>

#include <ufunc/core/function.hpp>

namespace ufunc::python {

namespace nb = nanobind;

struct python_ufunc {
  const ufunc::function* function;
};

/// The Python ufunc of a built-in (or any library-lifetime) ufunc.
[[nodiscard]] nb::object wrap_ufunc(const ufunc::function& f);

void bind_ufunc(nb::module_& m);

}  // namespace ufunc::python
