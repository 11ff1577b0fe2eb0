// Arithmetic ufuncs: add, subtract, multiply, divide (true_divide), floor_divide, negative, positive, power,
// float_power, remainder, fmod, divmod, absolute, fabs, rint, sign, heaviside, conjugate, reciprocal, square,
// sqrt, cbrt, gcd, lcm, logaddexp, logaddexp2 (NumPy 2 semantics: umath/loops*.c.src, loops_modulo,
// loops_autovec, npymath/npy_math_internal.h.src and npy_math_complex.c.src).
#pragma once

#include <tuple>

#include <ufunc/ufuncs/ops/common.hpp>
#include <ufunc/ufuncs/ops/complex_math.hpp>
#include <ufunc/ufuncs/ops/exponential.hpp>

namespace ufunc::ops {

namespace detail {

// What positive and conjugate take: every type but bool.
template <class T>
concept number = integer<T> || inexact<T>;

// Integer arithmetic is done in an unsigned type at least as wide as unsigned int, so that it wraps as in
// NumPy: signed overflow is undefined in C++, and narrow unsigned types would promote to int, where
// uint16 * uint16 can overflow.
template <integer T>
using uarith_t = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
template <integer T>
UFUNC_HOST_DEVICE constexpr uarith_t<T> to_uarith(T a) {
  return static_cast<uarith_t<T>>(a);
}

// |a| as the unsigned value NumPy's gcd and lcm work on: |MIN| is 2^(bits-1).
template <integer T>
UFUNC_HOST_DEVICE constexpr uarith_t<T> magnitude(T a) {
  if constexpr (signed_integer<T>) {
    if (a < 0) return uarith_t<T>(0) - to_uarith(a);
  }
  return to_uarith(a);
}

template <integer T>
UFUNC_HOST_DEVICE constexpr uarith_t<T> gcd_of_magnitudes(T a, T b) {
  auto x = magnitude(a), y = magnitude(b);
  while (x != 0) {
    const auto c = x;
    x = y % x;
    y = c;
  }
  return y;
}

template <integer T>
UFUNC_HOST_DEVICE constexpr bool is_min_over_minus_one(T a, T b) {
  if constexpr (signed_integer<T>) return a == std::numeric_limits<T>::min() && b == T(-1);
  return false;
}

// Python's floored (a // b, a % b); b is neither 0 nor, with a == MIN, -1.
template <integer T>
UFUNC_HOST_DEVICE constexpr std::tuple<T, T> floored_divmod(T a, T b) {
  T q = T(a / b), r = T(a % b);
  if (r != 0 && (a > 0) != (b > 0)) {
    q = T(q - 1);
    r = T(r + b);
  }
  return {q, r};
}

// CPython's float modulo from fmod's result: moved to the divisor's sign (true when that took adding b), and
// a zero signed as b. The quiet comparisons matter: mod is nan for an infinite a, which NumPy does not flag.
template <floating T>
UFUNC_HOST_DEVICE bool to_divisor_sign(T& mod, T b) {
  if (!mod) {
    mod = m::copysign(T(0), b);
    return false;
  }
  if (m::isless(b, T(0)) == m::isless(mod, T(0))) return false;
  mod += b;
  return true;
}

// npy_divmod: the floored quotient, and the remainder in mod.
template <floating T>
UFUNC_HOST_DEVICE T npy_divmod(T a, T b, T& mod) {
  mod = m::fmod(a, b);
  if (!b) return a / b;
  T div = (a - mod) / b;
  if (to_divisor_sign(mod, b)) div -= T(1);
  if (!div) return m::copysign(T(0), a / b);
  // (a - mod) / b is an integer only up to rounding: snap it to the nearest one.
  T floordiv = m::floor(div);
  if (m::isgreater(div - floordiv, T(0.5))) floordiv += T(1);
  return floordiv;
}

// The complex product and quotient as NumPy writes them: std::complex's operators follow C99 Annex G
// (__muldc3 recovers infinities) and cuda::std::complex's differ again, so either would disagree with NumPy
// on non-finite and huge inputs. cmul is npymath's product (in cpow) and that of NumPy's scalar loops (the
// multiply and square numpy_scalar the methods run); the elementwise multiply and square loops use
// fused_cmul, the product of NumPy's SIMD loops on any x86-64 with FMA (simd_cmul: fmaddsub), which differs
// in the last bits and gives inf instead of nan where a part only overflows before rounding.
template <complex_number T>
UFUNC_HOST_DEVICE T cmul(T a, T b) {
#if defined(__CUDACC__)
  return cmath::mul(a, b);  // nvcc would contract a product and the sum into an fma
#else
  return T{a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
#endif
}
template <complex_number T>
UFUNC_HOST_DEVICE T fused_cmul(T a, T b) {
  return T{m::fma(a.real(), b.real(), -(a.imag() * b.imag())), m::fma(a.real(), b.imag(), a.imag() * b.real())};
}
// Smith's algorithm; a zero divisor divides partwise by +0.
template <complex_number T>
UFUNC_HOST_DEVICE T cdiv(T a, T b) {
#if defined(__CUDACC__)
  return cmath::div(a, b);  // the same steps, each product rounded (no fma contraction)
#else
  using R = real_type_t<T>;
  const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  const R abs_br = m::fabs(br), abs_bi = m::fabs(bi);
  if (abs_br >= abs_bi) {
    if (abs_br == 0 && abs_bi == 0) return T{ar / abs_br, ai / abs_bi};
    const R rat = bi / br, scl = R(1) / (br + bi * rat);
    return T{(ar + ai * rat) * scl, (ai - ar * rat) * scl};
  }
  const R rat = br / bi, scl = R(1) / (bi + br * rat);
  return T{(ar * rat + ai) * scl, (ai * rat - ar) * scl};
#endif
}

// npy_cpow: 0 ** b is 0 for b.real > 0, else nan with the invalid flag; an integral real exponent below 100 in
// magnitude goes by repeated products (which handle inf better than exp(b log a)); the rest is C99's cpow.
template <complex_number T>
UFUNC_HOST_DEVICE T cpow(T a, T b) {
  using R = real_type_t<T>;
  const R br = b.real(), bi = b.imag();
  if (br == 0 && bi == 0) return T{1, 0};
  if (a.real() == 0 && a.imag() == 0) {
    if (br > 0) return T{0, 0};
    raise_fp(fp_flag::invalid);
    return T{std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN()};
  }
  if (bi == 0 && br > -100 && br < 100 && R(int(br)) == br) {
    const int n = int(br);
    if (n == 1) return a;
    if (n == 2) return cmul(a, a);
    if (n == 3) return cmul(a, cmul(a, a));
    T acc{1, 0}, p = a;
    for (int k = n < 0 ? -n : n;;) {
      if (k & 1) acc = cmul(acc, p);
      if ((k >>= 1) == 0) break;
      p = cmul(p, p);
    }
    return n < 0 ? cdiv(T{1, 0}, acc) : acc;
  }
#if defined(__CUDACC__)
  return cmath::pow(a, b);
#else
  return m::pow(a, b);
#endif
}

}  // namespace detail

// On bool, add is logical or and multiply logical and; integers wrap.
struct add {
  template <boolean T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return a || b;
  }
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return T(detail::to_uarith(a) + detail::to_uarith(b));
  }
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return a + b;
  }
};

