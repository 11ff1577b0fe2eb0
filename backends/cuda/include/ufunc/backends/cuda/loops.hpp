// cuda backend, device side: kernels made from a __host__ __device__ functor. A
// translation unit that includes this (vectorize with target::cuda does) must be
// compiled by nvcc.
//
// Three kernels, chosen per call from the coalesced plan:
//   * every input contiguous, one output, no mask: cub::DeviceTransform, whose
//     tiles and bulk copies are tuned per architecture (16-byte or TMA loads,
//     enough bytes in flight per SM), unless the call gathers floating-point flags or
//     an input narrower than 4 bytes lets the contiguous kernel take aligned runs
//     (both faster there); the contiguous kernel also takes every small call;
//   * rows: a block walks a tile of the innermost dimension for one outer index,
//     computing the outer offsets once per block (broadcast and strided operands);
//   * elements: one index decomposition per element, for short inner dimensions.
// Indices are 32-bit when the sizes fit, 64-bit beyond.
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/loops.hpp is CUDA code: compile this translation unit with nvcc (as a .cu file)"
#endif

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include <cub/device/device_transform.cuh>
#include <cuda/std/complex>
#include <cuda/std/tuple>

#include <ufunc/backends/cpu/loops.hpp>
#include <ufunc/backends/cuda/device_types.hpp>
#include <ufunc/backends/cuda/fp_flags.hpp>
#include <ufunc/backends/cuda/methods.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/device_call.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/loop.hpp>
#include <ufunc/core/signature.hpp>

namespace ufunc::backends::cuda {

namespace detail {

// Below this many elements the launch dominates and cub::DeviceTransform's host-side
// dispatch costs more than its tiling gains (bench/RESULTS.md, per-call case).
constexpr std::int64_t cub_min_elements = 1 << 16;
constexpr int block_threads = 256;
constexpr int items_per_thread = 4;

// Elements a thread of the contiguous kernel takes: 4, or more where an input is narrower
// than 4 bytes, so that a thread has 16 bytes of each input in flight as float32's 4 do
// (float16 add with flags gathered: 0.91x cub::DeviceTransform's rate with 4, its loads
// 2 bytes a thread).
template <class... A>
constexpr int contiguous_items() {
  if constexpr (sizeof...(A) == 0) {
    return items_per_thread;
  } else {
    constexpr std::size_t narrowest = std::min({sizeof(device_t<A>)...});
    return narrowest >= 4 ? items_per_thread : static_cast<int>(16 / narrowest);
  }
}

// Programmatic dependent launch (sm_90 and later): a kernel launched with the attribute may be
// scheduled while the stream's previous kernel still runs, which hides most of the gap
// between small back-to-back calls (bench/launch_probe.cu; bench/RESULTS.md, per-call
// time). Safe after any predecessor: griddepcontrol.wait, the kernel's first instruction,
// returns only once the preceding grid has completed and its writes are visible. The
// early trigger lets the next dependent kernel do the same with this one. Only the small
// contiguous kernel uses it: with it the rows kernel ran the broadcast and outer cases 25
// to 45% slower on the H100 (2610 -> 1978 GB/s; cause not identified), and the per-call
// cost that it saves matters only for small calls.
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Whether Kernel runs with the attribute on `device`: the device must be sm_90 or later AND
// the kernel's loaded binary built for it (code built for an older architecture has no
// wait, and launching it early would race). Cached per kernel and device.
template <auto Kernel>
bool dependent_launch_allowed(int device) {
  static std::atomic<signed char> known[64] = {};
  if (device < 0 || device >= 64) return false;
  signed char v = known[device].load(std::memory_order_relaxed);
  if (v == 0) {
    int major = 0;
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
    cudaFuncAttributes attr{};
    check(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(Kernel)), "cudaFuncGetAttributes");
    v = (major >= 9 && attr.binaryVersion >= 90 && attr.ptxVersion >= 90) ? 1 : -1;
    known[device].store(v, std::memory_order_relaxed);
  }
  return v > 0;
}

// Launches an elementwise kernel (one that starts with wait_for_previous_grid) on the call's
// stream, as a dependent launch where allowed; checks the launch.
template <auto Kernel, class... Args>
void launch_elementwise(unsigned blocks, cudaStream_t stream, int device, Args&&... args) {
  if (dependent_launch_allowed<Kernel>(device)) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(block_threads);
    cfg.stream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    check(cudaLaunchKernelEx(&cfg, Kernel, std::forward<Args>(args)...), "launching a ufunc kernel");
  } else {
    // cudaLaunchKernelEx without attributes costs the host more than <<<>>> (launch_probe.cu).
    Kernel<<<blocks, block_threads, 0, stream>>>(std::forward<Args>(args)...);
    check(cudaGetLastError(), "launching a ufunc kernel");
  }
}

