// The work of a reduction or an accumulation on the host, type-erased, as the
// backends see it: a number of independent units (groups of outputs), each run
// entirely by one thread, and for reductions optionally a fixed split of each unit
// into blocks whose partial results combine in a fixed order. Every split a backend
// chooses gives the same bits: the blocks depend on the shape only.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc::detail {

class unit_task {
 public:
  unit_task() = default;
  unit_task(const unit_task&) = delete;
  unit_task& operator=(const unit_task&) = delete;
  virtual ~unit_task() = default;

  /// Elements of work in all, for the parallel grain.
  [[nodiscard]] virtual std::int64_t size() const noexcept = 0;
  /// Independent units: run_units on disjoint ranges may run concurrently.
  [[nodiscard]] virtual std::int64_t units() const noexcept = 0;
  /// Runs units [first, last) completely.
  virtual void run_units(std::int64_t first, std::int64_t last) const = 0;

  /// Blocks per unit (1: the unit has no partial results). run_units(u, u + 1) is
  /// exactly block_partials over every block followed by combine.
  [[nodiscard]] virtual std::int64_t blocks() const noexcept { return 1; }
  /// Bytes of one partial result.
  [[nodiscard]] virtual std::size_t partial_size() const noexcept { return 0; }
  /// Partial results of blocks [first, last) of `unit`, written at
  /// partials + b * partial_size(); nonempty[b] says whether block b selected anything.
  virtual void block_partials(std::int64_t unit, std::int64_t first, std::int64_t last, std::byte* partials,
                              bool* nonempty) const {
    (void)unit, (void)first, (void)last, (void)partials, (void)nonempty;
  }
  /// Folds the nonempty partials of all blocks of `unit` into its outputs, in block
  /// order (may reorder `partials` in place).
  virtual void combine(std::int64_t unit, std::byte* partials, const bool* nonempty) const {
    (void)unit, (void)partials, (void)nonempty;
  }

  /// Floating-point status flags (errstate) raised on other threads, gathered by the
  /// executor when gather_fp() is on.
  [[nodiscard]] bool gather_fp() const noexcept { return gather_fp_; }
  void set_gather_fp(bool on) noexcept { gather_fp_ = on; }
  void add_fp_flags(unsigned flags) const noexcept { fp_flags_.fetch_or(flags, std::memory_order_relaxed); }
  [[nodiscard]] unsigned fp_flags() const noexcept { return fp_flags_.load(std::memory_order_relaxed); }

  /// Runs fn() as one piece of this task on the calling thread: with gather_fp() on, the
  /// thread's status flags are cleared first and what fn() raised goes to fp_flags(). An
  /// executor runs every piece through it, on whichever thread.
  ///
  ///     task.run_piece([&] { task.run_units(first, last); });
  template <class Fn>
  void run_piece(Fn&& fn) const {
    if (!gather_fp_) {
      fn();
      return;
    }
    fp_clear();
    fn();
    if (const unsigned flags = fp_read()) add_fp_flags(flags);
  }

 private:
  bool gather_fp_ = false;
  mutable std::atomic<unsigned> fp_flags_{0};
};

/// Runs every unit of `task` on host target `t` (cpu: in order on this thread;
/// parallel: split over threads). Defined in core/src/fold.cpp.
void execute_units(target_id t, const unit_task& task);

}  // namespace ufunc::detail
