// The functions of NumPy's built-in gufuncs (matmul, vecdot, matvec, vecmat) over core views,
// shared by their host loops (gufuncs.cpp) and, in CUDA builds, their device loops
// (gufuncs_cuda.cu): generic over the element type, so that complex loops take
// std::complex on the host and cuda::std::complex on the GPU.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include <ufunc/core/config.hpp>
#include <ufunc/core/signature.hpp>
#include <ufunc/gufunc/gufunc.hpp>

namespace ufunc::detail::gufunc_ops {

// std::complex on the host, cuda::std::complex on the GPU: both have real(), imag() and
// the (re, im) constructor.
template <class T>
concept complex_like = requires(const T& a) {
  a.real();
  a.imag();
};

template <class T>
UFUNC_HOST_DEVICE T conjugate(T a) {
  if constexpr (complex_like<T>)
    return T(a.real(), -a.imag());
  else
    return a;
}

// sum(a(k) * b(k)) over k = 0..n-1 in order, from zero, as NumPy's loops take it: booleans
// OR their ANDs, integers wrap around (through unsigned arithmetic: no signed overflow),
// complex products are written out.
template <class T, class FA, class FB>
UFUNC_HOST_DEVICE T sum_products(std::int64_t n, const FA& first, const FB& second) {
  if constexpr (std::is_same_v<T, ufunc::float16_t>) {
    // NumPy's float16 loops (HALF_dot, matmul's float16 inner loop) sum float32 products in float32
    // and round to float16 once.
    float s = 0.0f;
    for (std::int64_t k = 0; k < n; ++k) s += static_cast<float>(first(k)) * static_cast<float>(second(k));
    return T(s);
  } else {
    T s{};
    for (std::int64_t k = 0; k < n; ++k) {
      const T a = first(k), b = second(k);
      if constexpr (std::is_same_v<T, bool>) {
        s = s || (a && b);
      } else if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<std::conditional_t<sizeof(T) < sizeof(int), int, T>>;
        s = static_cast<T>(static_cast<U>(s) + static_cast<U>(a) * static_cast<U>(b));
      } else if constexpr (complex_like<T>) {
        s = T(s.real() + (a.real() * b.real() - a.imag() * b.imag()),
              s.imag() + (a.real() * b.imag() + a.imag() * b.real()));
      } else {
        s += a * b;
      }
    }
    return s;
  }
}

// c = a @ b for square S x S cores, the sums of matmul_fn's loop in the same order, with the
// extents known to the compiler (unrolled): the batched small products of graphics and physics.
template <class T, int S>
inline void small_square_matmul(const char* pa, std::int64_t a0, std::int64_t a1, const char* pb, std::int64_t b0,
                                std::int64_t b1, char* pc, std::int64_t c0, std::int64_t c1) {
  for (int i = 0; i < S; ++i)
    for (int j = 0; j < S; ++j) {
      T sum = 0;
      for (int k = 0; k < S; ++k)
        sum += *reinterpret_cast<const T*>(pa + i * a0 + k * a1) * *reinterpret_cast<const T*>(pb + k * b0 + j * b1);
      *reinterpret_cast<T*>(pc + i * c0 + j * c1) = sum;
    }
}

struct matmul_fn {
  // c(i, j) reads a's row i and b's column j only: a single large product spreads over threads.
  static constexpr bool independent_output_elements = true;

