// NumPy's broadcasting rules, shared by every backend.
//
//   broadcast_shapes({{8, 1, 6}, {7, 1}})  // (8, 7, 6)
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

#include <ufunc/core/dim_vector.hpp>

namespace ufunc {

/// The shape that all `shapes` broadcast to: shapes are right-aligned, and each
/// axis's extents must be equal or 1 (0-d shapes broadcast to anything; an extent
/// of 0 broadcasts with 1 to 0). Throws broadcast_error naming every shape.
[[nodiscard]] dim_vector broadcast_shapes(std::span<const dim_vector> shapes);
[[nodiscard]] inline dim_vector broadcast_shapes(std::initializer_list<dim_vector> shapes) {
  return broadcast_shapes(std::span<const dim_vector>(shapes.begin(), shapes.size()));
}

/// The byte strides that view an operand of (shape, strides) as `target` shape:
/// 0 along axes it is broadcast over. The operand must broadcast to `target`.
[[nodiscard]] dim_vector broadcast_strides(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides,
                                           std::span<const std::int64_t> target);

}  // namespace ufunc
