// cuda backend, device side of generalized ufuncs: the kernel that runs a gvectorize'd
// function (a __host__ __device__ functor over ufunc::core_view) at every element of the
// loop dimensions, one thread per element. A translation unit that includes this
// (gvectorize with target::cuda does) must be compiled by nvcc.
//
// Each thread decomposes its loop index into the operands' core origins (as the elements
// kernel of loops.hpp does) and calls the function with one core_view per operand, whose
// extents and byte strides are the call's, taken by value with the launch.
//
// A thread walking its own core reads memory that its neighbours' cores interleave with:
// a warp's loads touch 32 rows, a cache line each. Where the loop dimensions are one run and
// an operand's cores are packed one after the other (C-contiguous cores of C-contiguous
// arrays: vecdot of (n, 16) rows, stacks of small matrices), the block copies its elements'
// cores of that operand through shared memory instead, with whole-block coalesced loads (and
// stores, for outputs), rows padded so that the threads' accesses fall in distinct banks. Long
// cores (a moving average's 256-element rows) take blocks of fewer threads and shared memory
// beyond the default 48 KB, up to a third of an SM's. Complex
// elements are seen as cuda::std::complex on the device (std::complex is host-only), so a
// function for complex loops is written generically (auto views, element_type).
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/gufunc_loops.hpp is CUDA code: compile this translation unit with nvcc (as a .cu file)"
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <ufunc/backends/cuda/device_types.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/signature.hpp>
#include <ufunc/gufunc/core_view.hpp>
#include <ufunc/gufunc/gufunc.hpp>

