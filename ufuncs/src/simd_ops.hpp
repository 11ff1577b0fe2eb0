// SIMD versions of the standard operations, for the host loops only. An entry
// derives from the scalar operation (which stays the definition of the semantics)
// and adds call operators on xsimd batches where the batch computes the same
// values; the differential tests check that they agree with NumPy.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include <ufunc/backends/cpu/simd.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/ufuncs/ops.hpp>

#include "simd_trig.hpp"

namespace ufunc::ufuncs {

/// The operation the host loops run for Op: Op itself unless a SIMD version exists.
template <class Op>
struct simd_version {
  using type = Op;
};
template <class Op>
using simd_version_t = typename simd_version<Op>::type;

namespace simd_ops {

template <class T>
concept batch_float = std::is_floating_point_v<T>;
template <class T>
concept batch_float32 = std::is_same_v<T, float>;
template <class T>
concept batch_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
concept batch_number = batch_float<T> || batch_int<T>;

template <class T, class A>
using batch = xsimd::batch<T, A>;

// Integer lanes wrap as NumPy's integers do. xsimd's scalar fallbacks compute lane by
// lane with the lane type's own operators, so the lane type must keep them well
// defined: types as wide as int go through their unsigned type (no overflow); narrower
// ones are promoted to int first, where the unsigned 16-bit product 65535 * 65535
// overflows (UB; found by fuzzing: square of uint16 on the baseline instruction set,
// whose 16-bit multiply is such a fallback) but the signed one, at most 2^30, cannot.
// The conversion back to the narrow type is modular (C++20); the bits are the same.
template <class T, class A, class Op>
batch<T, A> wrapping(const batch<T, A>& a, const batch<T, A>& b, Op op) {
  if constexpr (batch_int<T>) {
    using L = std::conditional_t<(sizeof(T) < sizeof(int)), std::make_signed_t<T>, std::make_unsigned_t<T>>;
    if constexpr (std::is_same_v<L, T>) {
      return op(a, b);
    } else {
      using U = batch<L, A>;
      return xsimd::bitwise_cast<batch<T, A>>(op(xsimd::bitwise_cast<U>(a), xsimd::bitwise_cast<U>(b)));
    }
  } else {
    return op(a, b);
  }
}

// The comparisons are the quiet ones (simd::quiet_less & co.): NumPy's min/max loops
// raise no flag for NaN, and xsimd's `<` is signaling on SSE.
template <class T, class A>
batch<T, A> select_max(const batch<T, A>& a, const batch<T, A>& b) {
  if constexpr (batch_float<T>)
    return xsimd::select(xsimd::isnan(a) | simd::quiet_greater(a, b), a, b);
  else
    return xsimd::max(a, b);
}
template <class T, class A>
batch<T, A> select_min(const batch<T, A>& a, const batch<T, A>& b) {
  if constexpr (batch_float<T>)
    return xsimd::select(xsimd::isnan(a) | simd::quiet_less(a, b), a, b);
  else
    return xsimd::min(a, b);
}
template <class T, class A>
batch<T, A> select_fmax(const batch<T, A>& a, const batch<T, A>& b) {
  if constexpr (batch_float<T>)
    return xsimd::select(xsimd::isnan(b) | simd::quiet_greater_equal(a, b), a, b);
  else
    return xsimd::max(a, b);
}
template <class T, class A>
batch<T, A> select_fmin(const batch<T, A>& a, const batch<T, A>& b) {
  if constexpr (batch_float<T>)
    return xsimd::select(xsimd::isnan(b) | simd::quiet_less_equal(a, b), a, b);
  else
    return xsimd::min(a, b);
}

// The sign bit flipped, not 0 - a: negative(+0.0) is -0.0. (xsimd 8's unary minus is
// 0 - a on AVX-512, which the SSE/AVX2 differential runs could not see.)
template <class T, class A>
batch<T, A> negate(const batch<T, A>& a) {
  if constexpr (batch_float<T>)
    return xsimd::bitwise_xor(a, batch<T, A>(T(-0.0)));
  else
    return wrapping(batch<T, A>(T(0)), a, [](auto x, auto y) { return x - y; });
}

// xsimd's generic trunc (behind floor, ceil and trunc where the instruction set has no
// rounding instruction: float64 on the SSE2 baseline) converts every lane to an integer
// and discards the lanes of 2^52 and more (and NaN) afterwards: those conversions are
// out of range, UB in C++ (found by fuzzing). Such lanes are integral (or NaN) already,
// so `round` sees 0 in their place and they keep their value; the results are unchanged.
// The generic rounding compares its argument with 2^52 with SSE's signaling `<`, so
// NaN must not reach it either (NumPy rounds NaN without a flag); nor this test.
template <class T, class A, class Round>
batch<T, A> integral_lanes(const batch<T, A>& a, Round round) {
  const auto small = simd::quiet_less(xsimd::abs(a), batch<T, A>(T(1) / std::numeric_limits<T>::epsilon()));
  return xsimd::select(small, round(xsimd::select(small, a, batch<T, A>(T(0)))), a);
}

// xsimd's exp where the result is a normal number; elsewhere (overflow, subnormal or
// zero results, NaN) the lanes are recomputed with the scalar exp, because xsimd's
// overflows early and flushes subnormals. NaN lanes are set aside with a quiet
// comparison (x == x) before any ordered one, which SSE raises "invalid" for, and
// xsimd only sees in-range values, so the floating-point flags are the scalar loop's.
template <class T, class A>
batch<T, A> exp_normal_range(const batch<T, A>& a) {
  using B = batch<T, A>;
  constexpr T lo = std::is_same_v<T, float> ? T(-87) : T(-708);  // exp(lo) is still normal
  constexpr T hi = std::is_same_v<T, float> ? T(88) : T(709);    // exp(hi) is still finite
  const auto not_nan = a == a;
  const B finite_or_zero = xsimd::select(not_nan, a, B(T(0)));
  const auto inside = not_nan & (finite_or_zero >= B(lo)) & (finite_or_zero <= B(hi));
  const B r = xsimd::exp(xsimd::select(inside, a, B(T(0))));
  if (xsimd::all(inside)) return r;
  alignas(A::alignment()) T in[B::size];
  alignas(A::alignment()) T out[B::size];
  bool done[B::size];  // the lanes' own test: `in[i] >= lo` would raise invalid for NaN
  a.store_aligned(in);
  r.store_aligned(out);
  simd::store_bools(inside, done);
  for (std::size_t i = 0; i < B::size; ++i)
    if (!done[i]) out[i] = std::exp(in[i]);
  return B::load_aligned(out);
}

// Binary and unary operations that are one xsimd expression. xsimd's floor, ceil,
// trunc and nearbyint lose the sign of zero on some instruction sets; copysign
// restores it (the result always has the argument's sign). Its log is not used:
// it mishandles subnormals; its exp only in exp_normal_range.
#define UFUNC_SIMD_BINARY(name, concept_, expr)                                \
  struct name : ops::name {                                                    \
    using ops::name::operator();                                               \
    template <concept_ T, class A>                                             \
    batch<T, A> operator()(const batch<T, A>& a, const batch<T, A>& b) const { \
      return expr;                                                             \
    }                                                                          \
  };
#define UFUNC_SIMD_UNARY(name, concept_, expr)           \
  struct name : ops::name {                              \
    using ops::name::operator();                         \
    template <concept_ T, class A>                       \
    batch<T, A> operator()(const batch<T, A>& a) const { \
      return expr;                                       \
    }                                                    \
  };

UFUNC_SIMD_BINARY(add, batch_number, wrapping(a, b, [](auto x, auto y) { return x + y; }))
UFUNC_SIMD_BINARY(subtract, batch_number, wrapping(a, b, [](auto x, auto y) { return x - y; }))
UFUNC_SIMD_BINARY(multiply, batch_number, wrapping(a, b, [](auto x, auto y) { return x * y; }))
UFUNC_SIMD_BINARY(divide, batch_float, a / b)
UFUNC_SIMD_BINARY(bitwise_and, batch_int, a& b)
UFUNC_SIMD_BINARY(bitwise_or, batch_int, a | b)
UFUNC_SIMD_BINARY(bitwise_xor, batch_int, a ^ b)
UFUNC_SIMD_BINARY(copysign, batch_float, xsimd::copysign(a, b))
UFUNC_SIMD_UNARY(square, batch_number, wrapping(a, a, [](auto x, auto y) { return x * y; }))
UFUNC_SIMD_UNARY(negative, batch_number, negate(a))
UFUNC_SIMD_UNARY(positive, batch_number, a)
UFUNC_SIMD_UNARY(invert, batch_int, ~a)
UFUNC_SIMD_UNARY(fabs, batch_float, xsimd::abs(a))
UFUNC_SIMD_UNARY(absolute, batch_float, xsimd::abs(a))  // floats: fabs (the sign bit cleared, NaN payloads kept)
UFUNC_SIMD_UNARY(sqrt, batch_float, xsimd::sqrt(a))
UFUNC_SIMD_UNARY(floor, batch_float,
                 xsimd::copysign(integral_lanes(a, [](const auto& x) { return xsimd::floor(x); }), a))
UFUNC_SIMD_UNARY(ceil, batch_float, xsimd::copysign(integral_lanes(a, [](const auto& x) { return xsimd::ceil(x); }), a))
UFUNC_SIMD_UNARY(trunc, batch_float,
                 xsimd::copysign(integral_lanes(a, [](const auto& x) { return xsimd::trunc(x); }), a))
UFUNC_SIMD_UNARY(rint, batch_float,
                 xsimd::copysign(integral_lanes(a, [](const auto& x) { return xsimd::nearbyint(x); }), a))
UFUNC_SIMD_UNARY(exp, batch_float, exp_normal_range(a))
// float32 only, our own kernel (simd_trig.hpp: under 1 ulp; an FMA variant on AVX2 and
// AVX-512, a double-precision one elsewhere, each the same bits on all its instruction
// sets). float64 stays on libm: xsimd's float64 sin/cos lose up to 7 ulp near multiples
// of pi (NumPy uses libm there too).
UFUNC_SIMD_UNARY(sin, batch_float32, (trig::sin_cos<false, A>(a)))
UFUNC_SIMD_UNARY(cos, batch_float32, (trig::sin_cos<true, A>(a)))

// NumPy's NaN rules (ops/comparison.hpp): maximum/minimum return the first NaN and
// b on ties; fmax/fmin ignore a NaN and return a on ties.
UFUNC_SIMD_BINARY(maximum, batch_number, select_max(a, b))
UFUNC_SIMD_BINARY(minimum, batch_number, select_min(a, b))
UFUNC_SIMD_BINARY(fmax, batch_number, select_fmax(a, b))
UFUNC_SIMD_BINARY(fmin, batch_number, select_fmin(a, b))

#undef UFUNC_SIMD_BINARY
#undef UFUNC_SIMD_UNARY

// The ordered comparisons of floats on batches, quiet (NumPy's float comparisons
// raise no flag for NaN). Predicates: they opt into the SIMD loops for bool(T, T)
// (backends/cpu/loops.hpp); integers keep the scalar loops.
#define UFUNC_SIMD_PREDICATE(name, quiet)                                                  \
  struct name : ops::name {                                                                \
    static constexpr bool simd_predicate = true;                                           \
    using ops::name::operator();                                                           \
    template <batch_float T, class A>                                                      \
    xsimd::batch_bool<T, A> operator()(const batch<T, A>& a, const batch<T, A>& b) const { \
      return simd::quiet(a, b);                                                            \
    }                                                                                      \
  };
UFUNC_SIMD_PREDICATE(less, quiet_less)
UFUNC_SIMD_PREDICATE(less_equal, quiet_less_equal)
UFUNC_SIMD_PREDICATE(greater, quiet_greater)
UFUNC_SIMD_PREDICATE(greater_equal, quiet_greater_equal)
#undef UFUNC_SIMD_PREDICATE

// NumPy raises for a negative integer exponent; on the host the loop does too (the
// device loop cannot throw and gives 0: docs/design.md).
struct power : ops::power {
  template <ops::scalar T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      if (b < 0) throw value_error("Integers to negative integer powers are not allowed.");
    }
    return ops::power::operator()(a, b);
  }
};

}  // namespace simd_ops