struct subtract {
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return T(detail::to_uarith(a) - detail::to_uarith(b));
  }
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return a - b;
  }
};

struct multiply {
  template <boolean T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return a && b;
  }
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return T(detail::to_uarith(a) * detail::to_uarith(b));
  }
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return a * b;
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return detail::fused_cmul(a, b);
  }
  // NumPy's scalar loop (no fma: +-inf parts give nan where fused_cmul keeps inf). Its SIMD loop leaves
  // for it on overlapping operands and zero strides: ufunc.at (the indexed loop), accumulate over more
  // than two steps (out[i-1] and out[i] overlap along the axis) and reduce along a run (the accumulator's
  // stride 0); the methods run this one there (loop_entry::host_scalar).
  struct numpy_scalar {
    template <complex_number T>
    UFUNC_HOST_DEVICE T operator()(T a, T b) const {
      return detail::cmul(a, b);
    }
  };
};

// Integers go through float64 in NumPy (the type resolver casts them); only the inexact loops exist.
struct divide {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return a / b;
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return detail::cdiv(a, b);
  }
};
using true_divide = divide;

// Integer division by zero gives 0 and the divide flag; MIN // -1 gives MIN and the overflow flag.
namespace detail {
// ml_dtypes' divmod of floats, behind its bfloat16 floor_divide, remainder and divmod (the
// quotient computed as well, with its flags; a zero divisor gives a signed infinity or nan
// for the quotient and nan for the remainder, without dividing, so without flags).
UFUNC_HOST_DEVICE inline std::tuple<float, float> ml_dtypes_divmod(float a, float b) {
  constexpr float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  if (b == 0.0f) return {a != a || a == 0.0f ? nan : (m::signbit(a) != m::signbit(b) ? -inf : inf), nan};
  float mod = m::fmod(a, b);
  float div = (a - mod) / b;
  if (mod != 0.0f) {
    if ((b < 0.0f) != (mod < 0.0f)) {
      mod += b;
      div -= 1.0f;
    }
  } else {
    mod = m::copysign(0.0f, b);
  }
  float floordiv;
  if (div != 0.0f) {
    floordiv = m::floor(div);
    if (div - floordiv > 0.5f) floordiv += 1.0f;
  } else {
    floordiv = m::copysign(0.0f, a / b);
  }
  return {floordiv, mod};
}
}  // namespace detail

