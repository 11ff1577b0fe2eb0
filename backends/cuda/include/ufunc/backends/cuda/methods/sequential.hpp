// cuda backend, device side of the ufunc methods for loops that may not regroup: one
// in-order kernel for reduce, accumulate and binary at. It serves every method, so it
// has a header of its own; it is built from the pieces the full kernels use (fold_run,
// accumulate_one, at_positions in methods/<method>.hpp), so both sets walk the
// operands alike. nvcc only.
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/methods/sequential.hpp is CUDA code: compile this translation unit with nvcc"
#endif

#include <cstdint>
#include <cstring>

#include <ufunc/backends/cuda/methods/accumulate.hpp>
#include <ufunc/backends/cuda/methods/at.hpp>
#include <ufunc/backends/cuda/methods/common.hpp>
#include <ufunc/backends/cuda/methods/reduce.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/device_method.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::backends::cuda::method_detail {

// Loops that may not regroup (subtract, float multiply, power, ...; c.reorderable is
// false): reduce, accumulate and binary at in one kernel, the functor in one
// non-inlined device function. They only need the in-order paths (a thread per
// output, folding straight into acc, NumPy's order), so a built-in loop of this kind
// costs one kernel and one copy of its functor, a fraction of the full set (methods.hpp).
enum class sequential_mode : int { reduce, accumulate, at };

struct sequential_params {
  sequential_mode mode;
  reduce_params r;
  accumulate_params a;
  at_params t;
  device_fp_sink fp;
};

// One application and its flags (classified here, in the one copy of the functor).
template <class T>
struct stepped {
  T v;
  unsigned flags;
};

template <class F, class T>
__device__ __noinline__ stepped<T> sequential_step(F f, T a, T b, bool check) {
  const auto r = f(a, b);
  return {static_cast<T>(r), check ? fp_flags_of<F>(r, a, b) : 0u};
}

template <class F, class T>
__global__ void __launch_bounds__(threads) sequential_kernel(F f, sequential_params sp) {
  const bool check = sp.fp.flags != nullptr;
  unsigned fl = 0;
  const auto step = [&](T a, T b) {
    const stepped<T> s = sequential_step(f, a, b, check);
    fl |= s.flags;
    return s.v;
  };
  if (sp.mode == sequential_mode::reduce) {
    const reduce_params& p = sp.r;
    const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
    if (k < p.K) {
      std::int64_t kx = 0, ka = 0, km = 0;
      p.kept.offsets(k, kx, ka, km);
      T* acc = reinterpret_cast<T*>(p.acc + ka);
      T t;
      if (p.has_start)
        memcpy(&t, p.start, sizeof(T));
      else
        t = *acc;
      fold_run<T>(p, kx, km, 0, p.R, p.mask != nullptr, [&](T v) { t = step(t, v); });
      *acc = t;
    }
  } else if (sp.mode == sequential_mode::accumulate) {
    accumulate_one<T>(sp.a, step);
  } else {
    // NumPy's integer power leaves an element whose exponent is negative as it was, goes
    // on with the other positions, and raises afterwards.
    at_positions<T>(sp.t, [&](T e, const char* b) {
      const stepped<T> s = sequential_step(f, e, ld<T>(b), check);
      fl |= s.flags;
      return s.flags & fpe::negative_power ? e : s.v;
    });
  }
  if (check) report_fp(sp.fp, fl);
}

// The methods of a loop that is not reorderable (sequential_kernel only). The host
// decides c.reorderable from the same trait the table used to pick this set
// (reorderable_loop in ufuncs/src/reorderable_ops.hpp); a reorderable reduction here
// would be a table mismatch, refused rather than run in another order.
template <class F, class T>
struct sequential_methods {
  static void launch(const device_method_call& c, const void* data) {
    const F& f = *static_cast<const F*>(data);
    const auto stream = static_cast<cudaStream_t>(c.stream);
    sequential_params sp{};
    sp.fp = c.fp;
    std::int64_t blocks = 1;
    switch (c.kind) {
      case device_method::reduce:
        if (c.reorderable)
          throw value_error(
              "cuda: internal error: a reduction marked reorderable reached a loop compiled with the sequential "
              "(in-order) method kernels only; the loop table and the loop's reorderable flag disagree");
        sp.mode = sequential_mode::reduce;
        if (!make_reduce_params(c, sp.r)) return;
        sp.r.nb = 1;
        sp.r.chunk = sp.r.R;
        blocks = (sp.r.K + threads - 1) / threads;
        if (blocks > 0x7fffffff) throw value_error("cuda: reduction too large for one launch");
        break;
      case device_method::accumulate:
        sp.mode = sequential_mode::accumulate;
        if (!make_accumulate_params(c, sp.a)) return;
        blocks = (sp.a.K + threads - 1) / threads;
        break;
      case device_method::at:
        if (c.nin != 2) throw value_error("cuda: at of a binary loop needs b");
        sp.mode = sequential_mode::at;
        if (!make_at_params(c, sp.t, 2)) return;
        break;
    }
    sequential_kernel<F, T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(f, sp);
    check(cudaGetLastError(), "launching a ufunc method kernel");
  }
};

}  // namespace ufunc::backends::cuda::method_detail
