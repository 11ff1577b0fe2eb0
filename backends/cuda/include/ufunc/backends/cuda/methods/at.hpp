// cuda backend, device side of ufunc.at: one block walks the index positions in order
// (NumPy's semantics for repeated indices with any functor: position k sees the result
// of position k-1); its threads share the trailing subspace of one position, then
// synchronize. nvcc only.
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/methods/at.hpp is CUDA code: compile this translation unit with nvcc"
#endif

#include <cstdint>

#include <ufunc/backends/cuda/methods/common.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/device_method.hpp>

namespace ufunc::backends::cuda::method_detail {

struct at_params {
  char* a;
  const char* b;
  const std::int64_t* offsets;  // a offset, b offset per position
  std::int64_t count;
  dims sub;  // x: b strides, acc: a strides
  std::int64_t sub_size;
  device_fp_sink fp;
};

// Every position of a ufunc.at, in index order, one block: *e = update(*e, b element).
// Shared by at_kernel and sequential_kernel.
template <class T, class Update>
__device__ __forceinline__ void at_positions(const at_params& p, Update update) {
  for (std::int64_t pos = 0; pos < p.count; ++pos) {
    char* a = p.a + p.offsets[2 * pos];
    const char* b = p.b + p.offsets[2 * pos + 1];
    for (std::int64_t t = threadIdx.x; t < p.sub_size; t += threads) {
      std::int64_t ob = 0, oa = 0, om = 0;
      p.sub.offsets(t, ob, oa, om);
      T* e = reinterpret_cast<T*>(a + oa);
      *e = update(*e, b + ob);
    }
    __syncthreads();  // the next position may update the same elements
  }
}

template <class F, class T, int NIN>
__global__ void __launch_bounds__(threads) at_kernel(F f, at_params p) {
  const bool check = p.fp.flags != nullptr;
  unsigned fl = 0;
  at_positions<T>(p, [&](T e, const char* b) {
    if constexpr (NIN == 1) {
      const auto r = f(e);
      if (check) fl |= fp_flags_of<F>(r, e);
      return static_cast<T>(r);
    } else {
      return apply_step(f, e, ld<T>(b), check, fl);
    }
  });
  if (check) report_fp(p.fp, fl);
}

// The launch parameters (shared with the sequential set); false when there is nothing to do.
inline bool make_at_params(const device_method_call& c, at_params& p, int nin) {
  p.a = reinterpret_cast<char*>(c.base[0]);
  p.b = reinterpret_cast<const char*>(c.base[1]);
  p.offsets = c.offsets;
  p.count = c.count;
  p.fp = c.fp;
  p.sub_size = 1;
  for (int d = 0; d < c.ndim; ++d) {
    if (c.shape[d] == 1) continue;
    push(p.sub, c, d, 0, nin == 2 ? 1 : -1, -1);
    p.sub_size *= c.shape[d];
  }
  return p.count != 0 && p.sub_size != 0;
}

// One at launch of method_detail::methods (methods.hpp).
template <class F, class T, int NIN>
void launch_at(const F& f, const device_method_call& c, cudaStream_t stream) {
  at_params p{};
  if (!make_at_params(c, p, NIN)) return;
  at_kernel<F, T, NIN><<<1, threads, 0, stream>>>(f, p);
  check(cudaGetLastError(), "launching a ufunc.at kernel");
}

}  // namespace ufunc::backends::cuda::method_detail
