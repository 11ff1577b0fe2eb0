// The complex functions of C99 Annex G, written once for host and device.
//
// NumPy takes its complex functions from glibc on Linux. On the host std::complex forwards to glibc, so
// the ops keep calling it there; on the device libcu++'s cuda::std::complex functions differ from glibc
// in special values, signs of zero, overflow near the top of the range and by many ulps, so the ops call
// these instead in CUDA translation units. Algorithms (all published):
//   * hypot and log|z| scale by powers of two so that neither overflows nor loses subnormal bits when
//     the result is representable; log|z| near |z| = 1 is log1p(x^2 + y^2 - 1) with the squares exact
//     (two-product with fma) and the sum compensated, as glibc does.
//   * sqrt is Kahan's: t = sqrt((|x| + |z|) / 2), the other part y / 2t, never a difference.
//   * asin, acos (and asinh, acosh through them) are Kahan's formulas from "Branch cuts for complex
//     elementary functions": the parts of sqrt(1 - z) and sqrt(1 + z) are combined only in sums of
//     terms of one sign, so nothing cancels; tiny and huge |z| use the first term of the series, as
//     Hull, Fairgrieve and Tang do, which keeps subnormal results and avoids overflow in the squares.
//   * atanh (and atan) is Kahan's: real part log1p(4x / ((1 - x)^2 + y^2)) / 4, imaginary part
//     atan2(2y, (1 - x)(1 + x) - y^2) / 2 with 1 - x^2 - y^2 compensated near the unit circle.
//   * exp, cosh, sinh, tanh (and cos, sin, tan through them) from the real functions, with glibc's
//     scaling by e^709 so that a result that is finite after the multiplication by cos or sin is.
// The float functions compute in double and round once: that is more accurate than glibc's float
// functions, and the comparison with NumPy allows a few ulps. pow and divide are NumPy's and
// glibc's operation sequences in the element type, since both amplify the rounding of their steps.
//
// nvcc contracts a * b + c into an fma by default. Where a result depends on each product being
// rounded (compensated sums, NumPy's division, C's complex product) the products go through mul(),
// which is __dmul_rn / __fmul_rn on the device: the intrinsics are never contracted.
#pragma once

#include <ufunc/ufuncs/ops/common.hpp>

