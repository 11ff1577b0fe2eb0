// NumPy's ufunc methods on distributed arrays.
//
// reduce: over axes other than the split axis, each rank reduces its block (the result
// keeps the distribution). Over the split axis (or all axes), each rank reduces its block,
// the partial results are gathered on every rank (MPI_Allgather; a rank with an empty
// block contributes nothing), stacked in rank order and reduced along the stack with the
// ufunc itself, so any binary ufunc works and the result, replicated on every rank, is
// grouped the same way for a given number of blocks whatever the timing. It equals the
// single-process result for integers, bool, min and max; float sums are summed pairwise
// within each block and across the blocks' sums, within the pairwise-summation bound of
// the single-process result. Loops that are not reorderable (subtract, float multiply, a
// vectorize'd functor without ufunc::reorderable) fold rank after rank instead, each
// continuing from the previous rank's result: exactly the single-process result.
//
// accumulate: along other axes locally; along the split axis, reorderable loops scan
// each block, gather the blocks' totals (an exclusive scan in rank order) and apply
// f(prefix, block) on each rank; other loops run as a pipeline, each rank continuing
// from the previous rank's last row, exactly as one process.
//
// reduceat: along axes other than the split axis (locally); along the split axis a
// distribution_error. outer: one operand distributed, the other replicated (a distributed
// second operand is gathered). at: indices are global and the same on every rank; each
// rank applies the updates that fall into its block, in index order.
//
//   auto total = ufunc::dist::add.reduce(x, {.axis = ufunc::all_axes});   // replicated
//   float s = total.local().item<float>();
//   auto rows = ufunc::dist::add.reduce(m, {.axis = 1});                   // still split
//   auto run = ufunc::dist::add.accumulate(x);                             // prefix sums
//   ufunc::dist::add.at(x, ufunc::asarray<std::int64_t>({0, 5, 5}), 1.0f);  // x[[0,5,5]] += 1
#pragma once

#include <initializer_list>
#include <optional>
#include <span>

#include <ufunc/core/function.hpp>
#include <ufunc/core/methods.hpp>
#include <ufunc/dist/array.hpp>
#include <ufunc/dist/calls.hpp>
#include <ufunc/dist/operand.hpp>

namespace ufunc::dist {

/// ufunc.reduce's keyword arguments, distributed.
struct reduce_options {
  ufunc::axes axis;
  std::optional<ufunc::dtype> dtype;
  /// A distributed array of the result's shape and distribution, or, for results
  /// replicated on every rank, an ordinary array on each rank.
  operand out;
  bool keepdims = false;
  std::optional<weak_scalar> initial;
  /// A bool mask: distributed, or an ordinary array (replicated).
  operand where;
  std::optional<target_id> target;
  stream_ref stream;
};

/// ufunc.accumulate's and ufunc.reduceat's keyword arguments, distributed.
struct accumulate_options {
  int axis = 0;
  std::optional<ufunc::dtype> dtype;
  std::optional<dist::array> out;
  std::optional<target_id> target;
  stream_ref stream;

  /// The options of a rank's own call: the same, out= as its block.
  [[nodiscard]] ufunc::accumulate_options local() const {
    ufunc::accumulate_options lo;
    lo.axis = axis;
    lo.dtype = dtype;
    if (out) lo.out = out->local();
    lo.target = target;
    lo.stream = stream;
    return lo;
  }
};

/// np.<ufunc>.reduce. The result is replicated when the split axis is reduced.
dist::array reduce(const ufunc::function& f, const dist::array& a, const reduce_options& options = {});
/// np.<ufunc>.accumulate, with a's distribution.
dist::array accumulate(const ufunc::function& f, const dist::array& a, const accumulate_options& options = {});
/// np.<ufunc>.reduceat along an axis other than the split axis; `indices` the same on
/// every rank.
dist::array reduceat(const ufunc::function& f, const dist::array& a, const ufunc::array& indices,
                     const accumulate_options& options = {});
/// np.<ufunc>.outer: split along a's split axis when a is distributed (b is then needed
/// whole on every rank and gathered if distributed), else along a.ndim + b's split axis.
dist::array outer(const ufunc::function& f, const operand& a, const operand& b, const call_options& options = {});
/// np.<ufunc>.at: a[indices] = f(a[indices], b) in place, unbuffered. `indices`: one
/// integer array (or 1-d bool array) per leading axis of a, global, the same on every
/// rank; b (replicated or a scalar) broadcasts to the indexed shape. Every index is
/// checked on every rank before anything is written.
void at(const ufunc::function& f, const dist::array& a, std::span<const ufunc::array> indices, const operand& b,
        const call_options& options = {});
/// ufunc.at for unary ufuncs.
void at(const ufunc::function& f, const dist::array& a, std::span<const ufunc::array> indices,
        const call_options& options = {});

}  // namespace ufunc::dist
