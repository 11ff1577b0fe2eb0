// Comparing results: floats in ulps (or within the generator's absolute tolerance of a
// reduction, or the condition-aware bound), everything else exactly.
#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>
#include <utility>

#include <ufunc/core/detail/convert.hpp>

namespace differential {

using ufunc::array;

namespace {

template <class F>
std::int64_t ordered(F x) {  // monotonic integer image of a float; +0 and -0 both 0
  using I = std::conditional_t<sizeof(F) == 4, std::int32_t, std::int64_t>;
  I i;
  std::memcpy(&i, &x, sizeof(F));
  return i < 0 ? -static_cast<std::int64_t>(i & std::numeric_limits<I>::max()) : static_cast<std::int64_t>(i);
}

template <class F>
std::string fmt(F x) {
  std::ostringstream s;
  s.precision(std::is_same_v<F, float> ? 9 : 17);
  s << x;
  return s.str();
}

// Whether `ours` is acceptable for NumPy's `np` with `ulps` allowed; `scale` is the
// magnitude ulps are measured at (|np| for reals; the larger part for complex).
template <class F>
bool float_ok(F ours, F np, int ulps, F scale, bool zero_sign = true) {
  if (std::isnan(np)) return std::isnan(ours);
  if (std::isnan(ours) || std::isinf(np) || std::isinf(ours)) return ours == np;
  if (np == 0 && ours == 0) return !zero_sign || std::signbit(np) == std::signbit(ours);
  if (ulps == 0) return ours == np;
  if (std::abs(scale) > std::abs(np) && std::isfinite(scale)) {
    // ulps of the larger part: |ours - np| <= ulps * ulp(scale)
    const F ulp = std::nextafter(std::abs(scale), std::numeric_limits<F>::infinity()) - std::abs(scale);
    return std::abs(static_cast<double>(ours) - static_cast<double>(np)) <= ulps * static_cast<double>(ulp);
  }
  const auto d = ordered(ours) - ordered(np);
  return (d < 0 ? -d : d) <= ulps;
}

// The 16-bit formats, compared in their own ulps (their bits are monotonic like a float's).
template <class H>
bool half_ok(H ours, H np, int ulps, bool zero_sign) {
  const float a = static_cast<float>(ours), b = static_cast<float>(np);
  if (std::isnan(b)) return std::isnan(a);
  if (std::isnan(a) || std::isinf(a) || std::isinf(b)) return a == b;
  if (a == 0 && b == 0) return !zero_sign || std::signbit(a) == std::signbit(b);
  auto image = [](H x) {
    const std::int32_t m = x.bits() & 0x7fff;
    return (x.bits() & 0x8000) ? -m : m;
  };
  const std::int32_t d = image(ours) - image(np);
  return (d < 0 ? -d : d) <= ulps;
}

// The unit roundoff of a 16-bit format: 2^-10 for float16, 2^-7 for bfloat16.
template <class H>
constexpr double half_epsilon = std::is_same_v<H, ufunc::float16_t> ? 0x1p-10 : 0x1p-7;

struct element_check {
  bool ok = true;
  std::string ours, np;
};

// Within an absolute tolerance (reductions, whose summation order differs from NumPy's pairwise sums).
template <class F>
bool within_abs(F ours, F np, double tol) {
  return std::isfinite(ours) && std::isfinite(np) &&
         std::abs(static_cast<double>(ours) - static_cast<double>(np)) <= tol;
}

// Within the generator's absolute tolerance of a reduction element (< 0 or NaN: none).
// An infinite one (a power chain whose direction is lost, generate_cases.py's
// POWER_CHAINS) also accepts an infinite or zero part of either sign.
template <class F>
bool within_tolerance(F ours, F np, double abs_tol) {
  if (std::isinf(abs_tol) && (std::isinf(np) || np == 0) && std::abs(ours) == std::abs(np)) return true;
  return abs_tol >= 0 && within_abs(ours, np, abs_tol);
}

// Within the condition-aware bound (see condition_bound); `magnitude` is |NumPy's
// result| for a relative bound, 1 for an absolute one.
template <class F>
bool within_condition(F ours, F np, double scale, double magnitude, bool relative) {
  if (direction_lost<F>(scale, relative) && (std::isinf(np) || np == 0) && std::abs(ours) == std::abs(np)) return true;
  if (!(scale >= 0) || !std::isfinite(scale) || !std::isfinite(magnitude)) return false;
  return within_abs(ours, np,
                    condition_eps * static_cast<double>(std::numeric_limits<F>::epsilon()) * scale * magnitude);
}

element_check compare_element(dtype t, const std::byte* ours, const std::byte* np, tolerance tol, bool complex_inputs,
                              double abs_tol = -1, double cond_scale = -1, bool cond_relative = false) {
  element_check r;
  ufunc::visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    T a, b;
    std::memcpy(&a, ours, sizeof(T));
    std::memcpy(&b, np, sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      r.ok = std::memcmp(ours, np, 1) == 0;
      r.ours = std::to_string(static_cast<int>(*reinterpret_cast<const std::uint8_t*>(ours)));
      r.np = std::to_string(static_cast<int>(*reinterpret_cast<const std::uint8_t*>(np)));
    } else if constexpr (std::is_integral_v<T>) {
      r.ok = a == b;
      r.ours = std::to_string(a);
      r.np = std::to_string(b);
    } else if constexpr (ufunc::detail::is_half<T>) {
      const float fa = static_cast<float>(a), fb = static_cast<float>(b);
      const double magnitude = cond_relative ? std::abs(static_cast<double>(fb)) : 1.0;
      r.ok = half_ok(a, b, tol.real_ulps, tol.zero_sign) || within_tolerance(fa, fb, abs_tol) ||
             (cond_scale >= 0 && std::isfinite(cond_scale) &&
              within_abs(fa, fb, condition_eps * half_epsilon<T> * cond_scale * magnitude));
      r.ours = fmt(fa);
      r.np = fmt(fb);
    } else if constexpr (std::is_floating_point_v<T>) {
      r.ok = float_ok(a, b, complex_inputs ? tol.complex_ulps : tol.real_ulps, b, tol.zero_sign) ||
             within_tolerance(a, b, abs_tol) ||
             within_condition(a, b, cond_scale, cond_relative ? std::abs(static_cast<double>(b)) : 1.0, cond_relative);
      r.ours = fmt(a);
      r.np = fmt(b);
    } else {
      using F = typename T::value_type;
      const F scale = std::max(std::abs(b.real()), std::abs(b.imag()));
      const double magnitude =
          cond_relative ? std::hypot(static_cast<double>(b.real()), static_cast<double>(b.imag())) : 1.0;
      r.ok = (float_ok(a.real(), b.real(), tol.complex_ulps, scale, tol.zero_sign) ||
              within_tolerance(a.real(), b.real(), abs_tol) ||
              within_condition(a.real(), b.real(), cond_scale, magnitude, cond_relative)) &&
             (float_ok(a.imag(), b.imag(), tol.complex_ulps, scale, tol.zero_sign) ||
              within_tolerance(a.imag(), b.imag(), abs_tol) ||
              within_condition(a.imag(), b.imag(), cond_scale, magnitude, cond_relative));
      r.ours = "(" + fmt(a.real()) + (std::signbit(a.imag()) ? "" : "+") + fmt(a.imag()) + "j)";
      r.np = "(" + fmt(b.real()) + (std::signbit(b.imag()) ? "" : "+") + fmt(b.imag()) + "j)";
    }
  });
  return r;
}