namespace ufunc::backends::cuda {

namespace detail {

// Small: every thread runs a whole core computation, so blocks of 128 keep more SMs busy
// for loop dimensions of a few thousand elements.
constexpr int gufunc_block_threads = 128;

template <class Index, int NOP>
struct gufunc_plan {
  int ndim;
  Index size;
  Index shape[max_kernel_dims];
  Index stride[NOP][max_kernel_dims];  // bytes, along the loop dimensions
  char* base[NOP];
  // The core dimensions of each operand (gufunc::device_core_layout, only NOP operands).
  int core_ndim[NOP];
  std::int64_t core_extents[NOP][gufunc::max_device_core_dims];
  std::int64_t core_strides[NOP][gufunc::max_device_core_dims];
};

// Where one staged operand's cores lie in shared memory.
struct gufunc_rows {
  unsigned offset;      // bytes, the first core's start
  unsigned pitch;       // bytes between two threads' cores (a core, padded)
  unsigned row_words;   // 4-byte words of one core
  std::uint64_t magic;  // ceil(2^32 / units of a core): a unit's core is (unit * magic) >> 32
  bool vectors;         // the cores' global span is 16-byte aligned: copied in 16-byte words
  bool async;           // an input of long cores, loaded by cp.async in 16-byte pieces (units); pitch a multiple of 16
};

// Which operands go through shared memory, and the block size that lets them fit.
template <int NOP>
struct gufunc_staging {
  int threads;     // block size
  unsigned bytes;  // the block's shared memory
  bool staged[NOP];
  gufunc_rows rows[NOP];
};

// The slot of word w of a block's cores. The multiply is exact for fewer than 2^16 words and
// cores of at most 2^16 words (a block stages at most 227 KB): it replaces a division per word,
// which cost more than the copy.
__device__ __forceinline__ std::uint32_t* gufunc_slot(unsigned char* shared, const gufunc_rows& r, unsigned w) {
  const auto row = static_cast<unsigned>((static_cast<std::uint64_t>(w) * r.magic) >> 32);
  return reinterpret_cast<std::uint32_t*>(shared + r.offset + row * r.pitch) + (w - row * r.row_words);
}

// Copies the cores of `count` consecutive loop elements, packed at `global`, to or from their
// padded rows in shared memory, the whole block together. Where the span is 16-byte aligned,
// each thread moves eight 16-byte words at a time (one 4-byte word per thread per step left
// too few loads in flight: vecdot of (10^6, 16) float64 rows took 251 us instead of 73 on an
// H200, bench/gufunc_staging_probe.cu); the rest word by word.
template <bool ToShared>
__device__ __forceinline__ void gufunc_copy_rows(char* global, unsigned char* shared, const gufunc_rows& r, int count) {
  constexpr int per_thread = 8;
  const unsigned words = r.row_words * static_cast<unsigned>(count);
  const unsigned vectors = r.vectors ? words / 4 : 0;
  auto* g = reinterpret_cast<uint4*>(global);
  for (unsigned v0 = threadIdx.x; v0 < vectors; v0 += blockDim.x * per_thread) {
    uint4 v[per_thread];
    if constexpr (ToShared) {
#pragma unroll
      for (int k = 0; k < per_thread; ++k)
        if (v0 + k * blockDim.x < vectors) v[k] = g[v0 + k * blockDim.x];
#pragma unroll
      for (int k = 0; k < per_thread; ++k) {
        const unsigned w = 4 * (v0 + k * blockDim.x);
        if (w < 4 * vectors) {
          *gufunc_slot(shared, r, w) = v[k].x;
          *gufunc_slot(shared, r, w + 1) = v[k].y;
          *gufunc_slot(shared, r, w + 2) = v[k].z;
          *gufunc_slot(shared, r, w + 3) = v[k].w;
        }
      }
    } else {
#pragma unroll
      for (int k = 0; k < per_thread; ++k) {
        const unsigned w = 4 * (v0 + k * blockDim.x);
        if (w < 4 * vectors) {
          v[k] = uint4{*gufunc_slot(shared, r, w), *gufunc_slot(shared, r, w + 1), *gufunc_slot(shared, r, w + 2),
                       *gufunc_slot(shared, r, w + 3)};
          g[v0 + k * blockDim.x] = v[k];
        }
      }
    }
  }
  for (unsigned w = 4 * vectors + threadIdx.x; w < words; w += blockDim.x) {
    auto* word = reinterpret_cast<std::uint32_t*>(global) + w;
    if constexpr (ToShared)
      *gufunc_slot(shared, r, w) = *word;
    else
      *word = *gufunc_slot(shared, r, w);
  }
}

// Starts the loads of an input's cores (r.async) as asynchronous copies of 16-byte pieces, each
// landing whole in its core's row: a block's loads are all in flight at once, none held in
// registers (a moving average's 2 KB float64 rows: 406 against 474 us of kernel time on an H200,
// bench/gufunc_staging_probe.cu). The caller waits for them (__pipeline_wait_prior). Before
// sm_80 the copies are plain loads and stores.
__device__ __forceinline__ void gufunc_load_rows_async(const char* global, unsigned char* shared, const gufunc_rows& r,
                                                       int count) {
  const unsigned per_row = r.row_words / 4, pieces = per_row * static_cast<unsigned>(count);
  for (unsigned v = threadIdx.x; v < pieces; v += blockDim.x) {
    const auto row = static_cast<unsigned>((static_cast<std::uint64_t>(v) * r.magic) >> 32);
    __pipeline_memcpy_async(shared + r.offset + row * r.pitch + (v - row * per_row) * 16,
                            global + 16 * static_cast<std::size_t>(v), 16);
  }
}

template <class F, class Index, int NOP, class... T, std::size_t... I>
__device__ __forceinline__ void gufunc_apply(const F& f, const gufunc_plan<Index, NOP>& p, const Index* off,
                                             std::index_sequence<I...>) {
  f(core_view<T>(reinterpret_cast<T*>(p.base[I] + off[I]), p.core_ndim[I], p.core_extents[I], p.core_strides[I])...);
}

// T...: the element type each operand is seen as (const for inputs), in operand order.
template <class F, class Index, int NOP, class... T>
__global__ void __launch_bounds__(gufunc_block_threads) gufunc_kernel(F f, gufunc_plan<Index, NOP> p) {
  // The element counter is 64-bit: with 32-bit offsets the last stride step may pass 2^31.
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * gufunc_block_threads;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * gufunc_block_threads + threadIdx.x; e < p.size;
       e += step) {
    Index off[NOP];
    for (int op = 0; op < NOP; ++op) off[op] = 0;
    Index rem = static_cast<Index>(e);
    for (int d = 0; d < p.ndim; ++d) {
      const Index q = rem / p.shape[d];
      const Index idx = rem - q * p.shape[d];
      rem = q;
      for (int op = 0; op < NOP; ++op) off[op] += idx * p.stride[op][d];
    }
    gufunc_apply<F, Index, NOP, T...>(f, p, off, std::index_sequence_for<T...>{});
  }
}

// The staged kernel: one block of st.threads loop elements (the loop is one run), whose staged
// operands' cores are copied in, computed on in shared memory, and (outputs) copied out.
template <class F, class Index, int NOP, int NIN, class... T>
__global__ void gufunc_staged_kernel(F f, gufunc_plan<Index, NOP> p, gufunc_staging<NOP> st) {
  extern __shared__ __align__(16) unsigned char gufunc_shared[];
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * st.threads;
  const std::int64_t rest = static_cast<std::int64_t>(p.size) - first;
  const int count = rest < st.threads ? static_cast<int>(rest) : st.threads;
  bool async = false;
  for (int op = 0; op < NIN; ++op) {
    if (!st.staged[op]) continue;
    char* global = p.base[op] + first * p.stride[op][0];
    if (st.rows[op].async) {
      gufunc_load_rows_async(global, gufunc_shared, st.rows[op], count);
      async = true;
    } else {
      gufunc_copy_rows<true>(global, gufunc_shared, st.rows[op], count);
    }
  }
  if (async) {
    __pipeline_commit();
    __pipeline_wait_prior(0);
  }
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < count) {
    const std::int64_t e = first + threadIdx.x;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      f(core_view<T>(reinterpret_cast<T*>(st.staged[I] ? reinterpret_cast<char*>(gufunc_shared) + st.rows[I].offset +
                                                             threadIdx.x * st.rows[I].pitch
                                                       : p.base[I] + e * p.stride[I][0]),
                     p.core_ndim[I], p.core_extents[I], p.core_strides[I])...);
    }
    (std::index_sequence_for<T...>{});
  }
  __syncthreads();
  for (int op = NIN; op < NOP; ++op)
    if (st.staged[op]) gufunc_copy_rows<false>(p.base[op] + first * p.stride[op][0], gufunc_shared, st.rows[op], count);
}

