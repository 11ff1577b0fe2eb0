// The iteration plan every backend consumes: operands viewed over one broadcast
// shape, with axes reordered for memory order, negative strides flipped where
// order does not matter, size-1 axes dropped and contiguous axes merged. What is
// left is a few outer loops around a 1-d inner loop; nothing is copied.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include <ufunc/core/config.hpp>
#include <ufunc/core/dim_vector.hpp>

namespace ufunc {

/// One operand as the planner sees it: its first element and its byte strides over
/// the common shape (0 where broadcast).
struct plan_operand {
  std::byte* data;
  std::span<const std::int64_t> strides;
};

class iteration_plan {
 public:
  /// Builds the plan for `operands` over `shape`. With `allow_flip`, axes along which
  /// every operand has a non-positive stride are walked forwards in memory instead
  /// (valid whenever the visiting order does not matter, as for elementwise maps).
  iteration_plan(std::span<const std::int64_t> shape, std::span<const plan_operand> operands, bool allow_flip = true);

  [[nodiscard]] int noperands() const noexcept { return nop_; }
  /// Dimensions left after coalescing; at least 1 (a 0-d call iterates once).
  [[nodiscard]] int ndim() const noexcept { return ndim_; }
  /// Total number of elements (0 for an empty iteration).
  [[nodiscard]] std::int64_t size() const noexcept { return size_; }
  /// Extent of dimension d; d = 0 is the innermost.
  [[nodiscard]] std::int64_t extent(int d) const noexcept { return shape_[d]; }
  [[nodiscard]] std::int64_t inner_size() const noexcept { return shape_[0]; }
  [[nodiscard]] std::int64_t stride(int op, int d) const noexcept { return strides_[d][op]; }
  [[nodiscard]] const std::int64_t* inner_strides() const noexcept { return strides_[0]; }
  [[nodiscard]] std::byte* base(int op) const noexcept { return base_[op]; }

  /// Calls fn(char* const* ptrs, std::int64_t n, const std::int64_t* inner_strides)
  /// for consecutive 1-d runs covering elements [first, last) of the plan's order.
  /// Any split of [0, size) into ranges visits every element exactly once, which is
  /// what parallel backends rely on.
  template <class Fn>
  void for_each_run(std::int64_t first, std::int64_t last, Fn&& fn) const {
    if (first >= last) return;
    std::int64_t idx[max_ndim];
    char* ptr[max_operands];
    // Decompose `first` into a multi-index, innermost first.
    std::int64_t rem = first;
    for (int d = 0; d < ndim_; ++d) {
      idx[d] = rem % shape_[d];
      rem /= shape_[d];
    }
    for (int op = 0; op < nop_; ++op) {
      std::int64_t off = 0;
      for (int d = 0; d < ndim_; ++d) off += idx[d] * strides_[d][op];
      ptr[op] = reinterpret_cast<char*>(base_[op]) + off;
    }
    std::int64_t todo = last - first;
    for (;;) {
      const std::int64_t n = std::min(shape_[0] - idx[0], todo);
      fn(static_cast<char* const*>(ptr), n, static_cast<const std::int64_t*>(strides_[0]));
      todo -= n;
      if (todo == 0) return;
      // Step to the start of the next run: the inner index wraps to 0 and the carry
      // moves outwards.
      for (int op = 0; op < nop_; ++op) ptr[op] -= idx[0] * strides_[0][op];
      idx[0] = 0;
      for (int d = 1; d < ndim_; ++d) {
        for (int op = 0; op < nop_; ++op) ptr[op] += strides_[d][op];
        if (++idx[d] < shape_[d]) break;
        for (int op = 0; op < nop_; ++op) ptr[op] -= shape_[d] * strides_[d][op];
        idx[d] = 0;
      }
    }
  }

 private:
  int nop_ = 0;
  int ndim_ = 1;
  std::int64_t size_ = 0;
  std::byte* base_[max_operands] = {};
  std::int64_t shape_[max_ndim];
  std::int64_t strides_[max_ndim][max_operands];
};

}  // namespace ufunc