// "[i,j,...]": the index in `shape` of the element at C-order position `flat`.
std::string index_string(std::int64_t flat, const ufunc::dim_vector& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (std::size_t i = 0; i < idx.size(); ++i) s += (i ? "," : "") + std::to_string(idx[i]);
  return s + "]";
}

}  // namespace

std::string compare_result(const expected_result& e, dtype type, const ufunc::dim_vector& shape,
                           const std::vector<std::byte>& got, tolerance tol, bool complex_inputs,
                           const std::vector<double>& abs_tol, const std::string& what, const condition_bound* cond) {
  if (type != e.type) return what + " dtype " + std::string(type.name()) + ", NumPy " + std::string(e.type.name());
  if (shape != e.shape)
    return what + " shape " + array::shape_string(shape) + ", NumPy " + array::shape_string(e.shape);
  const std::size_t item = type.itemsize();
  const std::size_t n = e.data.size() / item;
  std::int64_t first = -1, bad = 0;
  element_check first_check;
  for (std::size_t i = 0; i < n; ++i) {
    if (!e.mask.empty() && !e.mask[i]) continue;
    const auto c = compare_element(type, got.data() + i * item, e.data.data() + i * item, tol, complex_inputs,
                                   i < abs_tol.size() ? abs_tol[i] : -1.0,
                                   cond && i < cond->scale.size() ? cond->scale[i] : -1.0, cond && cond->relative);
    if (!c.ok) {
      if (first < 0) {
        first = static_cast<std::int64_t>(i);
        first_check = c;
      }
      ++bad;
    }
  }
  if (bad == 0) return {};
  return what + " " + std::string(type.name()) + array::shape_string(shape) + ": " + std::to_string(bad) + " of " +
         std::to_string(n) + " elements differ; first at " + index_string(first, shape) + ": ours " + first_check.ours +
         ", NumPy " + first_check.np;
}

std::optional<expected_result> at_loop_precision(const std::string& loop, std::size_t output, const expected_result& e,
                                                 dtype got_type, std::vector<std::byte>& got) {
  const auto arrow = loop.find("->");
  if (arrow == std::string::npos || arrow + 2 + output >= loop.size() || got_type != e.type) return std::nullopt;
  const char code = loop[arrow + 2 + output];
  const bool real = code == 'f' && e.type == ufunc::dtype_of<double>;
  const bool cplx = (code == 'f' || code == 'F') && e.type == ufunc::dtype_of<std::complex<double>>;
  if (!real && !cplx) return std::nullopt;
  // Elements where ours equals NumPy's are narrowed whatever they hold (out= elements
  // that where= left alone keep their float64 values on both sides).
  const std::size_t n = e.data.size() / sizeof(double);
  if (got.size() != e.data.size()) return std::nullopt;
  std::vector<std::byte> ours(n * sizeof(float)), theirs(n * sizeof(float));
  for (std::size_t i = 0; i < n; ++i) {
    double o, t;
    std::memcpy(&o, got.data() + i * sizeof(double), sizeof o);
    std::memcpy(&t, e.data.data() + i * sizeof(double), sizeof t);
    const auto fo = static_cast<float>(o), ft = static_cast<float>(t);
    const bool same = std::memcmp(&o, &t, sizeof o) == 0;
    if (!same && !(static_cast<double>(fo) == o || std::isnan(o))) return std::nullopt;
    std::memcpy(ours.data() + i * sizeof(float), &fo, sizeof fo);
    std::memcpy(theirs.data() + i * sizeof(float), &ft, sizeof ft);
  }
  expected_result narrowed = e;
  narrowed.type = real ? ufunc::dtype_of<float> : ufunc::dtype_of<std::complex<float>>;
  narrowed.data = std::move(theirs);
  got = std::move(ours);
  return narrowed;
}

}  // namespace differential
