#include <ufunc/core/detail/streaming.hpp>

#include <atomic>
#include <string>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#endif

#include <ufunc/core/detail/environment.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::detail {

namespace {

// 16 MiB of output (bench/RESULTS_parallel.md, 16-core Xeon GPU host): a single call
// gains from streaming at every size from 1 MiB (add f32 on 16 threads 1.2 to 1.9x),
// but a call whose result the next call reads (add, then multiply reading its
// output) runs 12 to 21% slower on 16 threads with streaming up to 8 MiB, since the
// result no longer waits in the cache; at 16 MiB it breaks even, beyond it gains.
constexpr std::int64_t default_streaming_bytes = std::int64_t{16} << 20;

std::int64_t streaming_from_environment() noexcept {
  try {
    return environment_integer("UFUNC_STREAMING_BYTES", 0).value_or(default_streaming_bytes);
  } catch (const error&) {
    return default_streaming_bytes;  // read in noexcept code (streaming_threshold): no throw
  }
}

std::atomic<std::int64_t>& setting() {
  static std::atomic<std::int64_t> bytes{streaming_from_environment()};
  return bytes;
}

}  // namespace

void store_fence() noexcept {
#if defined(__x86_64__) || defined(_M_X64)
  _mm_sfence();
#endif
}

std::int64_t streaming_threshold() noexcept { return setting().load(std::memory_order_relaxed); }

void set_streaming_threshold(std::int64_t bytes) {
  if (bytes < 0) throw value_error("streaming threshold must be >= 0 bytes, not " + std::to_string(bytes));
  setting().store(bytes, std::memory_order_relaxed);
}

}  // namespace ufunc::detail
