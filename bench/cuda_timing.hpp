// Wall time of GPU calls as a user sees them: each call followed by a device synchronize,
// the median of several (rtc_bench, fuse_cuda_bench; CuPy's scripts time the same way).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bench {

inline void device_sync() {
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "cudaDeviceSynchronize failed\n");
    std::exit(1);
  }
}

/// Median of `reps` timed calls after `warm` untimed ones, each call synchronized.
template <class F>
double median_synchronized(F&& f, int warm, int reps) {
  for (int k = 0; k < warm; ++k) f();
  device_sync();
  std::vector<double> t;
  for (int k = 0; k < reps; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    device_sync();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace bench
