// cuda backend, device side of the ufunc methods: reduce, accumulate (and through
// them reduceat) and at, made from a loop's __host__ __device__ functor. nvcc only.
//
// reduce (acc[p] = f(acc[p], x[p, r]); acc is initialized by the host driver, or
// every output starts from the start value the call carries):
//   * reorderable loop whose innermost dimension is reduced, or with fewer than 32
//     outputs: *inner* kernel, a block per output (several blocks per output when
//     outputs are fewer than the GPU holds, each over a fixed contiguous chunk, their
//     partials combined by a second kernel in block order); a warp per output when
//     outputs are many and short. Each thread folds its elements in a fixed order (4
//     loads in flight; 16-byte loads for aligned contiguous runs, as cub's), then
//     cub::BlockReduce / WarpReduce combine the threads in their fixed trees. Chunks,
//     block counts and the load width depend on the shape, the SM count and the
//     data's alignment only, so results are the same from run to run.
//   * otherwise *outer* kernel: a thread per output, coalesced across outputs along
//     the innermost kept dimension, folding the reduced positions in order (4 loads in
//     flight). A loop that is not reorderable folds straight into acc (NumPy's
//     order); a reorderable one with few outputs splits the reduced positions into
//     fixed slices whose partials combine in slice order.
//   Masks (where=) carry a "selected anything" flag with each partial value, so no
//   kernel needs an identity.
// accumulate: a thread per position of the other dimensions, out[i] = f(out[i-1], x[i]).
// at: one block walks the index positions in order (NumPy's semantics for repeated
//   indices with any functor: position k sees the result of position k-1); its
//   threads share the trailing subspace of one position, then synchronize.
// Floating-point flags (errstate): when the call carries a sink, every application of
// the functor is classified as in elementwise calls (fp_flags.hpp), partial combines
// included; each thread reports what it saw once, at its end. Masked-out elements are
// never applied, so never classified. Without a sink (every policy ignore) a uniform
// branch skips the classification.
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/reduce.hpp is CUDA code: compile this translation unit with nvcc (as a .cu file)"
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include <complex>

#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/std/complex>

#include <ufunc/backends/cuda/device_types.hpp>
#include <ufunc/backends/cuda/fp_flags.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/device_method.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/signature.hpp>