template <class Index, int NOP>
struct kernel_plan {
  int ndim;
  Index size;
  Index inner;        // extent of dimension 0
  Index outer_count;  // product of the other extents
  Index shape[max_kernel_dims];
  Index stride[NOP][max_kernel_dims];  // bytes
  char* base[NOP];
  device_fp_sink fp;
};

template <class T>
__device__ __forceinline__ T load(const char* p) {
  return *reinterpret_cast<const T*>(p);
}

// Applies f to the inputs at `off` and stores every output (several outputs come
// back as a tuple). Returns the element's floating-point flags when the call
// gathers them (fp_flags.hpp).
template <class F, class Index, int NOP, class R, class... A, std::size_t... I>
__device__ __forceinline__ unsigned apply(const F& f, const kernel_plan<Index, NOP>& p, const Index* off,
                                          std::index_sequence<I...>) {
  constexpr int nin = sizeof...(A);
  const ::cuda::std::tuple<device_t<A>...> in{load<device_t<A>>(p.base[I] + off[I])...};
  auto r = f(::cuda::std::get<I>(in)...);
  using outputs = typename signature_traits<R(A...)>::outputs;
  if constexpr (outputs::size == 1) {
    *reinterpret_cast<device_t<R>*>(p.base[nin] + off[nin]) = static_cast<device_t<R>>(r);
  } else {
    [&]<std::size_t... O>(std::index_sequence<O...>) {
      ((*reinterpret_cast<device_t<std::tuple_element_t<O, R>>*>(p.base[nin + O] + off[nin + O]) = std::get<O>(r)),
       ...);
    }
    (std::make_index_sequence<outputs::size>{});
  }
  return p.fp.flags ? fp_flags_of<F>(r, ::cuda::std::get<I>(in)...) : 0u;
}

template <class F, class Index, int NOP, bool HasWhere, class R, class... A>
__global__ void __launch_bounds__(block_threads) rows_kernel(F f, kernel_plan<Index, NOP> p, Index tiles_per_row) {
  constexpr int nops = NOP;
  const Index block = static_cast<Index>(blockIdx.x);
  const Index outer = block / tiles_per_row;
  const Index tile = block - outer * tiles_per_row;
  // Offsets of the row's first element: one decomposition per block.
  Index row_off[nops];
  for (int op = 0; op < nops; ++op) row_off[op] = 0;
  Index rem = outer;
  for (int d = 1; d < p.ndim; ++d) {
    const Index q = rem / p.shape[d];
    const Index idx = rem - q * p.shape[d];
    rem = q;
    for (int op = 0; op < nops; ++op) row_off[op] += idx * p.stride[op][d];
  }
  const Index first = tile * (block_threads * items_per_thread) + static_cast<Index>(threadIdx.x);
  unsigned flags = 0;
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    const Index i = first + k * block_threads;
    if (i >= p.inner) break;
    Index off[nops];
    for (int op = 0; op < nops; ++op) off[op] = row_off[op] + i * p.stride[op][0];
    if constexpr (HasWhere)
      if (!load<bool>(p.base[nops - 1] + off[nops - 1])) continue;
    flags |= apply<F, Index, NOP, R, A...>(f, p, off, std::index_sequence_for<A...>{});
  }
  if (p.fp.flags) report_fp_warp(p.fp, flags);
}

template <class F, class Index, int NOP, bool HasWhere, class R, class... A>
__global__ void __launch_bounds__(block_threads) elements_kernel(F f, kernel_plan<Index, NOP> p) {
  constexpr int nops = NOP;
  const Index first =
      static_cast<Index>(blockIdx.x) * (block_threads * items_per_thread) + static_cast<Index>(threadIdx.x);
  unsigned flags = 0;
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    const Index e = first + k * block_threads;
    if (e >= p.size) break;
    Index off[nops];
    for (int op = 0; op < nops; ++op) off[op] = 0;
    Index rem = e;
    for (int d = 0; d < p.ndim; ++d) {
      const Index q = rem / p.shape[d];
      const Index idx = rem - q * p.shape[d];
      rem = q;
      for (int op = 0; op < nops; ++op) off[op] += idx * p.stride[op][d];
    }
    if constexpr (HasWhere)
      if (!load<bool>(p.base[nops - 1] + off[nops - 1])) continue;
    flags |= apply<F, Index, NOP, R, A...>(f, p, off, std::index_sequence_for<A...>{});
  }
  if (p.fp.flags) report_fp_warp(p.fp, flags);
}

