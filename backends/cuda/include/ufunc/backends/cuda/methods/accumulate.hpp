// cuda backend, device side of ufunc.accumulate: a thread per position of the other
// dimensions, out[i] = f(out[i-1], x[i]). nvcc only.
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/methods/accumulate.hpp is CUDA code: compile this translation unit with nvcc"
#endif

#include <cstdint>

#include <ufunc/backends/cuda/methods/common.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/device_method.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::backends::cuda::method_detail {

struct accumulate_params {
  char* out;
  const char* x;
  dims other;
  std::int64_t K, L, out_step, x_step;
  device_fp_sink fp;
};

// This thread's output of an accumulation, in order: a = step(a, x). Shared by
// accumulate_kernel and sequential_kernel.
template <class T, class Step>
__device__ __forceinline__ void accumulate_one(const accumulate_params& p, Step step) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
  if (k >= p.K) return;
  std::int64_t ox = 0, oo = 0, om = 0;
  p.other.offsets(k, ox, oo, om);
  T a = ld<T>(p.out + oo);
  for (std::int64_t i = 1; i < p.L; ++i) {
    a = step(a, ld<T>(p.x + ox + i * p.x_step));
    *reinterpret_cast<T*>(p.out + oo + i * p.out_step) = a;
  }
}

template <class F, class T>
__global__ void __launch_bounds__(threads) accumulate_kernel(F f, accumulate_params p) {
  const bool check = p.fp.flags != nullptr;
  unsigned fl = 0;
  // Classified at once: a second scan (classified_fold) would read what the first wrote where out is x.
  accumulate_one<T>(p, [&](T a, T x) { return apply_step(f, a, x, check, fl); });
  if (check) report_fp(p.fp, fl);
}

// The launch parameters (shared with the sequential set); false when there is nothing to do.
inline bool make_accumulate_params(const device_method_call& c, accumulate_params& p) {
  check_dims(c);
  p.out = reinterpret_cast<char*>(c.base[0]);
  p.x = reinterpret_cast<const char*>(c.base[1]);
  p.fp = c.fp;
  p.K = 1;
  for (int d = 0; d < c.ndim; ++d) {
    if (d == c.axis) continue;
    if (c.shape[d] == 1) continue;
    push(p.other, c, d, 0, 1, -1);
    p.K *= c.shape[d];
  }
  p.L = c.shape[c.axis];
  p.out_step = c.strides[0][c.axis];
  p.x_step = c.strides[1][c.axis];
  if (p.K == 0 || p.L <= 1) return false;
  if ((p.K + threads - 1) / threads > 0x7fffffff) throw value_error("cuda: accumulation too large for one launch");
  return true;
}

// One accumulate launch of method_detail::methods (methods.hpp).
template <class F, class T>
void launch_accumulate(const F& f, const device_method_call& c, cudaStream_t stream) {
  accumulate_params p{};
  if (!make_accumulate_params(c, p)) return;
  const std::int64_t blocks = (p.K + threads - 1) / threads;
  accumulate_kernel<F, T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(f, p);
  check(cudaGetLastError(), "launching an accumulation kernel");
}

}  // namespace ufunc::backends::cuda::method_detail