struct floor_divide {
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    if (b == 0) {
      raise_fp(fp_flag::divide);
      return 0;
    }
    if (detail::is_min_over_minus_one(a, b)) {
      raise_fp(fp_flag::overflow);
      return a;
    }
    return std::get<0>(detail::floored_divmod(a, b));
  }
  // npy_floor_divide: by zero it is the true quotient (inf or nan).
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    if (!b) return a / b;
    T mod;
    return detail::npy_divmod(a, b, mod);
  }
  UFUNC_HOST_DEVICE bfloat16_t operator()(bfloat16_t a, bfloat16_t b) const {
    return bfloat16_t(std::get<0>(detail::ml_dtypes_divmod(static_cast<float>(a), static_cast<float>(b))));
  }
};

// The remainder takes the divisor's sign. Integers: % 0 gives 0 and the divide flag, MIN % -1 gives 0 silently.
struct remainder {
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    if (b == 0) {
      raise_fp(fp_flag::divide);
      return 0;
    }
    if (detail::is_min_over_minus_one(a, b)) return 0;
    return std::get<1>(detail::floored_divmod(a, b));
  }
  // npy_remainder, by zero fmod's nan. The quotient npy_divmod would compute is skipped, as the compiler drops
  // it from NumPy's inlined code: its overflow and invalid flags (huge a, tiny b) are not NumPy's.
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    T mod = m::fmod(a, b);
    if (b) detail::to_divisor_sign(mod, b);
    return mod;
  }
  UFUNC_HOST_DEVICE bfloat16_t operator()(bfloat16_t a, bfloat16_t b) const {
    const auto [div, mod] = detail::ml_dtypes_divmod(static_cast<float>(a), static_cast<float>(b));
    [[maybe_unused]] volatile float quotient = div;  // computed, with its flags, as ml_dtypes does
    return bfloat16_t(mod);
  }
};

// C's remainder, with the dividend's sign; integers as in remainder.
struct fmod {
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    if (b == 0) {
      raise_fp(fp_flag::divide);
      return 0;
    }
    if (detail::is_min_over_minus_one(a, b)) return 0;
    return T(a % b);
  }
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return m::fmod(a, b);
  }
};

