// parallel backend (oneTBB): runs an elementwise task on every core by splitting
// its element range; each piece runs the cpu backend's SIMD inner loop.
#pragma once

#include <cstdint>

namespace ufunc {
class elementwise_task;
}

namespace ufunc::backends::parallel {

/// Runs every element of `task`. Calls of at most one grain run on the calling thread.
/// Larger ones, by default (threshold() 0), run a probe of probe_size() elements on the
/// calling thread, timed, and split the rest over the arena's threads only if
/// split_pays() says that saves more than waking them costs; so a call on target
/// parallel is not slower than on cpu at any size. An exception thrown by the loop on
/// any worker reaches the caller. The grain and the thresholds count elements of an
/// elementwise call: a task whose elements stand for more (task.work_per_element(), a
/// gufunc's cores) takes that many fewer elements to a piece and inline.
void execute(const elementwise_task& task);

/// The elements a call times before deciding to split: a sixteenth of the grain (at
/// least 1), small enough that the probe keeps little work off the other threads.
[[nodiscard]] constexpr std::int64_t probe_size(std::int64_t grain) noexcept { return grain / 16 > 0 ? grain / 16 : 1; }

/// Whether splitting `rest` elements over `threads` threads pays, when `probe`
/// elements took `probe_ns` on one thread and waking the workers costs `wake_ns`: the
/// estimated time saved, rest's serial time x (1 - 1/threads), must exceed twice the
/// wake cost (the factor covers pieces that scale worse than the estimate).
[[nodiscard]] constexpr bool split_pays(std::int64_t probe_ns, std::int64_t probe, std::int64_t rest, int threads,
                                        std::int64_t wake_ns) noexcept {
  if (threads < 2 || probe <= 0 || rest <= 0) return false;
  const double serial_ns = static_cast<double>(probe_ns) * static_cast<double>(rest) / static_cast<double>(probe);
  return serial_ns * (threads - 1) / threads > 2.0 * static_cast<double>(wake_ns);
}

/// How many calls (elementwise or methods) were split over threads so far: a
/// diagnostic, for tests and for seeing what the measured split decides.
[[nodiscard]] std::uint64_t split_calls() noexcept;

/// The measured cost (ns) of waking the arena's workers for one split call: how long
/// until every thread has taken a piece (median of a few calls, at most 1 ms),
/// measured on first need and again after set_max_threads().
[[nodiscard]] std::int64_t wake_cost_ns();

/// Elements per piece of work. Defaults to a measured value (32768); the
/// UFUNC_PARALLEL_GRAIN environment variable or set_grain() change it. The settings
/// read from the environment throw target_error, from these functions and from every
/// call on target parallel, while their variable is not a valid integer.
[[nodiscard]] std::int64_t grain();
void set_grain(std::int64_t elements);

/// 0 (the default): calls are split by measured cost (see execute()). t > 0: calls of
/// at most t elements run on the calling thread in one piece and larger ones are split
/// into pieces of grain() elements, whatever they cost (tests use this to put piece
/// edges everywhere). The UFUNC_PARALLEL_THRESHOLD environment variable or
/// set_threshold() set it in elements. Results do not depend on it.
[[nodiscard]] std::int64_t threshold();
void set_threshold(std::int64_t elements);

/// Calls of at most this many elements run on the calling thread, unmeasured:
/// threshold() if set, else one grain.
[[nodiscard]] std::int64_t inline_limit();

/// The most threads a call uses (0: every core TBB sees). Calls run in a
/// tbb::task_arena of this size.
[[nodiscard]] int max_threads() noexcept;
void set_max_threads(int threads);

/// Runs fn(context) in the task arena set_max_threads() chose (on this thread or one
/// of the arena's), for executors other than execute() (reductions, reduce.cpp).
void run_in_arena(void (*fn)(void*), void* context);

}  // namespace ufunc::backends::parallel
