// Non-temporal (streaming) stores for large outputs. A call whose outputs total at
// least streaming_threshold() bytes cannot keep them in the cache anyway; its
// contiguous SIMD loops then write with non-temporal stores, which do not read each
// written cache line first (write-allocate) and do not evict the inputs, and end
// with a store fence. Smaller outputs keep ordinary stores, so that whoever reads
// them next finds them in the cache.
//
// The decision is the call's (its total output), not the inner loop's: the parallel
// executor hands a loop 32768-element pieces of a 256 MiB output, and no piece's
// length says that. The executors say it through `stream_stores`, a thread-local
// flag set around the loop calls of such a call (elementwise_task::run and the
// single-loop fast path of run_loop), so the loop ABI (NumPy's args, n, steps, data)
// stays the same for every loop; the cpu backend's SIMD loops read it once per call
// (backends/cpu/loops.hpp).
#pragma once

#include <cstdint>

namespace ufunc::detail {

/// True while this thread runs the loops of a call whose outputs are large.
inline thread_local bool stream_stores = false;

/// Total output bytes from which a call's contiguous loops stream their stores.
/// Default 16 MiB; the UFUNC_STREAMING_BYTES environment variable (read once) or
/// set_streaming_threshold() change it; 0 turns streaming off.
[[nodiscard]] std::int64_t streaming_threshold() noexcept;
void set_streaming_threshold(std::int64_t bytes);

/// Whether a call writing `output_bytes` in all streams.
[[nodiscard]] inline bool streams(std::int64_t output_bytes) noexcept {
  const std::int64_t t = streaming_threshold();
  return t > 0 && output_bytes >= t;
}

/// Orders the non-temporal stores made before it with every later store (sfence on x86;
/// nothing where loops do not stream). For callers of loops told to stream without a fence
/// of their own (loop_entry::host_fixed_run).
void store_fence() noexcept;

/// Sets stream_stores for its lifetime, then restores it.
class stream_stores_scope {
 public:
  explicit stream_stores_scope(bool on) noexcept : saved_(stream_stores) { stream_stores = on; }
  ~stream_stores_scope() { stream_stores = saved_; }
  stream_stores_scope(const stream_stores_scope&) = delete;
  stream_stores_scope& operator=(const stream_stores_scope&) = delete;

 private:
  bool saved_;
};

}  // namespace ufunc::detail
