// Run-time element types with NumPy's names and character codes, and the mapping
// from C++ element types to them.
//
//   ufunc::dtype t = ufunc::dtype_of<float>;   // float32
//   t.name();       // "float32"
//   t.char_code();  // 'f'
//   ufunc::dtype::from_string("int16");        // or "h"
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <ufunc/core/bfloat16.hpp>
#include <ufunc/core/float16.hpp>

namespace ufunc {

/// The kind letter NumPy reports in dtype.kind: b(ool), i(nt), u(nsigned), f(loat), c(omplex).
enum class dtype_kind : char { boolean = 'b', signed_int = 'i', unsigned_int = 'u', floating = 'f', complex = 'c' };

/// One element type. The ids follow NumPy's type-number order, which is also the
/// order NumPy lists loops in, so "first matching loop" searches agree with NumPy.
class dtype {
 public:
  enum class id : std::uint8_t {
    bool_,
    int8,
    uint8,
    int16,
    uint16,
    int32,
    uint32,
    int64,
    uint64,
    float16,
    bfloat16,
    float32,
    float64,
    complex64,
    complex128,
  };
  static constexpr int count = 15;

  constexpr dtype() noexcept = default;  // float64, NumPy's default dtype
  constexpr dtype(id i) noexcept : id_(i) {}

  [[nodiscard]] constexpr id type_id() const noexcept { return id_; }
  [[nodiscard]] constexpr int index() const noexcept { return static_cast<int>(id_); }
  [[nodiscard]] static constexpr dtype from_index(int i) noexcept { return dtype(static_cast<id>(i)); }

  [[nodiscard]] constexpr std::size_t itemsize() const noexcept { return info().itemsize; }
  [[nodiscard]] constexpr char char_code() const noexcept { return info().code; }
  [[nodiscard]] constexpr std::string_view name() const noexcept { return info().name; }
  [[nodiscard]] constexpr dtype_kind kind() const noexcept { return info().kind; }
  [[nodiscard]] constexpr bool is_integer() const noexcept {
    return kind() == dtype_kind::signed_int || kind() == dtype_kind::unsigned_int;
  }
  [[nodiscard]] constexpr bool is_floating() const noexcept { return kind() == dtype_kind::floating; }
  [[nodiscard]] constexpr bool is_complex() const noexcept { return kind() == dtype_kind::complex; }

  /// Parses a NumPy dtype name ("float32", "bool", "complex64") or character code ("f", "?", "F").
  /// Throws dtype_error for anything else.
  [[nodiscard]] static dtype from_string(std::string_view s);
  /// Parses one character code; throws dtype_error for an unknown or unsupported one.
  [[nodiscard]] static dtype from_char(char c);

  friend constexpr bool operator==(dtype a, dtype b) noexcept { return a.id_ == b.id_; }

 private:
  struct traits {
    std::string_view name;
    char code;
    std::size_t itemsize;
    dtype_kind kind;
  };
  // Character codes are NumPy's on LP64 platforms, where int64 is 'l' (C long).
  static constexpr traits table_[count] = {
      {"bool", '?', 1, dtype_kind::boolean},        {"int8", 'b', 1, dtype_kind::signed_int},
      {"uint8", 'B', 1, dtype_kind::unsigned_int},  {"int16", 'h', 2, dtype_kind::signed_int},
      {"uint16", 'H', 2, dtype_kind::unsigned_int}, {"int32", 'i', 4, dtype_kind::signed_int},
      {"uint32", 'I', 4, dtype_kind::unsigned_int}, {"int64", 'l', 8, dtype_kind::signed_int},
      {"uint64", 'L', 8, dtype_kind::unsigned_int}, {"float16", 'e', 2, dtype_kind::floating},
      {"bfloat16", 'E', 2, dtype_kind::floating},   {"float32", 'f', 4, dtype_kind::floating},
      {"float64", 'd', 8, dtype_kind::floating},    {"complex64", 'F', 8, dtype_kind::complex},
      {"complex128", 'D', 16, dtype_kind::complex},
  };
  [[nodiscard]] constexpr const traits& info() const noexcept { return table_[static_cast<int>(id_)]; }

