// The built-in operations' floating-point flags on the device, where the generic
// rule (backends/cuda/fp_flags.hpp: NaN from non-NaN inputs is `invalid`, an
// infinity from finite inputs is `overflow`) is not what NumPy's host loops raise.
// Each rule is checked against NumPy's flags in tests/cuda/test_cuda_errstate.cpp.
//   * poles: an infinity from finite inputs at a pole is `divide` (x / 0, log 0,
//     arctanh 1, 0 ** -1);
//   * underflow: a result below the smallest normal number that is inexact, for the
//     operations whose exactness can be told cheaply (products, quotients, ldexp) or
//     whose tiny results are never exact (exp);
//   * integer division by zero (`divide`) and MIN // -1 (`overflow`), which the host
//     loops raise by hand (ops/common.hpp, raise_fp).
#pragma once

#include <cuda/std/cmath>

#include <ufunc/backends/cuda/fp_flags.hpp>
#include <ufunc/ufuncs/ops.hpp>

namespace ufunc::backends::cuda {

namespace fp_rules {

template <class T>
constexpr bool real_float = std::is_floating_point_v<T>;

/// `overflow` turned into `divide` when the infinity comes from a pole.
__device__ __forceinline__ unsigned at_pole(unsigned flags, bool pole) {
  return pole && (flags & fpe::overflow) ? (flags & ~fpe::overflow) | fpe::divide : flags;
}

/// A real result that is tiny although the exact one is not zero (`inexact` says
/// whether rounding happened): the hardware's underflow condition.
template <class T>
__device__ __forceinline__ unsigned underflow_if(T r, bool exact_nonzero, bool inexact) {
  return fp::is_tiny(r) && exact_nonzero && (r == T(0) || inexact) ? fpe::underflow : 0u;
}

/// Whether a * b == r exactly, for a tiny r: the residual a * b - r is formed by fma
/// after scaling by 2^128 (float: 2^64), which keeps it out of the subnormal range
/// where fma would round it away; the scaled operands cannot overflow when r is tiny.
template <class T>
__device__ __forceinline__ bool product_inexact(T a, T b, T r) {
  constexpr T scale = sizeof(T) == 4 ? T(18446744073709551616.0) : T(3.402823669209384634633746e38);
  return ::ufunc::ops::m::fma(a * scale, b, -(r * scale)) != T(0);
}

template <class T>
__device__ __forceinline__ bool finite_nonzero(T x) {
  return ::isfinite(x) && x != T(0);
}

// Integer quotient and remainder: the flags the host loops raise by hand.
template <class T>
__device__ __forceinline__ unsigned integer_division(T a, T b, bool min_over_minus_one_overflows) {
  if (b == T(0)) return fpe::divide;
  if constexpr (std::is_signed_v<T>)
    if (min_over_minus_one_overflows && a == std::numeric_limits<T>::min() && b == T(-1)) return fpe::overflow;
  return 0;
}

}  // namespace fp_rules

// Folds of these classify lazily (fp_flags.hpp): a sum that meets inf or NaN stays inf or NaN,
// and an extremum is one of its inputs, so it never raises.
template <>
struct flags_show_in_result<::ufunc::ops::add> : std::true_type {};
template <>
struct flags_show_in_result<::ufunc::ops::maximum> : std::true_type {};
template <>
struct flags_show_in_result<::ufunc::ops::minimum> : std::true_type {};
template <>
struct flags_show_in_result<::ufunc::ops::fmax> : std::true_type {};
template <>
struct flags_show_in_result<::ufunc::ops::fmin> : std::true_type {};

template <>
struct fp_rule<::ufunc::ops::multiply> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    unsigned f = fp::generic(r, a, b);
    if constexpr (fp_rules::real_float<R>)
      if (fp::is_tiny(r))  // a branch, so that a normal product costs no residual (fma)
        f |= fp_rules::underflow_if(r, fp_rules::finite_nonzero(a) && fp_rules::finite_nonzero(b),
                                    fp_rules::product_inexact(R(a), R(b), r));
    return f;
  }
};

template <>
struct fp_rule<::ufunc::ops::square> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    return fp_rule<::ufunc::ops::multiply>::flags(r, a, a);
  }
};

// A complex quotient by zero is NumPy's part by part: a finite nonzero part divided by
// zero is a pole, a zero part gives 0 / 0 (invalid), infinite and NaN parts raise
// nothing.
template <>
struct fp_rule<::ufunc::ops::divide> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    if constexpr (fp_rules::real_float<R>) {
      return fp_rules::at_pole(fp::generic(r, a, b), b == B(0)) |
             fp_rules::underflow_if(r, fp_rules::finite_nonzero(a) && fp_rules::finite_nonzero(b),
                                    fp_rules::product_inexact(r, R(b), R(a)));
    } else {
      if (!fp::is_zero(b)) return fp::generic(r, a, b);
      const auto part = [](auto x) { return fp_rules::finite_nonzero(x) ? fpe::divide : x == 0 ? fpe::invalid : 0u; };
      return part(a.real()) | part(a.imag());
    }
  }
};

