// cpu backend, the ufunc methods: their units run in order on the calling thread
// (execute_units), and the fold reductions run along a strided run, made from a binary
// functor of signature T(T, T): *acc = f(*acc, in[0]), f(..., in[1]), ...
//
// A functor that is not reorderable (the default for user functors) is folded
// strictly in order. A reorderable one (ufunc::reorderable, see
// core/reorderable.hpp) is folded pairwise, as NumPy's float sums are: leaves of up to
// 64 * U * W elements go through U = 8 batch accumulators of W lanes (when the functor
// takes xsimd batches), which are combined in a fixed tree; longer runs split in two
// halves (multiples of U * W) recursively. The grouping depends only on n, never on
// the data's alignment, so the same run always gives the same bits. Strided runs and
// functors without batches get the scalar form of the scheme (8 accumulators,
// NumPy's layout).
//
// The built-in ufuncs take these loops for their T(T, T) signatures:
//   e.reduce = ufunc::backends::cpu::reduce_loop<T(T, T), F, Arch, /*Reorderable=*/true>;
//   e.reorderable = true;
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <ufunc/backends/cpu/simd.hpp>
#include <ufunc/core/config.hpp>
#include <ufunc/core/loop.hpp>
#include <ufunc/core/reorderable.hpp>
#include <ufunc/core/signature.hpp>

namespace ufunc::detail {
class unit_task;
}

