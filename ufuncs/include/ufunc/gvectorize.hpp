// ufunc::gvectorize: a generalized ufunc from a function over core views, as Numba's
// @guvectorize and NumPy's gufuncs: the signature's core dimensions are the last axes of
// each operand, and the function runs at every element of the other (broadcast) axes.
//
//   auto dot = ufunc::gvectorize<ufunc::signatures<float(float, float), double(double, double)>>(
//       "(n),(n)->()",
//       [](auto x, auto y, auto out) {            // ufunc::core_view<const T>, ..., ufunc::core_view<T>
//         typename decltype(out)::element_type s = 0;
//         for (std::int64_t i = 0; i < x.extent(0); ++i) s += x(i) * y(i);
//         out() = s;
//       },
//       "dot");
//   auto d = dot(a, b);                            // a (1000, 16), b (16,): d (1000,)
//
// Each type signature R(A...) (std::tuple<R...>(A...) for several outputs) names the
// element types of the inputs and outputs; the function is called with one
// ufunc::core_view per operand, inputs first (const elements), then outputs. Calls follow
// NumPy's gufunc rules (gufunc/include/ufunc/gufunc/gufunc.hpp).
//
// Target (as vectorize's: the preset's default unless named) is where calls that name no
// target run. target::cuda (or automatic) in a CUDA translation unit also compiles the
// function for the GPU, one thread per loop element: make it __host__ __device__ (a struct
// whose template call operator is UFUNC_HOST_DEVICE; nvcc takes no generic extended lambda,
// a lambda over one signature's views may be `[] __host__ __device__ (...)`), and write
// complex loops generically: on the GPU their views hold cuda::std::complex.
//
//   struct moving_average {   // "(n),()->(n)", Numba's guvectorize example
//     template <class A, class W, class R>
//     UFUNC_HOST_DEVICE void operator()(A a, W window, R out) const { ... }
//   };
//   auto avg = ufunc::gvectorize<double(double, std::int64_t), ufunc::target::cuda>(
//       "(n),()->(n)", moving_average{}, "moving_average");
//
// A functor whose output elements are each a function of the inputs at the same indices of the
// output's core dimensions (a matrix product's c(i, j) of a's row i and b's column j; not the
// moving average, whose out(i) reads a(0..i)) may say so with
// `static constexpr bool independent_output_elements = true;`: calls of few loop elements then
// give every output element its own thread (gufunc::function::set_independent_output_elements),
// so the function must compute any output core it is given, extents of 1 included.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <ufunc/core/signature.hpp>
#include <ufunc/gufunc/core_view.hpp>
#include <ufunc/gufunc/gufunc.hpp>
#include <ufunc/vectorize.hpp>

#if defined(UFUNC_HAS_CUDA) && defined(__CUDACC__)
#include <ufunc/backends/cuda/gufunc_loops.hpp>
#endif

namespace ufunc {

namespace detail {

template <class Sig, class F>
struct gufunc_loop;

template <class R, class... A, class F>
struct gufunc_loop<R(A...), F> {
  template <class... O, std::size_t... I, std::size_t... J>
  static void run_with(type_list<O...>, std::index_sequence<I...>, std::index_sequence<J...>, char* const* args,
                       std::int64_t n, const std::int64_t* steps, const gufunc::core_layout& c, const F& f) {
    constexpr std::size_t nin = sizeof...(A);
    for (std::int64_t k = 0; k < n; ++k) {
      f(core_view<const A>(reinterpret_cast<const A*>(args[I] + k * steps[I]), c.ndim[I], c.extents[I],
                           c.strides[I])...,
        core_view<O>(reinterpret_cast<O*>(args[nin + J] + k * steps[nin + J]), c.ndim[nin + J], c.extents[nin + J],
                     c.strides[nin + J])...);
    }
  }

  static void run(char* const* args, std::int64_t n, const std::int64_t* steps, const gufunc::core_layout& c,
                  const void* fn) {
    using outputs = typename signature_traits<R(A...)>::outputs;
    run_with(outputs{}, std::index_sequence_for<A...>{}, std::make_index_sequence<outputs::size>{}, args, n, steps, c,
             *static_cast<const F*>(fn));
  }
};

template <class F, class... Sigs>
void add_gufunc_loops(gufunc::function& g, const std::shared_ptr<const F>& f, signatures<Sigs...>) {
  (g.add_loop(signature_traits<Sigs>::types(), &gufunc_loop<Sigs, F>::run, f.get(), f), ...);
  if constexpr (requires { requires F::independent_output_elements; }) g.set_independent_output_elements(true);
}

#if defined(UFUNC_HAS_CUDA) && defined(__CUDACC__)
/// The device code of each loop (this translation unit is CUDA): F runs on the GPU too.
template <class F, class... Sigs>
void add_gufunc_device_loops(gufunc::function& g, signatures<Sigs...>) {
  (g.add_device_loop(signature_traits<Sigs>::types(), backends::cuda::gufunc_device_loop<Sigs, F>), ...);
}
#endif

}  // namespace detail

/// A generalized ufunc named `name` over `signature` ("(m,n),(n,p)->(m,p)"), with one loop
/// per type signature of `Sigs` (a function type, or ufunc::signatures<...>), in order, whose
/// calls run on `Target` unless they name another target.
template <class Sigs, class Target = target::default_target, class F>
[[nodiscard]] gufunc::function gvectorize(std::string_view signature, F f, std::string name) {
  static_assert(detail::functor_target_ok<Target>());
  using list = typename detail::signature_list<Sigs>::type;
  gufunc::function g(std::move(name), signature);
  detail::add_gufunc_loops(g, std::make_shared<const F>(std::move(f)), list{});
#if defined(UFUNC_HAS_CUDA) && defined(__CUDACC__)
  if constexpr (std::is_same_v<Target, target::cuda> || std::is_same_v<Target, target::automatic>)
    detail::add_gufunc_device_loops<F>(g, list{});
#endif
  g.set_default_target(Target::id);
  return g;
}

}  // namespace ufunc
