// float32 sin and cos on xsimd batches, for the host loops (simd_ops.hpp).
//
// One kernel serves both: cos(x) = sin(|x| + pi/2), so cos only shifts the quadrant.
// For |x| in [2^-40, fast_max] and for zero:
//   q = rint(|x| * 2/pi), with the float 2/pi, so |r| may exceed pi/4 by 0.012;
//   r = |x| - q*pi/2 as a float pair h + l: Cody-Waite with three constants whose
//       first step is exact, so that r keeps full precision also where |x| lies next
//       to a multiple of pi/2 and |r| is many binades below |x|;
//   sin(r) = h + (l + h*z*S(z)) and cos(r) = 1 - z/2 + z^2*C(z) - h*l with z = h*h,
//       minimax polynomials (Remez) on |h| <= 0.7975; the rounding error of 1 - z/2
//       is added back;
//   the quadrant's low bit picks the polynomial, its second bit (and, for sin, the
//       sign of x) the sign.
// Every other lane (larger |x|, inf, NaN, nonzero |x| < 2^-40) is recomputed with the
// scalar std::sin / std::cos when a batch holds one, so those results and their
// floating-point flags are glibc's: sin of a subnormal raises underflow (as NumPy's
// does), sin(inf) raises invalid, a NaN stays quiet. The vector code computes such
// lanes as zeros and raises nothing for them; the other lanes raise only inexact.
//
// The bits are the same on every instruction set. Fused multiply-adds appear only where
// their exact value fits in a double: in the reduction (|x|*2/pi + 1.5*2^23, |x| -
// q*C1, the error of q*C2, q*C3 + that error), which the SSE instruction sets compute
// in double precision instead, and in 1 - z/2 (z/2 is exact). Everything else is plain
// float arithmetic, which -ffp-contract=off (cmake/ufunc_arch.cmake) keeps unfused.
// bench/trig_bench.cpp --verify checks this, the accuracy and the flags over every
// float of the fast range (results: docs/design.md).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <ufunc/backends/cpu/simd.hpp>