// A run of N consecutive elements that one thread loads or stores in machine words of up to
// 16 bytes (ld.global.v4), which needs the run's address aligned to its size or to 16.
template <class T, int N>
struct element_run {
  T v[N];
};

template <int Bytes>
using run_word = std::conditional_t<
    (Bytes >= 16), uint4,
    std::conditional_t<
        Bytes == 8, uint2,
        std::conditional_t<Bytes == 4, unsigned, std::conditional_t<Bytes == 2, unsigned short, unsigned char>>>>;

template <class T, int N>
__device__ __forceinline__ element_run<T, N> load_run(const T* p) {
  constexpr int bytes = N * static_cast<int>(sizeof(T));
  using W = run_word<bytes>;
  W w[bytes / sizeof(W)];
#pragma unroll
  for (int k = 0; k < bytes / static_cast<int>(sizeof(W)); ++k) w[k] = reinterpret_cast<const W*>(p)[k];
  element_run<T, N> r;
  memcpy(&r, w, bytes);
  return r;
}

template <class T, int N>
__device__ __forceinline__ void store_run(T* p, const element_run<T, N>& r) {
  constexpr int bytes = N * static_cast<int>(sizeof(T));
  using W = run_word<bytes>;
  W w[bytes / sizeof(W)];
  memcpy(w, &r, bytes);
#pragma unroll
  for (int k = 0; k < bytes / static_cast<int>(sizeof(W)); ++k) reinterpret_cast<W*>(p)[k] = w[k];
}

// Whether the contiguous kernel takes runs of consecutive elements per thread (where every
// pointer is 16-byte aligned): where an input is narrower than 4 bytes. Loaded element by
// element, a warp's load of 2-byte values moves 64 bytes and the loads, not the memory,
// bounded float16 add (in float16 arithmetic at 0.76x cub::DeviceTransform over __half, H200).
template <class... A>
constexpr bool contiguous_runs() {
  return contiguous_items<A...>() > items_per_thread;
}

template <class... T>
__device__ __forceinline__ bool all_aligned_to_16(const T*... p) {
  return ((reinterpret_cast<std::uintptr_t>(p) | ...) & 15u) == 0;
}

// Contiguous calls: the lightest launch (a few pointers as parameters), for small calls, where
// the launch is the cost, and for calls that gather flags or have narrow aligned inputs.
template <class F, class R, class... A>
__global__ void __launch_bounds__(block_threads)
    contiguous_kernel(F f, int n, device_fp_sink fp, device_t<R>* out, const device_t<A>*... in) {
  wait_for_previous_grid();
  constexpr int items = contiguous_items<A...>();
  unsigned flags = 0;
  const auto classify = [&](const auto& r, const auto&... a) {
    if (fp.flags) flags |= fp_flags_of<F>(r, a...);
  };
  if constexpr (contiguous_runs<A...>()) {
    if (all_aligned_to_16(out, in...)) {
      const std::int64_t start =
          (static_cast<std::int64_t>(blockIdx.x) * block_threads + static_cast<std::int64_t>(threadIdx.x)) * items;
      if (start + items <= n) {
        const ::cuda::std::tuple<element_run<device_t<A>, items>...> x{load_run<device_t<A>, items>(in + start)...};
        element_run<device_t<R>, items> y;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
#pragma unroll
          for (int k = 0; k < items; ++k) {
            const auto r = f(::cuda::std::get<I>(x).v[k]...);
            y.v[k] = static_cast<device_t<R>>(r);
            classify(r, ::cuda::std::get<I>(x).v[k]...);
          }
        }
        (std::index_sequence_for<A...>{});
        store_run(out + start, y);
      } else {
        for (std::int64_t i = start; i < n; ++i) {
          const auto r = f(in[i]...);
          out[i] = static_cast<device_t<R>>(r);
          classify(r, in[i]...);
        }
      }
      if (fp.flags) report_fp_warp(fp, flags);
      return;
    }
  }
  const int first = static_cast<int>(blockIdx.x) * (block_threads * items) + static_cast<int>(threadIdx.x);
  // Every load is issued before the first store, so that a thread's loads are in flight
  // together. The pointers cannot be __restrict__ (host code cannot take the address of a
  // kernel whose parameter pack is, and the dependent launch needs it), so the compiler
  // would not move loads past stores itself.
  using inputs = ::cuda::std::tuple<device_t<A>...>;
  inputs x[items];
