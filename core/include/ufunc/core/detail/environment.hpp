// Settings read from environment variables (UFUNC_PARALLEL_GRAIN, UFUNC_STREAMING_BYTES, ...),
// parsed one way everywhere: a variable that is set must be a whole decimal integer.
#pragma once

#include <cstdint>
#include <optional>

namespace ufunc::detail {

/// The integer in environment variable `name`: nothing if it is unset or empty; throws
/// target_error naming the variable and its text if that is not a decimal integer of at
/// least `min`.
///
///     const auto grain = environment_integer("UFUNC_PARALLEL_GRAIN", 1).value_or(32768);
[[nodiscard]] std::optional<std::int64_t> environment_integer(const char* name, std::int64_t min);

}  // namespace ufunc::detail
