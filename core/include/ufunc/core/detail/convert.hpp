// The value conversions behind casting, written once for the host loops
// (core/src/casting.cpp) and the device kernels (backends/cuda/src/casts.cu), so
// that both give the same answers.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include <ufunc/core/bfloat16.hpp>
#include <ufunc/core/config.hpp>
#include <ufunc/core/float16.hpp>
#if defined(__CUDACC__)
#include <cuda/std/complex>
#endif

namespace ufunc::detail {

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
// NVRTC has no host standard library: there std::complex is cuda::std::complex (the library's
// generated kernels map std to cuda::std, backends/cuda/rtc), one template, specialized above.
#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)
template <class T>
struct is_complex<::cuda::std::complex<T>> : std::true_type {};
#endif

/// `v` as a `To`, with NumPy's choices where C++ leaves the conversion undefined:
/// complex to real drops the imaginary part, complex to bool is true when either
/// part is nonzero, NaN and out-of-range floats to integers give the minimum of
/// int64 truncated to the target width (what x86 NumPy builds produce).
template <class T>
inline constexpr bool is_half = std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;

template <class To, class From>
UFUNC_HOST_DEVICE constexpr To convert(From v) noexcept {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, bfloat16_t> && std::is_same_v<To, float16_t>) {
    // ml_dtypes' cast (through Eigen's half): a NaN becomes the quiet NaN 0x7e00 with its sign.
    const float f = static_cast<float>(v);
    return f != f ? To::from_bits(static_cast<std::uint16_t>(0x7e00u | (v.bits() & 0x8000u))) : To(f);
  } else if constexpr (is_half<From>) {  // exactly a float, which converts on
    return convert<To>(static_cast<float>(v));
  } else if constexpr (is_half<To>) {  // rounded once from a float or a double (bfloat16: through float)
    if constexpr (is_complex<From>::value)
      return convert<To>(v.real());
    else if constexpr (std::is_same_v<From, double>)
      return To(v);
    else
      return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_complex<From>::value) {
    if constexpr (is_complex<To>::value)
      return To(static_cast<typename To::value_type>(v.real()), static_cast<typename To::value_type>(v.imag()));
    else
      return convert<To>(v.real());
  } else if constexpr (is_complex<To>::value) {
    return To(static_cast<typename To::value_type>(v), 0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if constexpr (std::is_unsigned_v<To> && sizeof(To) == 8) {
      if (v >= From(0) && v < From(18446744073709551616.0)) return static_cast<To>(v);
    }
    if (!(v >= From(-9223372036854775808.0) && v < From(9223372036854775808.0)))
      return static_cast<To>(std::uint64_t{0x8000000000000000ull});
    return static_cast<To>(static_cast<std::int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

// Whether NumPy's cast of the float `v` to the integer type To raises "invalid value"
// (errstate): x86 builds convert through int32 for the integers of up to 32 bits but
// uint32, through int64 for uint32 and int64, and for uint64 accept [-2^63, 2^64);
// NaN, infinities and values out of that range raise the flag. The host cast loops
// (core/src/casting.cpp) and the device's flag rule (backends/cuda/src/casts.cu) both
// judge by it.
template <class To>
UFUNC_HOST_DEVICE constexpr bool invalid_int_cast(double v) noexcept {
  if constexpr (std::is_same_v<To, std::uint64_t>)
    return !(v >= -9223372036854775808.0 && v < 18446744073709551616.0);
  else if constexpr (sizeof(To) == 8 || std::is_same_v<To, std::uint32_t>)
    return !(v >= -9223372036854775808.0 && v < 9223372036854775808.0);
  else
    return !(v > -2147483649.0 && v < 2147483648.0);
}

// What NumPy's x86 conversion gives where invalid_int_cast holds: the integer
// indefinite value of the instruction it converts through (INT32_MIN through int32,
// INT64_MIN through int64) truncated to To, and for uint64, whose conversion subtracts
// 2^63 from values beyond it first, 0 from 2^64 up (np.float64(2e19) -> uint64 is 0).
template <class To>
UFUNC_HOST_DEVICE constexpr To invalid_int_result(double v) noexcept {
  if constexpr (std::is_same_v<To, std::uint64_t>)
    return v >= 18446744073709551616.0 ? To{0} : To{0x8000000000000000ull};
  else if constexpr (sizeof(To) == 8 || std::is_same_v<To, std::uint32_t>)
    return static_cast<To>(static_cast<std::int64_t>(0x8000000000000000ull));
  else
    return static_cast<To>(static_cast<std::int32_t>(0x80000000u));
}

}  // namespace ufunc::detail
