// float32 sin and cos on xsimd batches, for the host loops (simd_ops.hpp).
//
// Two variants, each under 1 ulp over the fast range (|x| <= 131071.99), each giving the
// same bits on every instruction set that runs it; the two differ from each other in the
// last bit of 1.5% of the results. The fma variant needs fused multiply-adds; without
// them its float reduction would cost more than twice the operations, so the other
// instruction sets compute in double.
//
// fma (AVX2+FMA, AVX-512), in float; cos(x) = sin(|x| + pi/2), so cos only shifts the
// quadrant:
//   q = rint(|x| * 2/pi) (the float 2/pi, so |r| may exceed pi/4 by 0.012);
//   r = |x| - q*pi/2 as a float pair h + l, Cody-Waite with three constants: t = |x| -
//       q*C1 is exact (one FMA); h = RN(t - RN(q*C2)), its Fast2Sum remainder (t - h) -
//       q*C2 rounded once (one FMA), then l = that - q*C3;
//   the quadrant's low bit picks sin(r) = h + (h*z*S(z) + l) or cos(r) = w + (z*z*C(z) +
//       (w_err - h*l)), z = h*h, minimax polynomials (Remez) on |h| <= 0.7975 evaluated
//       as one with the coefficients of the lane's quadrant; w = RN(1 - z/2) and w_err its
//       rounding error, exact; the quadrant's second bit (and, for sin, the sign of x)
//       gives the sign.
//   Nonzero |x| below 2^-40 go to libm: products of the polynomials would underflow.
//
// double (SSE2, SSE4.2; other instruction sets lane by lane), in double, two lanes per
// SSE register:
//   u = x/pi (+ 1/2 for cos, which is sin(|x| + pi/2)) = n + f, |f| <= 1/2, from x*U1
//       (exact: U1 has 27 bits) - n + x*U2;
//   the result is (-1)^n sin(pi*f), sin(pi*f) = f*A(f*f), one polynomial of degree 4 for
//       every quadrant (relative error 2^-27.5), rounded to float once.
//   Tiny and subnormal x need no libm here: nothing underflows in double, and rounding
//   to float raises underflow where glibc does (sin of a subnormal).
//
// Every other lane (larger |x|, inf, NaN) is recomputed with the scalar std::sin /
// std::cos when a batch holds one, so those results and their floating-point flags are
// glibc's: sin(inf) raises invalid, a NaN stays quiet. The vector code computes such lanes
// as zeros and raises nothing for them; the other lanes raise only inexact (and underflow
// for sin of a subnormal, as glibc and NumPy).
//
// The kernels TU is compiled with -ffp-contract=off (cmake/ufunc_arch.cmake): the fma
// variant fuses only where written, so AVX2 and AVX-512 agree, and the double variant's
// SSE code and its lane-by-lane copy do the same operations in the same order.
// bench/trig_bench.cpp --verify checks, per variant, the accuracy against the correctly
// rounded result, the flags, and that its instruction sets agree, over every float of the
// fast range (results: bench/RESULTS.md, docs/design.md).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <ufunc/backends/cpu/simd.hpp>

