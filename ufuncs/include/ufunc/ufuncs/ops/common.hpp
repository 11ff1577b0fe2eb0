// What every scalar operation of the standard ufuncs shares: the element concepts,
// the math namespace (cuda::std in CUDA translation units, std elsewhere) and the
// floating-point status flags that integer loops raise by hand, as NumPy does.
//
// An operation is a struct with constrained, UFUNC_HOST_DEVICE call operators:
//
//   struct negative {
//     template <ufunc::ops::real T> UFUNC_HOST_DEVICE T operator()(T a) const { ... }
//     template <ufunc::ops::complex_number T> UFUNC_HOST_DEVICE T operator()(T a) const { ... }
//   };
//
// The same struct is compiled by g++ for the cpu loops (std::complex) and by nvcc
// for the device loops (cuda::std::complex). Operators are constrained to scalars so
// that the cpu backend's SIMD detection (is_invocable with xsimd batches) does not
// pick them; SIMD versions live in ops/simd.hpp.
#pragma once

#include <cfenv>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <ufunc/core/config.hpp>
#include <ufunc/core/detail/convert.hpp>

#if defined(__CUDACC__)
#include <cuda/std/cmath>
#include <cuda/std/complex>
#endif

namespace ufunc::ops {

/// std::complex<T> or cuda::std::complex<T> (the trait the casts use).
using ufunc::detail::is_complex;

template <class T>
concept complex_number = is_complex<T>::value;
template <class T>
concept boolean = std::is_same_v<T, bool>;
template <class T>
concept integer = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
concept signed_integer = integer<T> && std::is_signed_v<T>;
template <class T>
concept unsigned_integer = integer<T> && std::is_unsigned_v<T>;
template <class T>
concept floating = std::is_floating_point_v<T>;
/// float16 and bfloat16: computed in float by the loops (ufuncs/src/half_loops.hpp) but for the
/// operations that define an overload for them, exact on their bits as NumPy's npy_half_*
/// functions and ml_dtypes' functors are (and raising no flag for a NaN).
template <class T>
concept half_precision = std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;
/// bool, integers and floating point.
template <class T>
concept real = std::is_arithmetic_v<T>;
/// Any element type (what a call operator may be instantiated with).
template <class T>
concept scalar = real<T> || complex_number<T>;
/// Floating point and complex: the types of NumPy's math loops (f d F D).
template <class T>
concept inexact = floating<T> || complex_number<T>;

/// The real type of a complex number (T itself for reals).
template <class T>
struct real_type {
  using type = T;
};
template <complex_number T>
struct real_type<T> {
  using type = typename T::value_type;
};
template <class T>
using real_type_t = typename real_type<T>::type;

/// The math functions: cuda::std (host and device) in CUDA translation units, std
/// in the others. Call them qualified, as m::sin(x), for reals and complex alike.
namespace m {
#if defined(__CUDACC__)
using namespace ::cuda::std;
// cuda::std lacks these; CUDA's math library declares them for host and device.
UFUNC_HOST_DEVICE inline float fmod(float a, float b) { return ::fmodf(a, b); }
UFUNC_HOST_DEVICE inline double fmod(double a, double b) { return ::fmod(a, b); }
UFUNC_HOST_DEVICE inline float modf(float a, float* i) { return ::modff(a, i); }
UFUNC_HOST_DEVICE inline double modf(double a, double* i) { return ::modf(a, i); }
#if defined(__CUDACC_RTC__)
// NVRTC's libcu++ lacks fma too (nvcc's takes it from the host's <cmath>).
UFUNC_HOST_DEVICE inline float fma(float a, float b, float c) { return ::fmaf(a, b, c); }
UFUNC_HOST_DEVICE inline double fma(double a, double b, double c) { return ::fma(a, b, c); }
#endif
#else
using namespace ::std;
#endif
}  // namespace m

/// NumPy's floating-point error categories (np.errstate's keys).
enum class fp_flag : unsigned { divide = 1, overflow = 2, underflow = 4, invalid = 8 };

/// Raises a floating-point status flag the way NumPy's integer loops do
/// (npy_set_floatstatus_*): the errstate machinery reads the flags after a loop.
/// On the device it does nothing: the device's flags come from classifying results
/// (ufuncs/src/device_fp_rules.hpp, docs/design.md).
UFUNC_HOST_DEVICE inline void raise_fp(fp_flag f) {
#if !defined(__CUDA_ARCH__)
  switch (f) {
    case fp_flag::divide:
      std::feraiseexcept(FE_DIVBYZERO);
      break;
    case fp_flag::overflow:
      std::feraiseexcept(FE_OVERFLOW);
      break;
    case fp_flag::underflow:
      std::feraiseexcept(FE_UNDERFLOW);
      break;
    case fp_flag::invalid:
      std::feraiseexcept(FE_INVALID);
      break;
  }
#else
  (void)f;
#endif
}

/// The bits of the 16-bit formats, which the exact operations work on.
namespace half_detail {
template <half_precision T>
inline constexpr std::uint16_t exponent_mask = std::is_same_v<T, float16_t> ? 0x7c00u : 0x7f80u;
template <half_precision T>
UFUNC_HOST_DEVICE constexpr bool is_nan(T a) {
  return (a.bits() & 0x7fffu) > exponent_mask<T>;
}
template <half_precision T>
UFUNC_HOST_DEVICE constexpr bool is_inf(T a) {
  return (a.bits() & 0x7fffu) == exponent_mask<T>;
}
template <half_precision T>
UFUNC_HOST_DEVICE constexpr T with_bits(unsigned b) {
  return T::from_bits(static_cast<std::uint16_t>(b));
}
}  // namespace half_detail

/// Signed integer arithmetic wraps in NumPy; in C++ its overflow is undefined, so
/// it is done in the unsigned type of the same width.
template <integer T>
using wrap_t = std::make_unsigned_t<T>;

}  // namespace ufunc::ops
