// The inner loops of the built-in ufuncs for one instruction set. kernels_arch.cpp
// is compiled once per instruction set and fills one of these; builtins.cpp picks
// the best table the running CPU supports.
#pragma once

#include <ufunc/core/dtype.hpp>
#include <ufunc/core/loop.hpp>

namespace ufunc::ufuncs {

struct kernel {
  inner_loop_fn fn = nullptr;
  const void* data = nullptr;
  bool vectorized = false;
};

/// Built-in ufuncs with one loop per dtype, indexed by dtype index (type T(T, ...)).
enum class builtin_id { add, subtract, multiply, square, sin, count };

struct kernel_table {
  kernel loops[static_cast<int>(builtin_id::count)][dtype::count];
  [[nodiscard]] const kernel& at(builtin_id f, dtype t) const noexcept { return loops[static_cast<int>(f)][t.index()]; }
};

/// The built-in ufuncs' CUDA launchers, where the library is built with CUDA.
struct device_kernel {
  device_loop_fn fn = nullptr;
  const void* data = nullptr;
};
struct device_kernel_table {
  device_kernel loops[static_cast<int>(builtin_id::count)][dtype::count];
};
namespace cuda_kernels {
void fill_kernels(device_kernel_table& table);
}

// One filler per compiled instruction set; each fills only what it has native
// code for (the baseline fills everything).
#define UFUNC_DECLARE_KERNEL_FILLER(arch) \
  namespace arch {                        \
  void fill_kernels(kernel_table& table); \
  }
UFUNC_DECLARE_KERNEL_FILLER(baseline)
UFUNC_DECLARE_KERNEL_FILLER(sse4_2)
UFUNC_DECLARE_KERNEL_FILLER(avx2)
UFUNC_DECLARE_KERNEL_FILLER(avx512bw)
#undef UFUNC_DECLARE_KERNEL_FILLER

}  // namespace ufunc::ufuncs
