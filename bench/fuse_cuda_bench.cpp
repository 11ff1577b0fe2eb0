// Fusion on the GPU (issue 19): sqrt(a*a + b*b) and the Black-Scholes formula (Numba's and
// CuPy's example: call and put from S, X, T with r and v scalars) on float32 and float64
// device arrays, as one fused ufunc (one kernel generated from the graph, compiled at run
// time), as the unfused chain (hyp: four built-in calls into preallocated outputs;
// Black-Scholes: call_unfused, an array per node, up to 2^24), and the one-pass floor: the
// bytes the fused kernel reads and writes at the rate of a device-to-device cudaMemcpy
// measured in the same run. bench/fuse_gpu_peers.py times cupy.fuse, a hand-written CuPy
// ElementwiseKernel and PyTorch eager on the same expressions and sizes.
// Prints CSV: expr,dtype,n,impl,seconds (median of synchronized calls, wall clock).
//
//   fuse_cuda_bench [log2 sizes...]        (default 20 24 28)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <utility>
#include <vector>

#include <ufunc/fuse.hpp>
#include <ufunc/ufunc.hpp>

#include "../examples/black_scholes.hpp"
#include "cuda_timing.hpp"

namespace {

void sync() { bench::device_sync(); }

// The first call compiles (or loads from the cache) and is not timed.
template <class F>
double median_time(F&& f, int reps) {
  return bench::median_synchronized(std::forward<F>(f), 1, reps);
}

int reps_for(std::int64_t n) { return n >= (1 << 26) ? 11 : 51; }

// Seconds per byte moved by a device-to-device copy of n elements of `itemsize` bytes (read
// and write both counted).
double copy_seconds_per_byte(std::int64_t n, std::size_t itemsize) {
  const auto bytes = static_cast<std::size_t>(n) * itemsize;
  void *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) std::exit(1);
  const double t = median_time([&] { (void)cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice); }, reps_for(n));
  cudaFree(a);
  cudaFree(b);
  return t / (2.0 * static_cast<double>(bytes));
}

void print(const char* expr, const char* dtype, std::int64_t n, const char* impl, double seconds) {
  std::printf("%s,%s,%lld,%s,%.9g\n", expr, dtype, static_cast<long long>(n), impl, seconds);
  std::fflush(stdout);
}

template <class T>
void run(std::int64_t n) {
  const char* dtype = sizeof(T) == 4 ? "f32" : "f64";
  const double per_byte = copy_seconds_per_byte(n, sizeof(T));
  const double bytes = static_cast<double>(n) * sizeof(T);
  {
    const auto a = ufunc::to_device(ufunc::full<T>({n}, T(1.25))), b = ufunc::to_device(ufunc::full<T>({n}, T(2.5)));
    auto out = ufunc::to_device(ufunc::empty<T>({n})), t1 = ufunc::to_device(ufunc::empty<T>({n})),
         t2 = ufunc::to_device(ufunc::empty<T>({n}));
    auto hyp = ufunc::fuse([](auto x, auto y) { return ufunc::sqrt(x * x + y * y); }, "hyp");
    print("hyp", dtype, n, "unfused_chain",
          median_time(
              [&] {
                ufunc::multiply(a, a, {.out = {t1}});
                ufunc::multiply(b, b, {.out = {t2}});
                ufunc::add(t1, t2, {.out = {t1}});
                ufunc::sqrt(t1, {.out = {out}});
              },
              reps_for(n)));
    print("hyp", dtype, n, "fused", median_time([&] { hyp(a, b, {.out = {out}}); }, reps_for(n)));
    print("hyp", dtype, n, "one_pass_floor", 3 * bytes * per_byte);
  }
  {
    auto s = ufunc::to_device(ufunc::full<T>({n}, T(20))), x = ufunc::to_device(ufunc::full<T>({n}, T(40))),
         t = ufunc::to_device(ufunc::full<T>({n}, T(2)));
    auto call = ufunc::to_device(ufunc::empty<T>({n})), put = ufunc::to_device(ufunc::empty<T>({n}));
    auto bs = ufunc::fuse([](auto S, auto X, auto Tm, auto r, auto v) { return black_scholes(S, X, Tm, r, v); },
                          "black_scholes");
    const std::vector<ufunc::operand> args{s, x, t, 0.02, 0.30};
    if (n <= (std::int64_t(1) << 24))
      print("black_scholes", dtype, n, "unfused_chain", median_time([&] { (void)bs.call_unfused(args); }, reps_for(n)));
    print("black_scholes", dtype, n, "fused",
          median_time(
              [&] {
                (void)bs.call(args, {.out = {call, put}});
              },
              reps_for(n)));
    print("black_scholes", dtype, n, "one_pass_floor", 5 * bytes * per_byte);
  }
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<int> sizes;
  for (int k = 1; k < argc; ++k) sizes.push_back(std::atoi(argv[k]));
  if (sizes.empty()) sizes = {20, 24, 28};
  std::printf("expr,dtype,n,impl,seconds\n");
  for (int log2 : sizes) {
    run<float>(std::int64_t(1) << log2);
    run<double>(std::int64_t(1) << log2);
  }
  return 0;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "fuse_cuda_bench: %s\n", e.what());
  return 1;
}