namespace ufunc::ufuncs::simd_ops::trig {

// |x| above this takes the scalar path. Below 2^17, q has at most 17 bits, so q*C1 (fma
// variant) is exact, and x*U1 has at most 51 bits (double variant).
inline constexpr std::uint32_t fast_max_bits = 0x47ffffff;  // 131071.99
// Nonzero |x| below this take the scalar path too in the fma variant; from here on none of
// its intermediate values underflows (h*z*S(z) >= 2^-123, z*C(z) >= 2^-85).
inline constexpr std::uint32_t tiny_bits = 0x2b800000;  // 2^-40
inline constexpr std::uint32_t fast_range = fast_max_bits - tiny_bits;

template <class A>
using fbatch = xsimd::batch<float, A>;
template <class A>
using ibatch = xsimd::batch<std::int32_t, A>;

// Which variant runs on instruction set A.
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
inline constexpr bool fma_variant = fma_avx512<A> || fma_avx2<A>;
template <class A>
inline constexpr bool sse_double =
#if defined(__SSE2__)
    !fma_variant<A> && std::is_base_of_v<xsimd::sse2, A> && sizeof(fbatch<A>) == 16;
#else
    false;
#endif

// "fma" or "double": the results are the same bits wherever the name is.
template <class A>
constexpr const char* variant_name() {
  return fma_variant<A> ? "fma" : "double";
}

// Constants as batches. On AVX2 and SSE they are read from a table through a pointer that
// GCC cannot see through. AVX2's 16 registers cannot hold every constant and value of
// the kernel, and GCC would broadcast constants again inside the loop, an instruction
// each; read from memory they are operands of the instructions that use them, at no
// cost. And GCC rewrites a comparison with a known constant (a > c as min(a, c + 1) ==
// c + 1), one instruction more. (AVX-512 has 32 registers.)
enum class row : int {
  two_over_pi,
  round_magic,
  pio2_1,
  pio2_2,
  pio2_3,
  half,
  one,
  abs_mask,
  bias,
  limit,
  sign_mask,
  fast_max
};
inline constexpr int rows = 12;
struct alignas(32) constant_rows {
  std::uint32_t v[rows][8];
};

template <class A>
UFUNC_ALWAYS_INLINE const constant_rows* constant_table();

template <class A, class T>
UFUNC_ALWAYS_INLINE xsimd::batch<T, A> constant(row r, T value) {
#if defined(__AVX2__)
  if constexpr (std::is_base_of_v<xsimd::avx2, A> && sizeof(xsimd::batch<T, A>) == 32) {
    const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(constant_table<A>()->v[static_cast<int>(r)]));
    if constexpr (std::is_same_v<T, float>)
      return _mm256_castsi256_ps(v);
    else
      return v;
  }
#endif
#if defined(__SSE2__)
  if constexpr (std::is_base_of_v<xsimd::sse2, A> && sizeof(xsimd::batch<T, A>) == 16) {
    const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(constant_table<A>()->v[static_cast<int>(r)]));
    if constexpr (std::is_same_v<T, float>)
      return _mm_castsi128_ps(v);
    else
      return v;
  }
#endif
  return xsimd::batch<T, A>(value);
}

// ---- fma variant ----

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

inline constexpr constant_rows constants = [] {
  constant_rows t{};
  const std::uint32_t v[rows] = {std::bit_cast<std::uint32_t>(two_over_pi),
                                 std::bit_cast<std::uint32_t>(round_magic),
                                 std::bit_cast<std::uint32_t>(pio2_1),
                                 std::bit_cast<std::uint32_t>(pio2_2),
                                 std::bit_cast<std::uint32_t>(pio2_3),
                                 std::bit_cast<std::uint32_t>(0.5f),
                                 std::bit_cast<std::uint32_t>(1.0f),
                                 0x7fffffffu,
                                 0x80000000u - tiny_bits,
                                 0x80000000u + fast_range,
                                 0x80000000u,
                                 fast_max_bits};
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < 8; ++j) t.v[i][j] = v[i];
  return t;
}();

template <class A>
UFUNC_ALWAYS_INLINE const constant_rows* constant_table() {
  const constant_rows* p = &constants;
  __asm__("" : "+r"(p));
  return p;
}

#if defined(__FMA__) && (defined(__AVX2__) || defined(__AVX512F__))
// a*b + c and c - a*b, rounded once.
template <class A>
UFUNC_ALWAYS_INLINE fbatch<A> fma(const fbatch<A>& a, const fbatch<A>& b, const fbatch<A>& c) {
#if defined(__AVX512F__)
  if constexpr (fma_avx512<A>) return _mm512_fmadd_ps(a, b, c);
#endif
  if constexpr (fma_avx2<A>) return _mm256_fmadd_ps(a, b, c);
}
template <class A>
UFUNC_ALWAYS_INLINE fbatch<A> fnma(const fbatch<A>& a, const fbatch<A>& b, const fbatch<A>& c) {
#if defined(__AVX512F__)
  if constexpr (fma_avx512<A>) return _mm512_fnmadd_ps(a, b, c);
#endif
  if constexpr (fma_avx2<A>) return _mm256_fnmadd_ps(a, b, c);
}

