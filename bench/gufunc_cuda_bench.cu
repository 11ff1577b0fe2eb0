// Generalized ufuncs on the GPU (issue 20): the built-in matmul on a stack of 10^6
// (3x3)@(3x3) and on one (512x512)@(512x512), the built-in vecdot of (10^6, 16) rows, and a gvectorize'd moving average
// over (10^5, 256) rows with a window of 8, on device arrays, every call writing into an
// existing device output; the same data as bench/gufunc_bench.cpp. bench/gufunc_gpu_peers.py
// times CuPy and PyTorch on it. A .cu file: gvectorize<..., target::cuda> compiles the
// moving average for the GPU here. Prints CSV: case,dtype,impl,target,seconds (median of
// synchronized calls, as the peers' script).
//
//   gufunc_cuda_bench
#include <cstdint>
#include <cstdio>

#include <ufunc/core/transfer.hpp>
#include <ufunc/gvectorize.hpp>
#include <ufunc/ufunc.hpp>

#include "cuda_timing.hpp"
#include "gufunc_data.hpp"

namespace {

struct move_mean_fn {
  template <class A, class W, class R>
  __host__ __device__ void operator()(A a, W window, R out) const {
    using T = typename R::element_type;
    const std::int64_t w = window();
    T sum = 0;
    for (std::int64_t i = 0; i < a.extent(0); ++i) {
      sum += a(i);
      if (i >= w) sum -= a(i - w);
      out(i) = sum / static_cast<T>(i + 1 < w ? i + 1 : w);
    }
  }
};

template <class T>
void run(const char* dtype) {
  const auto move_mean =
      ufunc::gvectorize<T(T, std::int64_t), ufunc::target::cuda>("(n),()->(n)", move_mean_fn{}, "move_mean");
  const auto a = ufunc::to_device(bench::gufunc_data<T>({1000000, 3, 3})),
             b = ufunc::to_device(bench::gufunc_data<T>({1000000, 3, 3}));
  auto c = ufunc::to_device(ufunc::array::empty({1000000, 3, 3}, ufunc::dtype_of<T>));
  const auto x = ufunc::to_device(bench::gufunc_data<T>({1000000, 16})),
             y = ufunc::to_device(bench::gufunc_data<T>({1000000, 16}));
  auto d = ufunc::to_device(ufunc::array::empty({1000000}, ufunc::dtype_of<T>));
  const auto m = ufunc::to_device(bench::gufunc_data<T>({100000, 256}));
  auto mm = ufunc::to_device(ufunc::array::empty({100000, 256}, ufunc::dtype_of<T>));
  const auto window = std::int64_t{8};
  // One product of 512 x 512 matrices: a thread per output element (cuBLAS for the peers).
  const auto big_a = ufunc::to_device(bench::gufunc_data<T>({512, 512})),
             big_b = ufunc::to_device(bench::gufunc_data<T>({512, 512}));
  auto big_c = ufunc::to_device(ufunc::array::empty({512, 512}, ufunc::dtype_of<T>));
  std::printf("matmul_3x3,%s,builtin_matmul,cuda,%.9g\n", dtype,
              bench::median_synchronized([&] { ufunc::matmul(a, b, {.out = {c}}); }, 3, 21));
  std::printf("vecdot_16,%s,builtin_vecdot,cuda,%.9g\n", dtype,
              bench::median_synchronized([&] { ufunc::vecdot(x, y, {.out = {d}}); }, 3, 21));
  std::printf("move_mean_256,%s,gvectorize,cuda,%.9g\n", dtype,
              bench::median_synchronized([&] { move_mean(m, window, {.out = {mm}}); }, 3, 21));
  std::printf("matmul_512,%s,builtin_matmul,cuda,%.9g\n", dtype,
              bench::median_synchronized([&] { ufunc::matmul(big_a, big_b, {.out = {big_c}}); }, 3, 21));
  // The window already on the device: what the copy of a host scalar to the device costs a call.
  const auto device_window = ufunc::to_device(ufunc::scalar(window));
  std::printf("move_mean_256,%s,gvectorize_device_window,cuda,%.9g\n", dtype,
              bench::median_synchronized([&] { move_mean(m, device_window, {.out = {mm}}); }, 3, 21));
}

}  // namespace

int main() {
  if (!ufunc::cuda_available()) {
    std::fprintf(stderr, "no usable CUDA device\n");
    return 77;
  }
  std::printf("case,dtype,impl,target,seconds\n");
  run<float>("f32");
  run<double>("f64");
}
