// ufunc.ufunc: a library ufunc as a Python object with NumPy's call signature, attributes and
// methods (reduce, accumulate, reduceat, outer, at), plus target= and stream=.
#pragma once

#include <memory>

#include <nanobind/nanobind.h>

#include <ufunc/core/function.hpp>
#include <ufunc/gufunc/gufunc.hpp>

namespace ufunc::python {

namespace nb = nanobind;

struct python_ufunc {
  /// CPython's vectorcall entry of this object (the type's tp_vectorcall_offset points here): a call
  /// without the argument tuple and keyword dict of tp_call.
  vectorcallfunc vectorcall = nullptr;
  const ufunc::function* function = nullptr;
  std::shared_ptr<const ufunc::function> owned;  // ufuncs made from Python; null for the built-ins
};

/// A weak scalar as the Python bool, int, float or complex it stands for (identities, initial values).
[[nodiscard]] nb::object scalar_to_python(const weak_scalar& w);

/// The Python ufunc of a built-in (or any library-lifetime) ufunc.
[[nodiscard]] nb::object wrap_ufunc(const ufunc::function& f);
/// The Python ufunc that owns `f` (one made from Python).
[[nodiscard]] nb::object wrap_owned_ufunc(std::shared_ptr<const ufunc::function> f);

/// The Python gufunc that owns `g` (one made from Python; python_gufunc.cpp).
[[nodiscard]] nb::object wrap_owned_gufunc(std::shared_ptr<const ufunc::gufunc::function> g);

void bind_ufunc(nb::module_& m);
/// ufunc.as_numpy_ufunc: a numpy.ufunc over a ufunc's host loops (numpy_ufunc.cpp).
void bind_numpy_ufunc(nb::module_& m);

}  // namespace ufunc::python