// sin (Cos = false) or cos of the lanes whose magnitude bits are `mag` (each in the
// fast range or zero); `bits` gives sin its signs.
template <bool Cos, class A>
UFUNC_ALWAYS_INLINE fbatch<A> fma_kernel(const ibatch<A>& mag, const ibatch<A>& bits) {
  using F = fbatch<A>;
  using I = ibatch<A>;
  auto c = [](row r, float v) __attribute__((always_inline)) { return constant<A>(r, v); };
  const F x = xsimd::bitwise_cast<F>(mag);
  const F k = fma<A>(x, c(row::two_over_pi, two_over_pi), c(row::round_magic, round_magic));
  const F q = k - c(row::round_magic, round_magic);
  // Exact: q*C1 has 41 bits and |x| - q*C1, a multiple of 2^-24 below 1, fits a float.
  const F t = fnma<A>(q, c(row::pio2_1, pio2_1), x);
  const F p_hi = q * c(row::pio2_2, pio2_2);
  const F h = t - p_hi;
  // t - h is exact (Fast2Sum); one rounding of the rest of t - q*C2 - h, |e| <= ulp(h).
  const F e = fnma<A>(q, c(row::pio2_2, pio2_2), t - h);
  const F l = fnma<A>(q, c(row::pio2_3, pio2_3), e);

  // k holds q in its low bits; cos(x) = sin(x + pi/2) is one quadrant on. Even n takes
  // sin(r), odd n cos(r), and one polynomial serves both:
  //   sin(r) = h + (h*z*S(z) + l),  cos(r) = w + (z*z*C(z) + (w_err - h*l)),
  // with w = RN(1 - z/2) in [0.68, 1] and w_err = (1 - w) - z/2 its rounding error, exact
  // (z/2 is). The products are grouped h*(z*S) and z*(z*C), so that none underflows for
  // |h| >= 2^-40: z*S and z*C are normal, and the fused multiply-add that takes the other
  // factor has a normal result (z*z alone would underflow below |h| = 2^-31.5).
  I n = xsimd::bitwise_cast<I>(k);
  if constexpr (Cos) n = n + I(1);
  const F z = h * h;
  const F w = fnma<A>(c(row::half, 0.5f), z, c(row::one, 1.0f));
  const F w_err = fnma<A>(c(row::half, 0.5f), z, c(row::one, 1.0f) - w);
  I sign = n << 30;
  if constexpr (!Cos) sign = sign ^ bits;
  sign = sign & constant<A>(row::sign_mask, std::numeric_limits<std::int32_t>::min());
#if defined(__AVX512F__)
  if constexpr (fma_avx512<A>) {
    const __mmask16 odd = _mm512_test_epi32_mask(n, I(1));
    auto pick = [odd](const F& even, const F& odd_value) __attribute__((always_inline)) {
      return F(_mm512_mask_blend_ps(odd, even, odd_value));
    };
    const F p = fma<A>(fma<A>(z, pick(F(sin_3), F(cos_3)), pick(F(sin_2), F(cos_2))), z, pick(F(sin_1), F(cos_1)));
    const F r = pick(h, w) + fma<A>(pick(h, z), z * p, pick(l, fnma<A>(h, l, w_err)));
    return xsimd::bitwise_cast<F>(xsimd::bitwise_cast<I>(r) ^ sign);
  }
#endif
#if defined(__AVX2__)
  if constexpr (fma_avx2<A>) {
    // vpermilps takes the coefficient of index n & 3 from each table. blendv looks at the
    // sign bit only, but GCC adds a comparison to a mask that does not come from one.
    auto coefficient = [&n](float s, float c) __attribute__((always_inline)) {
      return F(_mm256_permutevar_ps(_mm256_setr_ps(s, c, s, c, s, c, s, c), n));
    };
    const __m256 odd = _mm256_castsi256_ps(_mm256_cmpeq_epi32(n & I(1), I(1)));
    auto pick = [odd](const F& even, const F& odd_value) __attribute__((always_inline)) {
      return F(_mm256_blendv_ps(even, odd_value, odd));
    };
    const F p = fma<A>(fma<A>(z, coefficient(sin_3, cos_3), coefficient(sin_2, cos_2)), z, coefficient(sin_1, cos_1));
    const F r = pick(h, w) + fma<A>(pick(h, z), z * p, pick(l, fnma<A>(h, l, w_err)));
    return xsimd::bitwise_cast<F>(xsimd::bitwise_cast<I>(r) ^ sign);
  }
#endif
}
#endif

