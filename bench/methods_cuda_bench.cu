// Device reduce timings (docs/design.md, methods): ufunc reduce (vectorize<.., cuda>, reorderable plus) vs
// cub::DeviceReduce::Sum. Not wired into bench/CMakeLists.txt yet; built by hand against a cuda-preset libufunc.a.
#include <cuda_runtime.h>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <ufunc/core/transfer.hpp>
#include <ufunc/ufunc.hpp>

struct plus : ufunc::reorderable {
  template <class T>
  __host__ __device__ T operator()(T a, T b) const {
    return a + b;
  }
};

template <class F>
float time_ms(F&& f, int reps = 20) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  cudaDeviceSynchronize();
  cudaEventRecord(a);
  for (int i = 0; i < reps; ++i) f();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  return ms / reps;
}

int main() {
  auto sum = ufunc::vectorize<ufunc::signatures<float(float, float), double(double, double)>, ufunc::target::cuda>(
      plus{}, "sum", 0);
  for (std::int64_t n : {1 << 20, 1 << 24, 1 << 28}) {
    auto dx = ufunc::to_device(ufunc::full<float>({n}, 1.0f));
    float* out;
    cudaMalloc(&out, sizeof(float));
    void* tmp = nullptr;
    size_t tb = 0;
    const float* in = reinterpret_cast<const float*>(dx.data());
    cub::DeviceReduce::Sum(tmp, tb, in, out, n);
    cudaMalloc(&tmp, tb);
    float t_cub = time_ms([&] { cub::DeviceReduce::Sum(tmp, tb, in, out, n); });
    float t_uf = time_ms([&] { (void)sum.reduce(dx, {.target = ufunc::target_id::cuda}); });
    auto m = dx.reshape({n / 1024, 1024});
    float t_ax0 = time_ms([&] { (void)sum.reduce(m, {.axis = 0, .target = ufunc::target_id::cuda}); });
    float t_ax1 = time_ms([&] { (void)sum.reduce(m, {.axis = 1, .target = ufunc::target_id::cuda}); });
    auto tall = dx.reshape({n / 4, 4});
    float t_tall = time_ms([&] { (void)sum.reduce(tall, {.axis = 0, .target = ufunc::target_id::cuda}); });
    double gb = n * 4.0 / 1e9;
    std::printf(
        "n=%lld: cub %.3f ms (%.0f GB/s)  ufunc full %.3f ms (%.0f GB/s)  axis0(...,1024) %.3f ms (%.0f GB/s)  axis1 "
        "%.3f ms (%.0f GB/s)  tall(...,4) axis0 %.3f ms (%.0f GB/s)\n",
        (long long)n, t_cub, gb / t_cub * 1e3, t_uf, gb / t_uf * 1e3, t_ax0, gb / t_ax0 * 1e3, t_ax1, gb / t_ax1 * 1e3,
        t_tall, gb / t_tall * 1e3);
    float h;
    cudaMemcpy(&h, out, 4, cudaMemcpyDeviceToHost);
    std::printf("  cub sum %.1f, ufunc sum %.1f\n", h,
                ufunc::to_host(sum.reduce(dx, {.target = ufunc::target_id::cuda})).item<float>());
    cudaFree(tmp);
    cudaFree(out);
  }
}
