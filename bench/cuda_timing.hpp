// Wall time of GPU calls as a user sees them: each call followed by a device synchronize,
// the median of several (rtc_bench, fuse_cuda_bench; CuPy's scripts time the same way).
// In nvcc's translation units also the device time of one call (gpu_timer: CUDA events with
// the stream held until the call is enqueued; cuda_bench, half_cuda_bench) and the number of
// input sets to rotate so that each rep reads uncached inputs (input_sets).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#if defined(__CUDACC__)
#include <atomic>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#endif

namespace bench {

inline void device_sync() {
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "cudaDeviceSynchronize failed\n");
    std::exit(1);
  }
}

/// Seconds of one call of f, until the device has finished it.
template <class F>
double synchronized_seconds(F& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  device_sync();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Median of `reps` timed calls after `warm` untimed ones, each call synchronized.
template <class F>
double median_synchronized(F&& f, int warm, int reps) {
  for (int k = 0; k < warm; ++k) f();
  device_sync();
  std::vector<double> t;
  for (int k = 0; k < reps; ++k) t.push_back(synchronized_seconds(f));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// The medians of f's and g's synchronized calls, timed in turn (f, g, then g, f, ...) so that
/// neither runs in a better state of the GPU's clocks and caches than the other (measured one
/// after the other, the ratio of two such calls at 2^20 float32 elements moved by up to 8%
/// between two runs of one program on the H200).
template <class F, class G>
std::pair<double, double> median_synchronized_pair(F&& f, G&& g, int warm, int reps) {
  for (int k = 0; k < warm; ++k) f(), g();
  device_sync();
  std::vector<double> tf, tg;
  for (int k = 0; k < reps; ++k) {
    if (k % 2 == 0) {
      tf.push_back(synchronized_seconds(f));
      tg.push_back(synchronized_seconds(g));
    } else {
      tg.push_back(synchronized_seconds(g));
      tf.push_back(synchronized_seconds(f));
    }
  }
  std::sort(tf.begin(), tf.end());
  std::sort(tg.begin(), tg.end());
  return {tf[tf.size() / 2], tg[tg.size() / 2]};
}

#if defined(__CUDACC__)

/// Ends the program on a CUDA error (a benchmark that goes on past one reports work that did not happen).
inline void cuda_check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s failed: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
  std::exit(2);
}

/// Runs body; a library error (a missing loop, a wrong placement) is printed as a "# error" row and counted in
/// `failures`, and the benchmark goes on with its other rows.
inline void guarded(const std::string& what, const std::function<void()>& body, int& failures) {
  try {
    body();
  } catch (const std::exception& e) {
    ++failures;
    std::printf("# error,%s: %s\n", what.c_str(), e.what());
    std::fflush(stdout);
  }
}

/// n elements of T in device memory, freed on destruction.
template <class T>
struct device_buffer {
  T* ptr = nullptr;
  std::int64_t count = 0;
  explicit device_buffer(std::int64_t n) : count(n) {
    cuda_check(cudaMalloc(&ptr, static_cast<std::size_t>(n) * sizeof(T)), "cudaMalloc");
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : ptr(std::exchange(o.ptr, nullptr)), count(o.count) {}
  ~device_buffer() {
    if (ptr) (void)cudaFree(ptr);  // cudaFree synchronizes; buffers die between cases, never while timing
  }
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(count) * sizeof(T); }
};

struct device_info {
  cudaDeviceProp prop;
  int l2;  // bytes
  int driver, runtime;
};

/// Sets device 0, prints the CSV's "# device,..." line (name, architecture, SMs, L2, memory, versions)
/// and returns what it printed.
inline device_info print_device_line() {
  cuda_check(cudaSetDevice(0), "cudaSetDevice");
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int l2 = 0, driver = 0, runtime = 0;
  cuda_check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "cudaDeviceGetAttribute");
  cuda_check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  cuda_check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  std::printf("# device,%s,sm_%d%d,%d SMs,L2 %d MiB,%.0f GiB,driver %d,runtime %d\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount, l2 >> 20, static_cast<double>(prop.totalGlobalMem) / (1 << 30), driver,
              runtime);
  return {prop, l2, driver, runtime};
}