// ---- double variant ----

// 1/pi = U1 + U2 + O(2^-80); U1 has 27 bits, so x*U1 (at most 51 bits) and, for cos,
// |x|*U1 + 1/2 are exact. U1 is rounded down: U2 > 0 keeps the sign of zero, below.
inline constexpr double inv_pi_1 = 0x1.45f306cp-2;
inline constexpr double inv_pi_2 = 0x1.c9c882a53f84fp-30;
inline constexpr double round_magic_d = 0x1.8p52;  // adding it rounds to an integer
// sin(pi*f) = f*(A0 + A1*g + A2*g^2 + A3*g^3 + A4*g^4), g = f*f: relative error
// 2^-27.5 for |f| <= 1/2.
inline constexpr double sinpi_0 = 0x1.921fb52068fa4p+1;
inline constexpr double sinpi_1 = -0x1.4abbc166db8c7p+2;
inline constexpr double sinpi_2 = 0x1.4668af4e86e78p+1;
inline constexpr double sinpi_3 = -0x1.324ccabf22b49p-1;
inline constexpr double sinpi_4 = 0x1.3daff5c90f54dp-4;

// The double variant on one lane, as the SSE code computes it (the same operations in
// the same order): sin(x), or cos(x) for x = |x|. For sin, x keeps its sign: n, f and the
// result change sign with it, and (u + M) - M rounds -0 to +0, so that f = -0 - 0 +
// -0*U2 = -0. (Templates over A, as everything here: a copy emitted out of line for one
// instruction set must not be what the linker keeps for another.)
template <bool Cos, class A>
UFUNC_ALWAYS_INLINE float double_lane(float xf) {
  const double x = xf;
  double u = x * inv_pi_1;
  if constexpr (Cos) u = u + 0.5;
  const double k = u + round_magic_d;  // n in the low bits
  const double f = (u - (k - round_magic_d)) + x * inv_pi_2;
  // Estrin's scheme, which has a shorter chain of dependent operations than Horner's.
  const double g = f * f;
  const double g2 = g * g;
  const double s = f * (sinpi_1 * g + sinpi_0) + (f * g2) * ((sinpi_3 * g + sinpi_2) + sinpi_4 * g2);
  return static_cast<float>((std::bit_cast<std::uint64_t>(k) & 1) ? -s : s);
}

#if defined(__SSE2__)
// Whether n comes from roundpd (SSE4.1), its parity then from a conversion to integers,
// rather than from adding 1.5*2^52, whose sum holds n in its low bits. Both round the same
// way; roundpd is faster for cos, but rounds -0 to -0, so sin keeps the addition (above).
template <bool Cos>
inline constexpr bool use_roundpd =
#if defined(__SSE4_1__)
    Cos;
#else
    false;
#endif