namespace ufunc::backends::cpu {

/// Runs every unit of a method's task (reduce, accumulate) in order on this thread.
void execute_units(const detail::unit_task& task);

/// Whether Sig has the shape of a reduction loop: T(T, T).
template <class Sig>
inline constexpr bool is_reduce_signature = false;
template <class T>
inline constexpr bool is_reduce_signature<T(T, T)> = is_element_type<T>;

namespace reduce_detail {

template <class T>
UFUNC_ALWAYS_INLINE T ld(const char* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

/// Whether F folds batches of T on Arch: f(batch, batch) -> batch.
template <class F, class T, class Arch>
constexpr bool batch_foldable() {
  if constexpr (simd::has_batch<T, Arch>) {
    using B = simd::batch<T, Arch>;
    if constexpr (std::is_invocable_v<const F&, B, B>)
      return std::is_convertible_v<std::invoke_result_t<const F&, B, B>, B>;
    else
      return false;
  } else {
    return false;
  }
}

template <class T, class F>
UFUNC_ALWAYS_INLINE T call(const F& f, T a, T b) {
  return static_cast<T>(f(a, b));
}

template <class T, class F>
T fold_in_order(const F& f, T a, const char* in, std::int64_t n, std::int64_t step) {
  for (std::int64_t k = 0; k < n; ++k) a = call<T>(f, a, ld<T>(in + k * step));
  return a;
}

// NumPy's pairwise summation scheme for any reorderable functor, scalar: n >= 1.
template <class T, class F>
T pairwise_scalar(const F& f, const char* in, std::int64_t n, std::int64_t step) {
  auto x = [&](std::int64_t i) { return ld<T>(in + i * step); };
  if (n < 8) return fold_in_order<T>(f, x(0), in + step, n - 1, step);
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = x(j);
    std::int64_t i = 8;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) r[j] = call<T>(f, r[j], x(i + j));
    T res = call<T>(f, call<T>(f, call<T>(f, r[0], r[1]), call<T>(f, r[2], r[3])),
                    call<T>(f, call<T>(f, r[4], r[5]), call<T>(f, r[6], r[7])));
    return fold_in_order<T>(f, res, in + i * step, n - i, step);
  }
  std::int64_t n2 = n / 2;
  n2 -= n2 % 8;
  // Left half first: memory is walked forwards (argument evaluation order is unspecified).
  const T left = pairwise_scalar<T>(f, in, n2, step);
  return call<T>(f, left, pairwise_scalar<T>(f, in + n2 * step, n - n2, step));
}

// The SIMD form: U accumulators of W lanes.
template <class Arch, class T>
struct simd_shape {
  using B = simd::batch<T, Arch>;
  static constexpr std::int64_t W = static_cast<std::int64_t>(B::size);
  static constexpr std::int64_t U = 8;  // the combine tree in pairwise_leaf assumes 8
  static constexpr std::int64_t L = U * W;
  // 64 elements per lane and leaf: long enough to amortize the recursion and the
  // horizontal combine, short enough to keep the pairwise error bound small.
  static constexpr std::int64_t leaf = 64 * L;
};

template <class Arch, class T, bool Contiguous>
UFUNC_ALWAYS_INLINE simd::batch<T, Arch> load_batch(const char* in, std::int64_t i, std::int64_t step) {
  using B = simd::batch<T, Arch>;
  if constexpr (Contiguous) {
    (void)step;
    return B::load_unaligned(reinterpret_cast<const T*>(in) + i);
  } else {
    alignas(64) T buf[B::size];
    for (std::size_t j = 0; j < B::size; ++j) buf[j] = ld<T>(in + (i + static_cast<std::int64_t>(j)) * step);
    return B::load_aligned(buf);
  }
}

// flatten: GCC otherwise leaves xsimd's small functions as calls in the hot loop
// (as in loops.hpp).
template <class Arch, class T, bool Contiguous, class F>
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
__attribute__((flatten))
#endif
T pairwise_leaf(const F& f, const char* in, std::int64_t n, std::int64_t step) {
  using S = simd_shape<Arch, T>;
  using B = typename S::B;
  if (n < S::L) return fold_in_order<T>(f, ld<T>(in), in + step, n - 1, step);
  // U accumulators kept in registers: the loops over u are unrolled by the index
  // sequences (a loop over an array index would keep them in memory).
  constexpr auto us = std::make_index_sequence<static_cast<std::size_t>(S::U)>{};
  B acc[S::U];
  [&]<std::size_t... u>(std::index_sequence<u...>) {
    ((acc[u] = load_batch<Arch, T, Contiguous>(in, static_cast<std::int64_t>(u) * S::W, step)), ...);
  }(us);
  std::int64_t i = S::L;
  for (; i + S::L <= n; i += S::L) {
    [&]<std::size_t... u>(std::index_sequence<u...>) {
      ((acc[u] = B(f(acc[u], load_batch<Arch, T, Contiguous>(in, i + static_cast<std::int64_t>(u) * S::W, step)))),
       ...);
    }(us);
  }
  for (; i + S::W <= n; i += S::W) acc[0] = B(f(acc[0], load_batch<Arch, T, Contiguous>(in, i, step)));
  // Fixed combine order: accumulators as a tree, then the lanes as a tree.
  [&]<std::size_t... u>(std::index_sequence<u...>) {
    ((acc[u] = B(f(acc[u], acc[u + 4]))), ...);
  }(std::make_index_sequence<4>{});
  [&]<std::size_t... u>(std::index_sequence<u...>) {
    ((acc[u] = B(f(acc[u], acc[u + 2]))), ...);
  }(std::make_index_sequence<2>{});
  acc[0] = B(f(acc[0], acc[1]));
  alignas(64) T lanes[S::W];
  acc[0].store_aligned(lanes);
  for (std::int64_t h = S::W / 2; h >= 1; h /= 2)
    for (std::int64_t j = 0; j < h; ++j) lanes[j] = call<T>(f, lanes[j], lanes[j + h]);
  return fold_in_order<T>(f, lanes[0], in + i * step, n - i, step);
}

template <class Arch, class T, bool Contiguous, class F>
T pairwise_simd(const F& f, const char* in, std::int64_t n, std::int64_t step) {
  using S = simd_shape<Arch, T>;
  if (n <= S::leaf) return pairwise_leaf<Arch, T, Contiguous>(f, in, n, step);
  std::int64_t n2 = n / 2;
  n2 -= n2 % S::L;
  // Left half first: memory is walked forwards, which the prefetchers need (the
  // evaluation order of function arguments is unspecified; GCC goes right to left).
  const T left = pairwise_simd<Arch, T, Contiguous>(f, in, n2, step);
  return call<T>(f, left, pairwise_simd<Arch, T, Contiguous>(f, in + n2 * step, n - n2, step));
}

template <class Arch, class T, class F, bool Reorderable>
struct reduce_impl {
  static void run(char* acc, const char* in, std::int64_t n, std::int64_t step, const void* data) {
    if (n <= 0) return;
    const F& f = *static_cast<const F*>(data);
    T a = ld<T>(acc);
    if constexpr (Reorderable) {
      T p;
      // SIMD lanes on contiguous runs; strided runs take the scalar form (gathering
      // lanes element by element costs more than it saves), as NumPy does.
      if constexpr (batch_foldable<F, T, Arch>()) {
        if (step == static_cast<std::int64_t>(sizeof(T)))
          p = pairwise_simd<Arch, T, true>(f, in, n, step);
        else
          p = pairwise_scalar<T>(f, in, n, step);
      } else {
        p = pairwise_scalar<T>(f, in, n, step);
      }
      a = call<T>(f, a, p);
    } else {
      a = fold_in_order<T>(f, a, in, n, step);
    }
    std::memcpy(acc, &a, sizeof(T));
  }
};

template <class Sig, class F, class Arch, bool Reorderable>
struct reduce_for;
template <class T, class F, class Arch, bool Reorderable>
struct reduce_for<T(T, T), F, Arch, Reorderable> {
  static constexpr reduce_loop_fn fn = &reduce_impl<Arch, T, F, Reorderable>::run;
};

}  // namespace reduce_detail

/// The reduce loop of functor F with signature Sig = T(T, T) on instruction set Arch:
/// pairwise with SIMD lanes when Reorderable (by default: F is marked
/// ufunc::reorderable), strictly in order otherwise.
template <class Sig, class F, class Arch = simd::default_arch, bool Reorderable = is_reorderable<F>>
  requires is_reduce_signature<Sig>
inline constexpr reduce_loop_fn reduce_loop = reduce_detail::reduce_for<Sig, F, Arch, Reorderable>::fn;

/// Fills a loop entry's reduce fields from F where Sig is T(T, T) (no-op otherwise).
template <class Sig, class F, class Arch = simd::default_arch>
void set_reduce(loop_entry& e) {
  if constexpr (is_reduce_signature<Sig>) {
    e.reduce = reduce_loop<Sig, F, Arch>;
    e.reorderable = is_reorderable<F>;
  }
}

}  // namespace ufunc::backends::cpu
