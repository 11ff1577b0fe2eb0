// parallel backend (oneTBB): runs an elementwise task on every core by splitting
// its element range; each piece runs the cpu backend's SIMD inner loop.
#pragma once

#include <cstdint>

namespace ufunc {
class elementwise_task;
}

namespace ufunc::backends::parallel {

/// Runs every element of `task`; tasks of at most grain() elements run on the
/// calling thread. An exception thrown by the loop on any worker reaches the caller.
void execute(const elementwise_task& task);

/// Elements per piece of work, and the size under which a call stays on one
/// thread. Defaults to a measured value; the UFUNC_PARALLEL_GRAIN environment
/// variable or set_grain() change it.
[[nodiscard]] std::int64_t grain() noexcept;
void set_grain(std::int64_t elements);

/// The most threads a call uses (0: every core TBB sees). Calls run in a
/// tbb::task_arena of this size.
[[nodiscard]] int max_threads() noexcept;
void set_max_threads(int threads);

}  // namespace ufunc::backends::parallel