#pragma unroll
  for (int k = 0; k < items; ++k) {
    const int i = first + k * block_threads;
    if (i < n) x[k] = inputs{in[i]...};
  }
#pragma unroll
  for (int k = 0; k < items; ++k) {
    const int i = first + k * block_threads;
    if (i < n) {
      ::cuda::std::apply(
          [&](const auto&... a) {
            const auto r = f(a...);
            out[i] = static_cast<device_t<R>>(r);
            classify(r, a...);
          },
          x[k]);
    }
  }
  if (fp.flags) report_fp_warp(fp, flags);
}

// cub::DeviceTransform's functor: converts storage types at the boundary.
template <class F, class R, class... A>
struct transform_adapter {
  F f;
  device_fp_sink fp;
  __device__ __forceinline__ device_t<R> operator()(device_t<A>... a) const {
    const auto r = f(a...);
    if (fp.flags) report_fp(fp, fp_flags_of<F>(r, a...));
    return static_cast<device_t<R>>(r);
  }
};

template <class Index, int NOP>
kernel_plan<Index, NOP> make_plan(const device_call& c) {
  kernel_plan<Index, NOP> p{};
  p.ndim = c.ndim;
  p.size = static_cast<Index>(c.size);
  p.inner = static_cast<Index>(c.shape[0]);
  p.outer_count = static_cast<Index>(c.size / (c.shape[0] == 0 ? 1 : c.shape[0]));
  for (int d = 0; d < c.ndim; ++d) p.shape[d] = static_cast<Index>(c.shape[d]);
  for (int op = 0; op < NOP; ++op) {
    p.base[op] = reinterpret_cast<char*>(c.base[op]);
    for (int d = 0; d < c.ndim; ++d) p.stride[op][d] = static_cast<Index>(c.strides[op][d]);
  }
  p.fp = c.fp;
  return p;
}

template <class F, class Sig>
struct device_loop;

template <class F, class R, class... A>
struct device_loop<F, R(A...)> {
  static constexpr int nin = sizeof...(A);
  static constexpr int nout = signature_traits<R(A...)>::nout;

  template <class Index, bool HasWhere>
  static void launch_strided(const F& f, const device_call& c, cudaStream_t stream) {
    constexpr int nop = nin + nout + (HasWhere ? 1 : 0);
    const auto p = make_plan<Index, nop>(c);
    constexpr Index tile = block_threads * items_per_thread;
    if (c.shape[0] >= 64) {
      const Index tiles_per_row = (p.inner + tile - 1) / tile;
      const auto blocks = static_cast<std::uint64_t>(tiles_per_row) * static_cast<std::uint64_t>(p.outer_count);
      if (blocks > 0x7fffffffu) throw value_error("cuda: iteration too large for one launch");
      rows_kernel<F, Index, nop, HasWhere, R, A...>
          <<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(f, p, tiles_per_row);
    } else {
      const auto blocks = (static_cast<std::uint64_t>(p.size) + tile - 1) / tile;
      if (blocks > 0x7fffffffu) throw value_error("cuda: iteration too large for one launch");
      elements_kernel<F, Index, nop, HasWhere, R, A...>
          <<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(f, p);
    }
  }

  static bool all_inputs_contiguous(const device_call& c) {
    if (c.ndim != 1 || c.has_where || nout != 1) return false;
    constexpr std::int64_t sizes[] = {static_cast<std::int64_t>(sizeof(A))..., 0};
    for (int i = 0; i < nin; ++i)
      if (c.strides[i][0] != sizes[i]) return false;
    return c.strides[nin][0] == static_cast<std::int64_t>(sizeof(device_t<R>));
  }

  static bool operands_aligned_to_16(const device_call& c) {
    for (int op = 0; op <= nin; ++op)
      if (reinterpret_cast<std::uintptr_t>(c.base[op]) % 16 != 0) return false;
    return true;
  }

