// The built-in ufuncs' elementwise operations, compiled once per instruction set
// (see cmake/ufunc_arch.cmake). Everything here lives in a namespace named after
// the instruction set, so no inline function compiled for AVX-512 can be picked by
// the linker for code that runs on an older CPU.
#include <cmath>
#include <complex>
#include <type_traits>

#include <ufunc/backends/cpu/loops.hpp>

#include "kernel_table.hpp"

#ifndef UFUNC_ARCH_NAMESPACE
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
constexpr bool is_baseline = true;
#endif
#if !defined(UFUNC_ARCH_BASELINE)
constexpr bool is_baseline = false;
#endif

template <class T>
inline constexpr bool is_signed_integer = std::is_integral_v<T>&& std::is_signed_v<T> && !std::is_same_v<T, bool>;

// Signed integer arithmetic wraps in NumPy; in C++ its overflow is undefined, so it
// is done on the unsigned type of the same width, for scalars and batches alike.
template <class Op>
struct wrapping {
  Op op;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (is_signed_integer<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(op(static_cast<U>(a), static_cast<U>(b)));
    } else {
      return op(a, b);
    }
  }
  template <class T, class A>
  xsimd::batch<T, A> operator()(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b) const {
    if constexpr (is_signed_integer<T>) {
      using UB = xsimd::batch<std::make_unsigned_t<T>, A>;
      return xsimd::bitwise_cast<xsimd::batch<T, A>>(op(xsimd::bitwise_cast<UB>(a), xsimd::bitwise_cast<UB>(b)));
    } else {
      return op(a, b);
    }
  }
};

struct plus_op {
  template <class T>
  T operator()(T a, T b) const {
    return a + b;
  }
};
struct minus_op {
  template <class T>
  T operator()(T a, T b) const {
    return a - b;
  }
};
struct times_op {
  template <class T>
  T operator()(T a, T b) const {
    return a * b;
  }
};

struct add_op : wrapping<plus_op> {
  using wrapping<plus_op>::operator();
  bool operator()(bool a, bool b) const { return a || b; }  // NumPy: logical or
};
struct subtract_op : wrapping<minus_op> {};
struct multiply_op : wrapping<times_op> {
  using wrapping<times_op>::operator();
  bool operator()(bool a, bool b) const { return a && b; }  // NumPy: logical and
};
struct square_op {
  multiply_op mul;
  template <class T>
  T operator()(T a) const {
    return mul(a, a);
  }
};
struct sin_op {
  template <class T>
  T operator()(T a) const {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> ||
                  std::is_same_v<T, std::complex<double>>) {
      using std::sin;
      return sin(a);
    } else {
      return xsimd::sin(a);  // a batch
    }
  }
};

constexpr add_op add_fn{};
constexpr subtract_op subtract_fn{};
constexpr multiply_op multiply_fn{};
constexpr square_op square_fn{};
constexpr sin_op sin_fn{};

template <class Sig, class F>
void put(kernel_table& table, builtin_id id, const F& f) {
  using T = typename signature_traits<Sig>::result;
  constexpr bool native = backends::cpu::is_vectorizable<F, Sig, arch>;
  // Non-baseline tables hold only the loops they vectorize; the rest come from the
  // baseline table, compiled without extra instruction sets.
  if constexpr (native || is_baseline) {
    auto& k = table.loops[static_cast<int>(id)][dtype_of<T>.index()];
    k.fn = backends::cpu::inner_loop<Sig, F, arch>;
    k.data = &f;
    k.vectorized = native;
  }
}

template <class... T>
void put_binary(kernel_table& table, builtin_id id, const auto& f) {
  (put<T(T, T)>(table, id, f), ...);
}
template <class... T>
void put_unary(kernel_table& table, builtin_id id, const auto& f) {
  (put<T(T)>(table, id, f), ...);
}

}  // namespace

void fill_kernels(kernel_table& table) {
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

}  // namespace ufunc::ufuncs::UFUNC_ARCH_NAMESPACE
