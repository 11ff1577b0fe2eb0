// cuda backend, the pieces every ufunc method's kernels share (methods/reduce.hpp,
// accumulate.hpp, at.hpp, sequential.hpp): the launch shape, the functor's application
// with its flags, the "selected anything" partial of masked folds, and the operands'
// dimensions with their strides. nvcc only.
//
// Floating-point flags (errstate): when the call carries a sink, every application of
// the functor is classified as in elementwise calls (fp_flags.hpp), partial combines
// included; each thread reports what it saw once, at its end. Masked-out elements are
// never applied, so never classified. Without a sink (every policy ignore) a uniform
// branch skips the classification.
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/methods/common.hpp is CUDA code: compile this translation unit with nvcc"
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include <complex>

#include <cuda/std/complex>

#include <ufunc/backends/cuda/device_types.hpp>
#include <ufunc/backends/cuda/fp_flags.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/device_method.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/signature.hpp>

namespace ufunc::backends::cuda::method_detail {

using detail::device_t;
using detail::max_kernel_dims;

constexpr int threads = 256;
constexpr int unroll = 4;

template <class T>
struct maybe {
  T v;
  bool valid;
};

// f(a, b) in T; with `check`, its flags are added to fl.
template <class F, class T>
__device__ __forceinline__ T apply_step(const F& f, T a, T b, bool check, unsigned& fl) {
  const auto r = f(a, b);
  if (check) fl |= fp_flags_of<F>(r, a, b);
  return static_cast<T>(r);
}

// cub's combining operator; `fl` is the calling thread's flags, null without a sink.
template <class F, class T>
struct maybe_op {
  F f;
  unsigned* fl;
  __device__ __forceinline__ maybe<T> operator()(const maybe<T>& a, const maybe<T>& b) const {
    if (!a.valid) return b;
    if (!b.valid) return a;
    unsigned seen = 0;
    const T v = apply_step(f, a.v, b.v, fl != nullptr, seen);
    if (fl != nullptr) *fl |= seen;
    return {v, true};
  }
};

template <class T, class F>
__device__ __forceinline__ void fold(const F& f, maybe<T>& m, T v, bool check, unsigned& fl) {
  m.v = m.valid ? apply_step(f, m.v, v, check, fl) : v;
  m.valid = true;
}

// A thread's fold with its flags: fold_all(classify) folds the thread's elements in order,
// classifying each step only when asked. Where F's flags show in the result
// (flags_show_in_result), the steps are classified only if the fold ends non-finite, then by
// folding the same steps again.
template <class F, class T, class Fold>
__device__ __forceinline__ maybe<T> classified_fold(bool check, Fold fold_all) {
  if constexpr (flags_show_in_result<F>::value) {
    const maybe<T> t = fold_all(false);
    if (!check || !t.valid || fp::finite(t.v)) return t;
    return fold_all(true);
  } else {
    return fold_all(check);
  }
}

template <class T>
__device__ __forceinline__ T ld(const char* p) {
  return *reinterpret_cast<const T*>(p);
}

// A set of dimensions (kept or reduced) with each operand's byte strides.
struct dims {
  int n = 0;
  std::int64_t extent[max_kernel_dims];
  std::int64_t x[max_kernel_dims];
  std::int64_t acc[max_kernel_dims];
  std::int64_t mask[max_kernel_dims];
  __device__ __forceinline__ void offsets(std::int64_t i, std::int64_t& ox, std::int64_t& oa, std::int64_t& om) const {
    for (int d = 0; d < n; ++d) {
      const std::int64_t q = i / extent[d];
      const std::int64_t idx = i - q * extent[d];
      i = q;
      ox += idx * x[d];
      oa += idx * acc[d];
      om += idx * mask[d];
    }
  }
};

inline void check_dims(const device_method_call& c) {
  if (c.ndim > 2 * max_kernel_dims)
    throw value_error("cuda: the method's operands leave " + std::to_string(c.ndim) +
                      " dimensions after merging; at most " + std::to_string(max_kernel_dims) +
                      " kept and reduced ones are supported");
}

inline void push(dims& d, const device_method_call& c, int dim, int acc_op, int x_op, int mask_op) {
  if (d.n == max_kernel_dims)
    throw value_error("cuda: more than " + std::to_string(max_kernel_dims) +
                      " kept or reduced dimensions after merging are not supported");
  d.extent[d.n] = c.shape[dim];
  d.acc[d.n] = acc_op >= 0 ? c.strides[acc_op][dim] : 0;
  d.x[d.n] = x_op >= 0 ? c.strides[x_op][dim] : 0;
  d.mask[d.n] = mask_op >= 0 ? c.strides[mask_op][dim] : 0;
  ++d.n;
}

}  // namespace ufunc::backends::cuda::method_detail