// Shared memory a block may use without opting in to more (48 KB on every device).
constexpr unsigned gufunc_default_shared_bytes = 48 * 1024;

// The shared memory a staged block may take on `device`: what lets three blocks share an SM
// (fewer starve the copies and the compute of threads: a moving average's 1 KB float32 rows in
// and out, 64 KB, ran at 238 us in blocks of 32 threads, its float64 rows at 1,248 us in
// blocks of 128 KB), within what a block may opt in to; at least the default. Cached per device.
inline unsigned gufunc_shared_limit(int device) {
  static std::atomic<unsigned> known[64] = {};
  if (device < 0 || device >= 64) return gufunc_default_shared_bytes;
  unsigned v = known[device].load(std::memory_order_relaxed);
  if (v == 0) {
    int per_block = 0, per_sm = 0;
    check(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
          "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
          "cudaDeviceGetAttribute");
    const int third = per_sm / 3 - 1024;  // each block also holds 1 KB of the system's
    v = static_cast<unsigned>(std::max<int>(gufunc_default_shared_bytes, std::min(per_block, third)));
    known[device].store(v, std::memory_order_relaxed);
  }
  return v;
}

// Whether operand `op` (elements of `itemsize` bytes) can be staged: one loop run, its cores
// packed C-contiguous one after the other (4-byte words), and its base 4-byte aligned. Sets
// the bytes of one core.
inline bool gufunc_packed(const device_call& c, const gufunc::device_core_layout& core, int op, std::size_t itemsize,
                          std::int64_t& bytes) {
  if (c.ndim != 1) return false;
  std::int64_t expected = static_cast<std::int64_t>(itemsize);
  for (int d = core.ndim[op] - 1; d >= 0; --d) {
    if (core.extents[op][d] != 1 && core.strides[op][d] != expected) return false;
    expected *= core.extents[op][d];
  }
  bytes = expected;
  return bytes > 0 && bytes % 4 == 0 && c.strides[op][0] == bytes &&
         reinterpret_cast<std::uintptr_t>(c.base[op]) % 4 == 0;
}