namespace timing_detail {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Holds the stream until the host sets *flag, or until timeout_ns passed (then *timed_out = 1). In an unnamed
// namespace: each program that includes this header has its own copy of the kernel.
namespace {
__global__ void hold_stream(const volatile int* flag, volatile int* timed_out, std::uint64_t timeout_ns) {
  std::uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*flag == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(500);
  }
}
}  // namespace

}  // namespace timing_detail

/// Device time of one call: CUDA events around the call on `stream`, the median over reps. Before each rep the
/// stream is held by a kernel that spins on a host flag until the call has been enqueued, so the events bracket GPU
/// work only, not the host's time to issue the call (nvbench does the same). If a call synchronizes (the spin
/// kernel would hold it back), the spin times out, the case is re-timed without it and a '# note' says so.
class gpu_timer {
 public:
  explicit gpu_timer(cudaStream_t s) : stream_(s) {
    cuda_check(cudaHostAlloc(&host_flags_, 2 * sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
    cuda_check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), host_flags_, 0),
               "cudaHostGetDevicePointer");
    cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~gpu_timer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
    (void)cudaFreeHost(host_flags_);
  }
  gpu_timer(const gpu_timer&) = delete;
  gpu_timer& operator=(const gpu_timer&) = delete;

  /// Median device time in microseconds of enqueue(rep), one call per rep; rep counts up from 0 through warm-up and
  /// timed reps, so callers rotate input sets with rep % sets.
  double measure(const std::string& what, int warmup, int reps, const std::function<void(int)>& enqueue) {
    for (int w = 0; w < warmup; ++w) enqueue(w);
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    if (auto t = run(warmup, reps, enqueue, /*hold=*/true)) return *t;
    std::printf(
        "# note,%s: the call waited for the GPU while the stream was held (it synchronizes); timed without "
        "holding the stream, so host issue time is included\n",
        what.c_str());
    return *run(warmup, reps, enqueue, /*hold=*/false);
  }

 private:
  std::optional<double> run(int first_rep, int reps, const std::function<void(int)>& enqueue, bool hold) {
    std::vector<double> us;
    for (int r = 0; r < reps; ++r) {
      std::atomic_ref<int> flag(host_flags_[0]);
      if (hold) {
        flag.store(0);
        host_flags_[1] = 0;
        timing_detail::hold_stream<<<1, 1, 0, stream_>>>(&device_flags_[0], &device_flags_[1],
                                                         200'000'000ull);  // 200 ms
        cuda_check(cudaGetLastError(), "hold_stream");
      }
      cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
      try {
        enqueue(first_rep + r);
      } catch (...) {
        flag.store(1);  // never leave the stream held behind an exception
        (void)cudaStreamSynchronize(stream_);
        throw;
      }
      cuda_check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
      flag.store(1);
      cuda_check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
      if (hold && std::atomic_ref<int>(host_flags_[1]).load() != 0) return std::nullopt;
      float ms = 0;
      cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
      us.push_back(ms * 1e3);
    }
    return timing_detail::median(us);
  }

  cudaStream_t stream_;
  int* host_flags_ = nullptr;  // [0]: release flag, [1]: timed out
  int* device_flags_ = nullptr;
  cudaEvent_t start_{}, stop_{};
};

/// Input sets for a case whose working set fits in L2 are rotated, so each rep reads inputs that are not cached:
/// with LRU-like replacement, streaming through >= 4x the L2 between two uses of a set evicts it.
inline int input_sets(std::int64_t set_bytes, std::int64_t l2_bytes) {
  if (set_bytes >= 4 * l2_bytes) return 1;
  const auto sets = (4 * l2_bytes + set_bytes - 1) / set_bytes;
  return static_cast<int>(std::clamp<std::int64_t>(sets, 2, 64));
}

#endif  // __CUDACC__

}  // namespace bench
