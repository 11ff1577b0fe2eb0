// parallel backend (oneTBB): runs an elementwise task on every core by splitting
// its element range; each piece runs the cpu backend's SIMD inner loop.
#pragma once

#include <cstdint>

namespace ufunc {
class elementwise_task;
}

namespace ufunc::backends::parallel {

/// Runs every element of `task`; tasks of at most threshold() elements run on the
/// calling thread. An exception thrown by the loop on any worker reaches the caller.
void execute(const elementwise_task& task);

/// Elements per piece of work. Defaults to a measured value (32768); the
/// UFUNC_PARALLEL_GRAIN environment variable or set_grain() change it.
[[nodiscard]] std::int64_t grain() noexcept;
void set_grain(std::int64_t elements);

/// Calls of at most threshold() elements run on the calling thread in one piece;
/// larger ones are split into pieces of grain() elements. Default: 4 grains (131072
/// elements at the default grain; it follows set_grain). The
/// UFUNC_PARALLEL_THRESHOLD environment variable or set_threshold() set it in
/// elements; 0 returns to 4 grains. Results do not depend on it.
[[nodiscard]] std::int64_t threshold() noexcept;
void set_threshold(std::int64_t elements);

/// The most threads a call uses (0: every core TBB sees). Calls run in a
/// tbb::task_arena of this size.
[[nodiscard]] int max_threads() noexcept;
void set_max_threads(int threads);

/// Runs fn(context) in the task arena set_max_threads() chose (on this thread or one
/// of the arena's), for executors other than execute() (reductions, reduce.cpp).
void run_in_arena(void (*fn)(void*), void* context);

}  // namespace ufunc::backends::parallel
