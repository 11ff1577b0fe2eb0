// rtc_generated_probe: the kernels that ufunc's run-time kernels generate (this tree's generator,
// written out by bench/rtc_generated_sources.py), compiled by nvcc, launched as the library launches
// them (the driver API's cuLaunchKernelEx with the launch_config and launch_attribute layout that
// backends/cuda/rtc/src/driver.hpp declares, as programmatic dependent launches; the host's plan of
// reduction_kernel::call for contiguous rows), checked and timed without building the library:
//   1. int32 sums (exact) around a tile and per row: the parts of the vector path take tiles in
//      turn and one part the rest;
//   2. float32 sum of 2^28 elements against cub::DeviceReduce::Sum (wall per synchronized call,
//      both with their buffers allocated once);
//   3. add float32: the contiguous instantiation (ND 0) and the strided one (ND 1) give x + y, and
//      their time at 2^20 beside a kernel shaped as the built-in contiguous kernel.
// The layouts are checked against cuda.h at compile time. Exit status 1 on a wrong result.
//   python3 bench/rtc_generated_sources.py build/generated
//   nvcc -O2 -std=c++20 -arch=sm_90 -Ibuild/generated bench/rtc_generated_probe.cu -lcuda -o probe && ./probe
#include <cuda.h>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <vector>
#include "../backends/cuda/rtc/src/driver.hpp"
#include "cuda_timing.hpp"
#include "gen_add.inc"
#include "gen_fsum.inc"
#include "gen_isum.inc"
using namespace ufunc::cuda::rtc::detail;
static int failures = 0;
// Counts and prints a wrong result (printf-style message).
void expect(bool ok, const char* format, ...) {
  if (ok) return;
  ++failures;
  std::va_list args;
  va_start(args, format);
  std::printf("FAIL: ");
  std::vprintf(format, args);
  std::printf("\n");
  va_end(args);
}

CUfunction function_of(const void* k) {
  cudaFunction_t f;
  bench::cuda_check(cudaGetFuncBySymbol(&f, k), "getfunc");
  return (CUfunction)f;
}
void dependent_launch(const void* k, unsigned grid, void** params) {
  launch_attribute a{};
  a.id = launch_attribute_programmatic_stream_serialization;
  a.value.programmatic_stream_serialization_allowed = 1;
  const launch_config c{grid, 1, 1, 256, 1, 1, 0, nullptr, &a, 1};
  const CUresult r = cuLaunchKernelEx(reinterpret_cast<const CUlaunchConfig*>(&c), function_of(k), params, nullptr);
  if (r != CUDA_SUCCESS) {
    std::printf("cuLaunchKernelEx failed %d\n", (int)r);
    std::exit(1);
  }
}
int sms() {
  int s;
  cudaDeviceGetAttribute(&s, cudaDevAttrMultiProcessorCount, 0);
  return s;
}

// The library's host plan for a contiguous aligned reduction (reduction_kernel::call).
template <class R, class T>
void plan(R& c, long long out_size, long long red, long long resident, const T* x, T* out, void* partial) {
  long long splits = 1;
  if (out_size < resident && red > 4096) splits = std::min((resident + out_size - 1) / out_size, (red + 4095) / 4096);
  c.chunk = (red + splits - 1) / splits;
  c.splits = (int)splits;
  c.vector = 1;
  c.nr = 1;
  c.red_size = red;
  c.rshape[0] = red;
  c.rstrides[0][0] = sizeof(T);
  c.out_size = out_size;
  c.base[0] = (char*)x;
  c.out = (char*)out;
  c.partial = (char*)partial;
}
template <class R, class P, class F, class W>
void reduce(R& c, P partial, F fin, W wide) {
  void* params[] = {&c};
  dependent_launch((const void*)partial, (unsigned)(c.out_size * c.splits), params);
  dependent_launch(c.splits > 8 ? (const void*)wide : (const void*)fin,
                   c.splits > 8 ? (unsigned)c.out_size : (unsigned)((c.out_size + 255) / 256), params);
}