// (floor_divide, remainder), except that MIN divmod -1 is (MIN, 0) with the overflow flag, and a float divisor
// 0 gives (a / 0, fmod(a, 0)).
struct divmod {
  template <integer T>
  UFUNC_HOST_DEVICE std::tuple<T, T> operator()(T a, T b) const {
    if (b == 0) {
      raise_fp(fp_flag::divide);
      return {T(0), T(0)};
    }
    if (detail::is_min_over_minus_one(a, b)) {
      raise_fp(fp_flag::overflow);
      return {a, T(0)};
    }
    return detail::floored_divmod(a, b);
  }
  template <floating T>
  UFUNC_HOST_DEVICE std::tuple<T, T> operator()(T a, T b) const {
    T mod;
    const T div = detail::npy_divmod(a, b, mod);
    return {div, mod};
  }
  UFUNC_HOST_DEVICE std::tuple<bfloat16_t, bfloat16_t> operator()(bfloat16_t a, bfloat16_t b) const {
    const auto [div, mod] = detail::ml_dtypes_divmod(static_cast<float>(a), static_cast<float>(b));
    return {bfloat16_t(div), bfloat16_t(mod)};
  }
};

// Unsigned negation wraps, as in NumPy.
struct negative {
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return T(0u - detail::to_uarith(a));
  }
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return -a;
  }
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return half_detail::with_bits<T>(a.bits() ^ 0x8000u);
  }
};

struct positive {
  template <detail::number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return a;
  }
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return a;
  }
};

struct power {
  // NEGATIVE_EXPONENT: NumPy raises ValueError("Integers to negative integer powers are not allowed.") for a
  // signed integer loop that meets a negative exponent, and writes nothing more. A device functor cannot
  // throw, so this gives 0; the loop layer must check the exponents itself to match NumPy.
  static constexpr bool rejects_negative_integer_exponents = true;
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (signed_integer<T>) {
      if (b < 0) return 0;  // NEGATIVE_EXPONENT
    }
    auto base = detail::to_uarith(a), out = decltype(base)(1);
    for (auto e = detail::to_uarith(b); e != 0; e >>= 1) {
      if (e & 1) out *= base;
      base *= base;
    }
    return T(out);
  }
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return m::pow(a, b);
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return detail::cpow(a, b);
  }
};

// power without the integer loops (NumPy's are d and D; the registry casts to them).
struct float_power {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return power{}(a, b);
  }
};

namespace detail {

// |x + iy| for complex absolute (F->f, D->d), raising no floating-point flag, as NumPy's loops: they
// compute it in SIMD lanes and then clear the status word (loops_unary_complex, for every layout
// but a few strided ones), so |z| beyond the largest finite number is inf without `overflow`
// (np.abs(np.complex64(3.4e38 + 3.4e38j))) and a subnormal |z| comes without `underflow`. The
// magnitude is glibc's correctly rounded hypot (ops/complex_math.hpp's on the device), computed
// where it cannot overflow or underflow and rounded to the result by hand where it is out of range.
// NaN never reaches an ordered comparison (C's < raises invalid for it on x86).
UFUNC_HOST_DEVICE inline float quiet_abs(float x, float y) {
  // Parts of a float are far inside double's range, and so is |z|: the double hypot raises nothing.
  const double h = abs_parts(static_cast<double>(x), static_cast<double>(y));
  if (m::isnan(h)) return static_cast<float>(h);
  if (h >= 0x1.ffffffp127) return std::numeric_limits<float>::infinity();  // rounds beyond FLT_MAX
  // Subnormal: rounded to a multiple of 2^-149 in double (rint: only inexact), then the exact
  // float product, which is tiny but exact (no underflow).
  if (h < 0x1p-126) return static_cast<float>(m::rint(h * 0x1p149)) * 0x1p-149f;
  return static_cast<float>(h);
}
UFUNC_HOST_DEVICE inline double quiet_abs(double x, double y) {
  using lim = std::numeric_limits<double>;
  if (m::isnan(x) || m::isnan(y)) return abs_parts(x, y);  // NaN, or inf for an infinite part: no flag
  double a = m::fabs(x), b = m::fabs(y);
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  if (m::isinf(a)) return a;
  if (a > 0x1p1020) {
    // |z| may overflow: hypot of a / 4 and b / 4, exact (b is either below half an ulp of a, where
    // |z| is a, or above 2^960), and inf where 4 times it is beyond DBL_MAX.
    if (b < a * 0x1p-60) return a;
    const double h = abs_parts(a * 0.25, b * 0.25);
    return h > lim::max() * 0.25 ? lim::infinity() : h * 4;
  }
  if (a < 0x1p-968) {
    // |z| may be subnormal (b <= a, so |z| < 2^-967.5): hypot of the parts scaled by 2^600 (exact,
    // and normal), scaled back exactly where |z| is normal, else rounded to a multiple of 2^-1074
    // by hand (rint raises only inexact) and scaled back by an exact product.
    const double h = abs_parts(a * 0x1p600, b * 0x1p600);
    if (h >= 0x1p-422) return h * 0x1p-600;
    return m::rint(h * 0x1p474) * 0x1p-1074;
  }
  return abs_parts(a, b);
}

}  // namespace detail