  template <class A, class C>
  UFUNC_HOST_DEVICE void operator()(A a, A b, C c) const {
    using T = typename C::element_type;
    if constexpr (std::is_floating_point_v<T>) {
      // Real floats: the extents and byte strides in locals first (the views read them from
      // the call's layout, which stores through the output could alias as far as the
      // compiler knows), then the same sums in the same order.
      const std::int64_t n = c.extent(0), m = c.extent(1), kk = a.extent(1);
      const std::int64_t a0 = a.stride(0), a1 = a.stride(1), b0 = b.stride(0), b1 = b.stride(1);
      const std::int64_t c0 = c.stride(0), c1 = c.stride(1);
      const char* pa = reinterpret_cast<const char*>(&a(0, 0));
      const char* pb = reinterpret_cast<const char*>(&b(0, 0));
      char* pc = reinterpret_cast<char*>(&c(0, 0));
#if !defined(__CUDA_ARCH__)
      if (n == m && m == kk && n >= 2 && n <= 4) {
        if (n == 2) return small_square_matmul<T, 2>(pa, a0, a1, pb, b0, b1, pc, c0, c1);
        if (n == 3) return small_square_matmul<T, 3>(pa, a0, a1, pb, b0, b1, pc, c0, c1);
        return small_square_matmul<T, 4>(pa, a0, a1, pb, b0, b1, pc, c0, c1);
      }
#endif
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < m; ++j) {
          T sum = 0;
          for (std::int64_t k = 0; k < kk; ++k)
            sum +=
                *reinterpret_cast<const T*>(pa + i * a0 + k * a1) * *reinterpret_cast<const T*>(pb + k * b0 + j * b1);
          *reinterpret_cast<T*>(pc + i * c0 + j * c1) = sum;
        }
    } else {
      for (std::int64_t i = 0; i < c.extent(0); ++i)
        for (std::int64_t j = 0; j < c.extent(1); ++j)
          c(i, j) = sum_products<T>(
              a.extent(1), [&](std::int64_t k) { return a(i, k); }, [&](std::int64_t k) { return b(k, j); });
    }
  }
};

struct vecdot_fn {
  template <class A, class C>
  UFUNC_HOST_DEVICE void operator()(A x, A y, C out) const {
    using T = typename C::element_type;
    const std::int64_t n = x.extent(0);
    if constexpr (std::is_floating_point_v<T>) {
      // Contiguous real vectors: four running sums, which the compiler keeps in SIMD
      // registers (NumPy's dot kernels also sum in several lanes, not in order).
      if (x.stride(0) == sizeof(T) && y.stride(0) == sizeof(T)) {
        const T* p = &x(0);
        const T* q = &y(0);
        T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        std::int64_t k = 0;
        for (; k + 4 <= n; k += 4) {
          s0 += p[k] * q[k];
          s1 += p[k + 1] * q[k + 1];
          s2 += p[k + 2] * q[k + 2];
          s3 += p[k + 3] * q[k + 3];
        }
        for (; k < n; ++k) s0 += p[k] * q[k];
        out() = (s0 + s1) + (s2 + s3);
        return;
      }
    }
    out() = sum_products<T>(
        n, [&](std::int64_t k) { return conjugate(x(k)); }, [&](std::int64_t k) { return y(k); });
  }
};

struct matvec_fn {
  static constexpr bool independent_output_elements = true;  // as matmul's

  template <class A, class C>
  UFUNC_HOST_DEVICE void operator()(A m, A v, C out) const {
    using T = typename C::element_type;
    for (std::int64_t i = 0; i < out.extent(0); ++i)
      out(i) = sum_products<T>(
          v.extent(0), [&](std::int64_t k) { return m(i, k); }, [&](std::int64_t k) { return v(k); });
  }
};

struct vecmat_fn {
  static constexpr bool independent_output_elements = true;  // as matmul's

  template <class A, class C>
  UFUNC_HOST_DEVICE void operator()(A v, A m, C out) const {
    using T = typename C::element_type;
    for (std::int64_t j = 0; j < out.extent(0); ++j)
      out(j) = sum_products<T>(
          v.extent(0), [&](std::int64_t k) { return conjugate(v(k)); }, [&](std::int64_t k) { return m(k, j); });
  }
};

// NumPy's loop order: ?, b, B, h, H, i, I, l, L, e, f, d, F, D.
using numpy_loops =
    signatures<bool(bool, bool), std::int8_t(std::int8_t, std::int8_t), std::uint8_t(std::uint8_t, std::uint8_t),
               std::int16_t(std::int16_t, std::int16_t), std::uint16_t(std::uint16_t, std::uint16_t),
               std::int32_t(std::int32_t, std::int32_t), std::uint32_t(std::uint32_t, std::uint32_t),
               std::int64_t(std::int64_t, std::int64_t), std::uint64_t(std::uint64_t, std::uint64_t),
               float16_t(float16_t, float16_t), float(float, float), double(double, double),
               std::complex<float>(std::complex<float>, std::complex<float>),
               std::complex<double>(std::complex<double>, std::complex<double>)>;

#if defined(UFUNC_HAS_CUDA)
/// Gives the built-in gufuncs (matmul, vecdot, matvec, vecmat, in that order) their device
/// loops (gufuncs_cuda.cu).
void add_device_loops(gufunc::function (&all)[4]);
#endif

}  // namespace ufunc::detail::gufunc_ops
