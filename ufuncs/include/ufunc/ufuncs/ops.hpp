// The scalar operations of NumPy's standard ufuncs (ufunc::ops::add, ...): one
// struct per ufunc, callable on the host and, compiled by nvcc, on the device.
// They are the definition of the built-in ufuncs' semantics and can be reused in
// your own vectorize'd functors:
//
//   auto f = ufunc::vectorize<float(float, float)>(ufunc::ops::hypot{});
#pragma once

#include <ufunc/ufuncs/ops/arithmetic.hpp>
#include <ufunc/ufuncs/ops/bitwise.hpp>
#include <ufunc/ufuncs/ops/comparison.hpp>
#include <ufunc/ufuncs/ops/exponential.hpp>
#include <ufunc/ufuncs/ops/floating.hpp>
#include <ufunc/ufuncs/ops/trigonometric.hpp>
