// Compile-time type signatures: a C++ function type such as float(float, float) or
// std::tuple<float, float>(float) describes one loop, as Numba's 'float32(float32,
// float32)' strings do.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include <ufunc/core/dtype.hpp>
#include <ufunc/core/loop.hpp>

namespace ufunc {

template <class... T>
struct type_list {
  static constexpr std::size_t size = sizeof...(T);
};

namespace detail {
template <class R>
struct outputs_of {
  using type = type_list<R>;
};
template <class... R>
struct outputs_of<std::tuple<R...>> {
  using type = type_list<R...>;
};
}  // namespace detail

template <class Sig>
struct signature_traits {
  static_assert(std::is_function_v<Sig>,
                "ufunc: a signature is a function type such as float(float, float) or "
                "std::tuple<float, float>(float)");
};

template <class R, class... A>
struct signature_traits<R(A...)> {
  using result = R;
  using inputs = type_list<A...>;
  using outputs = typename detail::outputs_of<R>::type;
  static constexpr int nin = sizeof...(A);
  static constexpr int nout = static_cast<int>(outputs::size);

  static_assert(nin >= 1, "ufunc: a signature needs at least one argument");
  static_assert((is_element_type<A> && ...),
                "ufunc: signature arguments must be element types (bool, std::intN_t, std::uintN_t, "
                "ufunc::float16_t, ufunc::bfloat16_t, float, double, std::complex<float>, "
                "std::complex<double>), by value");

  static type_signature types() { return types_impl(outputs{}); }

 private:
  template <class... O>
  static type_signature types_impl(type_list<O...>) {
    static_assert((is_element_type<O> && ...),
                  "ufunc: signature results must be element types or a std::tuple of them");
    return type_signature({dtype_of<A>...}, {dtype_of<O>...});
  }
};

/// True when all of a signature's argument and result types are one type T, the
/// shape SIMD batches need.
template <class Sig>
struct uniform_signature : std::false_type {};
template <class T, class... A>
struct uniform_signature<T(A...)> : std::bool_constant<(std::is_same_v<T, A> && ...) && is_element_type<T>> {
  using type = T;
};

}  // namespace ufunc