// double_lane on two lanes, the sign not applied yet; nk is n (roundpd) or k.
template <bool Cos, class A>
UFUNC_ALWAYS_INLINE __m128d double_pair(__m128d x, __m128d& nk) {
  __m128d u = _mm_mul_pd(x, _mm_set1_pd(inv_pi_1));
  if constexpr (Cos) u = _mm_add_pd(u, _mm_set1_pd(0.5));
  __m128d n;
  if constexpr (use_roundpd<Cos>) {
#if defined(__SSE4_1__)
    n = nk = _mm_round_pd(u, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#endif
  } else {
    nk = _mm_add_pd(u, _mm_set1_pd(round_magic_d));
    n = _mm_sub_pd(nk, _mm_set1_pd(round_magic_d));
  }
  const __m128d f = _mm_add_pd(_mm_sub_pd(u, n), _mm_mul_pd(x, _mm_set1_pd(inv_pi_2)));
  const __m128d g = _mm_mul_pd(f, f);
  const __m128d g2 = _mm_mul_pd(g, g);
  const __m128d p01 = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(sinpi_1), g), _mm_set1_pd(sinpi_0));
  const __m128d p23 = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(sinpi_3), g), _mm_set1_pd(sinpi_2));
  const __m128d p234 = _mm_add_pd(p23, _mm_mul_pd(_mm_set1_pd(sinpi_4), g2));
  return _mm_add_pd(_mm_mul_pd(f, p01), _mm_mul_pd(_mm_mul_pd(f, g2), p234));
}

// The 4 lanes of x (for cos, x = |x|) as two pairs of doubles.
template <bool Cos, class A>
UFUNC_ALWAYS_INLINE __m128 double_kernel(__m128i x) {
  __m128d nk_lo, nk_hi;
  const __m128d s_lo = double_pair<Cos, A>(_mm_cvtps_pd(_mm_castsi128_ps(x)), nk_lo);
  const __m128d s_hi = double_pair<Cos, A>(_mm_cvtps_pd(_mm_castsi128_ps(_mm_shuffle_epi32(x, 0xee))), nk_hi);
  // n of each lane in the low word of a 32-bit lane, its low bit then moved to the sign.
  __m128i n;
  if constexpr (use_roundpd<Cos>)
    n = _mm_unpacklo_epi64(_mm_cvtpd_epi32(nk_lo), _mm_cvtpd_epi32(nk_hi));
  else
    n = _mm_castps_si128(_mm_shuffle_ps(_mm_castpd_ps(nk_lo), _mm_castpd_ps(nk_hi), _MM_SHUFFLE(2, 0, 2, 0)));
  const __m128 sign = _mm_castsi128_ps(_mm_slli_epi32(n, 31));
  return _mm_xor_ps(_mm_movelh_ps(_mm_cvtpd_ps(s_lo), _mm_cvtpd_ps(s_hi)), sign);
}
#endif

// ---- both ----

// Whether a lane of |x| = m goes to libm: above the fast range (inf and NaN among them)
// and, for the fma variant, nonzero below 2^-40, where its float products would
// underflow. The double variant computes those itself: in double nothing underflows,
// sin(x) rounds to x, and the final rounding to float raises underflow where glibc does,
// for a subnormal x (never exact: A0 is not pi).
template <class A>
constexpr bool libm_lane(std::uint32_t m) {
  if constexpr (fma_variant<A>)
    return m - tiny_bits > fast_range && m != 0;
  else
    return m > fast_max_bits;
}

// libm_lane on every lane, on the bits (comparing a NaN would raise "invalid").
template <class A>
UFUNC_ALWAYS_INLINE bool any_libm_lane(const ibatch<A>& mag) {
  using I = ibatch<A>;
#if defined(__AVX512F__)
  if constexpr (fma_avx512<A>) {
    const __mmask16 outside = _mm512_cmpgt_epu32_mask(mag - I(tiny_bits), I(fast_range));
    return _mm512_mask_test_epi32_mask(outside, mag, mag) != 0;
  }
#endif
#if defined(__AVX2__)
  if constexpr (fma_avx2<A>) {
    // AVX2 compares signed only: 2^31 added to both sides.
    constexpr auto bias = static_cast<std::int32_t>(0x80000000u - tiny_bits);
    constexpr auto limit = static_cast<std::int32_t>(0x80000000u + fast_range);
    const __m256i outside = _mm256_cmpgt_epi32(mag + constant<A>(row::bias, bias), constant<A>(row::limit, limit));
    return !_mm256_testz_si256(outside, mag);
  }
#endif
#if defined(__SSE2__)
  if constexpr (sse_double<A>) {
    const __m128i outside = _mm_cmpgt_epi32(mag, constant<A>(row::fast_max, static_cast<std::int32_t>(fast_max_bits)));
    return _mm_movemask_ps(_mm_castsi128_ps(outside)) != 0;
  }
#endif
  if constexpr (!fma_variant<A> && !sse_double<A>) {
    using U = xsimd::batch<std::uint32_t, A>;
    return xsimd::any(xsimd::bitwise_cast<U>(mag) > U(fast_max_bits));
  }
}