__global__ void add_contig(int n, float* out, const float* a, const float* b) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const int first = blockIdx.x * 1024 + threadIdx.x;
  float x[4], y[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int i = first + k * 256;
    if (i < n) {
      x[k] = a[i];
      y[k] = b[i];
    }
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int i = first + k * 256;
    if (i < n) out[i] = x[k] + y[k];
  }
}

int main() {
  cuInit(0);
  static_assert(sizeof(launch_config) == sizeof(CUlaunchConfig) &&
                sizeof(launch_attribute) == sizeof(CUlaunchAttribute));
  int occ_i = 0, occ_f = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_i, isum::_ufunc_reduce_partial, 256, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_f, fsum::_ufunc_reduce_partial, 256, 0);
  const long long res_i = (long long)occ_i * sms(), res_f = (long long)occ_f * sms();
  std::printf("resident blocks int32 %lld float32 %lld\n", res_i, res_f);
  // 1. int32 sums, exact, around a tile and per row.
  for (long long n : {1LL, 3LL, 4095LL, 4096LL, 4100LL, 4096LL * 9 + 1003, (1LL << 21) + 4097, (1LL << 24) + 8195}) {
    std::vector<int> h(n);
    long long want = 0;
    for (long long k = 0; k < n; ++k) {
      h[k] = (int)((k * 7919) % 2001 - 1000);
      want += h[k];
    }
    bench::device_buffer<int> x(n), out(1), part(1 << 16);
    cudaMemcpy(x.ptr, h.data(), n * 4, cudaMemcpyHostToDevice);
    isum::_ufunc::reduction c{};
    plan(c, 1, n, res_i, x.ptr, out.ptr, part.ptr);
    reduce(c, isum::_ufunc_reduce_partial, isum::_ufunc_reduce_final, isum::_ufunc_reduce_final_wide);
    int got = 0;
    bench::cuda_check(cudaMemcpy(&got, out.ptr, 4, cudaMemcpyDeviceToHost), "copy");
    expect(got == want, "isum n=%lld splits=%d got %d want %lld", n, c.splits, got, want);
    std::printf("isum n=%lld splits=%d %s\n", n, c.splits, got == want ? "ok" : "WRONG");
  }
  {
    const long long row = 4096 * 40 + 12, rows = 5, n = row * rows;
    std::vector<int> h(n);
    for (long long k = 0; k < n; ++k) h[k] = (int)((k * 7919) % 2001 - 1000);
    bench::device_buffer<int> x(n), out(rows), part(1 << 16);
    cudaMemcpy(x.ptr, h.data(), n * 4, cudaMemcpyHostToDevice);
    isum::_ufunc::reduction c{};
    plan(c, rows, row, res_i, x.ptr, out.ptr, part.ptr);
    c.nk = 1;
    c.kshape[0] = rows;
    c.kstrides[0][0] = row * 4;
    c.ostrides[0] = 4;
    reduce(c, isum::_ufunc_reduce_partial, isum::_ufunc_reduce_final, isum::_ufunc_reduce_final_wide);
    std::vector<int> got(rows);
    cudaMemcpy(got.data(), out.ptr, rows * 4, cudaMemcpyDeviceToHost);
    for (long long i = 0; i < rows; ++i) {
      long long w = 0;
      for (long long j = 0; j < row; ++j) w += h[i * row + j];
      expect(got[i] == w, "row %lld got %d want %lld", i, got[i], w);
    }
    std::printf("isum rows splits=%d checked\n", c.splits);
  }
  // 2. float32 2^28 sum: generated (dependent launches) against cub, wall per synchronized call.
  {
    const long long n = 1LL << 28;
    bench::device_buffer<float> x(n), out(1), part(1 << 16);
    std::vector<float> ones(1 << 20, 1.0f);
    for (long long k = 0; k < n; k += 1 << 20) cudaMemcpy(x.ptr + k, ones.data(), 4 << 20, cudaMemcpyHostToDevice);
    fsum::_ufunc::reduction c{};
    plan(c, 1, n, res_f, x.ptr, out.ptr, part.ptr);
    std::size_t tb = 0;
    cub::DeviceReduce::Sum(nullptr, tb, x.ptr, out.ptr, n);
    bench::device_buffer<unsigned char> temp((long long)tb + 1);
    for (int rep = 0; rep < 3; ++rep) {
      const double tg = bench::median_synchronized(
          [&] { reduce(c, fsum::_ufunc_reduce_partial, fsum::_ufunc_reduce_final, fsum::_ufunc_reduce_final_wide); }, 3,
          21);
      const double tc = bench::median_synchronized(
          [&] {
            std::size_t b = tb;
            cub::DeviceReduce::Sum(temp.ptr, b, x.ptr, out.ptr, n);
          },
          3, 21);
      std::printf("sum f32 2^28: generated %.1f us (splits %d), cub %.1f us, ratio %.3f\n", tg * 1e6, c.splits,
                  tc * 1e6, tc / tg);
    }
  }
  // 3. elementwise add: ND 0 (contiguous) and ND 1 instantiations, correctness and 2^20 time.
  for (long long n : {1LL, 1000LL, (1LL << 20) + 5, 1LL << 20}) {
    bench::device_buffer<float> a(n), b(n), z(n), z1(n);
    std::vector<float> ha(n), hb(n);
    for (long long k = 0; k < n; ++k) {
      ha[k] = 0.5f * (float)(k % 977);
      hb[k] = 1.25f * (float)(k % 101);
    }
    cudaMemcpy(a.ptr, ha.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(b.ptr, hb.data(), n * 4, cudaMemcpyHostToDevice);
    eadd::_ufunc::call<1, 3> c{};
    c.size = n;
    c.shape[0] = n;
    c.strides[0][0] = c.strides[1][0] = c.strides[2][0] = 4;
    c.base[0] = (char*)a.ptr;
    c.base[1] = (char*)b.ptr;
    c.base[2] = (char*)z.ptr;
    eadd::_ufunc::fp_sink fp{};
    void* params[] = {&c, &fp};
    const unsigned blocks = (unsigned)((n + 1023) / 1024);
    dependent_launch((const void*)&eadd::_ufunc_elementwise<0, false>, blocks, params);
    eadd::_ufunc::call<1, 3> c1 = c;
    c1.base[2] = (char*)z1.ptr;
    void* params1[] = {&c1, &fp};
    dependent_launch((const void*)&eadd::_ufunc_elementwise<1, false>, blocks, params1);
    std::vector<float> hz(n), hz1(n);
    cudaMemcpy(hz.data(), z.ptr, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(hz1.data(), z1.ptr, n * 4, cudaMemcpyDeviceToHost);
    long long bad = 0;
    for (long long k = 0; k < n; ++k) bad += (hz[k] != ha[k] + hb[k]) + (hz1[k] != ha[k] + hb[k]);
    expect(bad == 0, "add n=%lld: %lld wrong", n, bad);
    std::printf("add n=%lld %s\n", n, bad == 0 ? "ok" : "WRONG");
    if (n == (1LL << 20)) {
      int ni = (int)n;
      void* pc[] = {&ni, &z.ptr, &a.ptr, &b.ptr};
      for (int rep = 0; rep < 3; ++rep) {
        const double t0 = bench::median_synchronized(
            [&] { dependent_launch((const void*)&eadd::_ufunc_elementwise<0, false>, blocks, params); }, 3, 201);
        const double t1 = bench::median_synchronized(
            [&] { dependent_launch((const void*)&eadd::_ufunc_elementwise<1, false>, blocks, params1); }, 3, 201);
        const double tb2 =
            bench::median_synchronized([&] { dependent_launch((const void*)&add_contig, blocks, pc); }, 3, 201);
        std::printf("add 2^20: ND0 %.2f us, ND1 %.2f us, built-in-like contiguous %.2f us\n", t0 * 1e6, t1 * 1e6,
                    tb2 * 1e6);
      }
    }
  }
  bench::cuda_check(cudaDeviceSynchronize(), "end");
  std::printf("failures %d\n", failures);
  return failures != 0;
}
