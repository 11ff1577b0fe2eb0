// The built-in ufuncs' device loops, compiled into the library so that programs
// built by g++ alone can run them on device arrays.
#include <cstdint>
#include <type_traits>

#include <ufunc/backends/cuda/loops.hpp>

#include "kernel_table.hpp"

namespace ufunc::ufuncs::cuda_kernels {

namespace {

template <class T>
inline constexpr bool is_signed_integer = std::is_integral_v<T>&& std::is_signed_v<T> && !std::is_same_v<T, bool>;

// Signed overflow wraps in NumPy; compute in the unsigned type of the same width.
template <class T, class Op>
__device__ __forceinline__ T wrapping(T a, T b, Op op) {
  if constexpr (is_signed_integer<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(op(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return op(a, b);
  }
}

struct add_op {
  template <class T>
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else
      return wrapping(a, b, [](auto x, auto y) { return x + y; });
  }
};
struct subtract_op {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return wrapping(a, b, [](auto x, auto y) { return x - y; });
  }
};
struct multiply_op {
  template <class T>
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else
      return wrapping(a, b, [](auto x, auto y) { return x * y; });
  }
};
struct square_op {
  template <class T>
  __device__ T operator()(T a) const {
    return multiply_op{}(a, a);
  }
};
struct sin_op {
  __device__ float operator()(float a) const { return ::sinf(a); }
  __device__ double operator()(double a) const { return ::sin(a); }
  template <class T>
  __device__ ::cuda::std::complex<T> operator()(::cuda::std::complex<T> a) const {
    return ::cuda::std::sin(a);
  }
};

constexpr add_op add_fn{};
constexpr subtract_op subtract_fn{};
constexpr multiply_op multiply_fn{};
constexpr square_op square_fn{};
constexpr sin_op sin_fn{};

template <class Sig, class F>
void put(device_kernel_table& table, builtin_id id, const F& f) {
  using T = typename signature_traits<Sig>::result;
  auto& k = table.loops[static_cast<int>(id)][dtype_of<T>.index()];
  k.fn = backends::cuda::device_loop<Sig, F>;
  k.data = &f;
}

template <class... T>
void put_binary(device_kernel_table& table, builtin_id id, const auto& f) {
  (put<T(T, T)>(table, id, f), ...);
}
template <class... T>
void put_unary(device_kernel_table& table, builtin_id id, const auto& f) {
  (put<T(T)>(table, id, f), ...);
}

}  // namespace

void fill_kernels(device_kernel_table& table) {
  using c64 = std::complex<float>;
  using c128 = std::complex<double>;
  using std::int16_t, std::int32_t, std::int64_t, std::int8_t, std::uint16_t, std::uint32_t, std::uint64_t,
      std::uint8_t;
  put_binary<bool, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, float, double, c64, c128>(
      table, builtin_id::add, add_fn);
  put_binary<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, float, double, c64, c128>(
      table, builtin_id::subtract, subtract_fn);
  put_binary<bool, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, float, double, c64, c128>(
      table, builtin_id::multiply, multiply_fn);
  put_unary<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, float, double, c64, c128>(
      table, builtin_id::square, square_fn);
  put_unary<float, double, c64, c128>(table, builtin_id::sin, sin_fn);
}

}  // namespace ufunc::ufuncs::cuda_kernels
