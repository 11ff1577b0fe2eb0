#include <ufunc/core/iteration.hpp>

#include <cstdlib>
#include <utility>

#include <ufunc/core/error.hpp>

namespace ufunc {

namespace {

std::int64_t magnitude(std::int64_t s) noexcept { return s < 0 ? -s : s; }

}  // namespace

iteration_plan::iteration_plan(std::span<const std::int64_t> shape, std::span<const plan_operand> operands,
                               bool allow_flip)
    : nop_(static_cast<int>(operands.size())) {
  if (operands.size() > static_cast<std::size_t>(max_operands))
    throw value_error("too many operands: " + std::to_string(operands.size()) + " (at most " +
                      std::to_string(max_operands) + ")");
  if (shape.size() > static_cast<std::size_t>(max_ndim))
    throw value_error("too many dimensions: " + std::to_string(shape.size()) + " (at most " + std::to_string(max_ndim) +
                      ")");
  for (int op = 0; op < nop_; ++op) base_[op] = operands[op].data;

  // Keep the axes with extent > 1, outermost first for now.
  int axes[max_ndim];
  int n = 0;
  size_ = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    size_ *= shape[d];
    if (shape[d] != 1) axes[n++] = static_cast<int>(d);
  }
  if (size_ == 0) {
    ndim_ = 1;
    shape_[0] = 0;
    for (int op = 0; op < nop_; ++op) strides_[0][op] = 0;
    return;
  }

  auto s = [&](int op, int axis) { return operands[op].strides[axis]; };

  if (allow_flip) {
    for (int i = 0; i < n; ++i) {
      bool any_negative = false, all_non_positive = true;
      for (int op = 0; op < nop_; ++op) {
        any_negative |= s(op, axes[i]) < 0;
        all_non_positive &= s(op, axes[i]) <= 0;
      }
      if (!(any_negative && all_non_positive)) continue;
      for (int op = 0; op < nop_; ++op) base_[op] += (shape[axes[i]] - 1) * s(op, axes[i]);
      axes[i] = -axes[i] - 1;  // remember the flip in the sign
    }
  }
  auto stride_of = [&](int op, int encoded) { return encoded < 0 ? -s(op, -encoded - 1) : s(op, encoded); };
  auto extent_of = [&](int encoded) { return shape[encoded < 0 ? -encoded - 1 : encoded]; };

  // Insertion sort into memory order (outermost = largest strides), as NumPy's
  // iterator does: axis b moves outside axis a only if some operand prefers it and
  // none objects; broadcast (zero) strides express no preference.
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0; --j) {
      const int outer = axes[j - 1], inner = axes[j];
      bool swap = false, keep = false;
      for (int op = 0; op < nop_; ++op) {
        const auto so = magnitude(stride_of(op, outer)), si = magnitude(stride_of(op, inner));
        if (so == 0 || si == 0) continue;
        if (so < si) swap = true;
        if (so > si) keep = true;
      }
      if (!swap || keep) break;
      std::swap(axes[j - 1], axes[j]);
    }
  }

  // Fill innermost first, merging an axis into the one inside it when every operand
  // steps through both as one.
  ndim_ = 0;
  for (int i = n - 1; i >= 0; --i) {
    const int a = axes[i];
    if (ndim_ > 0) {
      bool mergeable = true;
      for (int op = 0; op < nop_ && mergeable; ++op)
        mergeable = stride_of(op, a) == strides_[ndim_ - 1][op] * shape_[ndim_ - 1];
      if (mergeable) {
        shape_[ndim_ - 1] *= extent_of(a);
        continue;
      }
    }
    shape_[ndim_] = extent_of(a);
    for (int op = 0; op < nop_; ++op) strides_[ndim_][op] = stride_of(op, a);
    ++ndim_;
  }
  if (ndim_ == 0) {  // 0-d, or every extent 1
    ndim_ = 1;
    shape_[0] = 1;
    for (int op = 0; op < nop_; ++op) strides_[0][op] = 0;
  }
}

}  // namespace ufunc
