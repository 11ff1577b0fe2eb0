// cuda backend, device side of generalized ufuncs: the kernel that runs a gvectorize'd
// function (a __host__ __device__ functor over ufunc::core_view) at every element of the
// loop dimensions, one thread per element. A translation unit that includes this
// (gvectorize with target::cuda does) must be compiled by nvcc.
//
// Each thread decomposes its loop index into the operands' core origins (as the elements
// kernel of loops.hpp does) and calls the function with one core_view per operand, whose
// extents and byte strides are the call's, taken by value with the launch. Complex
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