// The staging of a call within `limit` bytes of shared memory: every packed operand at the
// largest block of 128, 64 or 32 threads whose rows fit; else the packed inputs only; else none
// (threads == 0). Staging the outputs too at fewer threads beats the inputs alone at more (the
// moving average's float32 rows: 238 against 388 us).
template <int NOP>
gufunc_staging<NOP> gufunc_plan_staging(const device_call& c, const gufunc::device_core_layout& core,
                                        const std::size_t (&itemsize)[NOP], int nin, unsigned limit) {
  gufunc_staging<NOP> st{};
  std::int64_t bytes[NOP] = {};
  bool packed[NOP] = {};
  bool any = false;
  for (int op = 0; op < NOP; ++op) any |= packed[op] = gufunc_packed(c, core, op, itemsize[op], bytes[op]);
  if (!any) return st;
  for (const bool outputs_too : {true, false})
    for (const int threads : {128, 64, 32}) {
      std::int64_t total = 0;
      for (int op = 0; op < NOP && total <= limit; ++op) {
        st.staged[op] = packed[op] && (outputs_too || op < nin);
        if (!st.staged[op]) continue;
        // Pad a row to an odd number of bank-wide units (4 bytes, or the element's size up to 16),
        // so that the threads of a warp, each at its own row, hit distinct banks.
        const std::int64_t unit = itemsize[op] < 4    ? 4
                                  : itemsize[op] > 16 ? 16
                                                      : static_cast<std::int64_t>(itemsize[op]);
        // Inputs of cores of 1 KB and more, in whole 16-byte pieces from an aligned base, are loaded
        // asynchronously into rows padded by 16 bytes instead (the pieces must land aligned; the bank
        // conflicts this padding leaves cost less than the loads it keeps in flight).
        const bool async = op < nin && bytes[op] >= 1024 && bytes[op] % 16 == 0 &&
                           reinterpret_cast<std::uintptr_t>(c.base[op]) % 16 == 0;
        const std::int64_t pitch = async                                                  ? bytes[op] + 16
                                   : bytes[op] % unit == 0 && (bytes[op] / unit) % 2 == 0 ? bytes[op] + unit
                                                                                          : bytes[op];
        if (pitch * threads > limit) {
          total = std::int64_t{limit} + 1;
          break;
        }
        auto& r = st.rows[op];
        r.offset = static_cast<unsigned>(total);
        r.pitch = static_cast<unsigned>(pitch);
        r.row_words = static_cast<unsigned>(bytes[op] / 4);
        const unsigned units = async ? r.row_words / 4 : r.row_words;
        r.magic = ((std::uint64_t{1} << 32) + units - 1) / units;
        r.async = async;
        // Every block's span starts 16-byte aligned: threads x a core is a multiple of 128 bytes.
        r.vectors = reinterpret_cast<std::uintptr_t>(c.base[op]) % 16 == 0;
        total += (pitch * threads + 15) / 16 * 16;
      }
      if (total <= limit) {
        st.threads = threads;
        st.bytes = static_cast<unsigned>(total);
        return st;
      }
    }
  return gufunc_staging<NOP>{};
}

template <class F, class Sig>
struct gufunc_device_loop;

template <class F, class R, class... A>
struct gufunc_device_loop<F, R(A...)> {
  using outputs = typename signature_traits<R(A...)>::outputs;
  static constexpr int nin = sizeof...(A);
  static constexpr int nop = nin + static_cast<int>(outputs::size);

