#include <ufunc/core/detail/layout.hpp>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/config.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::detail {

namespace {

// NumPy's contiguity flags: axes of length 1 may have any stride; empty arrays are both.
bool c_contiguous(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides, std::size_t itemsize) {
  std::int64_t expected = static_cast<std::int64_t>(itemsize);
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) return true;
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

bool f_contiguous(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides, std::size_t itemsize) {
  std::int64_t expected = static_cast<std::int64_t>(itemsize);
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return true;
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

enum : unsigned { c_flag = 1, f_flag = 2 };

unsigned contiguity(const layout_operand& op) {
  return (c_contiguous(op.shape, op.strides, op.itemsize) ? c_flag : 0u) |
         (f_contiguous(op.shape, op.strides, op.itemsize) ? f_flag : 0u);
}

// NumPy's try_trivial_single_output_loop: C or F when the call is one loop over
// contiguous operands of the full shape (0-d inputs broadcast), else nothing. Every
// n-d operand must have the same contiguity flags, the first fixing them unless
// order C or F does; an operand that is both C- and F-contiguous fixes C|F, and
// the result is F only for F-only operands.
std::optional<unsigned> single_loop_order(std::span<const std::int64_t> shape, order layout,
                                          std::span<const layout_operand> operands) {
  unsigned fixed = layout == order::C ? c_flag : layout == order::F ? f_flag : 0u;
  for (const auto& op : operands) {
    if (op.shape.empty()) continue;
    if (op.cast || !std::equal(op.shape.begin(), op.shape.end(), shape.begin(), shape.end())) return std::nullopt;
    const unsigned flags = contiguity(op);
    if (flags == 0) return std::nullopt;
    if (fixed == 0)
      fixed = flags;
    else if (fixed != flags)
      return std::nullopt;
  }
  return fixed;
}

// order='A' in NumPy's iterator: F when every operand is F-contiguous. Before the
// iterator, NumPy's single-loop check has replaced cast 0-d inputs and 1-d inputs
// of at most its buffer size (8192 elements) with contiguous copies, in operand
// order until the first cast operand that it cannot copy (outputs never are); only
// unmasked calls take that check.
bool all_f_contiguous(std::span<const layout_operand> operands, bool masked) {
  constexpr std::int64_t numpy_buffer_size = 8192;
  bool copying = !masked;
  for (const auto& op : operands) {
    bool copied = false;
    if (copying && op.cast) {
      copied = !op.output && (op.shape.empty() || (op.shape.size() == 1 && op.shape[0] <= numpy_buffer_size));
      copying = copied;
    }
    if (!copied && !f_contiguous(op.shape, op.strides, op.itemsize)) return false;
  }
  return true;
}

dim_vector reversed(dim_vector axes) {
  std::reverse(axes.begin(), axes.end());
  return axes;
}

}  // namespace

dim_vector c_order_axes(std::size_t ndim) {
  dim_vector axes(ndim);
  for (std::size_t i = 0; i < ndim; ++i) axes[i] = static_cast<std::int64_t>(ndim - 1 - i);
  return axes;
}

dim_vector keep_order_axes(std::span<const std::int64_t> shape, std::span<const dim_vector> strides) {
  dim_vector axes = c_order_axes(shape.size());
  for (std::size_t i0 = 1; i0 < axes.size(); ++i0) {
    const std::int64_t a0 = axes[i0];
    std::size_t pos = i0;
    for (std::size_t i1 = i0; i1-- > 0;) {
      const std::int64_t a1 = axes[i1];
      if (shape[a0] == 1 || shape[a1] == 1) continue;  // NumPy gives such axes stride 0: no comparison
      bool compared = false, inwards = false;
      for (const auto& s : strides) {
        if (s[a0] == 0 || s[a1] == 0) continue;
        // The first operand that compares may move a0 inwards; any other that
        // disagrees keeps the order (C order wins conflicts, as NumPy's comment says).
        if (std::abs(s[a1]) <= std::abs(s[a0]))
          inwards = false;
        else if (!compared)
          inwards = true;
        compared = true;
      }
      if (!compared) continue;  // look further out
      if (!inwards) break;
      pos = i1;
    }
    if (pos != i0) {
      std::move_backward(axes.begin() + static_cast<std::ptrdiff_t>(pos),
                         axes.begin() + static_cast<std::ptrdiff_t>(i0),
                         axes.begin() + static_cast<std::ptrdiff_t>(i0) + 1);
      axes[pos] = a0;
    }
  }
  return axes;
}

dim_vector dense_strides(std::span<const std::int64_t> shape, std::span<const std::int64_t> axes,
                         std::size_t itemsize) {
  dim_vector strides(shape.size(), 0);
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return strides;
  std::int64_t s = static_cast<std::int64_t>(itemsize);
  for (const auto a : axes) {
    strides[static_cast<std::size_t>(a)] = s;
    // Saturate, as c_strides: the size check of a new array raises for shapes this large.
    if (__builtin_mul_overflow(s, shape[static_cast<std::size_t>(a)], &s)) s = std::numeric_limits<std::int64_t>::max();
  }
  return strides;
}

dim_vector call_output_axes(std::span<const std::int64_t> shape, order layout, std::span<const layout_operand> operands,
                            int nout, bool masked) {
  if (shape.size() <= 1) return c_order_axes(shape.size());
  if (nout == 1 && !masked)
    if (const auto flags = single_loop_order(shape, layout, operands))
      return *flags == f_flag ? reversed(c_order_axes(shape.size())) : c_order_axes(shape.size());
  switch (layout) {
    case order::C:
      return c_order_axes(shape.size());
    case order::F:
      return reversed(c_order_axes(shape.size()));
    case order::A:
      return all_f_contiguous(operands, masked) ? reversed(c_order_axes(shape.size())) : c_order_axes(shape.size());
    case order::K:
      break;
  }
  if (operands.size() > static_cast<std::size_t>(max_operands) + 1)
    throw value_error("too many operands: " + std::to_string(operands.size()));
  dim_vector strides[max_operands + 1];
  for (std::size_t k = 0; k < operands.size(); ++k)
    strides[k] = broadcast_strides(operands[k].shape, operands[k].strides, shape);
  return keep_order_axes(shape, {strides, operands.size()});
}

dim_vector reduce_result_strides(const array& a, const array& where, const std::vector<bool>& reduced, bool keepdims,
                                 std::size_t itemsize) {
  return reduce_result_strides(a.shape(), a.strides(), where, reduced, keepdims, itemsize);
}

dim_vector reduce_result_strides(const dim_vector& a_shape, const dim_vector& a_strides, const array& where,
                                 const std::vector<bool>& reduced, bool keepdims, std::size_t itemsize) {
  dim_vector strides[2] = {broadcast_strides(a_shape, a_strides, a_shape)};
  std::size_t n = 1;
  if (where.valid()) strides[n++] = broadcast_strides(where.shape(), where.strides(), a_shape);
  const dim_vector axes = keep_order_axes(a_shape, {strides, n});
  // NumPy's iterator lays the result out over a's axes, reduced ones of length 1.
  dim_vector shape = a_shape;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) shape[d] = 1;
  const dim_vector full = dense_strides(shape, axes, itemsize);
  dim_vector out;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d] || keepdims) out.push_back(full[d]);
  return out;
}

