// Comparison ufuncs: greater, greater_equal, less, less_equal, equal, not_equal,
// logical_and, logical_or, logical_xor, logical_not, maximum, minimum, fmax, fmin
// (NumPy 2 semantics, loops.c.src and loops_minmax).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <ufunc/ufuncs/ops/common.hpp>
#include <ufunc/ufuncs/ops/floating.hpp>

namespace ufunc::ops {

namespace detail {
// The ordered comparisons on the host are IEEE 754's quiet predicates: C++'s `<` on a NaN operand raises
// `invalid` on x86 (comiss, cmpltps), and NumPy's real comparison and min/max loops report nothing for NaN.
// Floats are compared as integers: their bit patterns, mapped so that the integers order as the numbers do
// (-0 as +0), NaN told apart by its magnitude. Neither std::isless nor a NaN-guarded `<` is enough: GCC's
// vectorizer turns both into SSE's signaling cmpltps/cmpnltps (it did in the reductions' lane combine), and
// integer instructions raise nothing whatever a compiler makes of them. The device has no flags to raise.
enum class order { less, less_equal };

template <order O, class T, class U>
UFUNC_HOST_DEVICE constexpr bool ordered(T a, U b) {
#if !defined(__CUDA_ARCH__)
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<T, U> && (sizeof(T) == 4 || sizeof(T) == 8)) {
    using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    constexpr I magnitude = std::numeric_limits<I>::max();
    constexpr I infinity = std::bit_cast<I>(std::numeric_limits<T>::infinity());
    const I ia = std::bit_cast<I>(a), ib = std::bit_cast<I>(b);
    const I ma = ia & magnitude, mb = ib & magnitude;
    const I ka = ia < 0 ? -ma : ma, kb = ib < 0 ? -mb : mb;
    return (ma <= infinity) & (mb <= infinity) & (O == order::less ? ka < kb : ka <= kb);
  }
#endif
  if constexpr (O == order::less)
    return a < b;
  else
    return a <= b;
}

struct op_gt {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return ordered<order::less>(b, a);
  }
};
struct op_ge {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return ordered<order::less_equal>(b, a);
  }
};
struct op_lt {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return ordered<order::less>(a, b);
  }
};
struct op_le {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return ordered<order::less_equal>(a, b);
  }
};
struct op_eq {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return a == b;
  }
};
struct op_ne {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return a != b;
  }
};

// NumPy's lexicographic order of complex numbers (CGT/CGE/CLT/CLE): the order of the real parts counts only
// if neither imaginary part is nan. Op orders the imaginary parts, Strict the real ones. Quiet.
template <class Op, class Strict>
struct lexicographic {
  template <complex_number T>
  UFUNC_HOST_DEVICE bool operator()(const T& a, const T& b) const {
    return (Strict{}(a.real(), b.real()) && !m::isnan(a.imag()) && !m::isnan(b.imag())) ||
           (a.real() == b.real() && Op{}(a.imag(), b.imag()));
  }
};

// NumPy's complex comparisons evaluate that order with C's operators, which raise `invalid` on x86 for a NaN
// operand: the real parts always meet, the imaginary parts where the real parts are equal. So
// less(nan+0j, 1+0j) warns where less(nan, 1.0) does not (NumPy 2.4.6).
template <complex_number T>
UFUNC_HOST_DEVICE bool complex_order_raises(const T& a, const T& b) {
  return m::isnan(a.real()) || m::isnan(b.real()) ||
         (a.real() == b.real() && (m::isnan(a.imag()) || m::isnan(b.imag())));
}

// Op on reals. Integers of different types (NumPy 2's int64/uint64 loops) are compared mathematically, not
// after C's conversion to unsigned: the signs first, then the values, which then fit in uint64.
// Complex numbers are ordered lexicographically, raising `invalid` where NumPy's loops do. Strict is the strict
// order on the real parts (void for == and !=, which compare both parts).
template <class Op, class Strict>
struct comparison {
  template <real T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    return Op{}(a, b);
  }
  // Quiet, as npy_half_lt and NumPy's float loops. (ml_dtypes compares bfloat16 as floats in
  // C++, whose flag at a nan depends on how its wheel was compiled: raised by one build, not
  // by another; the differential tests do not compare that flag.)
  template <half_precision T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    return Op{}(static_cast<float>(a), static_cast<float>(b));
  }
  template <integer T, integer U>
  UFUNC_HOST_DEVICE bool operator()(T a, U b) const {
    const bool na = negative(a), nb = negative(b);
    return na != nb ? Op{}(!na, !nb) : Op{}(std::uint64_t(a), std::uint64_t(b));
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    if constexpr (std::is_void_v<Strict>) {
      return Op{}(a, b);
    } else {
      if (complex_order_raises(a, b)) raise_fp(fp_flag::invalid);
      return lexicographic<Op, Strict>{}(a, b);
    }
  }

 private:
  template <integer T>
  UFUNC_HOST_DEVICE static constexpr bool negative(T a) {
    if constexpr (signed_integer<T>) return a < 0;
    return false;
  }
};
}  // namespace detail

