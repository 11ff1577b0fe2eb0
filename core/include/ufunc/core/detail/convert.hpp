// The value conversions behind casting, written once for the host loops
// (core/src/casting.cpp) and the device kernels (backends/cuda/src/casts.cu), so
// that both give the same answers.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include <ufunc/core/config.hpp>
#if defined(__CUDACC__)
#include <cuda/std/complex>
#endif

namespace ufunc::detail {

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
#if defined(__CUDACC__)
template <class T>
struct is_complex<::cuda::std::complex<T>> : std::true_type {};
#endif

/// `v` as a `To`, with NumPy's choices where C++ leaves the conversion undefined:
/// complex to real drops the imaginary part, complex to bool is true when either
/// part is nonzero, NaN and out-of-range floats to integers give the minimum of
/// int64 truncated to the target width (what x86 NumPy builds produce).
template <class To, class From>
UFUNC_HOST_DEVICE constexpr To convert(From v) noexcept {
  if constexpr (std::is_same_v<To, From>) {
    return v;
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

}  // namespace ufunc::detail
