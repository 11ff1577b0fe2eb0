#include <ufunc/backends/parallel/execute.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/error.hpp>

#include "tsan_sync.hpp"

namespace ufunc::backends::parallel {

namespace {

// 32768 elements (128 KiB of float32 per operand): below this, waking workers
// costs more than it saves for memory-bound loops on the machines measured
// (bench/RESULTS.md); larger pieces balance worse on compute-bound loops.
constexpr std::int64_t default_grain = 32768;

std::int64_t grain_from_environment() {
  const char* v = std::getenv("UFUNC_PARALLEL_GRAIN");
  if (v == nullptr || *v == '\0') return default_grain;
  char* end = nullptr;
  const long long g = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0' || g < 1)
    throw target_error(std::string("UFUNC_PARALLEL_GRAIN must be a positive integer, not '") + v + "'");
  return g;
}

std::atomic<std::int64_t>& grain_setting() {
  static std::atomic<std::int64_t> g{grain_from_environment()};
  return g;
}

// Calls of at most this many grains run on the calling thread: below it, waking
// workers for a few pieces costs more than it saves (the 16-core host ran 65536
// elements, two pieces, 2.1x slower split than serially; bench/RESULTS_parallel.md).
constexpr std::int64_t default_threshold_grains = 4;

// 0: default_threshold_grains x grain().
std::int64_t threshold_from_environment() {
  const char* v = std::getenv("UFUNC_PARALLEL_THRESHOLD");
  if (v == nullptr || *v == '\0') return 0;
  char* end = nullptr;
  const long long t = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0' || t < 0)
    throw target_error(std::string("UFUNC_PARALLEL_THRESHOLD must be a non-negative integer, not '") + v + "'");
  return t;
}

std::atomic<std::int64_t>& threshold_setting() {
  static std::atomic<std::int64_t> t{threshold_from_environment()};
  return t;
}

struct arena_holder {
  std::shared_mutex mutex;
  std::unique_ptr<tbb::task_arena> arena;  // null: TBB's default arena
  int threads = 0;
};
arena_holder& arena_state() {
  static arena_holder h;
  return h;
}

}  // namespace

std::int64_t grain() noexcept { return grain_setting().load(std::memory_order_relaxed); }

void set_grain(std::int64_t elements) {
  if (elements < 1) throw value_error("parallel grain must be at least 1 element, not " + std::to_string(elements));
  grain_setting().store(elements, std::memory_order_relaxed);
}

std::int64_t threshold() noexcept {
  const std::int64_t t = threshold_setting().load(std::memory_order_relaxed);
  return t > 0 ? t : default_threshold_grains * grain();
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
}

void run_in_arena(void (*fn)(void*), void* context) {
  auto& s = arena_state();
  std::shared_lock lock(s.mutex);
  if (s.arena)
    s.arena->execute([&] { fn(context); });
  else
    fn(context);
}

void execute(const elementwise_task& task) {
  const std::int64_t n = task.size();
  if (n <= threshold()) {
    task.run(0, n);
    return;
  }
  const std::int64_t g = grain();
  const tsan_sync sync;
  auto body = [&] {
    // Pieces are whole multiples of the grain, so the same call always splits
    // the same way (reductions rely on that); elementwise results do not depend
    // on the split at all.
    tbb::parallel_for(
        tbb::blocked_range<std::int64_t>(0, (n - 1) / g + 1),  // n > 0 here; no overflow near 2^63
        [&task, tokens = sync.piece_tokens(), n, g](const tbb::blocked_range<std::int64_t>& r) {
          const tsan_sync::piece_scope scope(tokens);
          task.run(r.begin() * g, std::min(n, r.end() * g));
        },
        tbb::simple_partitioner());
  };
  const tsan_sync::call_scope call(sync);
  auto& s = arena_state();
  std::shared_lock lock(s.mutex);
  if (s.arena)
    s.arena->execute(body);  // may run body on another thread of the arena
  else
    body();
}

}  // namespace ufunc::backends::parallel
