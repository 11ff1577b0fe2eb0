// The host reduction engine behind reduce and reduceat: acc[p] = f(acc[p], x[e]) for
// every (selected) element e of a view of x, where p is e's position with the reduced
// axes dropped (acc has stride 0 along them). The accumulator is initialized by the
// caller.
//
// Planning. The view goes through the iteration plan (axes in memory order, merged;
// reduced axes flipped to forward order only when the loop is reorderable, so a loop
// that is not reorderable sees each output's elements in index order). Then one
// dimension is the *run*:
//   * a reduced dimension (mode "fold"): each output folds runs of x with the loop's
//     reduce fn (SIMD, pairwise when reorderable), as NumPy's inner-axis reductions;
//   * a kept dimension (mode "map"): for each reduced position, the elementwise loop
//     runs acc[run] = f(acc[run], x[r, run]) with the accumulator aliasing input 0
//     exactly, vectorized across outputs, as NumPy's outer-axis reductions.
// The innermost dimension decides, except that runs shorter than 8 switch to the other
// mode when it has a dimension of at least 64.
//
// Units are the independent groups of outputs (mode fold: one output each; mode map:
// chunks of up to 2048 outputs along the run; consecutive chunks run row by row, in
// memory order, as NumPy's outer-axis reductions). A reorderable fold-mode unit is split
// into fixed blocks of about 4096 elements; each block's partial starts from its first
// selected element, and the partials fold into the output in block order with the
// reduce fn. Blocks depend on the shape only, so the cpu target (blocks in order) and
// the parallel target (blocks of one unit on several threads, or units on several
// threads) give the same bits for any thread count.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include <ufunc/core/casting.hpp>
#include <ufunc/core/config.hpp>
#include <ufunc/core/detail/method_task.hpp>
#include <ufunc/core/dtype.hpp>
#include <ufunc/core/loop.hpp>

namespace ufunc::detail {

class value_source;

struct fold_loop {
  inner_loop_fn elementwise = nullptr;  // T(T, U)
  const void* data = nullptr;
  reduce_loop_fn reduce = nullptr;  // may be null; null unless U is T
  bool reorderable = false;         // false unless U is T
  // NumPy's scalar loop where it differs from `elementwise` (loop_entry::host_scalar): a
  // fold along a run is NumPy's loop with the accumulator's stride 0, which runs it.
  inner_loop_fn scalar = nullptr;
  const void* scalar_data = nullptr;
  dtype type;   // T: the accumulator's
  dtype input;  // U: x's elements are cast to it (ldexp's T(T, int64) reduces)
};

struct fold_view {
  std::span<const std::int64_t> shape;  // of x
  std::byte* acc = nullptr;
  std::span<const std::int64_t> acc_strides;  // 0 along reduced axes
  const std::byte* x = nullptr;
  std::span<const std::int64_t> x_strides;
  // Where x is computed, not read (core/detail/value_source.hpp): x_strides are then those
  // of the source's dense layout (positive) and x_offset (bytes) the view's origin in it.
  const value_source* source = nullptr;
  std::int64_t x_offset = 0;
  dtype x_type;                     // cast to the loop's input U through a buffer when different
  const std::byte* mask = nullptr;  // bool, optional
  std::span<const std::int64_t> mask_strides;
  bool fold_along_reduced = false;  // the run is a reduced axis even where a kept one is innermost
};

class fold_task final : public unit_task {
 public:
  /// Elements per block of a reorderable fold, and outputs per unit in mode map.
  static constexpr std::int64_t block_elements = 4096;
  static constexpr std::int64_t map_chunk = 2048;

  fold_task(const fold_view& view, const fold_loop& loop);

  [[nodiscard]] std::int64_t size() const noexcept override { return size_; }
  [[nodiscard]] std::int64_t units() const noexcept override { return units_; }
  void run_units(std::int64_t first, std::int64_t last) const override;
  [[nodiscard]] std::int64_t blocks() const noexcept override { return partials_ ? blocks_ : 1; }
  [[nodiscard]] std::size_t partial_size() const noexcept override { return partials_ ? itemsize_ : 0; }
  void block_partials(std::int64_t unit, std::int64_t first, std::int64_t last, std::byte* partials,
                      bool* nonempty) const override;
  void combine(std::int64_t unit, std::byte* partials, const bool* nonempty) const override;

  /// With a source and gather_fp(): the flags raised while producing (the reduction's own
  /// flags stay in fp_flags() and on the calling thread).
  [[nodiscard]] unsigned produced_fp_flags() const noexcept { return produced_fp_.load(std::memory_order_relaxed); }

 private:
  struct dim {
    std::int64_t extent;
    std::int64_t acc, x, mask;  // byte strides
  };
  // x is addressed by byte offsets from x_origin_ (an array's data, or the source's
  // origin: its values have no address).
  struct position {
    std::byte* acc;
    std::int64_t x;
    const std::byte* mask;
    std::int64_t n;  // run elements of this unit (mode map: the chunk)
  };

  position unit_position(std::int64_t unit) const noexcept;
  void offset_reduced(std::int64_t r, const position& p, std::int64_t& x, const std::byte*& mask) const noexcept;
  void fold_segment(std::byte* acc, bool& started, std::int64_t x, const std::byte* mask, std::int64_t n) const;
  void fold_selected(std::byte* acc, bool& started, std::int64_t x, std::int64_t n) const;
  void fold_read(std::byte* acc, bool& started, const std::byte* x, std::int64_t n, std::int64_t step) const;
  void fold_plain(std::byte* acc, bool& started, const std::byte* x, std::int64_t n, std::int64_t step) const;
  void fold_n(std::byte* acc, const std::byte* x, std::int64_t n, std::int64_t step) const;
  void map_run(const position& p, std::int64_t x, const std::byte* mask) const;
  void produce(std::int64_t x, std::int64_t n, std::byte* to, std::int64_t to_step) const;

  fold_loop loop_;
  cast_loop_fn cast_ = nullptr;
  std::size_t itemsize_ = 0;    // T's
  std::size_t x_itemsize_ = 0;  // U's
  bool has_mask_ = false;
  bool fold_mode_ = true;
  bool partials_ = false;
  std::int64_t size_ = 0;
  std::int64_t units_ = 0;
  std::int64_t chunks_ = 1;  // mode map: chunks per run
  std::int64_t blocks_ = 1;
  std::int64_t pieces_per_run_ = 0;  // blocks split runs (long runs) ...
  std::int64_t runs_per_block_ = 0;  // ... or group runs (short ones)
  std::int64_t reduced_count_ = 1;   // positions of the reduced dimensions other than the run
  std::byte* acc_base_ = nullptr;
  const std::byte* x_origin_ = nullptr;
  std::int64_t x_base_ = 0;  // from x_origin_
  const value_source* source_ = nullptr;
  mutable std::atomic<unsigned> produced_fp_{0};
  const std::byte* mask_base_ = nullptr;
  dim run_{};
  int nkept_ = 0, nreduced_ = 0;
  dim kept_[max_ndim];     // other kept dimensions, innermost first
  dim reduced_[max_ndim];  // other reduced dimensions, innermost first
};

}  // namespace ufunc::detail
