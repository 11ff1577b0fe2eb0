// NumPy's built-in gufuncs (matmul, vecdot, matvec, vecmat) as gvectorize'd loops over every
// dtype NumPy has a loop for and the library has.
#include <ufunc/ufuncs/gufuncs.hpp>

#include <complex>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <ufunc/gvectorize.hpp>

namespace ufunc::detail {
namespace {

template <class T>
struct is_std_complex : std::false_type {};
template <class R>
struct is_std_complex<std::complex<R>> : std::true_type {};

template <class T>
T conjugate(T a) {
  if constexpr (is_std_complex<T>::value)
    return std::conj(a);
  else
    return a;
}

// sum(a * b) over the n pairs (a, b) = pair(k), k in order, from zero, as NumPy's loops take
// it: booleans OR their ANDs, integers wrap around (through unsigned arithmetic: no signed
// overflow), complex products are written out.
template <class T, class Pair>
T sum_products(std::int64_t n, Pair&& pair) {
  T s{};
  for (std::int64_t k = 0; k < n; ++k) {
    const auto [a, b] = pair(k);
    if constexpr (std::is_same_v<T, bool>) {
      s = s || (a && b);
    } else if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<std::conditional_t<sizeof(T) < sizeof(int), int, T>>;
      s = static_cast<T>(static_cast<U>(s) + static_cast<U>(a) * static_cast<U>(b));
    } else if constexpr (is_std_complex<T>::value) {
      s = T(s.real() + (a.real() * b.real() - a.imag() * b.imag()),
            s.imag() + (a.real() * b.imag() + a.imag() * b.real()));
    } else {
      s += a * b;
    }
  }
  return s;
}

struct matmul_fn {
  template <class A, class C>
  void operator()(A a, A b, C c) const {
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
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < m; ++j) {
          T sum = 0;
          for (std::int64_t k = 0; k < kk; ++k)
            sum +=
                *reinterpret_cast<const T*>(pa + i * a0 + k * a1) * *reinterpret_cast<const T*>(pb + k * b0 + j * b1);
          *reinterpret_cast<T*>(pc + i * c0 + j * c1) = sum;
        }
      return;
    }
    for (std::int64_t i = 0; i < c.extent(0); ++i)
      for (std::int64_t j = 0; j < c.extent(1); ++j)
        c(i, j) = sum_products<T>(a.extent(1), [&](std::int64_t k) { return std::pair<T, T>(a(i, k), b(k, j)); });
  }
};

struct vecdot_fn {
  template <class A, class C>
  void operator()(A x, A y, C out) const {
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
    out() = sum_products<T>(n, [&](std::int64_t k) { return std::pair<T, T>(conjugate(x(k)), y(k)); });
  }
};

struct matvec_fn {
  template <class A, class C>
  void operator()(A m, A v, C out) const {
    using T = typename C::element_type;
    for (std::int64_t i = 0; i < out.extent(0); ++i)
      out(i) = sum_products<T>(v.extent(0), [&](std::int64_t k) { return std::pair<T, T>(m(i, k), v(k)); });
  }
};

struct vecmat_fn {
  template <class A, class C>
  void operator()(A v, A m, C out) const {
    using T = typename C::element_type;
    for (std::int64_t j = 0; j < out.extent(0); ++j)
      out(j) = sum_products<T>(v.extent(0), [&](std::int64_t k) { return std::pair<T, T>(conjugate(v(k)), m(k, j)); });
  }
};

// NumPy's loop order: ?, b, B, h, H, i, I, l, L, f, d, F, D.
using numpy_loops = signatures<bool(bool, bool), std::int8_t(std::int8_t, std::int8_t),
                               std::uint8_t(std::uint8_t, std::uint8_t), std::int16_t(std::int16_t, std::int16_t),
                               std::uint16_t(std::uint16_t, std::uint16_t), std::int32_t(std::int32_t, std::int32_t),
                               std::uint32_t(std::uint32_t, std::uint32_t), std::int64_t(std::int64_t, std::int64_t),
                               std::uint64_t(std::uint64_t, std::uint64_t), float(float, float), double(double, double),
                               std::complex<float>(std::complex<float>, std::complex<float>),
                               std::complex<double>(std::complex<double>, std::complex<double>)>;

}  // namespace

const gufunc::function& builtin_gufunc(int id) {
  static const gufunc::function all[] = {
      gvectorize<numpy_loops>("(n?,k),(k,m?)->(n?,m?)", matmul_fn{}, "matmul"),
      gvectorize<numpy_loops>("(n),(n)->()", vecdot_fn{}, "vecdot"),
      gvectorize<numpy_loops>("(m,n),(n)->(m)", matvec_fn{}, "matvec"),
      gvectorize<numpy_loops>("(n),(n,m)->(m)", vecmat_fn{}, "vecmat"),
  };
  if (id < 0 || id >= 4) throw value_error("builtin_gufunc: no gufunc number " + std::to_string(id));
  return all[id];
}

}  // namespace ufunc::detail