namespace ufunc::backends::cuda {

namespace method_detail {

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

struct reduce_params {
  char* acc;
  const char* x;
  const char* mask;
  dims kept, red;
  std::int64_t K, R;
  std::int64_t nb;     // blocks per output (inner) or slices (outer)
  std::int64_t chunk;  // reduced positions per block or slice
  void* partials;
  bool has_start;  // acc is not initialized: every output starts from `start`
  alignas(16) unsigned char start[16];
  device_fp_sink fp;
};

// The last step of every output: acc = f(base, total), where base is the start value
// (when the host passed it instead of filling acc) or acc's own value.
template <class F, class T>
__device__ __forceinline__ void finish(const F& f, const reduce_params& p, T* acc, const maybe<T>& total,
                                       unsigned& fl) {
  T base;
  if (p.has_start)
    memcpy(&base, p.start, sizeof(T));
  else
    base = *acc;
  *acc = total.valid ? apply_step(f, base, total.v, p.fp.flags != nullptr, fl) : base;
}

// The reduced position r of one output: x and mask offsets.
__device__ __forceinline__ void reduced_offset(const dims& red, std::int64_t r, std::int64_t& ox, std::int64_t& om) {
  if (red.n == 1) {
    ox = r * red.x[0];
    om = r * red.mask[0];
    return;
  }
  std::int64_t oa = 0;
  ox = om = 0;
  red.offsets(r, ox, oa, om);
}

// 16-byte loads of contiguous runs (cub's vectorized loads): V elements per load.
template <class T>
struct alignas(16) vector16 {
  static constexpr int size = 16 / static_cast<int>(sizeof(T));
  T v[size];
};
template <class T>
inline constexpr bool vector_loads = sizeof(T) < 16 && 16 % sizeof(T) == 0;

template <class F, class T, bool Mask, bool Vec>
__global__ void __launch_bounds__(threads) reduce_inner_kernel(F f, reduce_params p) {
  using M = maybe<T>;
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) / p.nb;
  const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) - k * p.nb;
  std::int64_t kx = 0, ka = 0, km = 0;
  p.kept.offsets(k, kx, ka, km);
  const char* x = p.x + kx;
  const char* mask = p.mask + km;
  const std::int64_t r0 = b * p.chunk, r1 = min(p.R, r0 + p.chunk);
  const bool check = p.fp.flags != nullptr;
  unsigned fl = 0;
  const M t = classified_fold<F, T>(check, [&](bool check) {
    M t{T{}, false};
    std::int64_t r = r0 + threadIdx.x;
    if constexpr (Vec && vector_loads<T>) {
      // Contiguous and 16-byte aligned (checked on the host): each thread folds whole
      // vectors, four in flight, then the block's tail element by element.
      using V = vector16<T>;
      const V* xv = reinterpret_cast<const V*>(x + r0 * static_cast<std::int64_t>(sizeof(T)));
      const std::int64_t nv = (r1 - r0) / V::size;
      std::int64_t i = threadIdx.x;
      for (; i + (unroll - 1) * threads < nv; i += unroll * threads) {
        V v[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) v[u] = xv[i + u * threads];
#pragma unroll
        for (int u = 0; u < unroll; ++u)
#pragma unroll
          for (int e = 0; e < V::size; ++e) fold(f, t, v[u].v[e], check, fl);
      }
      for (; i < nv; i += threads) {
        const V v = xv[i];
#pragma unroll
        for (int e = 0; e < V::size; ++e) fold(f, t, v.v[e], check, fl);
      }
      r = r0 + nv * V::size + threadIdx.x;
    }
    // Four loads in flight per thread, folded in order.
    for (; r + (unroll - 1) * threads < r1; r += unroll * threads) {
      T v[unroll];
      bool sel[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        std::int64_t ox, om;
        reduced_offset(p.red, r + u * threads, ox, om);
        v[u] = ld<T>(x + ox);
        sel[u] = !Mask || ld<bool>(mask + om);
      }
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        if (sel[u]) fold(f, t, v[u], check, fl);
    }
    for (; r < r1; r += threads) {
      std::int64_t ox, om;
      reduced_offset(p.red, r, ox, om);
      if (!Mask || ld<bool>(mask + om)) fold(f, t, ld<T>(x + ox), check, fl);
    }
    return t;
  });
  using block_reduce = cub::BlockReduce<M, threads>;
  __shared__ typename block_reduce::TempStorage storage;
  const M total = block_reduce(storage).Reduce(t, maybe_op<F, T>{f, check ? &fl : nullptr});
  if (threadIdx.x == 0) {
    if (p.nb == 1)
      finish(f, p, reinterpret_cast<T*>(p.acc + ka), total, fl);
    else
      static_cast<M*>(p.partials)[k * p.nb + b] = total;
  }
  if (check) report_fp(p.fp, fl);
}

// Many short reductions: a warp per output (8 per block), lanes folding in order,
// then cub::WarpReduce in its fixed tree.
constexpr int warps_per_block = threads / 32;

