// The inner loops of the built-in ufuncs, one slot per loop of registry.inc.
// kernels_arch.cpp is compiled once per instruction set and part and fills its
// share of a kernel_table; builtins.cpp picks the best the running CPU supports.
#pragma once

#include <ufunc/core/device_method.hpp>
#include <ufunc/core/dtype.hpp>
#include <ufunc/core/loop.hpp>

namespace ufunc::ufuncs {

#define UFUNC_BUILTIN(...)
#define UFUNC_LOOP(...)
#define UFUNC_ALIAS(...)
#include "registry.inc"
#undef UFUNC_BUILTIN
#undef UFUNC_LOOP
#undef UFUNC_ALIAS
inline constexpr int loop_count = UFUNC_LOOP_COUNT;

/// The library's loops are compiled in this many translation units per instruction
/// set (and for CUDA), loop i in part i % kernel_parts, so that builds use every core.
inline constexpr int kernel_parts = 4;

struct kernel {
  inner_loop_fn fn = nullptr;
  const void* data = nullptr;
  bool vectorized = false;
  fixed_run_fn fixed_run = nullptr;  // loop_entry::host_fixed_run
  reduce_loop_fn reduce = nullptr;   // T(T, T) loops: the fold of reduce/accumulate
  bool reorderable = false;
  inner_loop_fn scalar = nullptr;  // NumPy's scalar loop where it differs (loop_entry::host_scalar)
  const void* scalar_data = nullptr;
};

struct kernel_table {
  kernel loops[loop_count];
};

/// The built-in ufuncs' CUDA launchers, where the library is built with CUDA.
struct device_kernel {
  device_loop_fn fn = nullptr;
  const void* data = nullptr;
  device_method_fn methods =
      nullptr;  // reduce/accumulate/at on the GPU (fold and unary loops; block reductions for the reorderable ones)
};
struct device_kernel_table {
  device_kernel loops[loop_count];
};

// One filler per compiled instruction set and part; each fills only what it has
// native code for (the baseline fills everything).
#define UFUNC_DECLARE_KERNEL_FILLER(ns)   \
  namespace ns {                          \
  void fill_kernels(kernel_table& table); \
  }
#define UFUNC_DECLARE_KERNEL_FILLERS(arch) \
  UFUNC_DECLARE_KERNEL_FILLER(arch##_p0)   \
  UFUNC_DECLARE_KERNEL_FILLER(arch##_p1)   \
  UFUNC_DECLARE_KERNEL_FILLER(arch##_p2)   \
  UFUNC_DECLARE_KERNEL_FILLER(arch##_p3)
UFUNC_DECLARE_KERNEL_FILLERS(baseline)
UFUNC_DECLARE_KERNEL_FILLERS(sse4_2)
UFUNC_DECLARE_KERNEL_FILLERS(avx2)
UFUNC_DECLARE_KERNEL_FILLERS(avx512bw)
/// The device loops are split finer than the host loops: nvcc is slow on them, and
/// a GPU machine's build has many cores (CMake's UFUNC_CUDA_KERNEL_PARTS matches).
inline constexpr int cuda_kernel_parts = 16;
namespace cuda_kernels {
#define UFUNC_DECLARE_CUDA_FILLER(part) void fill_kernels_p##part(device_kernel_table& table);
UFUNC_DECLARE_CUDA_FILLER(0)
UFUNC_DECLARE_CUDA_FILLER(1)
UFUNC_DECLARE_CUDA_FILLER(2)
UFUNC_DECLARE_CUDA_FILLER(3)
UFUNC_DECLARE_CUDA_FILLER(4)
UFUNC_DECLARE_CUDA_FILLER(5)
UFUNC_DECLARE_CUDA_FILLER(6)
UFUNC_DECLARE_CUDA_FILLER(7)
UFUNC_DECLARE_CUDA_FILLER(8)
UFUNC_DECLARE_CUDA_FILLER(9)
UFUNC_DECLARE_CUDA_FILLER(10)
UFUNC_DECLARE_CUDA_FILLER(11)
UFUNC_DECLARE_CUDA_FILLER(12)
UFUNC_DECLARE_CUDA_FILLER(13)
UFUNC_DECLARE_CUDA_FILLER(14)
UFUNC_DECLARE_CUDA_FILLER(15)
#undef UFUNC_DECLARE_CUDA_FILLER
inline constexpr void (*fillers[cuda_kernel_parts])(device_kernel_table&) = {
    fill_kernels_p0,  fill_kernels_p1,  fill_kernels_p2,  fill_kernels_p3, fill_kernels_p4,  fill_kernels_p5,
    fill_kernels_p6,  fill_kernels_p7,  fill_kernels_p8,  fill_kernels_p9, fill_kernels_p10, fill_kernels_p11,
    fill_kernels_p12, fill_kernels_p13, fill_kernels_p14, fill_kernels_p15};
}  // namespace cuda_kernels
#undef UFUNC_DECLARE_KERNEL_FILLERS
#undef UFUNC_DECLARE_KERNEL_FILLER

}  // namespace ufunc::ufuncs
