// Bitwise ufuncs: bitwise_and, bitwise_or, bitwise_xor, invert, left_shift,
// right_shift, bitwise_count (NumPy 2 semantics, npy_math_internal.h.src).
#pragma once

#include <bit>

#include <ufunc/ufuncs/ops/common.hpp>

#if defined(__CUDACC__)
#include <cuda/std/bit>
#endif

namespace ufunc::ops {

namespace detail {
template <class T>
concept bool_or_integer = boolean<T> || integer<T>;

template <integer T>
inline constexpr unsigned bit_width_of = sizeof(T) * 8;

// The count is compared in the unsigned type, so negative counts are out of range too (npy_lshift/npy_rshift).
template <integer T>
UFUNC_HOST_DEVICE constexpr bool shift_in_range(T b) {
  return wrap_t<T>(b) < bit_width_of<T>;
}
}  // namespace detail

// On bool these are the logical operations; converting the int result back to bool keeps them so.
struct bitwise_and {
  template <detail::bool_or_integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return T(a & b);
  }
};
struct bitwise_or {
  template <detail::bool_or_integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return T(a | b);
  }
};
struct bitwise_xor {
  template <detail::bool_or_integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return T(a ^ b);
  }
};

struct invert {
  template <boolean T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return !a;
  }
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return T(~a);
  }
};

struct left_shift {
  // Shifted in the unsigned type, where bits shifted out are simply lost: the two's complement wrap NumPy gives.
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return detail::shift_in_range(b) ? T(wrap_t<T>(a) << b) : T(0);
  }
};

struct right_shift {
  // Shifting a negative value by the width or more keeps only the sign: -1.
  template <integer T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    if (detail::shift_in_range(b)) return T(a >> b);
    if constexpr (signed_integer<T>) return a < 0 ? T(-1) : T(0);
    return T(0);
  }
};

struct bitwise_count {
  // Counts the bits of |a|; |min| wraps to 2^(width-1) in the unsigned type, one bit, as NumPy's -a does.
  template <integer T>
  UFUNC_HOST_DEVICE std::uint8_t operator()(T a) const {
    wrap_t<T> u = wrap_t<T>(a);
    if constexpr (signed_integer<T>) u = a < 0 ? wrap_t<T>(wrap_t<T>(0) - u) : u;
    return std::uint8_t(m::popcount(u));
  }
};

}  // namespace ufunc::ops
