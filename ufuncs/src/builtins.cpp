#include <ufunc/ufuncs/builtins.hpp>

#include <cstdlib>
#include <string>

#include "kernel_table.hpp"

namespace ufunc {

namespace {

using ufuncs::builtin_id;
using ufuncs::kernel_table;

struct arch_choice {
  const char* name;
  void (*fill)(kernel_table&);
  bool (*supported)();
};

// Best first. __builtin_cpu_supports also checks that the OS saves the wider
// registers, which xsimd 8's detection does not.
constexpr arch_choice arch_choices[] = {
#if defined(UFUNC_HAVE_ARCH_avx512bw)
    {"avx512bw", &ufuncs::avx512bw::fill_kernels,
     [] {
       return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
              __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
     }},
#endif
#if defined(UFUNC_HAVE_ARCH_avx2)
    {"avx2", &ufuncs::avx2::fill_kernels,
     [] { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }},
#endif
#if defined(UFUNC_HAVE_ARCH_sse4_2)
    {"sse4_2", &ufuncs::sse4_2::fill_kernels, [] { return __builtin_cpu_supports("sse4.2") != 0; }},
#endif
    {"baseline", &ufuncs::baseline::fill_kernels, [] { return true; }},
};

struct kernels {
  kernel_table table;
  const char* arch = "baseline";
  kernels() {
    // The baseline fills every loop; a better instruction set overwrites the
    // loops it vectorizes.
    ufuncs::baseline::fill_kernels(table);
    const char* cap = std::getenv("UFUNC_SIMD_ARCH");
    bool allowed = cap == nullptr || *cap == '\0';
    for (const auto& c : arch_choices) {
      if (!allowed && std::string(c.name) == cap) allowed = true;
      if (!allowed || !c.supported()) continue;
      c.fill(table);
      arch = c.name;
      break;
    }
  }
};

const kernels& builtin_kernels() {
  static const kernels k;
  return k;
}

#if defined(UFUNC_HAS_CUDA)
const ufuncs::device_kernel_table& builtin_device_kernels() {
  static const ufuncs::device_kernel_table t = [] {
    ufuncs::device_kernel_table table;
    ufuncs::cuda_kernels::fill_kernels(table);
    return table;
  }();
  return t;
}
#endif

function make_builtin(const char* name, int nin, builtin_id id, std::optional<weak_scalar> identity, const char* doc) {
  function f(name, nin, 1, identity, doc);
  const auto& table = builtin_kernels().table;
  for (int t = 0; t < dtype::count; ++t) {
    const auto& k = table.loops[static_cast<int>(id)][t];
    if (k.fn == nullptr) continue;
    const dtype type = dtype::from_index(t);
    loop_entry e;
    e.types.resize(nin, 1);
    for (int i = 0; i <= nin; ++i) e.types.set(i, type);
    e.host = k.fn;
    e.host_data = k.data;
    e.vectorized = k.vectorized;
#if defined(UFUNC_HAS_CUDA)
    const auto& dk = builtin_device_kernels().loops[static_cast<int>(id)][t];
    e.device = dk.fn;
    e.device_data = dk.data;
#endif
    f.add_loop(std::move(e));
  }
  return f;
}

}  // namespace

std::string_view simd_arch() { return builtin_kernels().arch; }

namespace detail {

const function& builtin_add() {
  static const function f = make_builtin("add", 2, builtin_id::add, weak_scalar(0), "Add arguments element-wise.");
  return f;
}
const function& builtin_subtract() {
  static const function f = [] {
    auto s = make_builtin("subtract", 2, builtin_id::subtract, std::nullopt, "Subtract arguments, element-wise.");
    s.reject_inputs({bool_, bool_}, "boolean subtract is not supported (as in NumPy); use bitwise_xor or logical_xor");
    return s;
  }();
  return f;
}
const function& builtin_multiply() {
  static const function f =
      make_builtin("multiply", 2, builtin_id::multiply, weak_scalar(1), "Multiply arguments element-wise.");
  return f;
}
const function& builtin_square() {
  static const function f =
      make_builtin("square", 1, builtin_id::square, std::nullopt, "Return the element-wise square of the input.");
  return f;
}
const function& builtin_sin() {
  static const function f = make_builtin("sin", 1, builtin_id::sin, std::nullopt, "Trigonometric sine, element-wise.");
  return f;
}

}  // namespace detail

}  // namespace ufunc
