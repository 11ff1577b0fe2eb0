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
// stores, for outputs), rows padded so that the threads' accesses fall in distinct banks. Complex
// elements are seen as cuda::std::complex on the device (std::complex is host-only), so a
// function for complex loops is written generically (auto views, element_type).
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/gufunc_loops.hpp is CUDA code: compile this translation unit with nvcc (as a .cu file)"
#endif

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

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

// Which operands go through shared memory, where, and the block size that lets them fit.
template <int NOP>
struct gufunc_staging {
  int threads;              // block size
  bool staged[NOP];         // the operand's cores are copied through shared memory
  unsigned offset[NOP];     // bytes, its rows' start in shared memory
  unsigned pitch[NOP];      // bytes between two threads' rows (a core, padded)
  unsigned row_words[NOP];  // 4-byte words of one core
};

// Copies the cores of `count` consecutive loop elements, packed at `global`, to or from the
// padded rows at `shared`, the whole block together, a 4-byte word per thread per step.
template <bool ToShared>
__device__ __forceinline__ void gufunc_copy_rows(char* global, unsigned char* shared, unsigned row_words,
                                                 unsigned pitch, int count) {
  const unsigned words = row_words * static_cast<unsigned>(count);
  for (unsigned w = threadIdx.x; w < words; w += blockDim.x) {
    const unsigned row = w / row_words, col = w - row * row_words;
    auto* g = reinterpret_cast<std::uint32_t*>(global) + w;
    auto* s = reinterpret_cast<std::uint32_t*>(shared + row * pitch) + col;
    if constexpr (ToShared)
      *s = *g;
    else
      *g = *s;
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
  for (int op = 0; op < NIN; ++op)
    if (st.staged[op])
      gufunc_copy_rows<true>(p.base[op] + first * p.stride[op][0], gufunc_shared + st.offset[op], st.row_words[op],
                             st.pitch[op], count);
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < count) {
    const std::int64_t e = first + threadIdx.x;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      f(core_view<T>(reinterpret_cast<T*>(st.staged[I] ? reinterpret_cast<char*>(gufunc_shared) + st.offset[I] +
                                                             threadIdx.x * st.pitch[I]
                                                       : p.base[I] + e * p.stride[I][0]),
                     p.core_ndim[I], p.core_extents[I], p.core_strides[I])...);
    }
    (std::index_sequence_for<T...>{});
  }
  __syncthreads();
  for (int op = NIN; op < NOP; ++op)
    if (st.staged[op])
      gufunc_copy_rows<false>(p.base[op] + first * p.stride[op][0], gufunc_shared + st.offset[op], st.row_words[op],
                              st.pitch[op], count);
}

// Shared memory a staged block may use without opting in to more (48 KB on every device).
constexpr unsigned gufunc_shared_bytes = 48 * 1024;

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

// The staging of a call: every packed operand at the largest block of 128 or 64 threads whose
// rows fit; else the packed inputs only; else none (threads == 0).
template <int NOP>
gufunc_staging<NOP> gufunc_plan_staging(const device_call& c, const gufunc::device_core_layout& core,
                                        const std::size_t (&itemsize)[NOP], int nin) {
  gufunc_staging<NOP> st{};
  std::int64_t bytes[NOP] = {};
  bool packed[NOP] = {};
  bool any = false;
  for (int op = 0; op < NOP; ++op) any |= packed[op] = gufunc_packed(c, core, op, itemsize[op], bytes[op]);
  if (!any) return st;
  for (const bool outputs_too : {true, false})
    for (const int threads : {128, 64}) {
      unsigned total = 0;
      for (int op = 0; op < NOP; ++op) {
        st.staged[op] = packed[op] && (outputs_too || op < nin);
        if (!st.staged[op]) continue;
        // Pad a row to an odd number of bank-wide units (4 bytes, or the element's size up to 16),
        // so that the threads of a warp, each at its own row, hit distinct banks.
        const std::int64_t unit = itemsize[op] < 4    ? 4
                                  : itemsize[op] > 16 ? 16
                                                      : static_cast<std::int64_t>(itemsize[op]);
        const std::int64_t pitch = bytes[op] % unit == 0 && (bytes[op] / unit) % 2 == 0 ? bytes[op] + unit : bytes[op];
        if (pitch * threads > gufunc_shared_bytes) {
          total = gufunc_shared_bytes + 1;
          break;
        }
        st.offset[op] = total;
        st.pitch[op] = static_cast<unsigned>(pitch);
        st.row_words[op] = static_cast<unsigned>(bytes[op] / 4);
        total += static_cast<unsigned>((pitch * threads + 15) / 16 * 16);
      }
      if (total <= gufunc_shared_bytes) {
        st.threads = threads;
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
      const auto st = gufunc_plan_staging<nop>(c, core, itemsize, nin);
      if (st.threads > 0) {
        unsigned shared = 0;
        for (int op = 0; op < nop; ++op)
          if (st.staged[op]) shared = st.offset[op] + (st.pitch[op] * st.threads + 15) / 16 * 16;
        const auto blocks = (static_cast<std::uint64_t>(c.size) + st.threads - 1) / st.threads;
        gufunc_staged_kernel<F, Index, nop, nin, const device_t<A>..., device_t<O>...>
            <<<static_cast<unsigned>(blocks), st.threads, shared, static_cast<cudaStream_t>(c.stream)>>>(f, p, st);
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
