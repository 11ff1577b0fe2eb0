// Views of parts of a block: rows of one axis, or a box (a range per axis), on the host
// or on a device, without copying; and the boxes of global coordinates that the ranks
// of a distribution hold.
#pragma once

#include <cstdint>
#include <vector>

#include <ufunc/core/array.hpp>
#include <ufunc/dist/distribution.hpp>

namespace ufunc::dist::detail {

/// A range per axis, [lo[i], hi[i]).
struct box {
  dim_vector lo;
  dim_vector hi;
  [[nodiscard]] bool empty() const noexcept;
  [[nodiscard]] dim_vector shape() const;
};

/// The part of the global array of `shape` that `rank` holds under `layout`.
[[nodiscard]] box held_by(const distribution& layout, int rank, const dim_vector& shape);
/// The overlap of two boxes (empty where they do not overlap).
[[nodiscard]] box intersect(const box& a, const box& b);
/// `b` in the coordinates of a block whose first element is `origin`.
[[nodiscard]] box shifted(const box& b, const dim_vector& origin);

/// The view of `a` covering `b` (a null array for an empty box would lose the dtype:
/// an empty view instead).
[[nodiscard]] ufunc::array view_of(const ufunc::array& a, const box& b);
/// Rows [start, stop) of axis `axis`.
[[nodiscard]] ufunc::array rows(const ufunc::array& a, int axis, std::int64_t start, std::int64_t stop);

/// A new uninitialized C-ordered array on `a`'s device with a's dtype.
[[nodiscard]] ufunc::array empty_like_on(const ufunc::array& a, const dim_vector& shape);

}  // namespace ufunc::dist::detail

namespace ufunc::dist::detail {

/// An array of any shape over one element (zero strides), writeable: what core's
/// checks and plans see in place of a global array that no rank holds.
[[nodiscard]] ufunc::array standin(dtype type, const dim_vector& shape);

/// [first; block] along `axis` as a new C-ordered array of dtype `type` on block's
/// device: first has length 1 along the axis and block's other extents.
[[nodiscard]] ufunc::array prepend_row(const ufunc::array& first, const ufunc::array& block, int axis, dtype type);

}  // namespace ufunc::dist::detail
