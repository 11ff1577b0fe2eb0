// The loops of trig_bench.cpp for one instruction set (BENCH_ARCH_NAMESPACE): the
// float32 sin/cos kernel of the built-in ufuncs (ufuncs/src/simd_trig.hpp) and, for
// comparison, xsimd's sin/cos, over contiguous arrays, in the library's loop (below).
#include <cstddef>
#include <cstdint>

#include "simd_trig.hpp"

#if !defined(BENCH_ARCH_NAMESPACE)
#error "trig_kernels.cpp is compiled once per instruction set, with BENCH_ARCH_NAMESPACE defined"
#endif

namespace trig_bench::BENCH_ARCH_NAMESPACE {

namespace {

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__FMA__)
using arch = xsimd::avx512bw;
#elif defined(__AVX2__) && defined(__FMA__)
using arch = xsimd::fma3<xsimd::avx2>;
#elif defined(__SSE4_2__)
using arch = xsimd::sse4_2;
#else
using arch = xsimd::default_arch;
#endif
using batch = xsimd::batch<float, arch>;

// The full batches of [i, n), stored plainly or with non-temporal stores. Out of line,
// once for each: with both loops in one function GCC stops inlining xsimd's reduction
// (trigo_reducer::reduce), a cost that would be the bench's, not xsimd's.
template <bool Stream, class F>
[[gnu::noinline]] std::int64_t batches(const float* in, float* out, std::int64_t i, std::int64_t n, F f) {
  constexpr auto w = static_cast<std::int64_t>(batch::size);
  for (; i + w <= n; i += w) {
    if constexpr (Stream)
      ufunc::simd::stream_store(out + i, f(batch::load_unaligned(in + i)));
    else
      f(batch::load_unaligned(in + i)).store_unaligned(out + i);
  }
  return i;
}

// As the library's contiguous loops (backends/cpu/loops.hpp): full batches, then the
// tail padded with the first element of the batch; an output of 16 MiB or more (the
// library's default streaming threshold) is written with non-temporal stores from its
// first batch-aligned element.
template <class F>
__attribute__((always_inline)) inline void loop(const float* in, float* out, std::int64_t n, F f) {
  constexpr auto w = static_cast<std::int64_t>(batch::size);
  auto partial = [&](std::int64_t i, std::int64_t m) __attribute__((always_inline)) {
    alignas(64) float buf[batch::size];
    for (std::int64_t j = 0; j < w; ++j) buf[j] = in[i + (j < m ? j : 0)];
    f(batch::load_aligned(buf)).store_aligned(buf);
    for (std::int64_t j = 0; j < m; ++j) out[i + j] = buf[j];
  };
  std::int64_t i = 0;
  const auto misalign = reinterpret_cast<std::uintptr_t>(out) % sizeof(batch);
  if (n * std::int64_t{sizeof(float)} >= (std::int64_t{16} << 20) && misalign % sizeof(float) == 0) {
    const auto head = static_cast<std::int64_t>(misalign ? (sizeof(batch) - misalign) / sizeof(float) : 0);
    if (head) partial(0, head);
    i = batches<true>(in, out, head, n, f);
    ufunc::simd::store_fence();
  } else {
    i = batches<false>(in, out, 0, n, f);
  }
  if (i < n) partial(i, n - i);
}

}  // namespace

const char* name() { return arch::name(); }
const char* variant() { return ufunc::ufuncs::simd_ops::trig::variant_name<arch>(); }
void sin(const float* in, float* out, std::int64_t n) {
  loop(
      in, out, n,
      [](batch x) __attribute__((always_inline)) { return ufunc::ufuncs::simd_ops::trig::sin_cos<false, arch>(x); });
}
void cos(const float* in, float* out, std::int64_t n) {
  loop(
      in, out, n,
      [](batch x) __attribute__((always_inline)) { return ufunc::ufuncs::simd_ops::trig::sin_cos<true, arch>(x); });
}
void xsimd_sin(const float* in, float* out, std::int64_t n) {
  loop(
      in, out, n, [](batch x) __attribute__((always_inline)) { return xsimd::sin(x); });
}
void xsimd_cos(const float* in, float* out, std::int64_t n) {
  loop(
      in, out, n, [](batch x) __attribute__((always_inline)) { return xsimd::cos(x); });
}

}  // namespace trig_bench::BENCH_ARCH_NAMESPACE
