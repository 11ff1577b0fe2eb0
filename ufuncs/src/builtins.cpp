// The registry of built-in ufuncs: one ufunc::function per entry of registry.inc,
// its loops taken from the best kernel table the running CPU supports (and from
// the CUDA kernel table where the library has one).
#include <ufunc/ufuncs/builtins.hpp>

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <ufunc/core/signature.hpp>

#include "kernel_table.hpp"

namespace ufunc {

namespace {

using ufuncs::kernel_table;

struct arch_choice {
  const char* name;
  void (*fill[ufuncs::kernel_parts])(kernel_table&);
  bool (*supported)();
};

#define UFUNC_FILLERS(arch)                                                                               \
  {                                                                                                       \
    &ufuncs::arch##_p0::fill_kernels, &ufuncs::arch##_p1::fill_kernels, &ufuncs::arch##_p2::fill_kernels, \
        &ufuncs::arch##_p3::fill_kernels                                                                  \
  }

// Best first. __builtin_cpu_supports also checks that the OS saves the wider
// registers, which xsimd 8's detection does not.
constexpr arch_choice arch_choices[] = {
#if defined(UFUNC_HAVE_ARCH_avx512bw)
    {"avx512bw", UFUNC_FILLERS(avx512bw),
     [] {
       return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
              __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
     }},
#endif
#if defined(UFUNC_HAVE_ARCH_avx2)
    {"avx2", UFUNC_FILLERS(avx2), [] { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }},
#endif
#if defined(UFUNC_HAVE_ARCH_sse4_2)
    {"sse4_2", UFUNC_FILLERS(sse4_2), [] { return __builtin_cpu_supports("sse4.2") != 0; }},
#endif
    {"baseline", UFUNC_FILLERS(baseline), [] { return true; }},
};
#undef UFUNC_FILLERS

struct kernels {
  kernel_table table;
  const char* arch = "baseline";
  kernels() {
    // The baseline fills every loop; a better instruction set overwrites the loops
    // it vectorizes.
    const arch_choice& baseline = arch_choices[std::size(arch_choices) - 1];
    for (auto fill : baseline.fill) fill(table);
    const char* cap = std::getenv("UFUNC_SIMD_ARCH");
    bool allowed = cap == nullptr || *cap == '\0';
    for (const auto& c : arch_choices) {
      if (!allowed && std::string(c.name) == cap) allowed = true;
      if (!allowed || !c.supported()) continue;
      if (&c != &baseline)
        for (auto fill : c.fill) fill(table);
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
    for (auto fill : ufuncs::cuda_kernels::fillers) fill(table);
    return table;
  }();
  return t;
}
#endif

// registry.inc as data: the ufuncs in order, and each loop's owner and types.
enum builtin_number : int {
#define UFUNC_BUILTIN(name, ...) number_##name,
#define UFUNC_LOOP(...)
#define UFUNC_ALIAS(...)
#include "registry.inc"
#undef UFUNC_BUILTIN
#undef UFUNC_LOOP
#undef UFUNC_ALIAS
};

#define UFUNC_IDENTITY(v) std::optional<weak_scalar>(weak_scalar(v))
#define UFUNC_NO_IDENTITY std::optional<weak_scalar>()

struct builtin_info {
  const char* name;
  const char* source_op;  // the loops' operation (ufunc/ufuncs/ops/)
  int nin;
  int nout;
  std::optional<weak_scalar> identity;
  const char* doc;
};

const builtin_info& info(int number) {
  static const builtin_info infos[] = {
#define UFUNC_BUILTIN(name, group, nin, nout, identity, doc) {#name, "ufunc::ops::" #name, nin, nout, identity, doc},
#define UFUNC_LOOP(...)
#define UFUNC_ALIAS(...)
#include "registry.inc"
#undef UFUNC_BUILTIN
#undef UFUNC_LOOP
#undef UFUNC_ALIAS
  };
  static_assert(std::size(infos) == builtin_count, "registry.inc and builtin_handles.hpp disagree");
  return infos[number];
}

struct loop_info {
  int owner;
  type_signature (*types)();
};
constexpr loop_info loop_infos[] = {
#define UFUNC_BUILTIN(...)
#define UFUNC_ALIAS(...)
#define UFUNC_LOOP(index, name, ...) {number_##name, &signature_traits<__VA_ARGS__>::types},
#include "registry.inc"
#undef UFUNC_BUILTIN
#undef UFUNC_LOOP
#undef UFUNC_ALIAS
};

struct alias_info {
  const char* alias;
  int number;
};
constexpr alias_info aliases[] = {
#define UFUNC_BUILTIN(...)
#define UFUNC_LOOP(...)
#define UFUNC_ALIAS(alias, name) {#alias, number_##name},
#include "registry.inc"
#undef UFUNC_BUILTIN
#undef UFUNC_LOOP
#undef UFUNC_ALIAS
};

bool is_integer(dtype t) {
  return t.kind() == dtype_kind::boolean || t.kind() == dtype_kind::signed_int || t.kind() == dtype_kind::unsigned_int;
}

// NumPy's true division: booleans and integers divide as float64.
std::optional<type_signature> resolve_true_divide(std::span<const dtype> in) {
  if (is_integer(in[0]) && is_integer(in[1])) return type_signature({float64, float64}, {float64});
  return std::nullopt;
}

// NumPy 2 compares a signed integer with a uint64 exactly, through its int64/uint64
// loops, where the plain search would pick float64.
std::optional<type_signature> resolve_comparison(std::span<const dtype> in) {
  const auto is_signed = [](dtype t) { return t.kind() == dtype_kind::signed_int; };
  if (is_signed(in[0]) && in[1] == uint64) return type_signature({int64, uint64}, {bool_});
  if (in[0] == uint64 && is_signed(in[1])) return type_signature({uint64, int64}, {bool_});
  return std::nullopt;
}

// NumPy's logical_and/or/xor run mixed dtypes through the boolean loop.
std::optional<type_signature> resolve_logical(std::span<const dtype> in) {
  if (in[0] != in[1]) return type_signature({bool_, bool_}, {bool_});
  return std::nullopt;
}

// Where NumPy's type resolution differs from "the first loop every input casts to
// safely" (tests/data/numpy_tables.inc checks each against NumPy).
void apply_numpy_resolution_rules(function& f, int number) {
  const std::string no_bool = "' is not supported for boolean inputs, as in NumPy";
  switch (number) {
    case number_subtract:
      f.reject_inputs({bool_, bool_},
                      "boolean subtract is not supported (as in NumPy); use bitwise_xor or logical_xor");
      break;
    case number_negative:
      f.reject_inputs({bool_}, "boolean negative is not supported (as in NumPy); use invert or logical_not");
      break;
    case number_positive:
    case number_sign:
      f.reject_inputs({bool_}, "'" + f.name() + no_bool);
      break;
    case number_gcd:
    case number_lcm:
      f.reject_inputs({bool_, bool_}, "'" + f.name() + no_bool);
      break;
    case number_divide:
      f.set_type_resolver(&resolve_true_divide);
      break;
    case number_greater:
    case number_greater_equal:
    case number_less:
    case number_less_equal:
    case number_equal:
    case number_not_equal:
      f.set_type_resolver(&resolve_comparison);
      f.set_exact_weak_integers();
      break;
    case number_logical_and:
    case number_logical_or:
    case number_logical_xor:
      f.set_type_resolver(&resolve_logical);
      f.set_truth_inputs();
      f.set_exact_weak_integers();
      break;
    default:
      break;
  }
}

function make_builtin(int number) {
  const builtin_info& b = info(number);
  function f(b.name, b.nin, b.nout, b.identity, b.doc);
  const auto& table = builtin_kernels().table;
  for (int i = 0; i < ufuncs::loop_count; ++i) {
    if (loop_infos[i].owner != number) continue;
    const auto& k = table.loops[i];
    loop_entry e;
    e.types = loop_infos[i].types();
    e.host = k.fn;
    e.host_data = k.data;
    e.vectorized = k.vectorized;
    e.host_fixed_run = k.fixed_run;
    e.reduce = k.reduce;
    e.reorderable = k.reorderable;
    e.host_scalar = k.scalar;
    e.host_scalar_data = k.scalar_data;
    e.source_op = b.source_op;
#if defined(UFUNC_HAS_CUDA)
    const auto& dk = builtin_device_kernels().loops[i];
    e.devices.set({target_id::cuda, dk.fn, dk.methods, dk.data});
#endif
    // Which NaN a complex maximum/minimum reduction returns depends on the order: NumPy
    // folds in order and keeps the first NaN; a pairwise reduce fn (its accumulators
    // interleave the elements) may return a later one. Without the reduce fn the fold
    // runs the elementwise loop in order, in blocks still combined in order.
    if ((number == number_maximum || number == number_minimum) && e.types.input(0).is_complex()) e.reduce = nullptr;
    f.add_loop(std::move(e));
  }
  apply_numpy_resolution_rules(f, number);
  return f;
}

const std::vector<function>& registry() {
  static const std::vector<function> all = [] {
    std::vector<function> v;
    v.reserve(builtin_count);
    for (int i = 0; i < builtin_count; ++i) v.push_back(make_builtin(i));
    return v;
  }();
  return all;
}

}  // namespace

std::string_view simd_arch() { return builtin_kernels().arch; }

const function* find_builtin(std::string_view name) {
  for (int i = 0; i < builtin_count; ++i)
    if (name == info(i).name) return &registry()[i];
  for (const auto& a : aliases)
    if (name == a.alias) return &registry()[a.number];
  return nullptr;
}

namespace detail {

const function& builtin(int id) { return registry().at(static_cast<std::size_t>(id)); }

}  // namespace detail

}  // namespace ufunc
