// The loops of trig_bench.cpp for one instruction set (BENCH_ARCH_NAMESPACE): the
// float32 sin/cos kernel of the built-in ufuncs (ufuncs/src/simd_trig.hpp) and, for
// comparison, xsimd's sin/cos, over contiguous arrays, the tail padded as the
// library's loops pad it.
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

template <class F>
__attribute__((always_inline)) inline void loop(const float* in, float* out, std::int64_t n, F f) {
  constexpr auto w = static_cast<std::int64_t>(batch::size);
  std::int64_t i = 0;
  for (; i + w <= n; i += w) f(batch::load_unaligned(in + i)).store_unaligned(out + i);
  if (i < n) {
    alignas(64) float buf[batch::size];
    for (std::int64_t j = 0; j < w; ++j) buf[j] = in[i + (i + j < n ? j : 0)];
    f(batch::load_aligned(buf)).store_aligned(buf);
    for (std::int64_t j = 0; i + j < n; ++j) out[i + j] = buf[j];
  }
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
