// How far our results may be from NumPy's: ulps per ufunc (ulp_bound) and, for the
// ill-conditioned ufuncs, a bound from each element's inputs (condition_bound).
#pragma once

#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include <ufunc/ufunc.hpp>

#include "case_file.hpp"

namespace differential {

// Ulps allowed for float results, per ufunc (canonical name).
struct tolerance {
  int real_ulps;          // float32/float64 results of real inputs
  int complex_ulps;       // complex results (each part, in ulps of the larger part's magnitude),
                          // and float results of complex inputs (absolute)
  bool zero_sign = true;  // whether -0.0 and +0.0 differ
};

// The tolerance of the ufunc called `name` (NumPy's canonical name).
tolerance ulp_bound(std::string_view name);

// Condition-aware bound, for the ufuncs whose result is ill-conditioned in its inputs:
// there NumPy's result and ours both carry rounding errors of intermediate values that
// the problem's condition amplifies, so a bound in ulps of the result is the wrong
// measure. An element also passes (besides ulp_bound()) when, in each part,
//   |ours - NumPy| <= condition_eps * eps(T) * scale                  (absolute)
//   |ours - NumPy| <= condition_eps * eps(T) * scale * |NumPy result| (relative)
// with `scale` computed per element from the case's inputs by condition_scales():
//  - logaddexp(a, b), logaddexp2(a, b): scale = max(|a|, |b|), absolute. The result
//    max + log1p(exp(-|a - b|)) cancels when max is about -log(2) ... 0; the errors of
//    max, of a - b and of the log1p term stay at the inputs' scale.
//  - power(z, w) and float_power(z, w) with complex results: scale = 1 + |w log z|,
//    relative to |NumPy's result|. z**w = exp(w log z): an error of eps |w log z| in the
//    exponent is a relative error of as much in the result, in both parts.
// NaN where NumPy has NaN and infinities stay exact (within_abs needs finite values),
// except where the result's direction is lost (exponent kind): when the angle
// Im(w log z) carries an error of pi or more (condition_eps eps scale >= pi), or w log z
// is not finite, the signs of the result's parts are noise in both implementations
// (cos and sin of an angle known to no digit), so infinite and zero parts compare by
// magnitude. Finite nonzero parts need no such rule: the relative bound covers them.
// Only for call and outer (the methods that map each result element to one element of
// each input), on every target: the host loops and the device's compute the same
// ill-conditioned quantity. condition_eps = 4: two independent implementations
// (NumPy's npy_cpow / logaddexp against exp(w*log z) / max + log1p(exp(-d))) differ by
// at most 1.04 (power) and 1.7 (logaddexp*) such eps units in 10^5-10^6 random inputs
// per type (docs/testing.md).
constexpr int condition_eps = 4;
enum class condition_kind { none, input_scale, exponent };

condition_kind condition_of(std::string_view name, dtype result);

struct condition_bound {
  std::vector<double> scale;  // per element of result 0; < 0: no condition bound there; inf: w log z not finite
  bool relative = false;      // in units of |NumPy's result| (complex: its modulus)
};

// Whether an element's direction is lost (see the comment above): an exponent-kind
// bound whose angle error reaches pi.
template <class F>
bool direction_lost(double scale, bool relative) {
  return relative && scale >= 0 &&
         (std::isinf(scale) ||
          condition_eps * static_cast<double>(std::numeric_limits<F>::epsilon()) * scale >= 3.14159);
}

// The condition_bound of result 0 of `c` (empty where none applies), from the case's inputs.
condition_bound condition_scales(const test_case& c, condition_kind kind);

}  // namespace differential