// NumPy's npy_divmod, step by step where the steps raise flags: div = (a - fmod(a, b))
// / b overflows (and floor(inf) - inf is then invalid) or underflows; when the
// floored quotient is zero it takes the sign of a / b, which may underflow.
template <class T>
__device__ __forceinline__ unsigned float_quotient_flags(T a, T b) {
  if (!::isfinite(a) || !::isfinite(b) || b == T(0)) return 0;  // the generic rule and the pole
  const T mod = ::ufunc::ops::m::fmod(a, b);
  const T num = a - mod;
  T div = num / b;
  unsigned f = 0;
  if (::isinf(div))
    f |= fpe::overflow | fpe::invalid;
  else
    f |= fp_rules::underflow_if(div, num != T(0), fp_rules::product_inexact(div, b, num));
  if (mod != T(0) && (b < T(0)) != (mod < T(0))) div -= T(1);
  if (div == T(0) && a != T(0)) {
    const T q = a / b;
    f |= fp_rules::underflow_if(q, true, fp_rules::product_inexact(q, b, a));
  }
  return f;
}

// floor_divide, and divmod's pair (classified per output by the generic rule).
template <>
struct fp_rule<::ufunc::ops::floor_divide> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    if constexpr (std::is_integral_v<A>)
      return fp_rules::integer_division(a, b, true);
    else
      return fp_rules::at_pole(fp::generic(r, a, b), b == B(0)) | float_quotient_flags(a, b);
  }
};
template <>
struct fp_rule<::ufunc::ops::divmod> : fp_rule<::ufunc::ops::floor_divide> {};

// The float remainders give NaN for a zero divisor: the generic `invalid`.
template <>
struct fp_rule<::ufunc::ops::remainder> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    if constexpr (std::is_integral_v<R>)
      return fp_rules::integer_division(a, b, false);
    else
      return fp::generic(r, a, b);
  }
};
template <>
struct fp_rule<::ufunc::ops::fmod> : fp_rule<::ufunc::ops::remainder> {};

// Integers: 1 / 0 and its conversion (ops::reciprocal), divide and invalid.
template <>
struct fp_rule<::ufunc::ops::reciprocal> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    if constexpr (std::is_integral_v<R>)
      return a == A(0) ? fpe::divide | fpe::invalid : 0u;
    else if constexpr (fp_rules::real_float<R>)
      return fp_rules::at_pole(fp::generic(r, a), a == A(0)) |
             fp_rules::underflow_if(r, fp_rules::finite_nonzero(a), fp_rules::product_inexact(r, R(a), R(1)));
    else
      return fp_rules::at_pole(fp::generic(r, a), fp::is_zero(a));
  }
};

// Logarithms: log 0 is -inf with `divide`; log1p at -1. A complex logarithm of a finite
// argument is infinite only there (npy_clog scales huge arguments): every such infinity is
// the pole.
template <int Pole>
struct log_rule {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    if constexpr (fp::complex_parts<A>::value)
      return fp_rules::at_pole(fp::generic(r, a), true);
    else
      return fp_rules::at_pole(fp::generic(r, a), a == A(Pole));
  }
};
template <>
struct fp_rule<::ufunc::ops::log> : log_rule<0> {};
template <>
struct fp_rule<::ufunc::ops::log2> : log_rule<0> {};
template <>
struct fp_rule<::ufunc::ops::log10> : log_rule<0> {};
template <>
struct fp_rule<::ufunc::ops::log1p> : log_rule<-1> {};

// arctanh at +-1 and, for complex arguments, arctan at +-i are poles: a finite complex
// argument gives an infinity nowhere else.
template <>
struct fp_rule<::ufunc::ops::arctanh> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    if constexpr (fp::complex_parts<A>::value)
      return fp_rules::at_pole(fp::generic(r, a), true);
    else
      return fp_rules::at_pole(fp::generic(r, a), a == A(1) || a == A(-1));
  }
};
template <>
struct fp_rule<::ufunc::ops::arctan> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    return fp_rules::at_pole(fp::generic(r, a), fp::complex_parts<A>::value);
  }
};

