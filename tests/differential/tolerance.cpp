// The tolerance tables and the condition-aware bound's scales.
#include "tolerance.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <set>
#include <type_traits>

#include "operands.hpp"

namespace differential {

tolerance ulp_bound(std::string_view name) {
  // Exact: IEEE operations that are correctly rounded, and operations with no rounding.
  static const std::set<std::string_view> exact = {
      "add",           "subtract",    "multiply",   "negative",      "positive",    "absolute",   "fabs",
      "sign",          "square",      "conjugate",  "floor_divide",  "remainder",   "fmod",       "divmod",
      "maximum",       "minimum",     "fmax",       "fmin",          "copysign",    "nextafter",  "spacing",
      "ldexp",         "frexp",       "modf",       "floor",         "ceil",        "trunc",      "rint",
      "heaviside",     "isnan",       "isinf",      "isfinite",      "signbit",     "equal",      "not_equal",
      "less",          "less_equal",  "greater",    "greater_equal", "logical_and", "logical_or", "logical_xor",
      "logical_not",   "bitwise_and", "bitwise_or", "bitwise_xor",   "invert",      "left_shift", "right_shift",
      "bitwise_count", "gcd",         "lcm",        "divide",        "reciprocal",  "sqrt",       "diff_fma",
      "diff_relu",     "diff_split"};
  // Complex results of these go through several roundings (Smith's division, hypot, csqrt).
  static const std::set<std::string_view> complex_rounded = {"divide", "reciprocal", "sqrt", "absolute", "sign"};
  // a*b - c*d: NumPy's AVX2/AVX-512 complex loops contract it to an FMA, plain C does not.
  static const std::set<std::string_view> complex_products = {"multiply", "square"};
  // Which of two equal zeros comes back is unspecified (C fmax, NumPy's SIMD maximum).
  static const std::set<std::string_view> zero_sign_free = {"maximum", "minimum", "fmax", "fmin"};
  // One rounding of a product by a constant.
  static const std::set<std::string_view> one_ulp = {"deg2rad", "rad2deg", "radians", "degrees"};
  const bool zs = zero_sign_free.count(name) == 0;
  if (exact.count(name)) return {0, complex_rounded.count(name) ? 4 : complex_products.count(name) ? 2 : 0, zs};
  if (one_ulp.count(name)) return {1, 1, zs};
  return {4, 4, zs};  // transcendental functions (libm and SIMD approximations)
}

condition_kind condition_of(std::string_view name, dtype result) {
  if (name == "logaddexp" || name == "logaddexp2") return condition_kind::input_scale;
  if ((name == "power" || name == "float_power") && result.is_complex()) return condition_kind::exponent;
  return condition_kind::none;
}

namespace {

// The value of one element of dtype `t` as a complex number (reals: imaginary part 0).
std::complex<double> value_at(dtype t, const std::byte* p) {
  std::complex<double> v;
  ufunc::visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    T x;
    std::memcpy(&x, p, sizeof(T));
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      v = {static_cast<double>(x.real()), static_cast<double>(x.imag())};
    else
      v = static_cast<double>(x);
  });
  return v;
}

// Each input's values, one per element of the result (C order): broadcast to `shape`
// for call; for outer, a's over the leading axes and b's over the trailing ones.
std::vector<std::vector<std::complex<double>>> inputs_per_element(const test_case& c, const ufunc::dim_vector& shape,
                                                                  std::size_t n) {
  std::vector<std::vector<std::complex<double>>> out;
  std::vector<built_array> keep(c.inputs.size());
  std::vector<std::int64_t> sizes;
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    const auto& in = c.inputs[k];
    std::vector<std::complex<double>> v;
    if (in.is_scalar) {
      v.assign(n, {in.scalar.kind == 'u'                            ? static_cast<double>(in.scalar.u)
                   : in.scalar.kind == 'b' || in.scalar.kind == 'i' ? static_cast<double>(in.scalar.i)
                                                                    : in.scalar.re,
                   in.scalar.kind == 'c' ? in.scalar.im : 0.0});
      sizes.push_back(1);
    } else {
      keep[k] = build(in.arr, false);
      array view = keep[k].view;
      if (c.method == "call") view = view.broadcast_to(shape);
      for (auto off : element_offsets(view, view)) v.push_back(value_at(view.type(), view.data() + off));
      sizes.push_back(std::max<std::int64_t>(view.size(), 1));
    }
    out.push_back(std::move(v));
  }
  if (c.method == "outer" && out.size() == 2) {  // result [i, j] = f(a[i], b[j])
    std::vector<std::vector<std::complex<double>>> expanded(2);
    const auto nb = static_cast<std::size_t>(sizes[1]);
    for (std::size_t i = 0; i < n; ++i) {
      expanded[0].push_back(out[0][c.inputs[0].is_scalar ? i : i / nb]);
      expanded[1].push_back(out[1][c.inputs[1].is_scalar ? i : i % nb]);
    }
    return expanded;
  }
  return out;
}

}  // namespace

condition_bound condition_scales(const test_case& c, condition_kind kind) {
  condition_bound cb;
  if (kind == condition_kind::none || c.expected.size() != 1 || c.inputs.size() != 2) return cb;
  if (c.method != "call" && !(c.method == "outer" && !c.where)) return cb;
  const auto& e = c.expected[0];
  const std::size_t n = e.data.size() / e.type.itemsize();
  const auto in = inputs_per_element(c, e.shape, n);
  if (in[0].size() != n || in[1].size() != n) return cb;
  std::vector<char> written(n, 1);  // where=False elements keep the out= values: no condition bound there
  if (c.where && c.method == "call") {
    const auto w = build(*c.where, false);
    const array wv = w.view.broadcast_to(e.shape);
    std::size_t i = 0;
    for (auto off : element_offsets(wv, wv)) written[i++] = value_at(wv.type(), wv.data() + off) != 0.0;
  }
  cb.relative = kind == condition_kind::exponent;
  cb.scale.assign(n, -1.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!written[i]) continue;
    const auto a = in[0][i], b = in[1][i];
    double s;
    if (kind == condition_kind::input_scale) {
      s = std::max(std::abs(a.real()), std::abs(b.real()));
    } else {
      s = 1.0 + std::abs(b * std::log(a));                                 // 1 + |w log z|
      if (!std::isfinite(s)) s = std::numeric_limits<double>::infinity();  // w log z inf or NaN: no direction
    }
    if (!std::isnan(s)) cb.scale[i] = s;
  }
  return cb;
}

}  // namespace differential
