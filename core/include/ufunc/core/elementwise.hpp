// One prepared elementwise call, type-erased: the iteration plan, the inner loop,
// the casts of operands whose dtype differs from the loop's, and the `where` mask.
// Backends only decide how to split [0, size()) and call run() on the pieces.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include <ufunc/core/casting.hpp>
#include <ufunc/core/iteration.hpp>
#include <ufunc/core/loop.hpp>

namespace ufunc {

class array;

class elementwise_task {
 public:
  /// Operands are the inputs, then the outputs, then (if has_where) the bool mask,
  /// all already broadcast to the plan's shape. `loop_types` are the dtypes the loop
  /// computes in; an operand of another dtype is converted through a buffer.
  elementwise_task(const iteration_plan& plan, int nin, int nout, bool has_where, inner_loop_fn loop,
                   const void* loop_data, std::span<const dtype> operand_types, const type_signature& loop_types);

  [[nodiscard]] std::int64_t size() const noexcept { return plan_.size(); }
  [[nodiscard]] const iteration_plan& plan() const noexcept { return plan_; }
  /// True when no buffering or masking is involved: the plan's runs go straight to the loop.
  [[nodiscard]] bool direct() const noexcept { return !buffered_ && !has_where_; }

  /// Runs elements [first, last) of the plan. Safe to call concurrently on
  /// disjoint ranges; every split of [0, size()) gives the same results.
  void run(std::int64_t first, std::int64_t last) const;

  /// What one element of the plan stands for, in elements of an elementwise call (1, the
  /// default; a gufunc's loop element its cores' elements per operand), so that a backend
  /// that splits calls cuts pieces of equal work: a moving average's 10^5 rows of 256 are
  /// 10^5 elements but 1.7 x 10^7 elements' work, which pieces of 32768 rows left to 4 threads.
  void set_work_per_element(std::int64_t work) noexcept { work_per_element_ = work < 1 ? 1 : work; }
  [[nodiscard]] std::int64_t work_per_element() const noexcept { return work_per_element_; }

  /// Floating-point status flags (errstate): when on, each run() clears the flags of
  /// the thread it runs on first and adds what the loop raised to fp_flags() after.
  void gather_fp_flags(bool on) noexcept { gather_fp_ = on; }
  /// The ufunc::fp_flag bits raised by the run() calls so far, on any thread.
  [[nodiscard]] unsigned fp_flags() const noexcept { return fp_flags_.load(std::memory_order_relaxed); }

 private:
  void run_range(std::int64_t first, std::int64_t last) const;
  void run_buffered(char* const* ptrs, std::int64_t n, const std::int64_t* strides, std::byte* scratch) const;

  const iteration_plan& plan_;
  int nin_, nout_;
  bool has_where_;
  bool buffered_ = false;
  bool gather_fp_ = false;
  bool stream_ = false;  // large output: the loops use streaming stores (detail/streaming.hpp)
  std::int64_t work_per_element_ = 1;
  mutable std::atomic<unsigned> fp_flags_{0};
  inner_loop_fn loop_;
  const void* loop_data_;
  cast_loop_fn cast_[max_operands] = {};  // null where the operand needs no cast
  std::size_t loop_itemsize_[max_operands] = {};
};

namespace detail {
/// dst[...] = src[...] with dtype conversion (unsafe casting); src broadcasts to dst.
void copy_cast(const array& src, const array& dst);
}  // namespace detail

}  // namespace ufunc