// Complex absolute is real (F->f, D->d), without flags (detail::quiet_abs). Signed |MIN| wraps to MIN.
struct absolute {
  template <boolean T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return a;
  }
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return T(detail::magnitude(a));
  }
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::fabs(a);
  }
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return half_detail::with_bits<T>(a.bits() & 0x7fffu);
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE real_type_t<T> operator()(T a) const {
    return detail::quiet_abs(a.real(), a.imag());
  }
};

struct fabs {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::fabs(a);
  }
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return absolute{}(a);
  }
};

// Round half to even (the current rounding mode); complex numbers partwise.
struct rint {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::rint(a);
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return T{m::rint(a.real()), m::rint(a.imag())};
  }
};

// sign(nan) is nan, sign(-0.0) is +0.0, and NumPy raises no invalid flag for nan (hence the quiet
// comparisons). Complex sign is z / |z| (NumPy 2), with the limits of that at the infinities.
struct sign {
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    if constexpr (signed_integer<T>) {
      if (a < 0) return T(-1);
    }
    return a > 0 ? T(1) : T(0);
  }
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::isgreater(a, T(0)) ? T(1) : m::isless(a, T(0)) ? T(-1) : a == 0 ? T(0) : a;
  }
  // A nan keeps its bits; zero is +0.0 in float16 (NumPy's HALF_sign) and keeps its sign in
  // bfloat16 (ml_dtypes' Sign).
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    const unsigned b = a.bits();
    if (half_detail::is_nan(a)) return a;
    if ((b & 0x7fffu) == 0) return std::is_same_v<T, float16_t> ? T::from_bits(0) : a;
    return T((b & 0x8000u) ? -1.0f : 1.0f);
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    using R = real_type_t<T>;
#if defined(__CUDACC__)
    const R re = a.real(), im = a.imag(), abs = cmath::hypot(re, im), nan = std::numeric_limits<R>::quiet_NaN();
#else
    const R re = a.real(), im = a.imag(), abs = m::hypot(re, im), nan = std::numeric_limits<R>::quiet_NaN();
#endif
    if (m::isnan(abs)) return T{nan, nan};
    if (m::isinf(abs)) {
      if (!m::isinf(re)) return T{0, im > 0 ? R(1) : R(-1)};
      return m::isinf(im) ? T{nan, nan} : T{re > 0 ? R(1) : R(-1), 0};
    }
    if (abs == 0) return T{0, 0};
    return T{re / abs, im / abs};
  }
};

