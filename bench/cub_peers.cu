// cub_peers: the cub calls that issue 18's targets name, timed as rtc_bench times the run-time
// kernels (wall per call, each followed by a device synchronize, median; bench/cuda_timing.hpp),
// so that bench/run_rtc.sh puts them in the same run, as the same kind of figure:
//   add  cub::DeviceTransform::Transform, z = x + y on float32 (1024, 2^20, 2^24, 2^28)
//   sum  cub::DeviceReduce::Sum on float32 ones (the same sizes)
// Both at their best: output and temporary storage allocated once, outside the timing (the
// run-time kernels allocate their results from the library's pool in each call). No library
// code: it builds in seconds. Prints CSV: bench,variant,n,seconds.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "cuda_timing.hpp"

namespace {

struct plus {
  __device__ float operator()(float a, float b) const { return a + b; }
};

__global__ void fill(float* p, std::int64_t n, float v) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    p[i] = v;
}

}  // namespace

int main() {
  cudaStream_t s = nullptr;
  for (int log2 : {10, 20, 24, 28}) {
    const std::int64_t n = std::int64_t{1} << log2;
    bench::device_buffer<float> x(n), y(n), z(n), total(1);
    fill<<<1024, 256>>>(x.ptr, n, 1.0f);
    fill<<<1024, 256>>>(y.ptr, n, 2.5f);
    bench::cuda_check(cudaGetLastError(), "fill");
    const int reps = log2 >= 28 ? 21 : 101;
    std::printf("add,cub_device_transform,%lld,%.9g\n", static_cast<long long>(n),
                bench::median_synchronized(
                    [&] {
                      bench::cuda_check(
                          cub::DeviceTransform::Transform(cuda::std::make_tuple(x.ptr, y.ptr), z.ptr, n, plus{}, s),
                          "cub::DeviceTransform");
                    },
                    3, reps));
    std::size_t temp_bytes = 0;
    bench::cuda_check(cub::DeviceReduce::Sum(nullptr, temp_bytes, x.ptr, total.ptr, n, s), "cub::DeviceReduce");
    bench::device_buffer<unsigned char> temp(static_cast<std::int64_t>(temp_bytes > 0 ? temp_bytes : 1));
    std::printf("sum,cub_device_reduce,%lld,%.9g\n", static_cast<long long>(n),
                bench::median_synchronized(
                    [&] {
                      std::size_t bytes = temp_bytes;
                      bench::cuda_check(cub::DeviceReduce::Sum(temp.ptr, bytes, x.ptr, total.ptr, n, s),
                                        "cub::DeviceReduce");
                    },
                    3, reps));
    float got = 0;
    bench::cuda_check(cudaMemcpy(&got, total.ptr, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (got != static_cast<float>(n)) {
      std::fprintf(stderr, "cub_peers: the sum of %lld ones is %g\n", static_cast<long long>(n), got);
      return 1;
    }
  }
  return 0;
}
