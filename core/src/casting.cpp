#include <ufunc/core/casting.hpp>

#include <cfenv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include <ufunc/core/detail/convert.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc {

std::string_view to_string(casting c) noexcept {
  switch (c) {
    case casting::no:
      return "no";
    case casting::equiv:
      return "equiv";
    case casting::safe:
      return "safe";
    case casting::same_kind:
      return "same_kind";
    case casting::unsafe:
      break;
  }
  return "unsafe";
}

casting casting_from_string(std::string_view s) {
  for (auto c : {casting::no, casting::equiv, casting::safe, casting::same_kind, casting::unsafe})
    if (to_string(c) == s) return c;
  throw value_error("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe', not '" + std::string(s) +
                    "'");
}

namespace {

// Kinds in the order same_kind casting may climb.
int kind_rank(dtype t) noexcept {
  switch (t.kind()) {
    case dtype_kind::boolean:
      return 0;
    case dtype_kind::unsigned_int:
      return 1;
    case dtype_kind::signed_int:
      return 2;
    case dtype_kind::floating:
      return 3;
    case dtype_kind::complex:
      break;
  }
  return 4;
}

// NumPy's rule for integers to inexact types: the smallest float that holds the
// integer size exactly is safe, and so is float64 for every integer (int64 ->
// float64 counts as safe although 53 bits is less than 64).
// float16 holds the integers of one byte.
bool integer_to_inexact_is_safe(std::size_t int_size, dtype to) noexcept {
  if (to == float16) return int_size <= 1;
  const bool single_precision = to == float32 || to == complex64;
  return !single_precision || int_size <= 2;
}

bool can_cast_safely(dtype from, dtype to) noexcept {
  if (from == to || from == bool_) return true;
  if (to == bool_) return false;
  // ml_dtypes' bfloat16 registers its safe casts: from bool, int8 and uint8, to float32,
  // float64 and the complex types; never to or from float16.
  if (from == bfloat16) return to == float32 || to == float64 || to.is_complex();
  if (to == bfloat16) return from.itemsize() == 1;
  const auto fs = from.itemsize(), ts = to.itemsize();
  switch (from.kind()) {
    case dtype_kind::signed_int:
      if (to.kind() == dtype_kind::signed_int) return ts >= fs;
      if (to.kind() == dtype_kind::unsigned_int) return false;
      return integer_to_inexact_is_safe(fs, to);
    case dtype_kind::unsigned_int:
      if (to.kind() == dtype_kind::unsigned_int) return ts >= fs;
      if (to.kind() == dtype_kind::signed_int) return ts > fs;
      return integer_to_inexact_is_safe(fs, to);
    case dtype_kind::floating:
      if (to.kind() == dtype_kind::floating) return ts >= fs;
      if (to.kind() == dtype_kind::complex) return ts >= 2 * fs;
      return false;
    case dtype_kind::complex:
      return to.kind() == dtype_kind::complex && ts >= fs;
    case dtype_kind::boolean:
      break;
  }
  return true;
}

}  // namespace

bool can_cast(dtype from, dtype to, casting rule) noexcept {
  switch (rule) {
    case casting::no:
    case casting::equiv:
      return from == to;
    case casting::safe:
      return can_cast_safely(from, to);
    case casting::same_kind:
      // ml_dtypes lets every dtype cast to bfloat16 same_kind, and bfloat16 only safely.
      if (from == bfloat16) return can_cast_safely(from, to);
      return to == bfloat16 || can_cast_safely(from, to) || kind_rank(from) <= kind_rank(to);
    case casting::unsafe:
      break;
  }
  return true;
}

dtype promote_types(dtype a, dtype b) noexcept {
  if (a == b) return a;  // the common case, without the search
  // Type ids are ordered so that the first dtype both cast to safely is the
  // smallest common one, which is NumPy's answer for every pair of these dtypes
  // (but bfloat16 with float16 or an integer wider than a byte, where NumPy's
  // promote_types finds no common dtype; this gives what a ufunc's loop search finds
  // there: float32, or float64 with the 32- and 64-bit integers).
  for (int i = 0; i < dtype::count; ++i) {
    const auto t = dtype::from_index(i);
    if (can_cast_safely(a, t) && can_cast_safely(b, t)) return t;
  }
  return complex128;
}

namespace {

using detail::convert;
using detail::invalid_int_cast;
using detail::invalid_int_result;

template <class From, class To>
void cast_loop(const std::byte* src, std::int64_t src_step, std::byte* dst, std::int64_t dst_step, std::int64_t n) {
  constexpr bool float_to_int =
      (std::is_floating_point_v<From> || detail::is_half<From> || detail::is_complex<From>::value) &&
      std::is_integral_v<To> && !std::is_same_v<To, bool>;
  bool invalid = false, overflow = false, underflow = false;
  for (std::int64_t i = 0; i < n; ++i) {
    From v;
    std::memcpy(&v, src + i * src_step, sizeof(From));
    To r;
    if constexpr (float_to_int) {
      double d;
      if constexpr (detail::is_complex<From>::value)
        d = static_cast<double>(v.real());
      else
        d = static_cast<double>(v);
      const bool bad = invalid_int_cast<To>(d);
      invalid |= bad;
      r = bad ? invalid_int_result<To>(d) : convert<To>(v);
    } else {
      r = convert<To>(v);
    }
    if constexpr (std::is_same_v<To, float16_t> && !std::is_same_v<From, bool>) {
      // NumPy's rounding to float16 reports overflow and underflow in software.
      const auto s = half_bits::narrowing_flags(convert<double>(v), r.bits());
      overflow |= s.overflow;
      underflow |= s.underflow;
    }
    std::memcpy(dst + i * dst_step, &r, sizeof(To));
  }
  if (invalid) std::feraiseexcept(FE_INVALID);
  if (overflow) std::feraiseexcept(FE_OVERFLOW);
  if (underflow) std::feraiseexcept(FE_UNDERFLOW);
}

}  // namespace

cast_loop_fn get_cast_loop(dtype from, dtype to) noexcept {
  return visit_dtype(from, [&](auto f) {
    return visit_dtype(to, [&](auto t) -> cast_loop_fn { return &cast_loop<decltype(f), decltype(t)>; });
  });
}

}  // namespace ufunc
