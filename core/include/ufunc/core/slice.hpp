// NumPy-style indices for array::operator[]: integers, slices with steps, newaxis.
//
//   a[{ufunc::slice{}, 3}]                     // a[:, 3]
//   a[{ufunc::slice{std::nullopt, std::nullopt, -1}}]  // a[::-1]
//   a[{ufunc::slice{1, 10, 2}, ufunc::newaxis}]  // a[1:10:2, np.newaxis]
#pragma once

#include <cstdint>
#include <optional>
#include <variant>

namespace ufunc {

/// start:stop:step with Python's rules: missing bounds mean "from the end in the
/// direction of step", negative bounds count from the end, bounds are clamped.
struct slice {
  std::optional<std::int64_t> start;
  std::optional<std::int64_t> stop;
  std::int64_t step = 1;
};

struct newaxis_t {
  explicit constexpr newaxis_t() = default;
};
inline constexpr newaxis_t newaxis{};

/// One index in a subscript.
using index = std::variant<std::int64_t, slice, newaxis_t>;

}  // namespace ufunc
