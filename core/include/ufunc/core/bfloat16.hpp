// ufunc::bfloat16_t: the element type of the dtype ufunc::bfloat16, the top half of a float (8 exponent bits, 7
// fraction bits), as ml_dtypes.bfloat16 (JAX's, Eigen's) defines it: float -> bfloat16 rounds to nearest, ties to even,
// and a NaN becomes the quiet NaN 0x7fc0 with its sign; a double goes through float first (two roundings, as ml_dtypes
// converts it); bfloat16 -> float is exact. Where it differs from float16: float's range (no overflow from float,
// ~3.4e38) with 8 significant bits instead of 11, and NaN payloads are not kept.
//
//   ufunc::bfloat16_t b(1.0f / 3.0f);                // 0x3eab: 0.333984375
//   float f = static_cast<float>(b);
//
#pragma once

#include <bit>
#include <cstdint>

#include <ufunc/core/config.hpp>

namespace ufunc {

namespace bfloat16_bits {

/// float bits -> bfloat16 bits, rounded to nearest even; NaN -> quiet NaN (sign kept).
[[nodiscard]] UFUNC_HOST_DEVICE constexpr std::uint16_t from_float_bits(std::uint32_t f) noexcept {
  if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>(((f >> 16) & 0x8000u) | 0x7fc0u);
  return static_cast<std::uint16_t>((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

/// bfloat16 bits -> float bits, exactly.
[[nodiscard]] UFUNC_HOST_DEVICE constexpr std::uint32_t to_float_bits(std::uint16_t b) noexcept {
  return static_cast<std::uint32_t>(b) << 16;
}

}  // namespace bfloat16_bits

/// ml_dtypes' bfloat16.
class bfloat16_t {
 public:
  constexpr bfloat16_t() noexcept = default;
  UFUNC_HOST_DEVICE constexpr explicit bfloat16_t(float v) noexcept
      : bits_(bfloat16_bits::from_float_bits(std::bit_cast<std::uint32_t>(v))) {}
  UFUNC_HOST_DEVICE constexpr explicit bfloat16_t(double v) noexcept : bfloat16_t(static_cast<float>(v)) {}

  [[nodiscard]] UFUNC_HOST_DEVICE static constexpr bfloat16_t from_bits(std::uint16_t bits) noexcept {
    bfloat16_t b;
    b.bits_ = bits;
    return b;
  }
  [[nodiscard]] UFUNC_HOST_DEVICE constexpr std::uint16_t bits() const noexcept { return bits_; }

  UFUNC_HOST_DEVICE constexpr explicit operator float() const noexcept {
    return std::bit_cast<float>(bfloat16_bits::to_float_bits(bits_));
  }
  UFUNC_HOST_DEVICE constexpr explicit operator double() const noexcept {
    return static_cast<double>(static_cast<float>(*this));
  }

 private:
  std::uint16_t bits_ = 0;
};

}  // namespace ufunc