struct greater : detail::comparison<detail::op_gt, detail::op_gt> {};
struct greater_equal : detail::comparison<detail::op_ge, detail::op_gt> {};
struct less : detail::comparison<detail::op_lt, detail::op_lt> {};
struct less_equal : detail::comparison<detail::op_le, detail::op_lt> {};
struct equal : detail::comparison<detail::op_eq, void> {};
struct not_equal : detail::comparison<detail::op_ne, void> {};

namespace detail {
// NumPy's truth of an element: nonzero, nan included; a complex number is true if either part is.
template <scalar T>
UFUNC_HOST_DEVICE constexpr bool truth(T a) {
  if constexpr (complex_number<T>) {
    return a.real() != 0 || a.imag() != 0;
  } else {
    return a != 0;
  }
}
}  // namespace detail

// Both operands evaluated (& and |, not && and ||): a short-circuit is a branch per element,
// mispredicted half the time on random data, and keeps the compiler from vectorizing the loop.
struct logical_and {
  template <scalar T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    return static_cast<bool>(detail::truth(a) & detail::truth(b));
  }
};
struct logical_or {
  template <scalar T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    return static_cast<bool>(detail::truth(a) | detail::truth(b));
  }
};
struct logical_xor {
  template <scalar T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    return detail::truth(a) != detail::truth(b);
  }
};
struct logical_not {
  template <scalar T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return !detail::truth(a);
  }
};

namespace detail {
// a if KeepA(a, b) or if a is nan (Propagate: maximum's nan is the first one met), else b; without Propagate
// the nan test is on b, so a nan loses to a number. Ties (0.0 and -0.0) go as in NumPy on x86-64: to b in real
// maximum/minimum, to a in the complex loops; real fmax/fmin ties vary there with the SIMD path taken, and go to
// a here, as in NumPy's one-element loop.
// float16 and bfloat16 compare their numbers only (no flag for a nan): ties to a in float16
// (npy_half_ge / npy_half_le, HalfKeepA), to b in bfloat16 (ml_dtypes' strict comparison,
// RealKeepA of maximum / minimum).
template <class RealKeepA, class ComplexKeepA, bool Propagate, class HalfKeepA = RealKeepA,
          class StrictKeepA = RealKeepA>
struct extremum {
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    if (half_detail::is_nan(Propagate ? a : b)) return a;
    if (half_detail::is_nan(Propagate ? b : a)) return b;
    using keep_a = std::conditional_t<std::is_same_v<T, float16_t>, HalfKeepA, StrictKeepA>;
    return keep_a{}(static_cast<float>(a), static_cast<float>(b)) ? a : b;
  }
  template <real T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return (ops::isnan{}(Propagate ? a : b) || RealKeepA{}(a, b)) ? a : b;
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return (ops::isnan{}(Propagate ? a : b) || ComplexKeepA{}(a, b)) ? a : b;
  }
};
}  // namespace detail

// Quiet, as NumPy's loops (they clear the flags their comparisons raise).
struct maximum
    : detail::extremum<detail::op_gt, detail::lexicographic<detail::op_ge, detail::op_gt>, true, detail::op_ge> {};
struct minimum
    : detail::extremum<detail::op_lt, detail::lexicographic<detail::op_le, detail::op_lt>, true, detail::op_le> {};
struct fmax : detail::extremum<detail::op_ge, detail::lexicographic<detail::op_ge, detail::op_gt>, false, detail::op_ge,
                               detail::op_gt> {};
struct fmin : detail::extremum<detail::op_le, detail::lexicographic<detail::op_le, detail::op_lt>, false, detail::op_le,
                               detail::op_lt> {};

}  // namespace ufunc::ops