// The kernel of A's variant on lanes in the fast range or zero.
template <bool Cos, class A>
UFUNC_ALWAYS_INLINE fbatch<A> fast_lanes(const ibatch<A>& mag, const ibatch<A>& bits) {
  using F = fbatch<A>;
#if defined(__FMA__) && (defined(__AVX2__) || defined(__AVX512F__))
  if constexpr (fma_variant<A>) return fma_kernel<Cos, A>(mag, bits);
#endif
#if defined(__SSE2__)
  if constexpr (sse_double<A>) return F(double_kernel<Cos, A>(Cos ? mag : bits));
#endif
  if constexpr (!fma_variant<A> && !sse_double<A>) {
    constexpr std::size_t size = F::size;
    alignas(A::alignment()) std::uint32_t v[size];
    xsimd::bitwise_cast<xsimd::batch<std::uint32_t, A>>(bits).store_aligned(v);
    alignas(A::alignment()) float out[size];
    for (std::size_t i = 0; i < size; ++i)
      out[i] = double_lane<Cos, A>(std::bit_cast<float>(Cos ? v[i] & 0x7fffffffu : v[i]));
    return F::load_aligned(out);
  }
}

// A batch with a lane for libm: the kernel on the others (those lanes zeroed, so that
// they raise nothing), then std::sin / std::cos lane by lane. Out of line: the loops
// stay small.
template <bool Cos, class A>
[[gnu::noinline]] fbatch<A> with_libm_lanes(fbatch<A> a) {
  using F = fbatch<A>;
  using I = ibatch<A>;
  constexpr std::size_t size = F::size;
  alignas(A::alignment()) float in[size];
  alignas(A::alignment()) std::uint32_t kept[size];
  a.store_aligned(in);
  for (std::size_t i = 0; i < size; ++i) {
    const auto u = std::bit_cast<std::uint32_t>(in[i]);
    kept[i] = libm_lane<A>(u & 0x7fffffffu) ? 0u : u;
  }
  const I bits = xsimd::bitwise_cast<I>(xsimd::batch<std::uint32_t, A>::load_aligned(kept));
  alignas(A::alignment()) float out[size];
  fast_lanes<Cos, A>(bits & I(0x7fffffff), bits).store_aligned(out);
  for (std::size_t i = 0; i < size; ++i)
    if (libm_lane<A>(std::bit_cast<std::uint32_t>(in[i]) & 0x7fffffffu))
      out[i] = Cos ? std::cos(in[i]) : std::sin(in[i]);
  return F::load_aligned(out);
}

// sin (Cos = false) or cos of the lanes of a; see the top of the file.
template <bool Cos, class A>
UFUNC_ALWAYS_INLINE fbatch<A> sin_cos(const fbatch<A>& a) {
  using I = ibatch<A>;
  const I bits = xsimd::bitwise_cast<I>(a);
  const I mag = bits & constant<A>(row::abs_mask, 0x7fffffff);
  if (UFUNC_UNLIKELY(any_libm_lane<A>(mag))) return with_libm_lanes<Cos, A>(a);
  return fast_lanes<Cos, A>(mag, bits);
}

}  // namespace ufunc::ufuncs::simd_ops::trig
