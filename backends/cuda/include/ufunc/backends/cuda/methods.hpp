// cuda backend, device side of the ufunc methods: reduce, accumulate (and through
// them reduceat) and at, made from a loop's __host__ __device__ functor. nvcc only.
//
// A loop entry carries one method launcher (device_method_fn) for every method, so
// this header puts together the kernels that live one method to a header
// (methods/reduce.hpp, accumulate.hpp, at.hpp; methods/sequential.hpp for the loops
// that may not regroup; methods/common.hpp for what they share) and picks the method
// from the call.
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/methods.hpp is CUDA code: compile this translation unit with nvcc (as a .cu file)"
#endif

#include <ufunc/backends/cuda/device_types.hpp>
#include <ufunc/backends/cuda/methods/accumulate.hpp>
#include <ufunc/backends/cuda/methods/at.hpp>
#include <ufunc/backends/cuda/methods/common.hpp>
#include <ufunc/backends/cuda/methods/reduce.hpp>
#include <ufunc/backends/cuda/methods/sequential.hpp>
#include <ufunc/core/device_method.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/signature.hpp>

namespace ufunc::backends::cuda {

namespace method_detail {

// The full set: every method's kernels, each picked by shape (methods/<method>.hpp).
template <class F, class T>
struct methods {
  static void launch_binary(const device_method_call& c, const void* data) {
    const F& f = *static_cast<const F*>(data);
    const auto stream = static_cast<cudaStream_t>(c.stream);
    switch (c.kind) {
      case device_method::reduce:
        launch_reduce<F, T>(f, c, stream);
        return;
      case device_method::accumulate:
        launch_accumulate<F, T>(f, c, stream);
        return;
      case device_method::at:
        launch_at<F, T, 2>(f, c, stream);
        return;
    }
  }

  static void launch_unary(const device_method_call& c, const void* data) {
    const F& f = *static_cast<const F*>(data);
    if (c.kind != device_method::at) throw value_error("cuda: reduce and accumulate need a binary loop");
    launch_at<F, T, 1>(f, c, static_cast<cudaStream_t>(c.stream));
  }
};

template <class Sig, class F>
struct method_for {
  static constexpr device_method_fn fn = nullptr;
};
template <class T, class F>
struct method_for<T(T, T), F> {
  static constexpr device_method_fn fn = &methods<F, device_t<T>>::launch_binary;
};
template <class T, class F>
struct method_for<T(T), F> {
  static constexpr device_method_fn fn = &methods<F, device_t<T>>::launch_unary;
};

template <class Sig, class F>
struct sequential_method_for {
  static constexpr device_method_fn fn = nullptr;
};
template <class T, class F>
struct sequential_method_for<T(T, T), F> {
  static constexpr device_method_fn fn = &sequential_methods<F, device_t<T>>::launch;
};

}  // namespace method_detail

/// The CUDA launcher of reduce / accumulate / at for functor F with signature Sig:
/// T(T, T) (every method) or T(T) (at), null for other signatures.
template <class Sig, class F>
inline constexpr device_method_fn device_method_loop = method_detail::method_for<Sig, F>::fn;

/// The same for a T(T, T) loop that is not reorderable (reductions fold in order, as
/// NumPy's): only the in-order paths, in one kernel (sequential_kernel), a small
/// fraction of device_method_loop's compile time. Null for other signatures.
template <class Sig, class F>
inline constexpr device_method_fn device_method_loop_sequential = method_detail::sequential_method_for<Sig, F>::fn;

}  // namespace ufunc::backends::cuda
