// ufunc::float16_t: the element type of the dtype ufunc::float16, IEEE 754 binary16, NumPy's float16 ('e'): its bits,
// and conversions to and from float and double with NumPy's rounding (to nearest, ties to even; too large to infinity;
// a NaN keeps the top bits of its payload and stays a NaN, as NumPy's npy_floatbits_to_halfbits; a double is rounded
// once, not through float). Arithmetic is the caller's, in float, as NumPy computes float16 (then one rounding back):
//
//   ufunc::float16_t h(0.1f);                        // 0x2e66: 0.0999755859375
//   float f = static_cast<float>(h) * 3.0f;        // computed in float
//   ufunc::float16_t r(f);                           // rounded once
//
// The library's float16 loops compute this way (ufuncs/src/half_loops.hpp). constexpr and
// usable in device code.
#pragma once

#include <bit>
#include <cstdint>

#include <ufunc/core/config.hpp>

namespace ufunc {

namespace half_bits {

/// float bits -> binary16 bits, rounded to nearest even.
[[nodiscard]] UFUNC_HOST_DEVICE constexpr std::uint16_t from_float_bits(std::uint32_t f) noexcept {
  const auto sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
  const std::uint32_t a = f & 0x7fffffffu;
  if (a >= 0x7f800000u) {  // infinity, NaN
    if (a == 0x7f800000u) return sign | 0x7c00u;
    const auto h = static_cast<std::uint16_t>(0x7c00u | ((a & 0x007fffffu) >> 13));
    return sign | (h == 0x7c00u ? 0x7c01u : h);  // the payload's top bits, still a NaN
  }
  if (a >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and above round to infinity
  if (a >= 0x38800000u) {                       // a normal binary16 (2^-14 and above)
    std::uint32_t v = a - 0x38000000u;          // exponent rebiased from 127 to 15
    v += 0x0fffu + ((v >> 13) & 1u);            // round the 13 dropped bits, ties to even
    return sign | static_cast<std::uint16_t>(v >> 13);
  }
  if (a <= 0x33000000u) return sign;  // 2^-25 and below: zero (2^-25 is a tie, to even)
  // A subnormal binary16: the 24-bit significand shifted to units of 2^-24.
  const std::uint32_t m = (a & 0x007fffffu) | 0x00800000u;
  const std::uint32_t shift = 126u - (a >> 23);  // 14 .. 24
  const std::uint32_t rest = m & ((1u << shift) - 1u), tie = 1u << (shift - 1u);
  std::uint32_t h = m >> shift;
  h += (rest > tie || (rest == tie && (h & 1u))) ? 1u : 0u;
  return sign | static_cast<std::uint16_t>(h);
}

/// double bits -> binary16 bits, rounded once to nearest even (NumPy's npy_doublebits_to_halfbits).
[[nodiscard]] UFUNC_HOST_DEVICE constexpr std::uint16_t from_double_bits(std::uint64_t d) noexcept {
  const auto sign = static_cast<std::uint16_t>((d >> 48) & 0x8000u);
  const std::uint64_t a = d & 0x7fffffffffffffffull;
  if (a >= 0x7ff0000000000000ull) {
    if (a == 0x7ff0000000000000ull) return sign | 0x7c00u;
    const auto h = static_cast<std::uint16_t>(0x7c00u | ((a & 0x000fffffffffffffull) >> 42));
    return sign | (h == 0x7c00u ? 0x7c01u : h);
  }
  if (a >= 0x40effe0000000000ull) return sign | 0x7c00u;  // 65520 and above
  if (a >= 0x3f10000000000000ull) {                       // 2^-14 and above
    std::uint64_t v = a - 0x3f00000000000000ull;          // exponent rebiased from 1023 to 15
    v += 0x1ffffffffffull + ((v >> 42) & 1u);
    return sign | static_cast<std::uint16_t>(v >> 42);
  }
  if (a <= 0x3e60000000000000ull) return sign;  // 2^-25 and below
  const std::uint64_t m = (a & 0x000fffffffffffffull) | 0x0010000000000000ull;
  const std::uint64_t shift = 1051u - (a >> 52);  // 43 .. 53
  const std::uint64_t rest = m & ((std::uint64_t{1} << shift) - 1u), tie = std::uint64_t{1} << (shift - 1u);
  std::uint64_t h = m >> shift;
  h += (rest > tie || (rest == tie && (h & 1u))) ? 1u : 0u;
  return sign | static_cast<std::uint16_t>(h);
}

/// binary16 bits -> float bits, exactly (a NaN's payload kept).
[[nodiscard]] UFUNC_HOST_DEVICE constexpr std::uint32_t to_float_bits(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  std::uint32_t m = h & 0x3ffu;
  if (e == 0x1fu) return sign | 0x7f800000u | (m << 13);
  if (e != 0) return sign | ((e + 112u) << 23) | (m << 13);
  if (m == 0) return sign;
  std::uint32_t exponent = 113u;  // normalize the subnormal: m * 2^-24
  while ((m & 0x400u) == 0) {
    m <<= 1;
    --exponent;
  }
  return sign | (exponent << 23) | ((m & 0x3ffu) << 13);
}

/// binary16 bits -> double bits, exactly.
[[nodiscard]] UFUNC_HOST_DEVICE constexpr std::uint64_t to_double_bits(std::uint16_t h) noexcept {
  const std::uint32_t f = to_float_bits(h);
  const std::uint64_t sign = static_cast<std::uint64_t>(f & 0x80000000u) << 32;
  const std::uint32_t e = (f >> 23) & 0xffu, m = f & 0x007fffffu;
  if (e == 0xffu) return sign | 0x7ff0000000000000ull | (static_cast<std::uint64_t>(m) << 29);
  if (e == 0) return sign;  // only zeros: binary16 subnormals are normal floats
  return sign | (static_cast<std::uint64_t>(e + 896u) << 52) | (static_cast<std::uint64_t>(m) << 29);
}

/// What NumPy's rounding of `in` to the binary16 `out` reports (npy_floatbits_to_halfbits):
/// overflow where a finite value became infinite, underflow where a nonzero value below
/// 2^-14 lost bits. The host loops raise these as floating-point flags.
struct narrowing_status {
  bool overflow = false;
  bool underflow = false;
};
[[nodiscard]] UFUNC_HOST_DEVICE constexpr narrowing_status narrowing_flags(double in, std::uint16_t out) noexcept {
  narrowing_status s;
  if (in != in) return s;  // before any ordered comparison, which would raise invalid for a NaN
  const double a = in < 0 ? -in : in;
  s.overflow = (out & 0x7fffu) == 0x7c00u && a <= 1.7976931348623157e308;
  s.underflow = a > 0 && a < 0x1p-14 && std::bit_cast<double>(to_double_bits(out)) != in;
  return s;
}

/// float -> binary16 bits: on a GPU by its conversion instruction (the same rounding; NaNs
/// through the bits, which the instruction would make its canonical NaN).
[[nodiscard]] UFUNC_HOST_DEVICE constexpr std::uint16_t from_float(float v) noexcept {
#if defined(__CUDA_ARCH__)
  if (!__builtin_is_constant_evaluated() && v == v) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
  }
#endif
  return from_float_bits(std::bit_cast<std::uint32_t>(v));
}

/// binary16 bits -> float: on a GPU by its conversion instruction (infinities and NaNs
/// through the bits, keeping a NaN's payload).
[[nodiscard]] UFUNC_HOST_DEVICE constexpr float to_float(std::uint16_t h) noexcept {
#if defined(__CUDA_ARCH__)
  if (!__builtin_is_constant_evaluated() && (h & 0x7c00u) != 0x7c00u) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
  }
#endif
  return std::bit_cast<float>(to_float_bits(h));
}

}  // namespace half_bits