#define UFUNC_SIMD_VERSION(name)   \
  template <>                      \
  struct simd_version<ops::name> { \
    using type = simd_ops::name;   \
  };
UFUNC_SIMD_VERSION(power)
UFUNC_SIMD_VERSION(add)
UFUNC_SIMD_VERSION(subtract)
UFUNC_SIMD_VERSION(multiply)
UFUNC_SIMD_VERSION(divide)
UFUNC_SIMD_VERSION(bitwise_and)
UFUNC_SIMD_VERSION(bitwise_or)
UFUNC_SIMD_VERSION(bitwise_xor)
UFUNC_SIMD_VERSION(copysign)
UFUNC_SIMD_VERSION(square)
UFUNC_SIMD_VERSION(negative)
UFUNC_SIMD_VERSION(positive)
UFUNC_SIMD_VERSION(invert)
UFUNC_SIMD_VERSION(fabs)
UFUNC_SIMD_VERSION(absolute)
UFUNC_SIMD_VERSION(sqrt)
UFUNC_SIMD_VERSION(exp)
UFUNC_SIMD_VERSION(floor)
UFUNC_SIMD_VERSION(ceil)
UFUNC_SIMD_VERSION(trunc)
UFUNC_SIMD_VERSION(rint)
UFUNC_SIMD_VERSION(sin)
UFUNC_SIMD_VERSION(cos)
UFUNC_SIMD_VERSION(maximum)
UFUNC_SIMD_VERSION(minimum)
UFUNC_SIMD_VERSION(fmax)
UFUNC_SIMD_VERSION(fmin)
UFUNC_SIMD_VERSION(less)
UFUNC_SIMD_VERSION(less_equal)
UFUNC_SIMD_VERSION(greater)
UFUNC_SIMD_VERSION(greater_equal)
#undef UFUNC_SIMD_VERSION

}  // namespace ufunc::ufuncs
