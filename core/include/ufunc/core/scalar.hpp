// C++ scalars as ufunc operands. They are weakly typed, as Python scalars are under
// NumPy 2 (NEP 50): `add(a_float32, 2.5)` stays float32 and `add(a_uint8, 3)`
// stays uint8 (with an overflow_error for `add(a_uint8, 300)`). A strongly typed
// scalar is a 0-d array: `add(a_uint8, ufunc::scalar<std::int64_t>(3))` is int64.
#pragma once

#include <complex>
#include <limits>
#include <cstdint>
#include <type_traits>

#include <ufunc/core/dtype.hpp>

namespace ufunc {

namespace detail {
// Exact for every C++ integer type, signed or unsigned (GCC and Clang extension).
__extension__ using int128 = __int128;
}  // namespace detail

/// A weakly typed scalar: a value and its Python kind (bool, int, float, complex).
class weak_scalar {
 public:
  enum class kind : unsigned char { boolean, integer, floating, complex };

  constexpr weak_scalar(bool v) noexcept : kind_(kind::boolean), int_(v), real_(v) {}
  template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  constexpr weak_scalar(T v) noexcept : kind_(kind::integer), int_(v), real_(static_cast<double>(v)) {}
  template <class T>
    requires std::is_floating_point_v<T>
  constexpr weak_scalar(T v) noexcept : kind_(kind::floating), real_(static_cast<double>(v)) {}
  template <class T>
  constexpr weak_scalar(std::complex<T> v) noexcept
      : kind_(kind::complex), real_(static_cast<double>(v.real())), imag_(static_cast<double>(v.imag())) {}

  [[nodiscard]] constexpr kind value_kind() const noexcept { return kind_; }
  /// The dtype NumPy gives this scalar on its own: bool, int64 (uint64 from 2^63 up),
  /// float64, complex128.
  [[nodiscard]] constexpr dtype default_dtype() const noexcept {
    switch (kind_) {
      case kind::boolean: return bool_;
      case kind::integer: return int_ > std::numeric_limits<std::int64_t>::max() ? uint64 : int64;
      case kind::floating: return float64;
      case kind::complex: break;
    }
    return complex128;
  }
  /// Whether the integer value is representable in `t` (always true for non-integers).
  [[nodiscard]] bool fits(dtype t) const noexcept;
  /// Writes the value converted to `t` at `dst` (unsafe conversion; check fits() first).
  void store(dtype t, void* dst) const noexcept;
  /// Whether store() into the float or complex dtype `t` turns a finite value (or
  /// part) into an infinity: the one conversion error NumPy reports for a Python
  /// scalar, as "overflow encountered in cast" (an underflow to 0 is not reported).
  [[nodiscard]] bool overflows(dtype t) const noexcept;
  /// The value as Python would print it ("300", "2.5", "(1+2j)", "True").
  [[nodiscard]] std::string str() const;

 private:
  kind kind_;
  detail::int128 int_ = 0;
  double real_ = 0;
  double imag_ = 0;
};

template <class T>
inline constexpr bool is_weak_scalar_type =
    std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

}  // namespace ufunc
