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

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
// Debian's libtbb is not built with ThreadSanitizer, which therefore cannot see
// the synchronization TBB does when it hands out and joins tasks. These two
// annotations state it: the caller's writes happen before every piece, and every
// piece happens before parallel_for returns.
#define UFUNC_TSAN_RELEASE(p) __tsan_release(p)
#define UFUNC_TSAN_ACQUIRE(p) __tsan_acquire(p)
#else
#define UFUNC_TSAN_RELEASE(p) ((void)(p))
#define UFUNC_TSAN_ACQUIRE(p) ((void)(p))
#endif

namespace {
// The address the annotations synchronize on: one static object, since stack
// addresses are reused from call to call.
[[maybe_unused]] char tsan_token;

// Releases on scope exit, so that a piece that throws still publishes its writes.
struct release_on_exit {
  ~release_on_exit() { UFUNC_TSAN_RELEASE(&tsan_token); }
};
struct acquire_on_exit {
  ~acquire_on_exit() { UFUNC_TSAN_ACQUIRE(&tsan_token); }
};
}  // namespace

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

void execute(const elementwise_task& task) {
  const std::int64_t n = task.size();
  const std::int64_t g = grain();
  if (n <= g) {
    task.run(0, n);
    return;
  }
  auto body = [&] {
    // Pieces are whole multiples of the grain, so the same call always splits
    // the same way (reductions rely on that); elementwise results do not depend
    // on the split at all.
    tbb::parallel_for(
        tbb::blocked_range<std::int64_t>(0, (n + g - 1) / g),
        [&](const tbb::blocked_range<std::int64_t>& r) {
          UFUNC_TSAN_ACQUIRE(&tsan_token);
          const release_on_exit publish;
          task.run(r.begin() * g, std::min(n, r.end() * g));
        },
        tbb::simple_partitioner());
  };
  UFUNC_TSAN_RELEASE(&tsan_token);
  const acquire_on_exit join;  // also when a piece threw
  auto& s = arena_state();
  std::shared_lock lock(s.mutex);
  if (s.arena)
    s.arena->execute(body);  // may run body on another thread of the arena
  else
    body();
}

}  // namespace ufunc::backends::parallel