dim_vector accumulate_result_strides(const array& a, std::size_t itemsize) {
  const dim_vector strides[1] = {broadcast_strides(a.shape(), a.strides(), a.shape())};
  return dense_strides(a.shape(), keep_order_axes(a.shape(), strides), itemsize);
}

dim_vector reduceat_result_strides(const array& a, int axis, std::int64_t count, std::size_t itemsize) {
  dim_vector strides[1] = {broadcast_strides(a.shape(), a.strides(), a.shape())};
  strides[0][static_cast<std::size_t>(axis)] = 0;  // NumPy's iterator walks the indices there, not a
  dim_vector shape = a.shape();
  shape[static_cast<std::size_t>(axis)] = count;
  return dense_strides(shape, keep_order_axes(shape, strides), itemsize);
}

dim_vector like_strides(const array& prototype, order layout, std::size_t itemsize) {
  const auto& shape = prototype.shape();
  const std::size_t nd = shape.size();
  const bool c = prototype.is_c_contiguous(), f = prototype.is_f_contiguous();
  dim_vector axes = c_order_axes(nd);
  switch (layout) {
    case order::C:
      break;
    case order::F:
      axes = reversed(std::move(axes));
      break;
    case order::A:
      if (f && !c) axes = reversed(std::move(axes));
      break;
    case order::K:
      if (c || nd <= 1) break;
      if (f) {
        axes = reversed(std::move(axes));
        break;
      }
      // Decreasing absolute stride, ties in axis order (NumPy's PyArray_CreateSortedStridePerm);
      // the last is the fastest.
      for (std::size_t i = 0; i < nd; ++i) axes[i] = static_cast<std::int64_t>(i);
      std::stable_sort(axes.begin(), axes.end(), [&](std::int64_t x, std::int64_t y) {
        return std::abs(prototype.strides()[x]) > std::abs(prototype.strides()[y]);
      });
      axes = reversed(std::move(axes));
      break;
  }
  return dense_strides(shape, axes, itemsize);
}

bool is_dense(const array& a) noexcept {
  if (a.size() == 0) return true;
  std::pair<std::int64_t, std::int64_t> axes[max_ndim];  // (stride, extent) of the axes longer than 1
  std::size_t n = 0;
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.shape()[d] > 1) axes[n++] = {a.strides()[d], a.shape()[d]};
  std::sort(axes, axes + n);
  std::int64_t expected = static_cast<std::int64_t>(a.itemsize());
  for (std::size_t k = 0; k < n; ++k) {
    if (axes[k].first != expected) return false;
    expected *= axes[k].second;
  }
  return true;
}

}  // namespace ufunc::detail