namespace ufunc::ufuncs::simd_ops::trig {

// |x| above this takes the scalar path. Below 2^17, q has at most 17 bits, so q*C1
// fits in 41 bits and |x| - q*C1 is a multiple of 2^-24 below 1 (exact in a float).
inline constexpr std::uint32_t fast_max_bits = 0x47ffffff;  // 131071.99
// Nonzero |x| below this take the scalar path too; from here on no intermediate value
// underflows (h*z*S(z) >= 2^-123 and the cos polynomial uses a clamped z).
inline constexpr std::uint32_t tiny_bits = 0x2b800000;  // 2^-40

inline constexpr float two_over_pi = 0x1.45f306p-1f;
inline constexpr float round_magic = 0x1.8p23f;  // adding it rounds to an integer
// pi/2 = C1 + C2 + C3 + O(2^-76), each the float nearest to the rest.
inline constexpr float pio2_1 = 0x1.921fb6p0f;
inline constexpr float pio2_2 = -0x1.777a5cp-25f;
inline constexpr float pio2_3 = -0x1.ee59dap-50f;

// sin(h) = h + h*z*(S1 + z*(S2 + z*S3)): relative error 2^-27.0 for |h| <= 0.7975.
inline constexpr float sin_1 = -0x1.555544p-3f;
inline constexpr float sin_2 = 0x1.110614p-7f;
inline constexpr float sin_3 = -0x1.98cf54p-13f;
// cos(h) = 1 - z/2 + z^2*(C1 + z*C2 + z^2*C3): error 2^-31.6 relative to cos(h).
inline constexpr float cos_1 = 0x1.55554ep-5f;
inline constexpr float cos_2 = -0x1.6c0df4p-10f;
inline constexpr float cos_3 = 0x1.9a42a4p-16f;

template <class A>
using fbatch = xsimd::batch<float, A>;
template <class A>
using ibatch = xsimd::batch<std::int32_t, A>;

// Which code the reduction takes on instruction set A.
template <class A>
inline constexpr bool fma_avx512 =
#if defined(__FMA__) && defined(__AVX512F__)
    std::is_base_of_v<xsimd::avx512f, A>;
#else
    false;
#endif
template <class A>
inline constexpr bool fma_avx2 =
#if defined(__FMA__) && defined(__AVX2__)
    std::is_base_of_v<xsimd::fma3<xsimd::avx2>, A>;
#else
    false;
#endif
template <class A>
inline constexpr bool sse_double =
#if defined(__SSE2__)
    std::is_base_of_v<xsimd::sse2, A> && sizeof(fbatch<A>) == 16;
#else
    false;
#endif

// c + a*b, rounded once; for the cases above that have FMA.
template <class A>
UFUNC_ALWAYS_INLINE fbatch<A> fma(const fbatch<A>& a, const fbatch<A>& b, const fbatch<A>& c) {
#if defined(__FMA__) && defined(__AVX512F__)
  if constexpr (fma_avx512<A>) return _mm512_fmadd_ps(a, b, c);
#endif
#if defined(__FMA__) && defined(__AVX2__)
  if constexpr (fma_avx2<A>) return _mm256_fmadd_ps(a, b, c);
#endif
  static_assert(fma_avx512<A> || fma_avx2<A>, "no FMA on this instruction set");
  return c;
}

// c - a*b where the product is exact: one instruction where there is FMA, the same
// bits everywhere.
template <class A>
UFUNC_ALWAYS_INLINE fbatch<A> minus_exact_product(const fbatch<A>& a, const fbatch<A>& b, const fbatch<A>& c) {
  if constexpr (fma_avx512<A> || fma_avx2<A>)
    return fma<A>(-a, b, c);
  else
    return c - a * b;
}

// The reduction's values: k = RN(x*2/pi + 1.5*2^23), which holds q in its low bits;
// t = x - q*C1; p_hi = RN(q*C2) and p_lo = q*C2 - p_hi; m = RN(q*C3 + p_lo). Each
// fused multiply-add here has an exact value that a double holds (x*2/pi has 48 bits,
// q*C1 41, x - q*C1 is a float, p_lo too, q*C3 + p_lo spans 43 bits), so double-
// precision arithmetic gives the same bits where there is no FMA.
template <class A>
struct reduction {
  fbatch<A> k, q, t, p_hi, p_lo, m;
};

template <class A>
UFUNC_ALWAYS_INLINE reduction<A> reduce(const fbatch<A>& x) {
  using F = fbatch<A>;
  if constexpr (fma_avx512<A> || fma_avx2<A>) {
    const F k = fma<A>(x, F(two_over_pi), F(round_magic));
    const F q = k - F(round_magic);
    const F p_hi = q * F(pio2_2);
    const F p_lo = fma<A>(q, F(pio2_2), -p_hi);
    return {k, q, fma<A>(-q, F(pio2_1), x), p_hi, p_lo, fma<A>(q, F(pio2_3), p_lo)};
  } else if constexpr (sse_double<A>) {
#if defined(__SSE2__)
    // Two lanes at a time. rint(x*2/pi) by adding and subtracting 1.5*2^52.
    const __m128 xf = x;
    const __m128d x0 = _mm_cvtps_pd(xf), x1 = _mm_cvtps_pd(_mm_movehl_ps(xf, xf));
    const __m128d magic = _mm_set1_pd(0x1.8p52);
    auto rint = [&](__m128d v) {
      return _mm_sub_pd(_mm_add_pd(_mm_mul_pd(v, _mm_set1_pd(two_over_pi)), magic), magic);
    };
    auto to_float = [](__m128d lo, __m128d hi) { return F(_mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi))); };
    const __m128d q0 = rint(x0), q1 = rint(x1);
    const F q = to_float(q0, q1);
    const F p_hi = q * F(pio2_2);
    const __m128 pf = p_hi;
    const __m128d c1 = _mm_set1_pd(pio2_1), c2 = _mm_set1_pd(pio2_2), c3 = _mm_set1_pd(pio2_3);
    const __m128d l0 = _mm_sub_pd(_mm_mul_pd(q0, c2), _mm_cvtps_pd(pf));
    const __m128d l1 = _mm_sub_pd(_mm_mul_pd(q1, c2), _mm_cvtps_pd(_mm_movehl_ps(pf, pf)));
    return {q + F(round_magic),
            q,
            to_float(_mm_sub_pd(x0, _mm_mul_pd(q0, c1)), _mm_sub_pd(x1, _mm_mul_pd(q1, c1))),
            p_hi,
            to_float(l0, l1),
            to_float(_mm_add_pd(_mm_mul_pd(q0, c3), l0), _mm_add_pd(_mm_mul_pd(q1, c3), l1))};
#endif
  } else {
    // Any other instruction set: the same double-precision steps lane by lane.
    constexpr std::size_t size = F::size;
    alignas(A::alignment()) float v[6][size];
    x.store_aligned(v[0]);
    for (std::size_t i = 0; i < size; ++i) {
      const double xd = v[0][i];
      const double qd = (xd * double{two_over_pi} + 0x1.8p52) - 0x1.8p52;
      const auto qf = static_cast<float>(qd);
      const float p_hi = qf * pio2_2;
      const double p_lo = qd * double{pio2_2} - double{p_hi};
      v[0][i] = qf + round_magic;
      v[1][i] = qf;
      v[2][i] = static_cast<float>(xd - qd * double{pio2_1});
      v[3][i] = p_hi;
      v[4][i] = static_cast<float>(p_lo);
      v[5][i] = static_cast<float>(qd * double{pio2_3} + p_lo);
    }
    return {F::load_aligned(v[0]), F::load_aligned(v[1]), F::load_aligned(v[2]),
            F::load_aligned(v[3]), F::load_aligned(v[4]), F::load_aligned(v[5])};
  }
}

