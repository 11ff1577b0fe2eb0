// What the elementwise kernels (loops.hpp) and the method kernels (methods.hpp)
// share: how element types are read on the device, and how many dimensions a
// kernel's index arithmetic handles.
#pragma once

#include <complex>

#include <cuda/std/complex>

namespace ufunc::backends::cuda::detail {

// std::complex is not usable in device code; the same bytes are read as
// cuda::std::complex, which has the same layout.
template <class T>
struct device_type {
  using type = T;
};
template <class T>
struct device_type<std::complex<T>> {
  using type = ::cuda::std::complex<T>;
};
template <class T>
using device_t = typename device_type<T>::type;

/// Dimensions left after merging that one kernel launch handles.
constexpr int max_kernel_dims = 8;

}  // namespace ufunc::backends::cuda::detail