template <class F, class T, bool Mask>
__global__ void __launch_bounds__(threads) reduce_warp_kernel(F f, reduce_params p) {
  using M = maybe<T>;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * warps_per_block + warp;
  using warp_reduce = cub::WarpReduce<M>;
  __shared__ typename warp_reduce::TempStorage storage[warps_per_block];
  const bool check = p.fp.flags != nullptr;
  unsigned fl = 0;
  std::int64_t kx = 0, ka = 0, km = 0;
  if (k < p.K) p.kept.offsets(k, kx, ka, km);
  const M t = classified_fold<F, T>(check, [&](bool check) {
    M t{T{}, false};
    if (k < p.K) {
      const char* x = p.x + kx;
      const char* mask = p.mask + km;
      std::int64_t r = lane;
      for (; r + (unroll - 1) * 32 < p.R; r += unroll * 32) {
        T v[unroll];
        bool sel[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
          std::int64_t ox, om;
          reduced_offset(p.red, r + u * 32, ox, om);
          v[u] = ld<T>(x + ox);
          sel[u] = !Mask || ld<bool>(mask + om);
        }
#pragma unroll
        for (int u = 0; u < unroll; ++u)
          if (sel[u]) fold(f, t, v[u], check, fl);
      }
      for (; r < p.R; r += 32) {
        std::int64_t ox, om;
        reduced_offset(p.red, r, ox, om);
        if (!Mask || ld<bool>(mask + om)) fold(f, t, ld<T>(x + ox), check, fl);
      }
    }
    return t;
  });
  const M total = warp_reduce(storage[warp]).Reduce(t, maybe_op<F, T>{f, check ? &fl : nullptr});
  if (lane == 0 && k < p.K) finish(f, p, reinterpret_cast<T*>(p.acc + ka), total, fl);
  if (check) report_fp(p.fp, fl);
}

// The partials of one output's blocks, in block order, into acc.
template <class F, class T>
__global__ void __launch_bounds__(threads) combine_blocks_kernel(F f, reduce_params p) {
  using M = maybe<T>;
  const std::int64_t k = blockIdx.x;
  const M* parts = static_cast<const M*>(p.partials) + k * p.nb;
  const bool check = p.fp.flags != nullptr;
  unsigned fl = 0;
  const maybe_op<F, T> op{f, check ? &fl : nullptr};
  M t{T{}, false};
  for (std::int64_t j = threadIdx.x; j < p.nb; j += threads) t = op(t, parts[j]);
  using block_reduce = cub::BlockReduce<M, threads>;
  __shared__ typename block_reduce::TempStorage storage;
  const M total = block_reduce(storage).Reduce(t, op);
  if (threadIdx.x == 0) {
    std::int64_t kx = 0, ka = 0, km = 0;
    p.kept.offsets(k, kx, ka, km);
    finish(f, p, reinterpret_cast<T*>(p.acc + ka), total, fl);
  }
  if (check) report_fp(p.fp, fl);
}

