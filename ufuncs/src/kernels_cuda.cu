// The built-in ufuncs' device loops for one part of the loop list, compiled into
// the library so that programs built by g++ alone can run them on device arrays.
// The operations are the same structs as the host loops' (ufunc/ufuncs/ops/).
#include <complex>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include <ufunc/backends/cuda/loops.hpp>
#include <ufunc/ufuncs/ops.hpp>

#include "device_fp_rules.hpp"
#include "kernel_table.hpp"
#include "reorderable_ops.hpp"

#if !defined(UFUNC_KERNEL_PART)
#error "kernels_cuda.cu is compiled once per part with UFUNC_KERNEL_PART defined (see CMakeLists.txt)"
#endif

#define UFUNC_CAT2(a, b) a##b
#define UFUNC_CAT(a, b) UFUNC_CAT2(a, b)

namespace ufunc::ufuncs::cuda_kernels {

namespace {

// The most used ufuncs take cub::DeviceTransform for large contiguous calls (the
// bandwidth of the benchmarks); the others use the light kernels (our contiguous
// kernel at every size), which take half the time to compile.
template <class Op>
constexpr bool uses_cub = false;
using detail::half_in_float;
using detail::has_half_operand;

// Whether Op computes Sig's 16-bit values itself (nextafter, spacing).
template <class Op, class Sig>
constexpr bool half_loops_native = false;
template <class Op, class R, class... A>
constexpr bool half_loops_native<Op, R(A...)> = std::is_invocable_r_v<R, const Op&, A...>;

#define UFUNC_USES_CUB(name) \
  template <>                \
  constexpr bool uses_cub<ops::name> = true;
UFUNC_USES_CUB(add)
UFUNC_USES_CUB(subtract)
UFUNC_USES_CUB(multiply)
UFUNC_USES_CUB(divide)
UFUNC_USES_CUB(square)
UFUNC_USES_CUB(sqrt)
UFUNC_USES_CUB(exp)
UFUNC_USES_CUB(log)
UFUNC_USES_CUB(sin)
UFUNC_USES_CUB(cos)
UFUNC_USES_CUB(maximum)
UFUNC_USES_CUB(minimum)
#undef UFUNC_USES_CUB

// float16 add, subtract and multiply in the GPU's float16 arithmetic (add.rn.f16, ...): the
// exact result rounded once, which is what NumPy's float32 result rounded to float16 is
// (float32's 24 bits are at least 2 x 11 + 2, so the second rounding never changes the first's
// value; NaNs come out as the GPU's canonical NaN either way). Computed in float, the three
// conversions an element took held float16 add at 0.83x of cub::DeviceTransform on the H200.
// The flags are half_in_float's (the same rule, recomputed in float where an element is not a
// normal finite float16).
template <class Op>
__device__ std::uint16_t float16_instruction(std::uint16_t a, std::uint16_t b) {
  std::uint16_t r;
  if constexpr (std::is_same_v<Op, ops::add>)
    asm("add.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));
  else if constexpr (std::is_same_v<Op, ops::subtract>)
    asm("sub.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));
  else {
    static_assert(std::is_same_v<Op, ops::multiply>, "float16_arithmetic names the operations");
    asm("mul.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));
  }
  return r;
}
template <class Op, class Sig>
constexpr bool float16_arithmetic = false;
template <class Op>
constexpr bool float16_arithmetic<Op, float16_t(float16_t, float16_t)> =
    std::is_same_v<Op, ops::add> || std::is_same_v<Op, ops::subtract> || std::is_same_v<Op, ops::multiply>;

template <class Op>
struct float16_in_instructions : half_in_float<Op, float16_t(float16_t, float16_t)> {
  using in_float = half_in_float<Op, float16_t(float16_t, float16_t)>;
  __host__ __device__ float16_t operator()(float16_t a, float16_t b) const {
#if defined(__CUDA_ARCH__)
    return float16_t::from_bits(float16_instruction<Op>(a.bits(), b.bits()));
#else
    return in_float::operator()(a, b);
#endif
  }
};

}  // namespace
}  // namespace ufunc::ufuncs::cuda_kernels

namespace ufunc::backends::cuda {
// The 16-bit rule of a loop computed in float (fp_flags_of), as half_in_float's: without it the
// generic rule on the float16 values missed float16's underflow (1e-4 * 1e-4 rounds to 0).
template <class Op>
struct computes_in_float<ufuncs::cuda_kernels::float16_in_instructions<Op>> : std::true_type {};
template <class Op>
struct fp_rule<ufuncs::cuda_kernels::float16_in_instructions<Op>>
    : fp_rule<typename ufuncs::cuda_kernels::float16_in_instructions<Op>::in_float> {};
}  // namespace ufunc::backends::cuda

namespace ufunc::ufuncs::cuda_kernels {
namespace {

// float16 and bfloat16: computed in float (detail::half_in_float, whose flags rule is in
// backends/cuda/fp_flags.hpp) unless the operation has an overload for them (nextafter,
// spacing, the sign and comparison operations: exact on the bits). float16's sum takes the
// block reductions, whose grouping keeps it near NumPy's float sum (an in-order fold in
// float16 would stall at 2048); bfloat16's folds in order, as ml_dtypes'.
template <int Index, class Op, class Sig>
void put_half(device_kernel_table& table) {
  using F = std::conditional_t<
      half_loops_native<Op, Sig>, Op,
      std::conditional_t<float16_arithmetic<Op, Sig>, float16_in_instructions<Op>, half_in_float<Op, Sig>>>;
  static constexpr F f{};
  auto& k = table.loops[Index];
  if constexpr (uses_cub<Op>)
    k.fn = backends::cuda::device_loop<Sig, F>;
  else
    k.fn = backends::cuda::device_loop_light<Sig, F>;
  k.data = &f;
  if constexpr (is_fold_signature<Sig>) {
    // As the host loop's reorderable flag (reorderable_ops.hpp).
    if constexpr (reorderable_loop<Op, Sig>)
      k.methods = backends::cuda::device_method_loop<Sig, F>;
    else
      k.methods = backends::cuda::device_method_loop_sequential<Sig, F>;
  } else if constexpr (is_unary_signature<Sig>) {
    k.methods = backends::cuda::device_method_loop<Sig, F>;
  }
}

template <int Index, class Op, class Sig>
void put(device_kernel_table& table) {
  if constexpr (Index % cuda_kernel_parts == UFUNC_KERNEL_PART && has_half_operand<Sig>) {
    put_half<Index, Op, Sig>(table);
  } else if constexpr (Index % cuda_kernel_parts == UFUNC_KERNEL_PART) {
    static constexpr Op f{};
    auto& k = table.loops[Index];
    if constexpr (uses_cub<Op>)
      k.fn = backends::cuda::device_loop<Sig, Op>;
    else
      k.fn = backends::cuda::device_loop_light<Sig, Op>;
    k.data = &f;
    // Device reduce/accumulate/at kernels (ufunc methods). The full set (block
    // reductions) only for the reorderable fold loops; the others reduce in order
    // (NumPy's order) and get the sequential set, one kernel; unary loops get their at
    // kernel. The full set would double a loop's compile time. Integer power's methods
    // report a negative exponent through the launch's flag slot, which the host turns
    // into NumPy's ValueError (backends/cuda/src/fp_reports.cpp).
    if constexpr (is_fold_signature<Sig> && reorderable_loop<Op, Sig>)
      k.methods = backends::cuda::device_method_loop<Sig, Op>;
    else if constexpr (is_fold_signature<Sig>)
      k.methods = backends::cuda::device_method_loop_sequential<Sig, Op>;
    else if constexpr (is_unary_signature<Sig>)
      k.methods = backends::cuda::device_method_loop<Sig, Op>;  // T(T): the at kernel only
  }
}

}  // namespace

void UFUNC_CAT(fill_kernels_p, UFUNC_KERNEL_PART)(device_kernel_table& table) {
#define UFUNC_BUILTIN(...)
#define UFUNC_ALIAS(...)
#define UFUNC_LOOP(index, name, ...) put<index, ops::name, __VA_ARGS__>(table);
#include "registry.inc"
#undef UFUNC_BUILTIN
#undef UFUNC_ALIAS
#undef UFUNC_LOOP
}

}  // namespace ufunc::ufuncs::cuda_kernels
