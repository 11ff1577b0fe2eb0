// The memory layout of the arrays that calls and methods allocate, by NumPy's rules:
// written once here and used by every target (core/src/run_loop.cpp and the
// methods on the host, backends/cuda for device data). Not part of the public API.
//
// A layout is an axis order, fastest-varying axis first; the array is then dense,
// each stride the product of the extents of the axes before it in that order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <ufunc/core/array.hpp>
#include <ufunc/core/dim_vector.hpp>

namespace ufunc::detail {

/// An array operand of a ufunc call as the layout rules see it.
struct layout_operand {
  std::span<const std::int64_t> shape;    // its own shape
  std::span<const std::int64_t> strides;  // its own byte strides
  std::size_t itemsize = 0;
  bool cast = false;    // read (an input) or written (an output) through a cast from or to the loop's dtype
  bool output = false;  // an output given to the call
};

/// C order's axes, fastest first: ndim-1, ..., 1, 0 (F order is the reverse).
[[nodiscard]] dim_vector c_order_axes(std::size_t ndim);

/// NumPy's order='K' iteration order (NpyIter's npyiter_find_best_axis_ordering):
/// starting from C order, a stable insertion sort by absolute stride in which an axis
/// moves inwards past another only if every operand with a non-zero stride along both
/// agrees (conflicts keep C order; broadcast and length-1 axes compare with nothing).
/// `strides` holds each operand's byte strides over `shape`, 0 along broadcast axes
/// (broadcast_strides). Returns the axes, fastest first.
[[nodiscard]] dim_vector keep_order_axes(std::span<const std::int64_t> shape, std::span<const dim_vector> strides);

/// The byte strides of a dense array of `shape` laid out in `axes` (fastest first).
/// All zero when the array is empty, as NumPy allocates empty arrays.
[[nodiscard]] dim_vector dense_strides(std::span<const std::int64_t> shape, std::span<const std::int64_t> axes,
                                       std::size_t itemsize);

/// The axis order of the outputs a ufunc call allocates over the broadcast `shape`,
/// as NumPy lays them out for `layout`. `operands` are every array operand of the
/// call in NumPy's order (inputs, outputs given, the where mask; C++ scalars are not
/// arrays, NumPy's 0-d ones compare with nothing). NumPy's
/// single-loop path (one output, no mask, every array input of the loop's dtype and of
/// the full shape, all C- or all F-contiguous) allocates C or F; its iterator
/// otherwise sorts the axes (K), takes C or F, or F when every operand is
/// F-contiguous (A). Both give C or F for C and F.
[[nodiscard]] dim_vector call_output_axes(std::span<const std::int64_t> shape, order layout,
                                          std::span<const layout_operand> operands, int nout, bool masked);

/// The byte strides of ufunc.reduce's result (reduced axes dropped, or kept with
/// length 1): NumPy allocates it in its iterator's order='K' over `a` and the mask.
[[nodiscard]] dim_vector reduce_result_strides(const array& a, const array& where, const std::vector<bool>& reduced,
                                               bool keepdims, std::size_t itemsize);
/// The same for an operand given by its shape and byte strides.
[[nodiscard]] dim_vector reduce_result_strides(const dim_vector& a_shape, const dim_vector& a_strides,
                                               const array& where, const std::vector<bool>& reduced, bool keepdims,
                                               std::size_t itemsize);
/// ufunc.accumulate's result, of a's shape: in a's order='K' axis order.
[[nodiscard]] dim_vector accumulate_result_strides(const array& a, std::size_t itemsize);
/// ufunc.reduceat's result (a's shape with `count` along `axis`): order='K' over a's
/// other axes; the indices' axis compares with none.
[[nodiscard]] dim_vector reduceat_result_strides(const array& a, int axis, std::int64_t count, std::size_t itemsize);

/// The byte strides of a new array like `prototype` (NumPy's PyArray_NewLikeArray, as
/// astype and empty_like): K is C for a C-contiguous or 1-d prototype, F for an
/// F-contiguous one, else its axes by decreasing absolute stride (ties in axis order);
/// A is F for an F- and not C-contiguous prototype, else C.
[[nodiscard]] dim_vector like_strides(const array& prototype, order layout, std::size_t itemsize);

/// Whether `a` addresses exactly the nbytes() from data() up, in some axis order
/// (positive strides, no gaps): the layouts above, which copy as flat bytes.
[[nodiscard]] bool is_dense(const array& a) noexcept;

}  // namespace ufunc::detail