// Positions r0..r1 of one output's reduced run, in order, each selected value handed to
// take(v); four loads in flight. Shared by reduce_outer_kernel and sequential_kernel.
template <class T, class Take>
__device__ __forceinline__ void fold_run(const reduce_params& p, std::int64_t kx, std::int64_t km, std::int64_t r0,
                                         std::int64_t r1, bool mask, Take take) {
  std::int64_t r = r0;
  for (; r + unroll <= r1; r += unroll) {
    T v[unroll];
    bool sel[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      std::int64_t ox, om;
      reduced_offset(p.red, r + u, ox, om);
      v[u] = ld<T>(p.x + kx + ox);
      sel[u] = !mask || ld<bool>(p.mask + km + om);
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      if (sel[u]) take(v[u]);
  }
  for (; r < r1; ++r) {
    std::int64_t ox, om;
    reduced_offset(p.red, r, ox, om);
    if (!mask || ld<bool>(p.mask + km + om)) take(ld<T>(p.x + kx + ox));
  }
}

// A thread per output. Direct: fold into acc in order (loops that may not regroup).
template <class F, class T, bool Mask, bool Direct>
__global__ void __launch_bounds__(threads) reduce_outer_kernel(F f, reduce_params p) {
  using M = maybe<T>;
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
  if (k >= p.K) return;
  const std::int64_t s = blockIdx.y;
  std::int64_t kx = 0, ka = 0, km = 0;
  p.kept.offsets(k, kx, ka, km);
  T* acc = reinterpret_cast<T*>(p.acc + ka);
  const bool check = p.fp.flags != nullptr;
  unsigned fl = 0;
  const std::int64_t r0 = s * p.chunk, r1 = min(p.R, r0 + p.chunk);
  const M t = classified_fold<F, T>(check, [&](bool check) {
    M t{T{}, false};
    if constexpr (Direct) {
      t.valid = true;
      if (p.has_start)
        memcpy(&t.v, p.start, sizeof(T));
      else
        t.v = *acc;
    }
    fold_run<T>(p, kx, km, r0, r1, Mask, [&](T v) { fold(f, t, v, check, fl); });
    return t;
  });
  if constexpr (Direct)
    *acc = t.v;
  else if (p.nb == 1)
    finish(f, p, acc, t, fl);
  else
    static_cast<M*>(p.partials)[s * p.K + k] = t;
  if (check) report_fp(p.fp, fl);
}

template <class F, class T>
__global__ void __launch_bounds__(threads) combine_slices_kernel(F f, reduce_params p) {
  using M = maybe<T>;
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
  if (k >= p.K) return;
  const M* parts = static_cast<const M*>(p.partials);
  const bool check = p.fp.flags != nullptr;
  unsigned fl = 0;
  const maybe_op<F, T> op{f, check ? &fl : nullptr};
  M t{T{}, false};
  for (std::int64_t s = 0; s < p.nb; ++s) t = op(t, parts[s * p.K + k]);
  std::int64_t kx = 0, ka = 0, km = 0;
  p.kept.offsets(k, kx, ka, km);
  finish(f, p, reinterpret_cast<T*>(p.acc + ka), t, fl);
  if (check) report_fp(p.fp, fl);
}

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

// Loops that may not regroup (subtract, float multiply, power, ...; c.reorderable is
// false): reduce, accumulate and binary at in one kernel, the functor in one
// non-inlined device function. They only need the in-order paths (a thread per
// output, folding straight into acc, NumPy's order), so a built-in loop of this kind
// costs one kernel and one copy of its functor, a fraction of the full set above.
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

inline int sm_count(int device) {
  static int counts[64] = {};
  if (device < 0 || device >= 64) return 1;
  if (counts[device] == 0) {
    int n = 1;
    check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    counts[device] = std::max(n, 1);
  }
  return counts[device];
}

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

// The launch parameters of each method (shared by the full and the sequential sets);
// false when there is nothing to do.
inline bool make_reduce_params(const device_method_call& c, reduce_params& p) {
  check_dims(c);
  p.acc = reinterpret_cast<char*>(c.base[0]);
  p.x = reinterpret_cast<const char*>(c.base[1]);
  p.mask = c.has_mask ? reinterpret_cast<const char*>(c.base[2]) : nullptr;
  p.has_start = c.has_start;
  std::memcpy(p.start, c.start, sizeof(p.start));
  p.fp = c.fp;
  p.K = p.R = 1;
  for (int d = 0; d < c.ndim; ++d) {
    if (c.shape[d] == 1) continue;
    if (c.strides[0][d] == 0) {
      push(p.red, c, d, 0, 1, c.has_mask ? 2 : -1);
      p.R *= c.shape[d];
    } else {
      push(p.kept, c, d, 0, 1, c.has_mask ? 2 : -1);
      p.K *= c.shape[d];
    }
  }
  return p.K != 0 && p.R != 0;
}

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

template <class F, class T>
struct methods {
  using M = maybe<T>;

  static void reduce(const F& f, const device_method_call& c, cudaStream_t stream) {
    reduce_params p{};
    if (!make_reduce_params(c, p)) return;
    const int sms = sm_count(c.device);
    std::shared_ptr<void> partials;
    // Block reductions for reorderable loops when the innermost dimension is reduced,
    // or when outputs are too few to occupy the threads of even one block.
    const bool inner = c.reorderable && p.red.n > 0 && ((c.strides[0][0] == 0 && c.shape[0] > 1) || p.K < 32);
    if (inner) {
      // Blocks per output: enough to fill the GPU when outputs are few, each over a
      // whole number of tiles (threads * unroll positions).
      // At least 4 tiles a block: with one, a sum of 2^20 floats ran at 0.43x cub::DeviceReduce
      // (0.55x with 4); 2 to 16 blocks per SM measured the same (H100, bench/RESULTS.md).
      const std::int64_t target = static_cast<std::int64_t>(sms) * 8;
      const std::int64_t tile = threads * unroll, min_positions = 4 * tile;
      std::int64_t nb =
          p.K >= target ? 1 : std::min((target + p.K - 1) / p.K, (p.R + min_positions - 1) / min_positions);
      nb = std::max<std::int64_t>(nb, 1);
      p.chunk = ((p.R + nb - 1) / nb + tile - 1) / tile * tile;
      p.nb = (p.R + p.chunk - 1) / p.chunk;
      if (p.K * p.nb > 0x7fffffff) throw value_error("cuda: reduction too large for one launch");
      if (p.nb > 1) {
        partials = allocate(static_cast<std::size_t>(p.K * p.nb) * sizeof(M), c.device, stream_ref{stream});
        p.partials = partials.get();
      }
      if (p.nb == 1 && p.R <= 8192) {  // many short outputs: a warp each
        const std::int64_t blocks = (p.K + warps_per_block - 1) / warps_per_block;
        if (c.has_mask)
          reduce_warp_kernel<F, T, true><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(f, p);
        else
          reduce_warp_kernel<F, T, false><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(f, p);
        check(cudaGetLastError(), "launching a reduction kernel");
        return;
      }
      const auto blocks = static_cast<unsigned>(p.K * p.nb);
      // 16-byte loads where every block's run starts 16-byte aligned.
      bool vec = vector_loads<T> && !c.has_mask && p.red.n == 1 && p.red.x[0] == static_cast<std::int64_t>(sizeof(T)) &&
                 reinterpret_cast<std::uintptr_t>(p.x) % 16 == 0 &&
                 (p.chunk * static_cast<std::int64_t>(sizeof(T))) % 16 == 0;
      for (int d = 0; d < p.kept.n && vec; ++d) vec = p.kept.x[d] % 16 == 0;
      if (c.has_mask)
        reduce_inner_kernel<F, T, true, false><<<blocks, threads, 0, stream>>>(f, p);
      else if (vec)
        reduce_inner_kernel<F, T, false, true><<<blocks, threads, 0, stream>>>(f, p);
      else
        reduce_inner_kernel<F, T, false, false><<<blocks, threads, 0, stream>>>(f, p);
      check(cudaGetLastError(), "launching a reduction kernel");
      if (p.nb > 1) {
        if (p.K > 0x7fffffff) throw value_error("cuda: reduction too large for one launch");
        combine_blocks_kernel<F, T><<<static_cast<unsigned>(p.K), threads, 0, stream>>>(f, p);
        check(cudaGetLastError(), "launching a reduction kernel");
      }
      return;
    }
    // A thread per output; reorderable loops with few outputs split the reduced
    // positions into slices (at least 64 positions each).
    std::int64_t slices = 1;
    if (c.reorderable) {
      const std::int64_t want = static_cast<std::int64_t>(sms) * threads * 8;
      if (p.K < want) slices = std::min<std::int64_t>({(want + p.K - 1) / p.K, (p.R + 63) / 64, 65535});
      slices = std::max<std::int64_t>(slices, 1);
    }
    p.chunk = (p.R + slices - 1) / slices;
    p.nb = (p.R + p.chunk - 1) / p.chunk;
    const std::int64_t grid_x = (p.K + threads - 1) / threads;
    if (grid_x > 0x7fffffff) throw value_error("cuda: reduction too large for one launch");
    if (p.nb > 1) {
      partials = allocate(static_cast<std::size_t>(p.K * p.nb) * sizeof(M), c.device, stream_ref{stream});
      p.partials = partials.get();
    }
    const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(p.nb));
    if (!c.reorderable) {
      if (c.has_mask)
        reduce_outer_kernel<F, T, true, true><<<grid, threads, 0, stream>>>(f, p);
      else
        reduce_outer_kernel<F, T, false, true><<<grid, threads, 0, stream>>>(f, p);
    } else {
      if (c.has_mask)
        reduce_outer_kernel<F, T, true, false><<<grid, threads, 0, stream>>>(f, p);
      else
        reduce_outer_kernel<F, T, false, false><<<grid, threads, 0, stream>>>(f, p);
    }
    check(cudaGetLastError(), "launching a reduction kernel");
    if (p.nb > 1) {
      combine_slices_kernel<F, T><<<static_cast<unsigned>(grid_x), threads, 0, stream>>>(f, p);
      check(cudaGetLastError(), "launching a reduction kernel");
    }
  }

  static void accumulate(const F& f, const device_method_call& c, cudaStream_t stream) {
    accumulate_params p{};
    if (!make_accumulate_params(c, p)) return;
    const std::int64_t blocks = (p.K + threads - 1) / threads;
    accumulate_kernel<F, T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(f, p);
    check(cudaGetLastError(), "launching an accumulation kernel");
  }

  template <int NIN>
  static void at(const F& f, const device_method_call& c, cudaStream_t stream) {
    at_params p{};
    if (!make_at_params(c, p, NIN)) return;
    at_kernel<F, T, NIN><<<1, threads, 0, stream>>>(f, p);
    check(cudaGetLastError(), "launching a ufunc.at kernel");
  }

  static void launch_binary(const device_method_call& c, const void* data) {
    const F& f = *static_cast<const F*>(data);
    const auto stream = static_cast<cudaStream_t>(c.stream);
    switch (c.kind) {
      case device_method::reduce:
        reduce(f, c, stream);
        return;
      case device_method::accumulate:
        accumulate(f, c, stream);
        return;
      case device_method::at:
        at<2>(f, c, stream);
        return;
    }
  }

  static void launch_unary(const device_method_call& c, const void* data) {
    const F& f = *static_cast<const F*>(data);
    if (c.kind != device_method::at) throw value_error("cuda: reduce and accumulate need a binary loop");
    at<1>(f, c, static_cast<cudaStream_t>(c.stream));
  }
};