/// NumPy's float16 scalar: a binary16 value (the element type of the dtype ufunc::float16).
class float16_t {
 public:
  constexpr float16_t() noexcept = default;
  UFUNC_HOST_DEVICE constexpr explicit float16_t(float v) noexcept : bits_(half_bits::from_float(v)) {}
  UFUNC_HOST_DEVICE constexpr explicit float16_t(double v) noexcept
      : bits_(half_bits::from_double_bits(std::bit_cast<std::uint64_t>(v))) {}

  /// The value with these bits.
  [[nodiscard]] UFUNC_HOST_DEVICE static constexpr float16_t from_bits(std::uint16_t bits) noexcept {
    float16_t h;
    h.bits_ = bits;
    return h;
  }
  [[nodiscard]] UFUNC_HOST_DEVICE constexpr std::uint16_t bits() const noexcept { return bits_; }

  UFUNC_HOST_DEVICE constexpr explicit operator float() const noexcept { return half_bits::to_float(bits_); }
  UFUNC_HOST_DEVICE constexpr explicit operator double() const noexcept {
    return std::bit_cast<double>(half_bits::to_double_bits(bits_));
  }

  /// Bitwise identity (NaNs with the same bits are equal; +0 and -0 are not).
  [[nodiscard]] UFUNC_HOST_DEVICE friend constexpr bool same_bits(float16_t a, float16_t b) noexcept {
    return a.bits_ == b.bits_;
  }

 private:
  std::uint16_t bits_ = 0;
};

}  // namespace ufunc