  id id_ = id::float64;
};

// Named constants, as np.float32 etc.
inline constexpr dtype bool_{dtype::id::bool_};
inline constexpr dtype int8{dtype::id::int8};
inline constexpr dtype uint8{dtype::id::uint8};
inline constexpr dtype int16{dtype::id::int16};
inline constexpr dtype uint16{dtype::id::uint16};
inline constexpr dtype int32{dtype::id::int32};
inline constexpr dtype uint32{dtype::id::uint32};
inline constexpr dtype int64{dtype::id::int64};
inline constexpr dtype uint64{dtype::id::uint64};
inline constexpr dtype float16{dtype::id::float16};
inline constexpr dtype bfloat16{dtype::id::bfloat16};
inline constexpr dtype float32{dtype::id::float32};
inline constexpr dtype float64{dtype::id::float64};
inline constexpr dtype complex64{dtype::id::complex64};
inline constexpr dtype complex128{dtype::id::complex128};

namespace detail {
template <class T>
struct dtype_of_impl {};
// One line per type, a table (clang-format would spread each over four).
// clang-format off
template <> struct dtype_of_impl<bool> { static constexpr dtype value = bool_; };
template <> struct dtype_of_impl<signed char> { static constexpr dtype value = int8; };
template <> struct dtype_of_impl<unsigned char> { static constexpr dtype value = uint8; };
template <> struct dtype_of_impl<short> { static constexpr dtype value = int16; };
template <> struct dtype_of_impl<unsigned short> { static constexpr dtype value = uint16; };
template <> struct dtype_of_impl<int> { static constexpr dtype value = int32; };
template <> struct dtype_of_impl<unsigned int> { static constexpr dtype value = uint32; };
// Both C long and long long are 64-bit on LP64; both map to int64 so that
// std::int64_t and long long work alike.
template <> struct dtype_of_impl<long> { static constexpr dtype value = int64; };
template <> struct dtype_of_impl<long long> { static constexpr dtype value = int64; };
template <> struct dtype_of_impl<unsigned long> { static constexpr dtype value = uint64; };
template <> struct dtype_of_impl<unsigned long long> { static constexpr dtype value = uint64; };
template <> struct dtype_of_impl<float16_t> { static constexpr dtype value = float16; };
template <> struct dtype_of_impl<bfloat16_t> { static constexpr dtype value = bfloat16; };
template <> struct dtype_of_impl<float> { static constexpr dtype value = float32; };
template <> struct dtype_of_impl<double> { static constexpr dtype value = float64; };
template <> struct dtype_of_impl<std::complex<float>> { static constexpr dtype value = complex64; };
template <> struct dtype_of_impl<std::complex<double>> { static constexpr dtype value = complex128; };
// clang-format on

template <class T, class = void>
struct has_dtype : std::false_type {};
template <class T>
struct has_dtype<T, std::void_t<decltype(dtype_of_impl<T>::value)>> : std::true_type {};
}  // namespace detail

/// True for the C++ types that are ufunc element types (bool, fixed-width integers,
/// float16_t, bfloat16_t, float, double, std::complex<float>, std::complex<double>). Plain `char`, whose
/// signedness is implementation-defined, and `long double` are not.
template <class T>
inline constexpr bool is_element_type = detail::has_dtype<std::remove_cv_t<T>>::value;

/// The dtype of a C++ element type.
template <class T>
requires is_element_type<T>
inline constexpr dtype dtype_of = detail::dtype_of_impl<std::remove_cv_t<T>>::value;

/// Calls f(T{}) with the C++ type T of a run-time dtype; the one switch every
/// type-generic routine uses.
template <class F>
decltype(auto) visit_dtype(dtype t, F&& f) {
  // One line per dtype, a table.
  // clang-format off
  switch (t.type_id()) {
    case dtype::id::bool_: return f(bool{});
    case dtype::id::int8: return f(std::int8_t{});
    case dtype::id::uint8: return f(std::uint8_t{});
    case dtype::id::int16: return f(std::int16_t{});
    case dtype::id::uint16: return f(std::uint16_t{});
    case dtype::id::int32: return f(std::int32_t{});
    case dtype::id::uint32: return f(std::uint32_t{});
    case dtype::id::int64: return f(std::int64_t{});
    case dtype::id::uint64: return f(std::uint64_t{});
    case dtype::id::float16: return f(float16_t{});
    case dtype::id::bfloat16: return f(bfloat16_t{});
    case dtype::id::float32: return f(float{});
    case dtype::id::float64: return f(double{});
    case dtype::id::complex64: return f(std::complex<float>{});
    case dtype::id::complex128: break;
  }
  // clang-format on
  return f(std::complex<double>{});
}

}  // namespace ufunc