// 0 ** negative is a pole (0 ** -inf too); a tiny nonzero power of finite operands
// is inexact. A signed integer power meets a negative exponent: the call raises
// value_error (fp_reports.cpp), as NumPy does.
template <>
struct fp_rule<::ufunc::ops::power> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    if constexpr (fp_rules::real_float<R>) {
      unsigned f = fp::generic(r, a, b);
      if (a == A(0) && b < B(0) && ::isinf(r)) f = (f & ~fpe::overflow) | fpe::divide;
      return f | fp_rules::underflow_if(r, fp_rules::finite_nonzero(a) && ::isfinite(b), true);
    } else if constexpr (std::is_integral_v<B> && std::is_signed_v<B>) {
      return b < B(0) ? fpe::negative_power : 0u;  // ops::power gave 0 (NEGATIVE_EXPONENT)
    } else {
      return fp::generic(r, a, b);
    }
  }
};
// float_power's 0 ** -inf is inf without a flag.
template <>
struct fp_rule<::ufunc::ops::float_power> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    if constexpr (fp_rules::real_float<R>) {
      if (a == A(0) && ::isinf(b)) return 0;
    }
    return fp_rule<::ufunc::ops::power>::flags(r, a, b);
  }
};

// NumPy's npy_logaddexp compares its operands with `>`, which raises `invalid` for a
// NaN, and computes log1p(exp(-|x - y|)), whose exp underflows for a large gap; x - y
// of finite operands of opposite signs near the largest number overflows, although the
// result (the larger operand) is finite.
template <bool Base2>
struct logaddexp_rule {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& x, const B& y) {
    if (x != x || y != y) return fpe::invalid;
    unsigned f = fp::generic(r, x, y);
    const R gap = x > y ? R(x - y) : R(y - x);
    if (::isinf(gap) && ::isfinite(x) && ::isfinite(y)) f |= fpe::overflow;
    if (x != y && ::isfinite(gap)) {
      const R e = Base2 ? ::cuda::std::exp2(-gap) : ::cuda::std::exp(-gap);
      f |= fp_rules::underflow_if(e, true, !Base2 || gap != ::cuda::std::trunc(gap));
    }
    return f;
  }
};
template <>
struct fp_rule<::ufunc::ops::logaddexp> : logaddexp_rule<false> {};
template <>
struct fp_rule<::ufunc::ops::logaddexp2> : logaddexp_rule<true> {};

// atan2(y, x) below the smallest normal number (y / x with |x| large) underflows, as
// glibc's does even where the result is exact.
template <>
struct fp_rule<::ufunc::ops::arctan2> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& y, const B& x) {
    return fp::generic(r, y, x) | (fp::is_tiny(r) && y != A(0) && ::isfinite(x) ? fpe::underflow : 0u);
  }
};

// sqrt(a^2 + b^2) below the smallest normal number, from two nonzero operands.
template <>
struct fp_rule<::ufunc::ops::hypot> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    return fp::generic(r, a, b) | (fp::is_tiny(r) && r != R(0) && a != A(0) && b != B(0) ? fpe::underflow : 0u);
  }
};

// NumPy's complex absolute (F->f, D->d) raises nothing: its loops clear the status word, so |z|
// beyond the largest finite number is inf without `overflow` (ops::absolute on the host likewise).
template <>
struct fp_rule<::ufunc::ops::absolute> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    if constexpr (fp::complex_parts<A>::value)
      return 0u;
    else
      return fp::generic(r, a);
  }
};

// The sign of a complex infinity is NaN without a flag in NumPy (z / |z|, inf / inf
// taken as a quiet NaN).
template <>
struct fp_rule<::ufunc::ops::sign> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    return fp::any_inf(a) ? 0u : fp::generic(r, a);
  }
};

// The ordered comparisons: the bool result says nothing (the generic rule), and real operands compare quietly,
// as NumPy's float loops. NumPy's complex ones (CLT & co.) evaluate C's signaling operators, so a NaN real part
// is `invalid`, and a NaN imaginary part where the real parts are equal (ops/comparison.hpp, which raises the
// same flag on the host).
struct ordered_comparison_rule {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R&, const A& a, const B& b) {
    if constexpr (fp::complex_parts<A>::value)
      return ::ufunc::ops::detail::complex_order_raises(a, b) ? fpe::invalid : 0u;
    else
      return 0u;
  }
};
template <>
struct fp_rule<::ufunc::ops::less> : ordered_comparison_rule {};
template <>
struct fp_rule<::ufunc::ops::less_equal> : ordered_comparison_rule {};
template <>
struct fp_rule<::ufunc::ops::greater> : ordered_comparison_rule {};
template <>
struct fp_rule<::ufunc::ops::greater_equal> : ordered_comparison_rule {};