namespace ufunc::ops::cmath {

/// A complex result as two parts (the element type's complex is built from it by the wrappers).
template <floating R>
struct parts {
  R re, im;
};

namespace impl {

using dlim = std::numeric_limits<double>;
inline constexpr double pi = 3.141592653589793116;
inline constexpr double pi_2 = 1.570796326794896558;
inline constexpr double pi_4 = 0.7853981633974482790;
inline constexpr double pi3_4 = 2.356194490192344837;
inline constexpr double ln2 = 0.6931471805599452862;
// glibc's threshold for exp: (DBL_MAX_EXP - 1) * ln 2, below which exp does not overflow.
inline constexpr double exp_max = 1023 * 0.6931471805599452862;

UFUNC_HOST_DEVICE inline double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
UFUNC_HOST_DEVICE inline float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// -v with the sign bit flipped even for a NaN: PTX's neg leaves a NaN's sign unspecified, and the
// identities below (asin z = -i asinh(iz)...) carry a NaN part's sign into infinities and zeros, as
// glibc's do on x86.
UFUNC_HOST_DEVICE inline double neg(double v) { return m::copysign(v, m::signbit(v) ? 1.0 : -1.0); }

struct dd {
  double hi, lo;
};
// Knuth's two-sum: hi + lo == a + b exactly.
UFUNC_HOST_DEVICE inline dd two_sum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// x^2 + y^2 - 1 for 0.5 <= x < 1.5 and y <= x, with the squares exact and the sum compensated: near
// |z| = 1 it cancels, and the rounding of a plain sum would be most of the result.
UFUNC_HOST_DEVICE inline double x2y2m1(double x, double y) {
  const double p1 = mul(x, x), e1 = m::fma(x, x, -p1);
  const double p2 = mul(y, y), e2 = m::fma(y, y, -p2);
  const dd s1 = two_sum(p1, -1.0);
  const dd s2 = two_sum(s1.hi, p2);
  return s2.hi + (((s1.lo + s2.lo) + e1) + e2);
}

// |x + iy| for a >= b >= 0 finite, b != 0, a <= 2^60 b, scaled into the range where the squares neither
// overflow nor underflow.
UFUNC_HOST_DEVICE inline double hypot_core(double a, double b) {
  double scale = 1;
  if (a > 0x1p500) {
    a *= 0x1p-600;
    b *= 0x1p-600;
    scale = 0x1p600;
  } else if (b < 0x1p-500) {
    a *= 0x1p600;
    b *= 0x1p600;
    scale = 0x1p-600;
  }
  // a^2 + b^2 as an unevaluated sum (the products exact through fma), then one Newton step on the
  // square root: glibc's hypot is correctly rounded, and log|z| inherits every bit of this.
  const double p = mul(a, a), q = mul(b, b);
  const double s = p + q, s_lo = (((p - s) + q) + m::fma(a, a, -p)) + m::fma(b, b, -q);
  const double h = m::sqrt(s);
  return (h + (m::fma(-h, h, s) + s_lo) / (2 * h)) * scale;
}

UFUNC_HOST_DEVICE inline double hypot(double x, double y) {
  double a = m::fabs(x), b = m::fabs(y);
  if (m::isinf(a) || m::isinf(b)) return dlim::infinity();
  if (m::isnan(a) || m::isnan(b)) return a + b;
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  // b below half an ulp of a (b * 2^60 may overflow to inf, which keeps the test false).
  if (b == 0 || a > b * 0x1p60) return a + b;
  return hypot_core(a, b);
}

// log|x + iy| for finite parts, not both zero.
UFUNC_HOST_DEVICE inline double log_abs(double x, double y) {
  double a = m::fabs(x), b = m::fabs(y);
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  if (b == 0) return m::log(a);
  if (a >= 0.5 && a < 1.5) return 0.5 * m::log1p(x2y2m1(a, b));
  // Scaled here rather than inside hypot: |z| itself may overflow (DBL_MAX (1 + i)) or be a subnormal
  // with few significant bits, while its logarithm is an ordinary number.
  // Only where it must, and rounded as glibc does (log h + k ln 2 in two roundings), since pow
  // amplifies any difference in the last bit of this.
  double k = 0;
  if (a > dlim::max() / 2) {
    a *= 0.5, b *= 0.5, k = 1;
  } else if (a < dlim::min()) {
    a *= 0x1p53, b *= 0x1p53, k = -53;
  }
  const double h = a > b * 0x1p60 ? a : hypot_core(a, b);
  return k == 0 ? m::log(h) : m::log(h) + k * ln2;
}

// ---------------------------------------------------------------------------------------------------
// Division and product: NumPy's and C's operation sequences, in the element type.
// ---------------------------------------------------------------------------------------------------

// NumPy's complex divide loop (Smith's method): a zero divisor divides partwise by +0.
template <class R>
UFUNC_HOST_DEVICE parts<R> div(R ar, R ai, R br, R bi) {
  const R abs_br = m::fabs(br), abs_bi = m::fabs(bi);
  if (abs_br >= abs_bi) {
    if (abs_br == 0 && abs_bi == 0) return {ar / abs_br, ai / abs_bi};
    const R rat = bi / br, scl = R(1) / (br + mul(bi, rat));
    return {mul(ar + mul(ai, rat), scl), mul(ai - mul(ar, rat), scl)};
  }
  const R rat = br / bi, scl = R(1) / (bi + mul(br, rat));
  return {mul(mul(ar, rat) + ai, scl), mul(mul(ai, rat) - ar, scl)};
}

// C's complex product (Annex G.5.1's recovery of infinities when both parts come out NaN), as
// glibc's cpow multiplies.
template <class R>
UFUNC_HOST_DEVICE parts<R> c99_mul(R a, R b, R c, R d) {
  const R ac = mul(a, c), bd = mul(b, d), ad = mul(a, d), bc = mul(b, c);
  R x = ac - bd, y = ad + bc;
  if (m::isnan(x) && m::isnan(y)) {
    bool recalc = false;
    const auto box = [](R v) { return m::copysign(m::isinf(v) ? R(1) : R(0), v); };
    const auto unnan = [](R v) { return m::isnan(v) ? m::copysign(R(0), v) : v; };
    if (m::isinf(a) || m::isinf(b)) {
      a = box(a), b = box(b), c = unnan(c), d = unnan(d);
      recalc = true;
    }
    if (m::isinf(c) || m::isinf(d)) {
      c = box(c), d = box(d), a = unnan(a), b = unnan(b);
      recalc = true;
    }
    if (!recalc && (m::isinf(ac) || m::isinf(bd) || m::isinf(ad) || m::isinf(bc))) {
      a = unnan(a), b = unnan(b), c = unnan(c), d = unnan(d);
      recalc = true;
    }
    if (recalc) {
      const R inf = std::numeric_limits<R>::infinity();
      x = inf * (mul(a, c) - mul(b, d));
      y = inf * (mul(a, d) + mul(b, c));
    }
  }
  return {x, y};
}

// ---------------------------------------------------------------------------------------------------
// The functions in double.
// ---------------------------------------------------------------------------------------------------
using pd = parts<double>;

UFUNC_HOST_DEVICE inline pd sqrt(double x, double y) {
  const double inf = dlim::infinity(), nan = dlim::quiet_NaN();
  if (m::isinf(y)) return {inf, y};
  if (m::isnan(x)) return {x, nan};
  if (m::isinf(x)) {
    if (x < 0) return {m::isnan(y) ? nan : 0.0, m::copysign(inf, y)};
    return {x, m::isnan(y) ? nan : m::copysign(0.0, y)};
  }
  if (m::isnan(y)) return {nan, nan};
  if (x == 0 && y == 0) return {0.0, y};
  double a = m::fabs(x), b = m::fabs(y), scale = 1;
  const double big = a > b ? a : b;
  // |x| + |z| must not overflow; tiny parts are scaled up by an even power of two so that the halving
  // and the square root stay exact in the exponent.
  if (big >= 0x1p1020) {
    a *= 0x1p-4, b *= 0x1p-4, scale = 0x1p2;
  } else if (big < 0x1p-1000) {
    a *= 0x1p600, b *= 0x1p600, scale = 0x1p-300;
  }
  const double t = m::sqrt((a + hypot(a, b)) * 0.5);
  const double u = b / (2 * t);
  if (x >= 0) return {t * scale, m::copysign(u * scale, y)};
  return {u * scale, m::copysign(t * scale, y)};
}

UFUNC_HOST_DEVICE inline pd log(double x, double y) {
  const double inf = dlim::infinity(), nan = dlim::quiet_NaN();
  if (m::isnan(x) || m::isnan(y)) return {m::isinf(x) || m::isinf(y) ? inf : nan, nan};
  if (m::isinf(x) || m::isinf(y)) return {inf, m::atan2(y, x)};
  if (x == 0 && y == 0) return {-1 / m::fabs(x), m::atan2(y, x)};  // -inf and the divide flag
  return {log_abs(x, y), m::atan2(y, x)};
}

// sin y and cos y, with glibc's shortcut for |y| below the smallest normal (sin y = y exactly then).
UFUNC_HOST_DEVICE inline void sincos(double y, double& s, double& c) {
  if (m::fabs(y) > dlim::min()) {
    s = m::sin(y);
    c = m::cos(y);
  } else {
    s = y;
    c = 1;
  }
}

UFUNC_HOST_DEVICE inline pd exp(double x, double y) {
  const double inf = dlim::infinity(), nan = dlim::quiet_NaN();
  if (m::isfinite(x)) {
    if (!m::isfinite(y)) return {y - y, y - y};  // nan, and the invalid flag for an infinite y
    double s, c;
    sincos(y, s, c);
    // e^x cos y may be finite where e^x is not: multiply cos y by e^709 once or twice first.
    if (x > exp_max) {
      const double et = m::exp(exp_max);
      x -= exp_max, s *= et, c *= et;
      if (x > exp_max) x -= exp_max, s *= et, c *= et;
    }
    if (x > exp_max) return {dlim::max() * c, dlim::max() * s};
    const double e = m::exp(x);
    return {e * c, e * s};
  }
  if (m::isinf(x)) {
    if (m::isfinite(y)) {
      const double v = x < 0 ? 0.0 : inf;
      if (y == 0) return {v, y};
      double s, c;
      sincos(y, s, c);
      return {m::copysign(v, c), m::copysign(v, s)};
    }
    if (x > 0) return {inf, y - y};
    return {0.0, m::copysign(0.0, y)};
  }
  return {nan, y == 0 ? y : nan};
}

// cosh(x + iy) = cosh x cos y + i sinh x sin y.
UFUNC_HOST_DEVICE inline pd cosh(double x, double y) {
  const double inf = dlim::infinity(), nan = dlim::quiet_NaN();
  if (m::isfinite(x)) {
    if (!m::isfinite(y)) return {y - y, x == 0 ? 0.0 : nan};
    double s, c;
    sincos(y, s, c);
    if (m::fabs(x) > exp_max) {
      // cosh x and |sinh x| are e^|x| / 2 here.
      const double et = m::exp(exp_max);
      double rx = m::fabs(x) - exp_max;
      if (x < 0) s = -s;
      s *= et / 2, c *= et / 2;
      if (rx > exp_max) rx -= exp_max, s *= et, c *= et;
      if (rx > exp_max) return {dlim::max() * c, dlim::max() * s};
      const double e = m::exp(rx);
      return {e * c, e * s};
    }
    return {m::cosh(x) * c, m::sinh(x) * s};
  }
  if (m::isinf(x)) {
    if (y == 0) return {inf, y * m::copysign(1.0, x)};
    if (m::isfinite(y)) {
      double s, c;
      sincos(y, s, c);
      return {m::copysign(inf, c), m::copysign(inf, s) * m::copysign(1.0, x)};
    }
    return {inf, y - y};
  }
  return {nan, y == 0 ? y : nan};
}

// sinh(x + iy) = sinh x cos y + i cosh x sin y.
UFUNC_HOST_DEVICE inline pd sinh(double x, double y) {
  const double inf = dlim::infinity(), nan = dlim::quiet_NaN();
  const bool neg = m::signbit(x);
  const double rx = m::fabs(x);
  if (m::isfinite(x)) {
    if (!m::isfinite(y)) return {rx == 0 ? x : nan, y - y};
    double s, c;
    sincos(y, s, c);
    if (rx > exp_max) {
      const double et = m::exp(exp_max);
      double r = rx - exp_max;
      s *= et / 2, c *= et / 2;
      if (r > exp_max) r -= exp_max, s *= et, c *= et;
      pd out;
      if (r > exp_max) {
        out = {dlim::max() * c, dlim::max() * s};
      } else {
        const double e = m::exp(r);
        out = {e * c, e * s};
      }
      if (neg) out.re = -out.re;
      return out;
    }
    return {m::sinh(x) * c, m::cosh(x) * s};
  }
  if (m::isinf(x)) {
    if (y == 0) return {x, y};
    if (m::isfinite(y)) {
      double s, c;
      sincos(y, s, c);
      const double re = m::copysign(inf, c);
      return {neg ? -re : re, m::copysign(inf, s)};
    }
    return {inf, y - y};  // the sign of the real part is unspecified; glibc's
  }
  return {nan, y == 0 ? y : nan};
}

// tanh(x + iy) = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y), both terms of the denominator
// non-negative; beyond |x| = 22 the real part is +-1 to double precision and the imaginary part
// 4 sin y cos y e^(-2|x|), which is computed with two factors e^-|x| so that it underflows gradually.
UFUNC_HOST_DEVICE inline pd tanh(double x, double y) {
  const double nan = dlim::quiet_NaN();
  if (!m::isfinite(x) || !m::isfinite(y)) {
    if (m::isinf(x)) {
      double im = m::copysign(0.0, y);
      if (m::isfinite(y) && m::fabs(y) > 1) {
        double s, c;
        sincos(y, s, c);
        im = m::copysign(0.0, s * c);
      }
      return {m::copysign(1.0, x), im};
    }
    if (y == 0 || x == 0) return {x, y == 0 ? y : nan};
    return {nan, nan};
  }
  double s, c;
  sincos(y, s, c);
  if (m::fabs(x) > 22) {
    const double e = m::exp(-m::fabs(x));
    return {m::copysign(1.0, x), 4 * s * c * e * e};
  }
  const double sh = m::sinh(x), ch = m::cosh(x);
  const double den = sh * sh + c * c;
  return {sh * ch / den, s * c / den};
}

// asin on finite values; odd and symmetric under conjugation, so computed for |x|, |y|.
UFUNC_HOST_DEVICE inline pd asin_finite(double x, double y) {
  const double a = m::fabs(x), b = m::fabs(y);
  double re, im;
  if (a < 0x1p-30 && b < 0x1p-30) {
    // asin z = z + z^3 / 6 + ...: the second term is below half an ulp.
    re = a, im = b;
  } else if (a > 0x1p30 || b > 0x1p30) {
    // asin z = -i log(2iz) + O(1 / z^2).
    re = m::atan2(a, b);
    im = log_abs(a, b) + ln2;
  } else {
    const pd s1 = sqrt(1 - a, -b), s2 = sqrt(1 + a, b);  // sqrt(1 - z), sqrt(1 + z)
    // s1.im <= 0 <= s2.im: both sums add terms of one sign.
    re = m::atan2(a, mul(s1.re, s2.re) - mul(s1.im, s2.im));
    im = m::asinh(mul(s1.re, s2.im) - mul(s1.im, s2.re));
  }
  return {m::copysign(re, x), m::copysign(im, y)};
}

// asinh z = -i asin(iz), Annex G's table for the special values.
UFUNC_HOST_DEVICE inline pd asinh(double x, double y) {
  const double inf = dlim::infinity(), nan = dlim::quiet_NaN();
  if (!m::isfinite(x) || !m::isfinite(y)) {
    if (m::isinf(x)) {
      if (m::isnan(y)) return {x, nan};
      return {x, m::copysign(m::isinf(y) ? pi_4 : 0.0, y)};
    }
    if (m::isinf(y)) {
      if (m::isnan(x)) return {m::copysign(inf, x), nan};
      return {m::copysign(inf, x), m::copysign(pi_2, y)};
    }
    // a NaN and a finite part
    if (y == 0) return {nan, y};
    return {nan, nan};
  }
  const pd w = asin_finite(-y, x);
  return {w.im, neg(w.re)};
}

// asin z = -i asinh(iz).
UFUNC_HOST_DEVICE inline pd asin(double x, double y) {
  const pd w = asinh(neg(y), x);
  return {w.im, neg(w.re)};
}

UFUNC_HOST_DEVICE inline pd acos(double x, double y) {
  const double inf = dlim::infinity(), nan = dlim::quiet_NaN();
  if (!m::isfinite(x) || !m::isfinite(y)) {
    if (m::isinf(x)) {
      if (m::isnan(y)) return {nan, m::copysign(inf, neg(y))};  // the sign is unspecified; glibc's
      if (m::isinf(y)) return {x < 0 ? pi3_4 : pi_4, -y};
      return {x < 0 ? pi : 0.0, m::copysign(inf, neg(y))};
    }
    if (m::isinf(y)) return {m::isnan(x) ? nan : pi_2, -y};
    if (x == 0) return {pi_2, nan};
    return {nan, nan};
  }
  const double b = m::fabs(y);
  double re, im;  // im is |Im acos z|
  if (m::fabs(x) < 0x1p-30 && b < 0x1p-30) {
    re = pi_2 - x, im = b;
  } else if (m::fabs(x) > 0x1p30 || b > 0x1p30) {
    re = m::atan2(b, x);
    im = log_abs(x, b) + ln2;
  } else {
    const pd s1 = sqrt(1 - x, -b), s2 = sqrt(1 + x, b);  // sqrt(1 - z), sqrt(1 + z)
    re = 2 * m::atan2(s1.re, s2.re);
    // -Im(conj(sqrt(1 + z)) sqrt(1 - z)), a sum of two non-negative terms.
    im = m::asinh(mul(s2.im, s1.re) - mul(s2.re, s1.im));
  }
  return {re, m::copysign(im, neg(y))};
}

// acosh z = +-i acos z, with the sign that makes the real part non-negative.
UFUNC_HOST_DEVICE inline pd acosh(double x, double y) {
  const pd w = acos(x, y);
  return {m::fabs(w.im), m::isnan(y) ? w.re : m::copysign(w.re, y)};  // acosh(+-0 + nan i) = nan + pi/2 i
}

UFUNC_HOST_DEVICE inline pd atanh(double x, double y) {
  const double nan = dlim::quiet_NaN();
  if (!m::isfinite(x) || !m::isfinite(y)) {
    if (m::isinf(x) || m::isinf(y)) return {m::copysign(0.0, x), m::isnan(y) ? nan : m::copysign(pi_2, y)};
    if (x == 0) return {x, nan};
    return {nan, nan};
  }
  const double a = m::fabs(x), b = m::fabs(y);
  double re, im;
  if (a < 0x1p-30 && b < 0x1p-30) {
    re = a, im = b;  // atanh z = z + z^3 / 3 + ...
  } else if (a > 0x1p500 || b > 0x1p500) {
    // atanh z = 1 / z + i pi/2 + O(1 / z^3), Re(1 / z) = x / |z|^2.
    const double h = hypot(a, b);
    re = a / h / h;
    im = pi_2;
  } else {
    const double d1 = 1 - a;
    if (m::fabs(d1) < 0x1p-450 && b < 0x1p-450) {
      // (1 - x)^2 + y^2 underflows: log|1 + z| - log|1 - z| has no cancellation here.
      re = 0.5 * (log_abs(1 + a, b) - (d1 == 0 && b == 0 ? -dlim::infinity() : log_abs(d1, b)));
    } else {
      re = 0.25 * m::log1p(4 * a / (mul(d1, d1) + mul(b, b)));
    }
    // 1 - x^2 - y^2, which cancels near the unit circle.
    double den;
    if (a >= 0.5 && a < 1.5 && b <= a)
      den = -x2y2m1(a, b);
    else if (b >= 0.5 && b < 1.5 && a < b)
      den = -x2y2m1(b, a);
    else
      den = mul(d1, 1 + a) - mul(b, b);
    if (den == 0) den = 0;  // +0: atan2(+0, -0) would be pi, and atanh(1) is real
    im = 0.5 * m::atan2(2 * b, den);
  }
  return {m::copysign(re, x), m::copysign(im, y)};
}

// atan z = -i atanh(iz).
UFUNC_HOST_DEVICE inline pd atan(double x, double y) {
  const pd w = atanh(neg(y), x);
  return {w.im, neg(w.re)};
}

// cos z = cosh(iz), sin z = -i sinh(iz), tan z = -i tanh(iz).
UFUNC_HOST_DEVICE inline pd cos(double x, double y) { return cosh(neg(y), x); }
UFUNC_HOST_DEVICE inline pd sin(double x, double y) {
  // glibc's csin gives +inf for the unspecified sign of sin(nan or inf + inf i).
  if (m::isinf(y) && !m::isfinite(x)) return {x - x, dlim::infinity()};
  const pd w = sinh(neg(y), x);
  return {w.im, neg(w.re)};
}
UFUNC_HOST_DEVICE inline pd tan(double x, double y) {
  const pd w = tanh(neg(y), x);
  return {w.im, neg(w.re)};
}

}  // namespace impl

// The float functions go through the double ones and round once.
#define UFUNC_CMATH_UNARY(name)                          \
  template <floating R>                                  \
  UFUNC_HOST_DEVICE parts<R> name(R x, R y) {            \
    const impl::pd r = impl::name(double(x), double(y)); \
    return {R(r.re), R(r.im)};                           \
  }                                                      \
  template <complex_number T>                            \
  UFUNC_HOST_DEVICE T name(T z) {                        \
    const auto r = name(z.real(), z.imag());             \
    return T{r.re, r.im};                                \
  }

UFUNC_CMATH_UNARY(sqrt)
UFUNC_CMATH_UNARY(log)
UFUNC_CMATH_UNARY(exp)
UFUNC_CMATH_UNARY(sin)
UFUNC_CMATH_UNARY(cos)
UFUNC_CMATH_UNARY(tan)
UFUNC_CMATH_UNARY(sinh)
UFUNC_CMATH_UNARY(cosh)
UFUNC_CMATH_UNARY(tanh)
UFUNC_CMATH_UNARY(asin)
UFUNC_CMATH_UNARY(acos)
UFUNC_CMATH_UNARY(atan)
UFUNC_CMATH_UNARY(asinh)
UFUNC_CMATH_UNARY(acosh)
UFUNC_CMATH_UNARY(atanh)
#undef UFUNC_CMATH_UNARY

/// |x + iy| without overflow or underflow where the result is representable (float: in double).
template <floating R>
UFUNC_HOST_DEVICE R hypot(R x, R y) {
  if constexpr (std::is_same_v<R, float>) {
    const double a = x, b = y;
    if (m::isinf(a) || m::isinf(b)) return std::numeric_limits<float>::infinity();
    return float(m::sqrt(a * a + b * b));  // exact squares, one rounding of the sum: never overflows
  } else {
    return impl::hypot(x, y);
  }
}
template <complex_number T>
UFUNC_HOST_DEVICE typename T::value_type abs(T z) {
  return hypot(z.real(), z.imag());
}

/// NumPy's complex division (Smith's method, loops.c.src), each product rounded.
template <complex_number T>
UFUNC_HOST_DEVICE T div(T a, T b) {
  const auto r = impl::div(a.real(), a.imag(), b.real(), b.imag());
  return T{r.re, r.im};
}

/// C's complex product, each product rounded (npymath's cmul in npy_cpow, and glibc's cpow).
template <complex_number T>
UFUNC_HOST_DEVICE T mul(T a, T b) {
  return T{impl::mul(a.real(), b.real()) - impl::mul(a.imag(), b.imag()),
           impl::mul(a.real(), b.imag()) + impl::mul(a.imag(), b.real())};
}

/// glibc's cpow: cexp(b * clog(a)) with C's complex product, each step rounded to the element type
/// as glibc's float and double versions do (the exponential amplifies any difference in the steps).
template <complex_number T>
UFUNC_HOST_DEVICE T pow(T a, T b) {
  using R = typename T::value_type;
  const parts<R> l = log(a.real(), a.imag());
  const parts<R> p = impl::c99_mul(b.real(), b.imag(), l.re, l.im);
  const parts<R> e = exp(p.re, p.im);
  return T{e.re, e.im};
}

}  // namespace ufunc::ops::cmath

// In an op's call operator: `UFUNC_DEVICE_CMATH(sin, a) return m::sin(a);` returns cmath::sin(a) for a
// complex a in CUDA translation units, and leaves the host (glibc, as NumPy) alone.
#if defined(__CUDACC__)
#define UFUNC_DEVICE_CMATH(fn, z)                                                 \
  if constexpr (::ufunc::ops::complex_number<::std::remove_cvref_t<decltype(z)>>) \
    return ::ufunc::ops::cmath::fn(z);                                            \
  else
#else
#define UFUNC_DEVICE_CMATH(fn, z)
#endif