  template <class Index, class... O>
  static void launch_as(type_list<O...>, const F& f, const device_call& c, const gufunc::device_core_layout& core) {
    gufunc_plan<Index, nop> p{};
    p.ndim = c.ndim;
    p.size = static_cast<Index>(c.size);
    for (int d = 0; d < c.ndim; ++d) p.shape[d] = static_cast<Index>(c.shape[d]);
    for (int op = 0; op < nop; ++op) {
      p.base[op] = reinterpret_cast<char*>(c.base[op]);
      for (int d = 0; d < c.ndim; ++d) p.stride[op][d] = static_cast<Index>(c.strides[op][d]);
      p.core_ndim[op] = core.ndim[op];
      for (int d = 0; d < core.ndim[op]; ++d) {
        p.core_extents[op][d] = core.extents[op][d];
        p.core_strides[op][d] = core.strides[op][d];
      }
    }
    if constexpr (sizeof(Index) == 4) {
      const std::size_t itemsize[nop] = {sizeof(device_t<A>)..., sizeof(device_t<O>)...};
      const auto st = gufunc_plan_staging<nop>(c, core, itemsize, nin, gufunc_shared_limit(c.device));
      if (st.threads > 0) {
        constexpr auto kernel = gufunc_staged_kernel<F, Index, nop, nin, const device_t<A>..., device_t<O>...>;
        if (st.bytes > gufunc_default_shared_bytes)
          check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(st.bytes)),
                "cudaFuncSetAttribute (a gufunc kernel's shared memory)");
        const auto blocks = (static_cast<std::uint64_t>(c.size) + st.threads - 1) / st.threads;
        kernel<<<static_cast<unsigned>(blocks), st.threads, st.bytes, static_cast<cudaStream_t>(c.stream)>>>(f, p, st);
        check(cudaGetLastError(), "launching a gufunc kernel");
        return;
      }
    }
    // Enough blocks to fill the device a few times over; each thread strides on beyond.
    const auto wanted = (static_cast<std::uint64_t>(c.size) + gufunc_block_threads - 1) / gufunc_block_threads;
    const auto blocks = static_cast<unsigned>(wanted < (1u << 20) ? wanted : (1u << 20));
    gufunc_kernel<F, Index, nop, const device_t<A>..., device_t<O>...>
        <<<blocks, gufunc_block_threads, 0, static_cast<cudaStream_t>(c.stream)>>>(f, p);
    check(cudaGetLastError(), "launching a gufunc kernel");
  }

  static void launch(const device_call& c, const gufunc::device_core_layout& core, const void* fn) {
    if (c.size == 0) return;
    if (c.ndim > max_kernel_dims)
      throw value_error("cuda: the gufunc's loop dimensions leave " + std::to_string(c.ndim) +
                        " dimensions after merging; at most " + std::to_string(max_kernel_dims) + " are supported");
    check(cudaSetDevice(c.device), "cudaSetDevice");
    const F& f = *static_cast<const F*>(fn);
    // 32-bit loop offsets where every operand's loop extent fits (core offsets stay 64-bit).
    bool small = c.size < (std::int64_t{1} << 31);
    for (int op = 0; op < nop && small; ++op) {
      std::int64_t extent = 0;
      for (int d = 0; d < c.ndim; ++d)
        extent += (c.shape[d] - 1) * (c.strides[op][d] < 0 ? -c.strides[op][d] : c.strides[op][d]);
      small = extent < (std::int64_t{1} << 31);
    }
    if (small)
      launch_as<std::int32_t>(outputs{}, f, c, core);
    else
      launch_as<std::int64_t>(outputs{}, f, c, core);
  }
};

}  // namespace detail

/// The device launcher of a gufunc loop: functor F with type signature Sig.
template <class Sig, class F>
inline constexpr gufunc::device_loop_fn gufunc_device_loop = &detail::gufunc_device_loop<F, Sig>::launch;

}  // namespace ufunc::backends::cuda
