#include "blocks.hpp"

#include <algorithm>

namespace ufunc::dist::detail {

bool box::empty() const noexcept {
  for (std::size_t i = 0; i < lo.size(); ++i)
    if (hi[i] <= lo[i]) return true;
  return false;
}

dim_vector box::shape() const {
  dim_vector s(lo.size());
  for (std::size_t i = 0; i < lo.size(); ++i) s[i] = std::max<std::int64_t>(0, hi[i] - lo[i]);
  return s;
}

box held_by(const distribution& layout, int rank, const dim_vector& shape) {
  box b{dim_vector(shape.size(), 0), shape};
  if (!layout.is_replicated()) {
    const auto axis = static_cast<std::size_t>(layout.axis());
    b.lo[axis] = layout.offset(rank);
    b.hi[axis] = layout.offset(rank) + layout.count(rank);
  }
  return b;
}

box intersect(const box& a, const box& b) {
  box r = a;
  for (std::size_t i = 0; i < a.lo.size(); ++i) {
    r.lo[i] = std::max(a.lo[i], b.lo[i]);
    r.hi[i] = std::max(r.lo[i], std::min(a.hi[i], b.hi[i]));
  }
  return r;
}

box shifted(const box& b, const dim_vector& origin) {
  box r = b;
  for (std::size_t i = 0; i < b.lo.size(); ++i) {
    r.lo[i] -= origin[i];
    r.hi[i] -= origin[i];
  }
  return r;
}

ufunc::array view_of(const ufunc::array& a, const box& b) {
  const dim_vector shape = b.shape();
  std::byte* data = a.data();
  // An empty view keeps the base pointer: an offset past the end of nothing is not a pointer.
  if (shape_size(shape) > 0)
    for (std::size_t i = 0; i < shape.size(); ++i) data += b.lo[i] * a.strides()[i];
  ufunc::array v(data, a.type(), shape, a.strides(), a.owner(), a.device());
  return a.writeable() ? v : v.as_readonly();
}

ufunc::array rows(const ufunc::array& a, int axis, std::int64_t start, std::int64_t stop) {
  box b{dim_vector(a.ndim(), 0), a.shape()};
  b.lo[static_cast<std::size_t>(axis)] = start;
  b.hi[static_cast<std::size_t>(axis)] = stop;
  return view_of(a, b);
}

ufunc::array empty_like_on(const ufunc::array& a, const dim_vector& shape) {
  return ufunc::array::empty(shape, a.type(), a.device());
}

}  // namespace ufunc::dist::detail

namespace ufunc::dist::detail {

ufunc::array standin(dtype type, const dim_vector& shape) {
  const ufunc::array one = ufunc::array::zeros({1}, type);
  return ufunc::array(one.data(), type, shape, dim_vector(shape.size(), 0), one.owner());
}

ufunc::array prepend_row(const ufunc::array& first, const ufunc::array& block, int axis, dtype type) {
  dim_vector shape = block.shape();
  const auto a = static_cast<std::size_t>(axis);
  shape[a] += 1;
  ufunc::array joined = ufunc::array::empty(shape, type, block.device());
  first.copy_to(rows(joined, axis, 0, 1));
  block.copy_to(rows(joined, axis, 1, shape[a]));
  return joined;
}

}  // namespace ufunc::dist::detail