// sin (Cos = false) or cos of the lanes of a; see the top of the file.
template <bool Cos, class A>
UFUNC_ALWAYS_INLINE fbatch<A> sin_cos(const fbatch<A>& a) {
  using F = fbatch<A>;
  using I = ibatch<A>;
  const I bits = xsimd::bitwise_cast<I>(a);
  const I mag = bits & I(0x7fffffff);
  // Lanes with |x| outside [2^-40, fast_max] (zero among them) are computed as 0.
  const I d = mag - I(tiny_bits);
  constexpr std::int32_t range = fast_max_bits - tiny_bits;
  auto outside_ = [&] {
    if constexpr (std::is_base_of_v<xsimd::avx512f, A>) {  // one unsigned comparison
      using U = xsimd::batch<std::uint32_t, A>;
      return xsimd::batch_bool<std::int32_t, A>((xsimd::bitwise_cast<U>(d) > U(range)).data);
    } else
      return (d < I(0)) | (d > I(range));
  };
  const auto outside = outside_();
  const F x = xsimd::bitwise_cast<F>(xsimd::select(outside, I(0), mag));

  const auto [k, q, t, p_hi, p_lo, m] = reduce<A>(x);
  // h + l = t - q*C2 - q*C3 with h = RN(t - p_hi); Fast2Sum gives its error.
  const F h = t - p_hi;
  const F l = ((t - h) - p_hi) - m;

  const F z = h * h;
  const F sin_r = h + (l + (h * z) * (F(sin_1) + z * (F(sin_2) + z * F(sin_3))));
  // z^2 would underflow for |h| < 2^-31.5; the clamp changes cos(h) by less than 2^-100.
  const F zc = xsimd::max(z, F(0x1p-50f));
  const F zc2 = zc * zc;
  // w = RN(1 - z/2) in [0.68, 1]; (1 - w) - z/2 is its rounding error, exactly (z/2
  // is exact: no fast lane has a subnormal z).
  const F w = minus_exact_product<A>(F(0.5f), z, F(1.0f));
  const F w_err = minus_exact_product<A>(F(0.5f), z, F(1.0f) - w);
  const F cos_r = w + ((w_err - h * l) + zc2 * ((F(cos_1) + zc * F(cos_2)) + zc2 * F(cos_3)));

  I n = xsimd::bitwise_cast<I>(k);
  if constexpr (Cos) n = n + I(1);
  const I r = xsimd::select((n & I(1)) != I(0), xsimd::bitwise_cast<I>(cos_r), xsimd::bitwise_cast<I>(sin_r));
  I sign = (n << 30) & I(std::numeric_limits<std::int32_t>::min());
  if constexpr (!Cos) sign = sign ^ (bits & I(std::numeric_limits<std::int32_t>::min()));
  F result = xsimd::bitwise_cast<F>(r ^ sign);

  if (xsimd::any(outside & (mag != I(0)))) {
    constexpr std::size_t size = F::size;
    alignas(A::alignment()) float in[size];
    alignas(A::alignment()) float out[size];
    a.store_aligned(in);
    result.store_aligned(out);
    for (std::size_t i = 0; i < size; ++i) {
      // The test above, on the bits: comparing a NaN would raise "invalid".
      const std::uint32_t u = (std::bit_cast<std::uint32_t>(in[i]) & 0x7fffffffu) - tiny_bits;
      if (u > static_cast<std::uint32_t>(range) && u != -tiny_bits) out[i] = Cos ? std::cos(in[i]) : std::sin(in[i]);
    }
    result = F::load_aligned(out);
  }
  return result;
}

}  // namespace ufunc::ufuncs::simd_ops::trig
