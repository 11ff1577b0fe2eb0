// Kernel sources shared by the run-time kernel tests that compile them without a GPU
// (tests/unit/test_rtc_source.cpp) and those that launch them (tests/cuda/test_cuda_rtc.cpp).
#pragma once

namespace ufunc_test {

/// An extern "C" kernel and a template one, for ufunc::cuda::module.
inline constexpr const char* doublify_and_scale = R"(
    extern "C" __global__ void doublify(float* a, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) a[i] *= 2;
    }
    template <class T> __global__ void scale(T* a, T s, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) a[i] *= s;
    })";

}  // namespace ufunc_test