// npy_heaviside(x, h0): 0 below zero, h0 at zero, 1 above, nan for nan.
struct heaviside {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T x, T h0) const {
    if (m::isnan(x)) return std::numeric_limits<T>::quiet_NaN();
    if (x == 0) return h0;
    return x < 0 ? T(0) : T(1);
  }
  // Element by element: the float loop's vector form compares nan lanes, raising invalid.
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T x, T h0) const {
    if (half_detail::is_nan(x)) return T(std::numeric_limits<float>::quiet_NaN());
    const float f = static_cast<float>(x);
    if (f == 0) return h0;
    return T(f < 0 ? 0.0f : 1.0f);
  }
};

struct conjugate {
  template <detail::number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    if constexpr (complex_number<T>) return T{a.real(), -a.imag()};
    return a;
  }
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return a;
  }
};

struct reciprocal {
  // NumPy computes (T)(1.0 / a): 1 and -1 are their own reciprocals, other nonzero values truncate to 0. For 0
  // the conversion of inf is x86-64's: cvttsd2si's INT_MIN for int32 and int64, its low bits (0) for the
  // narrower and the unsigned types, with the divide and invalid flags that 1.0 / 0 and the conversion raise.
  // Written out so that the device, whose conversions saturate, gives the same.
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    if (a == 0) {
      raise_fp(fp_flag::divide);
      raise_fp(fp_flag::invalid);
      return signed_integer<T> && sizeof(T) >= 4 ? std::numeric_limits<T>::min() : T(0);
    }
    if constexpr (signed_integer<T>) {
      if (a == -1) return T(-1);
    }
    return a == 1 ? T(1) : T(0);
  }
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return T(1) / a;
  }
  // Smith's algorithm specialised to 1 / z (loops.c.src); 0 gives nan + nan j.
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    using R = real_type_t<T>;
    const R re = a.real(), im = a.imag();
    if (m::fabs(im) <= m::fabs(re)) {
      const R r = im / re, d = re + im * r;
      return T{1 / d, -r / d};
    }
    const R r = re / im, d = re * r + im;
    return T{r / d, -1 / d};
  }
};

struct square {
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return T(detail::to_uarith(a) * detail::to_uarith(a));
  }
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return a * a;
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return detail::fused_cmul(a, a);
  }
  // NumPy's scalar loop (multiply's numpy_scalar): what square.at runs (one element, in place).
  struct numpy_scalar {
    template <complex_number T>
    UFUNC_HOST_DEVICE T operator()(T a) const {
      return detail::cmul(a, a);
    }
  };
};

struct sqrt {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(sqrt, a) return m::sqrt(a);
  }
};

struct cbrt {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::cbrt(a);
  }
};

// On |a| and |b| in the unsigned type (npy_gcdu, npy_lcmu); the result is cast back, so gcd(MIN, 0) is MIN.
struct gcd {
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return T(detail::gcd_of_magnitudes(a, b));
  }
};
struct lcm {
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    const auto g = detail::gcd_of_magnitudes(a, b);
    return g == 0 ? T(0) : T(detail::magnitude(a) / g * detail::magnitude(b));
  }
};

// npy_logaddexp(2): equal arguments short-cut (so inf, inf gives inf without an invalid flag); the
// signalling comparisons raise invalid for nan, as NumPy's do.
struct logaddexp {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T x, T y) const {
    if (x == y) return x + detail::ln_2<T>;
    const T d = x - y;
    if (d > 0) return x + m::log1p(m::exp(-d));
    if (d <= 0) return y + m::log1p(m::exp(d));
    return d;
  }
};
struct logaddexp2 {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T x, T y) const {
    if (x == y) return x + 1;
    const T d = x - y;
    // cmath::impl::mul: the product rounded on its own, as on the host (nvcc would fuse it into the sum).
    if (d > 0) return x + cmath::impl::mul(detail::log2_e<T>, m::log1p(m::exp2(-d)));
    if (d <= 0) return y + cmath::impl::mul(detail::log2_e<T>, m::log1p(m::exp2(d)));
    return d;
  }
};

}  // namespace ufunc::ops
