#include <ufunc/backends/parallel/elementwise.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <ufunc/core/detail/environment.hpp>
#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/error.hpp>

#include "measured_split.hpp"
#include "tsan_sync.hpp"

namespace ufunc::backends::parallel {

namespace {

// 32768 elements (128 KiB of float32 per operand): below this, waking workers
// costs more than it saves for memory-bound loops on the machines measured
// (bench/RESULTS.md); larger pieces balance worse on compute-bound loops.
constexpr std::int64_t default_grain = 32768;

std::atomic<std::int64_t>& grain_setting() {
  static std::atomic<std::int64_t> g{detail::environment_integer("UFUNC_PARALLEL_GRAIN", 1).value_or(default_grain)};
  return g;
}

// 0 (the default): calls are split by measured cost (execute()); t > 0: calls of at
// most t elements run on the calling thread, larger ones are split.
std::atomic<std::int64_t>& threshold_setting() {
  static std::atomic<std::int64_t> t{detail::environment_integer("UFUNC_PARALLEL_THRESHOLD", 0).value_or(0)};
  return t;
}

std::atomic<std::uint64_t> split_counter{0};

struct arena_holder {
  std::shared_mutex mutex;
  std::unique_ptr<tbb::task_arena> arena;  // null: TBB's default arena
  int threads = 0;
  // What waking the arena's workers for one call costs (ns), measured on first need;
  // -1: not measured for this arena yet.
  std::atomic<std::int64_t> wake_ns{-1};
};
arena_holder& arena_state() {
  static arena_holder h;
  return h;
}

// Runs body() in the task arena set_max_threads() chose (on this thread or one of the
// arena's), or in TBB's default arena.
template <class Body>
void in_arena(Body&& body) {
  auto& s = arena_state();
  std::shared_lock lock(s.mutex);  // set_max_threads waits for calls running in the old arena
  if (s.arena)
    s.arena->execute(body);
  else
    body();
}

}  // namespace

std::int64_t grain() { return grain_setting().load(std::memory_order_relaxed); }

void set_grain(std::int64_t elements) {
  if (elements < 1) throw value_error("parallel grain must be at least 1 element, not " + std::to_string(elements));
  grain_setting().store(elements, std::memory_order_relaxed);
}

std::int64_t threshold() { return threshold_setting().load(std::memory_order_relaxed); }

std::int64_t inline_limit() {
  const std::int64_t t = threshold();
  return t > 0 ? t : grain();
}

void set_threshold(std::int64_t elements) {
  if (elements < 0) throw value_error("parallel threshold must be >= 0 elements, not " + std::to_string(elements));
  threshold_setting().store(elements, std::memory_order_relaxed);
}

int max_threads() noexcept {
  auto& s = arena_state();
  std::shared_lock lock(s.mutex);
  return s.threads;
}

void set_max_threads(int threads) {
  if (threads < 0) throw value_error("max_threads must be >= 0, not " + std::to_string(threads));
  auto& s = arena_state();
  std::unique_lock lock(s.mutex);  // waits for calls running in the old arena
  s.arena = threads == 0 ? nullptr : std::make_unique<tbb::task_arena>(threads);
  s.threads = threads;
  s.wake_ns.store(-1, std::memory_order_relaxed);
}

void run_in_arena(void (*fn)(void*), void* context) {
  in_arena([&] { fn(context); });
}

namespace {

using clock_type = std::chrono::steady_clock;

std::int64_t elapsed_ns(clock_type::time_point since) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - since).count();
}

// Runs [first, n) of the task in pieces of g elements on the arena's threads.
void split(const elementwise_task& task, std::int64_t first, std::int64_t n, std::int64_t g) {
  count_split();
  const tsan_sync sync;
  auto body = [&] {
    // Pieces are whole multiples of the grain, so the same call always splits
    // the same way; elementwise results do not depend on the split at all.
    tbb::parallel_for(
        tbb::blocked_range<std::int64_t>(first / g, (n - 1) / g + 1),  // n > first here; no overflow near 2^63
        [&task, tokens = sync.piece_tokens(), first, n, g](const tbb::blocked_range<std::int64_t>& r) {
          const tsan_sync::piece_scope scope(tokens);
          task.run(std::max(first, r.begin() * g), std::min(n, r.end() * g));
        },
        tbb::simple_partitioner());
  };
  const tsan_sync::call_scope call(sync);
  in_arena(body);
}

// What a split call pays before its work is shared: the time until every thread of the
// arena has taken a piece, each piece waiting for the others (the median of a few such
// calls, after one that starts the workers). A thread that does not come within the
// limit (a busy machine) makes the limit the cost, so that calls are not split there.
// An empty parallel_for would not do: the calling thread runs all its pieces itself
// before a worker wakes.
constexpr std::int64_t wake_limit_ns = 1'000'000;

std::int64_t measure_wake_ns() {
  auto once = [] {
    const int threads = tbb::this_task_arena::max_concurrency();
    std::atomic<int> arrived{0};
    const tsan_sync sync;
    const tsan_sync::call_scope call(sync);
    const auto start = clock_type::now();
    tbb::parallel_for(
        tbb::blocked_range<int>(0, threads),
        [&arrived, tokens = sync.piece_tokens(), threads, start](const tbb::blocked_range<int>& r) {
          const tsan_sync::piece_scope scope(tokens);
          arrived.fetch_add(static_cast<int>(r.size()), std::memory_order_acq_rel);
          while (arrived.load(std::memory_order_acquire) < threads && elapsed_ns(start) < wake_limit_ns) {
          }
        },
        tbb::simple_partitioner());
    return std::min(elapsed_ns(start), wake_limit_ns);
  };
  std::int64_t samples[5];
  in_arena([&] {
    (void)once();
    for (auto& t : samples) t = once();
  });
  std::sort(std::begin(samples), std::end(samples));
  return samples[2];
}

int arena_threads() {
  auto& s = arena_state();
  std::shared_lock lock(s.mutex);
  return s.arena ? s.arena->max_concurrency() : tbb::this_task_arena::max_concurrency();
}

}  // namespace

void count_split() noexcept { split_counter.fetch_add(1, std::memory_order_relaxed); }

std::uint64_t split_calls() noexcept { return split_counter.load(std::memory_order_relaxed); }

std::int64_t wake_cost_ns() {
  auto& s = arena_state();
  std::int64_t w = s.wake_ns.load(std::memory_order_relaxed);
  if (w < 0) {  // two threads may both measure; either result is fine
    w = measure_wake_ns();
    s.wake_ns.store(w, std::memory_order_relaxed);
  }
  return w;
}

void execute(const elementwise_task& task) {
  const std::int64_t n = task.size();
  // The grain and the inline limit count an elementwise call's elements: a task whose
  // elements each stand for more work (a gufunc's cores) has that many fewer to a piece.
  const std::int64_t work = task.work_per_element();
  const std::int64_t g = std::max<std::int64_t>(1, grain() / work);
  if (n <= inline_limit() / work) {
    task.run(0, n);
    return;
  }
  if (threshold() > 0) {  // a fixed inline limit: above it, always split
    split(task, 0, n, g);
    return;
  }
  // By measured cost: a probe (a sixteenth of a grain, so that little of the work is
  // kept off the other threads) runs here, timed; the rest is split only if its
  // estimated serial time, shared by the threads its pieces can occupy, saves more
  // than waking them costs.
  const std::int64_t p = probe_size(g);
  if (probe_then_decide([&] { task.run(0, p); }, p, n, arena_threads(), (n - 1) / g + 1))
    split(task, p, n, g);
  else
    task.run(p, n);
}

}  // namespace ufunc::backends::parallel
