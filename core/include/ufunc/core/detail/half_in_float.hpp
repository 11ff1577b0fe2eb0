// A functor of float computing a float16 / bfloat16 signature: the 16-bit arguments converted
// to float (exactly), the functor called, its floating results rounded back once, as NumPy
// computes float16 and ml_dtypes bfloat16. The built-in device loops
// (ufuncs/src/half_device_ops.hpp) and vectorize's loops of 16-bit signatures whose functor
// takes float (ufunc/vectorize.hpp) run it; host and device.
//
//   struct square { template <class T> T operator()(T a) const { return a * a; } };
//   ufunc::detail::half_in_float<square, ufunc::float16_t(ufunc::float16_t)> f{square{}};
//   f(ufunc::float16_t(3.0f));   // float16_t(9.0f)
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <ufunc/core/config.hpp>
#include <ufunc/core/detail/convert.hpp>

namespace ufunc::detail {

template <class T>
using widened_t = std::conditional_t<is_half<T>, float, T>;

template <class T>
UFUNC_HOST_DEVICE constexpr widened_t<T> widen(const T& v) noexcept {
  if constexpr (is_half<T>)
    return static_cast<float>(v);
  else
    return v;
}

template <class R, class W>
UFUNC_HOST_DEVICE constexpr R narrow(const W& w) noexcept {
  if constexpr (is_half<R>)
    return R(static_cast<float>(w));
  else
    return static_cast<R>(w);
}

template <class T>
struct is_tuple : std::false_type {};
template <class... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};

/// Whether Sig (R(A...), R possibly a std::tuple) has a float16 or bfloat16 operand.
template <class Sig>
inline constexpr bool has_half_operand = false;
template <class R, class... A>
inline constexpr bool has_half_operand<R(A...)> = (is_half<R> || ... || is_half<A>);
template <class... R, class... A>
inline constexpr bool has_half_operand<std::tuple<R...>(A...)> = ((is_half<R> || ...) || ... || is_half<A>);

/// Sig with float in place of each 16-bit type.
template <class Sig>
struct widened_signature;
template <class R, class... A>
struct widened_signature<R(A...)> {
  using type = widened_t<R>(widened_t<A>...);
};
template <class... R, class... A>
struct widened_signature<std::tuple<R...>(A...)> {
  using type = std::tuple<widened_t<R>...>(widened_t<A>...);
};

template <class F, class Sig>
struct half_in_float;

template <class F, class R, class... A>
struct half_in_float<F, R(A...)> {
  F f;
  UFUNC_HOST_DEVICE R operator()(A... a) const {
    const auto wide = f(widen(a)...);
    if constexpr (is_tuple<R>::value) return [&]<std::size_t... O>(std::index_sequence<O...>) {
        return R(narrow<std::tuple_element_t<O, R>>(std::get<O>(wide))...);
      }
    (std::make_index_sequence<std::tuple_size_v<R>>{});
    else return narrow<R>(wide);
  }
};

}  // namespace ufunc::detail
