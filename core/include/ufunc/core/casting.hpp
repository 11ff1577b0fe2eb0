// NumPy's casting rules and type promotion for the built-in dtypes, and the strided
// conversion loops used to buffer operands whose dtype differs from a loop's.
#pragma once

#include <cstdint>
#include <string_view>

#include <ufunc/core/dtype.hpp>

namespace ufunc {

/// How permissive a conversion may be, as NumPy's `casting=` argument.
enum class casting : unsigned char {
  no,         ///< identical dtypes only
  equiv,      ///< identical up to byte order (the same as `no` here: native order only)
  safe,       ///< every value is preserved (int16 -> float32, float32 -> float64)
  same_kind,  ///< safe, or within a kind or towards a higher kind (float64 -> float32); the default
  unsafe,     ///< anything
};

[[nodiscard]] std::string_view to_string(casting c) noexcept;
/// Parses "no", "equiv", "safe", "same_kind" or "unsafe"; throws value_error otherwise.
[[nodiscard]] casting casting_from_string(std::string_view s);

/// np.can_cast(from, to, casting) for dtypes.
[[nodiscard]] bool can_cast(dtype from, dtype to, casting rule = casting::safe) noexcept;

/// np.promote_types(a, b): the smallest dtype both cast to safely.
[[nodiscard]] dtype promote_types(dtype a, dtype b) noexcept;

/// Converts n elements of `from` at src (byte stride src_step) to `to` at dst (byte
/// stride dst_step). Conversions follow C++ value conversion with NumPy's choices
/// where C++ has undefined behaviour: complex to real drops the imaginary part,
/// NaN and out-of-range floats to integers give the minimum of int64 truncated to the
/// target width (what x86 NumPy builds produce), never undefined behaviour.
using cast_loop_fn = void (*)(const std::byte* src, std::int64_t src_step, std::byte* dst, std::int64_t dst_step,
                              std::int64_t n);
[[nodiscard]] cast_loop_fn get_cast_loop(dtype from, dtype to) noexcept;

}  // namespace ufunc