// exp's tiny results are never exact; exp2's are for integral exponents.
template <>
struct fp_rule<::ufunc::ops::exp> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    unsigned f = fp::generic(r, a);
    if constexpr (fp_rules::real_float<R>) f |= fp_rules::underflow_if(r, ::isfinite(a), true);
    return f;
  }
};
template <>
struct fp_rule<::ufunc::ops::exp2> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    unsigned f = fp::generic(r, a);
    if constexpr (fp_rules::real_float<R>) f |= fp_rules::underflow_if(r, ::isfinite(a), a != ::cuda::std::trunc(a));
    return f;
  }
};

// Exact when scaling back gives the input (exponents beyond any float's range are
// clamped; they scale everything to zero or infinity anyway).
template <>
struct fp_rule<::ufunc::ops::ldexp> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& e) {
    const int back = e < B(-4096) ? 4096 : e > B(4096) ? -4096 : -static_cast<int>(e);
    const bool exact = r != R(0) && ::cuda::std::ldexp(r, back) == a;
    return fp::generic(r, a, e) | fp_rules::underflow_if(r, fp_rules::finite_nonzero(a), !exact);
  }
};

// Multiplications by a constant that is not a power of two: tiny results are inexact.
struct scaling_rule {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    return fp::generic(r, a) | fp_rules::underflow_if(r, fp_rules::finite_nonzero(a), true);
  }
};
template <>
struct fp_rule<::ufunc::ops::degrees> : scaling_rule {};
template <>
struct fp_rule<::ufunc::ops::radians> : scaling_rule {};
template <>
struct fp_rule<::ufunc::ops::rad2deg> : scaling_rule {};
template <>
struct fp_rule<::ufunc::ops::deg2rad> : scaling_rule {};

// A step into the subnormal range underflows; a step from the largest number to
// infinity overflows.
template <>
struct fp_rule<::ufunc::ops::nextafter> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    return fp::generic(r, a, b) | (::isinf(r) && ::isfinite(a) ? fpe::overflow : 0u) |
           (fp::is_tiny(r) && r != a ? fpe::underflow : 0u);
  }
};

// spacing(inf) is NaN without a flag; the spacing of a tiny number is subnormal.
template <>
struct fp_rule<::ufunc::ops::spacing> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    const unsigned f = ::isinf(a) ? 0u : fp::generic(r, a);
    return f | (fp::is_tiny(a) && a != A(0) ? fpe::underflow : 0u);
  }
};

// sin x rounds to x below the smallest normal number: inexact.
template <>
struct fp_rule<::ufunc::ops::sin> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    unsigned f = fp::generic(r, a);
    if constexpr (fp_rules::real_float<R>) f |= fp::is_tiny(a) && a != A(0) ? fpe::underflow : 0u;
    return f;
  }
};

// The operations computed on the 16-bit values themselves: what NumPy's npy_half functions
// (float16) and ml_dtypes' functors (bfloat16) raise; the host's overloads raise the same
// (ops/). Comparisons and extrema are quiet (the generic rule: a nan result only from a nan).
namespace fp_rules {
template <class T>
constexpr bool is_bfloat16 = std::is_same_v<T, bfloat16_t>;
template <class T>
__device__ __forceinline__ bool half_nan(const T& x) {
  return ::ufunc::ops::half_detail::is_nan(x);
}
}  // namespace fp_rules

// ml_dtypes' floored division: a zero divisor raises nothing; otherwise the generic rule.
struct half_floored_division_rule {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    return static_cast<float>(b) == 0.0f ? 0u : fp::generic(r, a, b);
  }
};
template <>
struct half_rule<::ufunc::ops::floor_divide> : half_floored_division_rule {};
template <>
struct half_rule<::ufunc::ops::remainder> : half_floored_division_rule {};
template <>
struct half_rule<::ufunc::ops::divmod> : half_floored_division_rule {};

// float16's steps report overflow into infinity (npy_half_nextafter, npy_half_spacing) and
// spacing(inf) invalid; bfloat16's nextafter is bit arithmetic, its spacing a float difference
// that is only invalid at the infinities.
template <>
struct half_rule<::ufunc::ops::nextafter> {
  template <class R, class A, class B>
  __device__ static unsigned flags(const R& r, const A& a, const B& b) {
    if constexpr (fp_rules::is_bfloat16<A>)
      return 0u;
    else
      return fp::any_inf(r) && !fp::any_inf(a) && !fp_rules::half_nan(a) ? fpe::overflow : 0u;
  }
};
template <>
struct half_rule<::ufunc::ops::spacing> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& a) {
    if (fp::any_inf(a)) return fpe::invalid;
    if constexpr (fp_rules::is_bfloat16<A>)
      return 0u;
    else
      return fp::any_inf(r) ? fpe::overflow : 0u;
  }
};

}  // namespace ufunc::backends::cuda