template <class Sig, class F>
struct method_for {
  static constexpr device_method_fn fn = nullptr;
};
template <class T, class F>
struct method_for<T(T, T), F> {
  static constexpr device_method_fn fn = &methods<F, device_t<T>>::launch_binary;
};
template <class T, class F>
struct method_for<T(T), F> {
  static constexpr device_method_fn fn = &methods<F, device_t<T>>::launch_unary;
};

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

template <class Sig, class F>
struct sequential_method_for {
  static constexpr device_method_fn fn = nullptr;
};
template <class T, class F>
struct sequential_method_for<T(T, T), F> {
  static constexpr device_method_fn fn = &sequential_methods<F, device_t<T>>::launch;
};

}  // namespace method_detail

/// The CUDA launcher of reduce / accumulate / at for functor F with signature Sig:
/// T(T, T) (every method) or T(T) (at), null for other signatures.
template <class Sig, class F>
inline constexpr device_method_fn device_method_loop = method_detail::method_for<Sig, F>::fn;

/// The same for a T(T, T) loop that is not reorderable (reductions fold in order, as
/// NumPy's): only the in-order paths, in one kernel (sequential_kernel), a small
/// fraction of device_method_loop's compile time. Null for other signatures.
template <class Sig, class F>
inline constexpr device_method_fn device_method_loop_sequential = method_detail::sequential_method_for<Sig, F>::fn;

}  // namespace ufunc::backends::cuda
