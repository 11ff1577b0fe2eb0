// cuda backend, device side of ufunc.reduce (and, through the host driver's folds, of
// reduceat): acc[p] = f(acc[p], x[p, r]); acc is initialized by the host driver, or
// every output starts from the start value the call carries. nvcc only.
//
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
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/methods/reduce.hpp is CUDA code: compile this translation unit with nvcc"
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <ufunc/backends/cuda/methods/common.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/device_method.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::backends::cuda::method_detail {

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

// The launch parameters (shared with the sequential set); false when there is nothing to do.
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

// One reduce launch of method_detail::methods (methods.hpp): the kernels and their
// shape from the call's shape, the SM count and the data's alignment.
template <class F, class T>
void launch_reduce(const F& f, const device_method_call& c, cudaStream_t stream) {
  using M = maybe<T>;
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
    std::int64_t nb = p.K >= target ? 1 : std::min((target + p.K - 1) / p.K, (p.R + min_positions - 1) / min_positions);
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

}  // namespace ufunc::backends::cuda::method_detail