  // Contiguous calls with one output: one light kernel launch (no dispatch work on
  // the host). Returns false when the call is not such a call.
  static bool launch_contiguous_kernel(const F& f, const device_call& c, cudaStream_t stream) {
    if constexpr (nout == 1) {
      if (c.size >= (std::int64_t{1} << 31) || !all_inputs_contiguous(c)) return false;
      constexpr int tile = block_threads * contiguous_items<A...>();
      const auto blocks = static_cast<unsigned>((c.size + tile - 1) / tile);
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        launch_elementwise<&contiguous_kernel<F, R, A...>>(blocks, stream, c.device, f, static_cast<int>(c.size), c.fp,
                                                           reinterpret_cast<device_t<R>*>(c.base[nin]),
                                                           reinterpret_cast<const device_t<A>*>(c.base[I])...);
      }
      (std::index_sequence_for<A...>{});
      return true;
    } else {
      return false;
    }
  }

  static void launch(const device_call& c, const void* data) {
    const F& f = *static_cast<const F*>(data);
    auto stream = static_cast<cudaStream_t>(c.stream);
    if constexpr (nout == 1) {
      // cub::DeviceTransform only when the call gathers no floating-point flags: with the
      // classification in its functor it fell to 0.89x of its own rate on the H200 (add
      // f32 2^28), where our contiguous kernel, which classifies and reports per warp,
      // keeps 0.99x (bench/RESULTS.md). Nor where the contiguous kernel takes aligned runs of
      // narrow inputs: float16 add at 2^28 ran at 3,854 GB/s through cub, 4,378 in runs.
      if (c.size > 0 && c.size >= cub_min_elements && c.fp.flags == nullptr && all_inputs_contiguous(c) &&
          !(contiguous_runs<A...>() && c.size < (std::int64_t{1} << 31) && operands_aligned_to_16(c))) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
          check(
              cub::DeviceTransform::Transform(
                  ::cuda::std::make_tuple(reinterpret_cast<const device_t<A>*>(c.base[I])...),
                  reinterpret_cast<device_t<R>*>(c.base[nin]), c.size, transform_adapter<F, R, A...>{f, c.fp}, stream),
              "cub::DeviceTransform");
        }
        (std::index_sequence_for<A...>{});
        check(cudaGetLastError(), "launching cub::DeviceTransform");
        return;
      }
    }
    if (c.size > 0 && launch_contiguous_kernel(f, c, stream)) return;
    launch_generic(f, c, stream);
  }

  /// Without cub::DeviceTransform: the light contiguous kernel at every size, else
  /// the rows/elements kernels. For loops that must stay quick to compile.
  static void launch_light(const device_call& c, const void* data) {
    const F& f = *static_cast<const F*>(data);
    auto stream = static_cast<cudaStream_t>(c.stream);
    if (c.size > 0 && launch_contiguous_kernel(f, c, stream)) return;
    launch_generic(f, c, stream);
  }

  /// The rows/elements kernels only (no cub instantiation): for code that must stay
  /// light to compile, such as the 169 dtype conversions.
  static void launch_generic(const F& f, const device_call& c, cudaStream_t stream) {
    if (c.size == 0) return;
    if (c.ndim > max_kernel_dims)
      throw value_error("cuda: the operands' layout leaves " + std::to_string(c.ndim) +
                        " dimensions after merging; at most " + std::to_string(max_kernel_dims) + " are supported");
    // 32-bit offsets when every byte offset fits.
    bool small = c.size < (std::int64_t{1} << 31);
    for (int op = 0; op < nin + nout + (c.has_where ? 1 : 0) && small; ++op) {
      std::int64_t extent = 0;
      for (int d = 0; d < c.ndim; ++d)
        extent += (c.shape[d] - 1) * (c.strides[op][d] < 0 ? -c.strides[op][d] : c.strides[op][d]);
      small = extent < (std::int64_t{1} << 31);
    }
    if (small)
      c.has_where ? launch_strided<std::int32_t, true>(f, c, stream)
                  : launch_strided<std::int32_t, false>(f, c, stream);
    else
      c.has_where ? launch_strided<std::int64_t, true>(f, c, stream)
                  : launch_strided<std::int64_t, false>(f, c, stream);
    check(cudaGetLastError(), "launching a ufunc kernel");
  }
};

}  // namespace detail

/// The device launcher for functor F with signature Sig.
template <class Sig, class F>
inline constexpr device_loop_fn device_loop = &detail::device_loop<F, Sig>::launch;
/// The same without cub::DeviceTransform (about half the compile time; slightly
/// lower bandwidth on large contiguous calls).
template <class Sig, class F>
inline constexpr device_loop_fn device_loop_light = &detail::device_loop<F, Sig>::launch_light;

/// A loop table entry that runs a copy of `f` on the GPU and (the same functor,
/// compiled for the host) on the cpu targets.
template <class Sig, class F>
[[nodiscard]] loop_entry make_loop(F f) {
  auto e = cpu::make_loop<Sig>(f);
  // reduce/accumulate/at on the GPU too (methods.hpp)
  e.devices.set({target_id::cuda, device_loop<Sig, F>, device_method_loop<Sig, F>, e.host_data});
  return e;
}

}  // namespace ufunc::backends::cuda
