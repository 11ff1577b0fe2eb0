// The built-in ufuncs' host loops for one instruction set and one part of the
// loop list (see cmake/ufunc_arch.cmake). Everything here lives in a namespace
// named after both, so no inline function compiled for AVX-512 can be picked by
// the linker for code that runs on an older CPU.
#include <complex>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include <ufunc/backends/cpu/loops.hpp>
#include <ufunc/backends/cpu/methods.hpp>
#include <ufunc/ufuncs/ops.hpp>

#include "half_loops.hpp"
#include "kernel_table.hpp"
#include "reorderable_ops.hpp"
#include "simd_ops.hpp"

#if !defined(UFUNC_ARCH_NAMESPACE) || !defined(UFUNC_KERNEL_PART)
#error "kernels_arch.cpp is compiled through ufunc_add_arch_kernels(), which defines UFUNC_ARCH_NAMESPACE"
#endif

namespace ufunc::ufuncs::UFUNC_ARCH_NAMESPACE {

namespace {

#if defined(UFUNC_ARCH_AVX512BW)
using arch = xsimd::avx512bw;
#elif defined(UFUNC_ARCH_AVX2)
using arch = xsimd::fma3<xsimd::avx2>;
#elif defined(UFUNC_ARCH_SSE4_2)
using arch = xsimd::sse4_2;
#else
using arch = simd::default_arch;
#endif
#if defined(UFUNC_ARCH_BASELINE)
constexpr bool is_baseline = true;
#else
constexpr bool is_baseline = false;
#endif

// Whether Op has NumPy's scalar loop (Op::numpy_scalar) for Sig.
template <class Op, class Sig>
struct has_numpy_scalar : std::false_type {};
template <class Op, class R, class... A>
requires requires { typename Op::numpy_scalar; }
struct has_numpy_scalar<Op, R(A...)> : std::is_invocable<const typename Op::numpy_scalar&, A...> {};

// float16's folds that accumulate in float (NumPy's HALF_@kind@ reduce loops).
template <class Op>
inline constexpr bool folds_in_float = std::is_same_v<Op, ops::add> || std::is_same_v<Op, ops::subtract> ||
                                       std::is_same_v<Op, ops::multiply> || std::is_same_v<Op, ops::divide>;

// A float16 or bfloat16 loop: in every table, for the instruction set's conversions and
// float32 loop (half_loops.hpp).
template <int Index, class Op, class Sig>
void put_half(kernel_table& table) {
  using F = simd_version_t<Op>;
  static constexpr F f{};
  auto& k = table.loops[Index];
  k.fn = half_loops::half_inner_loop<Sig, F, arch>();
  k.data = &f;
  k.vectorized =
      !half_loops::native_half<F, Sig> && backends::cpu::is_vectorizable<F, half_loops::wide_signature<Sig>, arch>;
  if constexpr (is_fold_signature<Sig>) {
    using T = typename signature_traits<Sig>::result;
    constexpr bool in_float = std::is_same_v<T, float16_t> && folds_in_float<Op>;
    constexpr bool pairwise = reorderable_loop<Op, float(float, float)>;
    k.reduce = half_loops::half_reduce<T, F, arch, in_float, pairwise>;
    k.reorderable = reorderable_loop<Op, Sig>;
  }
}

template <int Index, class Op, class Sig>
void put(kernel_table& table) {
  if constexpr (Index % kernel_parts == UFUNC_KERNEL_PART && half_loops::has_half<Sig>) {
    put_half<Index, Op, Sig>(table);
  } else if constexpr (Index % kernel_parts == UFUNC_KERNEL_PART) {
    using F = simd_version_t<Op>;
    constexpr bool native = backends::cpu::is_vectorizable<F, Sig, arch>;
    // Non-baseline tables hold only the loops they vectorize; the rest come from
    // the baseline table, compiled without extra instruction sets.
    if constexpr (native || is_baseline) {
      static constexpr F f{};
      auto& k = table.loops[Index];
      k.fn = backends::cpu::inner_loop<Sig, F, arch>;
      k.data = &f;
      k.vectorized = native;
      k.fixed_run = backends::cpu::fixed_run_loop<Sig, F, arch>;
      if constexpr (is_fold_signature<Sig>) {
        k.reduce = backends::cpu::reduce_loop<Sig, F, arch, reorderable_loop<Op, Sig>>;
        k.reorderable = reorderable_loop<Op, Sig>;
      }
      // In the baseline table only (the others leave it there); -ffp-contract=off keeps every
      // product rounded, as in NumPy's scalar loop.
      if constexpr (is_baseline && has_numpy_scalar<Op, Sig>::value) {
        using G = typename Op::numpy_scalar;
        static constexpr G g{};
        k.scalar = backends::cpu::inner_loop<Sig, G, arch>;
        k.scalar_data = &g;
      }
    }
  }
}

}  // namespace

void fill_kernels(kernel_table& table) {
#define UFUNC_BUILTIN(...)
#define UFUNC_ALIAS(...)
#define UFUNC_LOOP(index, name, ...) put<index, ops::name, __VA_ARGS__>(table);
#include "registry.inc"
#undef UFUNC_BUILTIN
#undef UFUNC_ALIAS
#undef UFUNC_LOOP
}

}  // namespace ufunc::ufuncs::UFUNC_ARCH_NAMESPACE
