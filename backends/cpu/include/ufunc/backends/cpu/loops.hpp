// cpu backend: inner loops made from a scalar functor. When the functor also accepts
// xsimd batches (generic lambdas usually do), every element goes through the batch
// code: contiguous and broadcast-scalar operands are loaded directly, strided ones
// and the tail are gathered into a batch first. Because no element ever takes a
// scalar path, the results do not depend on layout or on how a parallel backend
// splits the work. Predicates, bool(T, ..., T), take the batch code too when the
// functor opts in (simd_predicate below): its batch call returns a batch_bool.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include <ufunc/backends/cpu/methods.hpp>
#include <ufunc/backends/cpu/simd.hpp>
#include <ufunc/core/detail/streaming.hpp>
#include <ufunc/core/loop.hpp>
#include <ufunc/core/signature.hpp>

namespace ufunc {

// clang-format 14 would join the requires-clauses below onto their declarations.
// clang-format off
/// Wraps a functor so that it is only ever called with scalars: for a generic
/// functor whose body is not valid for SIMD batches (a branch on a value, say).
template <class F>
struct scalar_only {
  F f;
  template <class... A>
    requires(is_element_type<A> && ...)
  constexpr auto operator()(A... a) const {
    return f(a...);
  }
};
// clang-format on
template <class F>
scalar_only(F) -> scalar_only<F>;

namespace backends::cpu {

namespace detail {

template <class F, class Arch, class Sig>
struct batch_callable : std::false_type {};

// clang-format off
template <class F, class Arch, class T, class... A>
  requires(simd::has_batch<T, Arch> && std::is_invocable_v<const F&, simd::batch<A, Arch>...>)
struct batch_callable<F, Arch, T(A...)>
    : std::is_convertible<std::invoke_result_t<const F&, simd::batch<A, Arch>...>, simd::batch<T, Arch>> {};
// clang-format on

// A predicate's batch call: bool(T, ..., T), the functor opted in, and its batch call
// gives a batch_bool of T.
template <class F, class Arch, class Sig>
struct predicate_callable : std::false_type {};

// clang-format off
template <class F, class Arch, class T, class... A>
  requires(F::simd_predicate && (std::is_same_v<T, A> && ...) && simd::has_batch<T, Arch> &&
           std::is_invocable_v<const F&, simd::batch<T, Arch>, simd::batch<A, Arch>...>)
struct predicate_callable<F, Arch, bool(T, A...)>
    : std::is_convertible<std::invoke_result_t<const F&, simd::batch<T, Arch>, simd::batch<A, Arch>...>,
                          simd::batch_bool<T, Arch>> {};
// clang-format on

}  // namespace detail

template <class F, class Sig>
inline constexpr bool callable_as = false;
template <class F, class R, class... A>
inline constexpr bool callable_as<F, R(A...)> = std::is_invocable_r_v<R, const F&, A...>;

/// A functor declares `static constexpr bool simd_predicate = true;` to have its
/// bool(T, ..., T) signatures run on batches (its batch call returning
/// xsimd::batch_bool<T, Arch>). Only on request: finding out whether a functor takes
/// batches instantiates its body, and a predicate's body often does not compile for
/// batches (`a > 0 && b > 0`), which a plain bool signature must keep allowing.
template <class F, class Sig, class Arch = simd::default_arch>
inline constexpr bool is_predicate_vectorizable = [] {
  if constexpr (requires { F::simd_predicate; })
    return detail::predicate_callable<F, Arch, Sig>::value;
  else
    return false;
}();

/// Whether the SIMD path applies to F with signature Sig on Arch.
template <class F, class Sig, class Arch = simd::default_arch>
inline constexpr bool is_vectorizable = [] {
  if constexpr (uniform_signature<Sig>::value && signature_traits<Sig>::nout == 1)
    return detail::batch_callable<F, Arch, Sig>::value;
  else
    return is_predicate_vectorizable<F, Sig, Arch>;
}();

namespace detail {

template <class T>
UFUNC_ALWAYS_INLINE T load(const char* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
UFUNC_ALWAYS_INLINE void store(char* p, const T& v) noexcept {
  std::memcpy(p, &v, sizeof(T));
}

// A batch result into out[0 .. W): T lanes, or a predicate's lanes as bools.
template <class Arch, class T, class R, class V>
UFUNC_ALWAYS_INLINE void put_batch(R* out, const V& r) noexcept {
  if constexpr (std::is_same_v<R, T>)
    simd::batch<T, Arch>(r).store_unaligned(out);
  else
    simd::store_bools(simd::batch_bool<T, Arch>(r), out);
}

// Scalar loop: any signature, including several outputs.
template <class F, class R, class... A, std::size_t... I>
void scalar_loop(const F& f, char* const* args, std::int64_t n, const std::int64_t* steps, std::index_sequence<I...>) {
  constexpr std::size_t nin = sizeof...(A);
  using outputs = typename signature_traits<R(A...)>::outputs;
  if constexpr (outputs::size == 1) {
    // Contiguous operands: the same loop with constant steps, which the compiler can vectorize
    // where the functor is simple (the logical ops on bool) although it has no SIMD overload.
    if (((steps[I] == static_cast<std::int64_t>(sizeof(A))) && ...) &&
        steps[nin] == static_cast<std::int64_t>(sizeof(R))) {
      for (std::int64_t k = 0; k < n; ++k)
        store<R>(args[nin] + k * sizeof(R), static_cast<R>(f(load<A>(args[I] + k * sizeof(A))...)));
      return;
    }
  }
  for (std::int64_t k = 0; k < n; ++k) {
    if constexpr (outputs::size == 1) {
      store<R>(args[nin] + k * steps[nin], static_cast<R>(f(load<A>(args[I] + k * steps[I])...)));
    } else {
      const R r = f(load<A>(args[I] + k * steps[I])...);
      // clang-format 14 would split the immediately invoked lambda from its call.
      // clang-format off
      [&]<std::size_t... O>(std::index_sequence<O...>) {
        (store(args[nin + O] + k * steps[nin + O], std::get<O>(r)), ...);
      }(std::make_index_sequence<outputs::size>{});
      // clang-format on
    }
  }
}

// SIMD loop for R(T, ..., T), R = T or bool (a predicate). ScalarMask bit i: input i
// is a broadcast scalar (step 0) in the contiguous case.
template <class Arch, class T, class R, std::size_t NIN, unsigned ScalarMask, class F, std::size_t... I>
UFUNC_ALWAYS_INLINE void contiguous_batches(const F& f, char* const* args, std::int64_t n, std::index_sequence<I...>) {
  using B = simd::batch<T, Arch>;
  constexpr std::int64_t W = B::size;
  const T* in[NIN] = {reinterpret_cast<const T*>(args[I])...};
  R* out = reinterpret_cast<R*>(args[NIN]);
  const B splat[NIN] = {(ScalarMask >> I & 1u ? B(*in[I]) : B(T(0)))...};
  auto operand = [&](auto idx, std::int64_t k) {
    constexpr std::size_t i = decltype(idx)::value;
    if constexpr (ScalarMask >> i & 1u)
      return splat[i];
    else
      return B::load_unaligned(in[i] + k);
  };
  // Full batches from k on; returns where they end.
  auto batches = [&](auto streaming, std::int64_t k) {
    for (; k + W <= n; k += W) {
      if constexpr (decltype(streaming)::value)
        // T*, not R*: streaming runs only where R is T, but clang checks this call
        // in predicate loops (R = bool) too.
        simd::stream_store(reinterpret_cast<T*>(out) + k,
                           B(f(operand(std::integral_constant<std::size_t, I>{}, k)...)));
      else
        put_batch<Arch, T>(out + k, f(operand(std::integral_constant<std::size_t, I>{}, k)...));
    }
    return k;
  };
  // m < W elements from k: gather into full batches (padding repeats the first
  // element so the padding lanes see ordinary values and raise no floating-point
  // flag of their own), compute, store the live lanes.
  auto partial = [&](std::int64_t k, std::int64_t m) {
    alignas(64) T buf[NIN][W];
    alignas(64) R res[W];
    for (std::size_t i = 0; i < NIN; ++i)
      for (std::int64_t j = 0; j < W; ++j) buf[i][j] = (ScalarMask >> i & 1u) ? in[i][0] : in[i][k + (j < m ? j : 0)];
    put_batch<Arch, T>(res, f(B::load_aligned(buf[I])...));
    std::memcpy(out + k, res, static_cast<std::size_t>(m) * sizeof(R));
  };
  // A call with a large output (ufunc::detail::stream_stores, core/detail/streaming.hpp)
  // writes its batches with non-temporal stores, from the first batch-aligned element.
  if constexpr (simd::can_stream<T, Arch> && std::is_same_v<R, T>) {
    constexpr auto bytes = static_cast<std::uintptr_t>(W) * sizeof(T);
    const auto misalign = reinterpret_cast<std::uintptr_t>(out) % bytes;
    // Not in place: there the output's lines are in the cache already (just read).
    const bool in_place = ((!(ScalarMask >> I & 1u) && static_cast<const T*>(out) == in[I]) || ...);
    if (::ufunc::detail::stream_stores && n >= 4 * W && misalign % sizeof(T) == 0 && !in_place) {
      const auto head = static_cast<std::int64_t>(misalign ? (bytes - misalign) / sizeof(T) : 0);
      if (head) partial(0, head);
      const std::int64_t k = batches(std::true_type{}, head);
      simd::store_fence();
      if (k != n) partial(k, n - k);
      return;
    }
  }
  const std::int64_t k = batches(std::false_type{}, 0);
  if (k != n) partial(k, n - k);
}

template <class Arch, class T, class R, std::size_t NIN, class F, std::size_t... I>
void strided_batches(const F& f, char* const* args, std::int64_t n, const std::int64_t* steps,
                     std::index_sequence<I...>) {
  using B = simd::batch<T, Arch>;
  constexpr std::int64_t W = B::size;
  alignas(64) T buf[NIN][W];
  alignas(64) R res[W];
  for (std::int64_t k = 0; k < n; k += W) {
    const std::int64_t m = std::min(W, n - k);
    for (std::size_t i = 0; i < NIN; ++i)
      for (std::int64_t j = 0; j < W; ++j) buf[i][j] = load<T>(args[i] + (k + (j < m ? j : 0)) * steps[i]);
    put_batch<Arch, T>(res, f(B::load_aligned(buf[I])...));
    for (std::int64_t j = 0; j < m; ++j) store<R>(args[NIN] + (k + j) * steps[NIN], res[j]);
  }
}

template <class Arch, class T, class R, std::size_t NIN, class F, unsigned... Masks>
UFUNC_ALWAYS_INLINE void dispatch_contiguous(unsigned mask, const F& f, char* const* args, std::int64_t n,
                                             std::integer_sequence<unsigned, Masks...>) {
  (void)((mask == Masks
              ? (contiguous_batches<Arch, T, R, NIN, Masks>(f, args, n, std::make_index_sequence<NIN>{}), true)
              : false) ||
         ...);
}

// flatten: GCC otherwise leaves xsimd's math kernels (sin: hundreds of lines) as
// calls per batch, which costs a third of the throughput.
template <class Arch, class T, class R, std::size_t NIN, class F>
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
__attribute__((flatten))
#endif
void simd_loop(const F& f, char* const* args, std::int64_t n, const std::int64_t* steps) {
  constexpr auto size = static_cast<std::int64_t>(sizeof(T));
  bool contiguous = steps[NIN] == static_cast<std::int64_t>(sizeof(R));
  unsigned mask = 0;
  for (std::size_t i = 0; i < NIN; ++i) {
    if (steps[i] == 0)
      mask |= 1u << i;
    else
      contiguous &= steps[i] == size;
  }
  // Every combination of contiguous and broadcast inputs gets its own loop, for up
  // to three inputs; more inputs or other strides take the gathering loop.
  if constexpr (NIN <= 3) {
    if (contiguous && mask != (1u << NIN) - 1) {
      dispatch_contiguous<Arch, T, R, NIN>(mask, f, args, n, std::make_integer_sequence<unsigned, (1u << NIN)>{});
      return;
    }
  }
  strided_batches<Arch, T, R, NIN>(f, args, n, steps, std::make_index_sequence<NIN>{});
}

// The loop over one fixed run (loop_entry::host_fixed_run): full batches only, no steps
// to check, so a fused expression's node costs its batches and a call.
template <class Arch, class T, class R, std::size_t NIN, class F, std::size_t... I>
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
__attribute__((flatten))
#endif
void fixed_run_batches(const F& f, char* const* args, bool stream, std::index_sequence<I...>) {
  using B = simd::batch<T, Arch>;
  constexpr std::int64_t W = B::size;
  static_assert(fixed_run % W == 0, "ufunc: a fixed run is a whole number of batches");
  const T* in[NIN] = {reinterpret_cast<const T*>(args[I])...};
  R* out = reinterpret_cast<R*>(args[NIN]);
  if constexpr (simd::can_stream<T, Arch> && std::is_same_v<R, T>) {
    if (stream) {
      for (std::int64_t k = 0; k < fixed_run; k += W)
        simd::stream_store(out + k, B(f(B::load_unaligned(in[I] + k)...)));
      return;  // the caller fences once after its runs
    }
  }
  for (std::int64_t k = 0; k < fixed_run; k += W) put_batch<Arch, T>(out + k, f(B::load_unaligned(in[I] + k)...));
}

template <class Arch, class F, class Sig>
struct fixed_run_impl;
template <class Arch, class F, class R, class... A>
struct fixed_run_impl<Arch, F, R(A...)> {
  static void run(char* const* args, const void* data, bool stream) {
    fixed_run_batches<Arch, std::tuple_element_t<0, std::tuple<A..., R>>, R, sizeof...(A)>(
        *static_cast<const F*>(data), args, stream, std::index_sequence_for<A...>{});
  }
};

template <class Arch, class F, class Sig>
struct loop_impl;

template <class Arch, class F, class R, class... A>
struct loop_impl<Arch, F, R(A...)> {
  static void run(char* const* args, std::int64_t n, const std::int64_t* steps, const void* data) {
    const F& f = *static_cast<const F*>(data);
    if constexpr (is_vectorizable<F, R(A...), Arch>)
      simd_loop<Arch, std::tuple_element_t<0, std::tuple<A..., R>>, R, sizeof...(A)>(f, args, n, steps);
    else
      scalar_loop<F, R, A...>(f, args, n, steps, std::index_sequence_for<A...>{});
  }
};

}  // namespace detail

/// The inner loop that runs `F` with signature `Sig` (instruction set `Arch`).
template <class Sig, class F, class Arch = simd::default_arch>
inline constexpr inner_loop_fn inner_loop = &detail::loop_impl<Arch, F, Sig>::run;

/// The fixed-run loop (loop_entry::host_fixed_run) of `F` with signature `Sig`, where the
/// SIMD path applies; null elsewhere.
template <class Sig, class F, class Arch = simd::default_arch>
inline constexpr fixed_run_fn fixed_run_loop = [] {
  if constexpr (is_vectorizable<F, Sig, Arch> && signature_traits<Sig>::nout == 1)
    return &detail::fixed_run_impl<Arch, F, Sig>::run;
  else
    return static_cast<fixed_run_fn>(nullptr);
}();

/// A loop table entry running a copy of `f` with signature `Sig` on the cpu backend.
template <class Sig, class Arch = simd::default_arch, class F>
[[nodiscard]] loop_entry make_loop(F f) {
  using traits = signature_traits<Sig>;
  static_assert(callable_as<F, Sig>,
                "ufunc: the functor cannot be called as its signature says (arguments by value, "
                "result convertible to the signature's result)");
  auto held = std::make_shared<const F>(std::move(f));
  loop_entry e;
  e.types = traits::types();
  e.host = inner_loop<Sig, F, Arch>;
  e.host_data = held.get();
  e.keepalive = std::move(held);
  e.vectorized = is_vectorizable<F, Sig, Arch>;
  e.host_fixed_run = fixed_run_loop<Sig, F, Arch>;
  set_reduce<Sig, F, Arch>(e);  // T(T, T): the fold reductions use (methods.hpp)
  return e;
}

}  // namespace backends::cpu
}  // namespace ufunc
