// --self-check: the comparison's condition-aware bound on synthetic cases, and the
// floating-point flags of a real replay of diff_fma against made-up NumPy flags.
#include "self_check.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <iostream>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <ufunc/ufunc.hpp>

#include "case_file.hpp"
#include "compare.hpp"
#include "fp_flags.hpp"
#include "replay.hpp"
#include "tolerance.hpp"
#include "user_ufuncs.hpp"

namespace differential {
namespace {

template <class T>
array_spec spec_of(const std::vector<T>& v) {  // a one-dimensional array holding `v`
  array_spec a;
  a.type = ufunc::dtype_of<T>;
  a.shape = {static_cast<std::int64_t>(v.size())};
  const auto* p = reinterpret_cast<const std::byte*>(v.data());
  a.data.assign(p, p + v.size() * sizeof(T));
  return a;
}

// Whether `ours` passes against NumPy's `np` for the binary call `name`(x, y) as run_case compares it.
template <class T, class X, class Y>
bool passes(std::string_view name, X x, Y y, T np, T ours) {
  test_case c;
  c.canonical = std::string(name);
  c.inputs.push_back({false, spec_of(std::vector<X>{x}), {}});
  c.inputs.push_back({false, spec_of(std::vector<Y>{y}), {}});
  expected_result e;
  e.type = ufunc::dtype_of<T>;
  e.shape = {1};
  const auto* p = reinterpret_cast<const std::byte*>(&np);
  e.data.assign(p, p + sizeof(T));
  c.expected.push_back(e);
  const auto cond = condition_scales(c, condition_of(name, e.type));
  const auto* q = reinterpret_cast<const std::byte*>(&ours);
  const std::vector<std::byte> got(q, q + sizeof(T));
  bool cplx = false;
  if constexpr (!std::is_floating_point_v<X>) cplx = true;
  return compare_result(e, e.type, e.shape, got, ulp_bound(name), cplx, {}, "result",
                        cond.scale.empty() ? nullptr : &cond)
      .empty();
}

}  // namespace

int self_check() {
  int failed = 0;
  auto expect = [&](bool got, bool want, const char* what) {
    if (got != want) {
      std::cout << "FAIL self-check: " << what << ": " << (got ? "accepted" : "rejected") << "\n";
      ++failed;
    }
  };
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  {  // logaddexp cancelling: logaddexp(-0.69, -0.70) = 0.0012...; scale 0.7
    const double x = -0.69, y = -0.70, r = std::max(x, y) + std::log1p(std::exp(-std::abs(x - y)));
    const double eps = std::numeric_limits<double>::epsilon();
    expect(passes<double>("logaddexp", x, y, r, r + 2 * eps * 0.7), true, "logaddexp, cancelling, 2 eps of |x|");
    expect(passes<double>("logaddexp", x, y, r, r + 3 * eps * 0.7), true, "logaddexp, cancelling, 3 eps of |x|");
    expect(passes<double>("logaddexp", x, y, r, r + 5 * eps * 0.7), false, "logaddexp, cancelling, 5 eps of |x|");
    expect(passes<double>("logaddexp", x, y, r, r * (1 + 1e-3)), false, "logaddexp, cancelling, 1e-3 relative");
    expect(passes<double>("logaddexp", x, y, r, nan), false, "logaddexp, NaN for a number");
    expect(passes<double>("logaddexp", x, y, nan, r), false, "logaddexp, a number for NaN");
    // The same absolute error on a well-conditioned (large) result is within ulps anyway; a
    // 1e-3 relative error is not.
    expect(passes<double>("logaddexp", 3.0, 2.0, std::log(std::exp(3.0) + std::exp(2.0)),
                          std::log(std::exp(3.0) + std::exp(2.0)) * (1 + 1e-3)),
           false, "logaddexp, well-conditioned, 1e-3 relative");
    expect(passes<double>("logaddexp", 1e300, 1.0, inf, 1e300), false, "logaddexp, finite for inf");
    // Other ufuncs keep their ulp bound: 5 eps of the inputs' scale fails for add.
    expect(passes<double>("add", x, y, x + y, (x + y) + 5 * eps * 0.7), false, "add, 5 eps of |x|");
  }
  {  // logaddexp2, float32
    const float x = -0.9f, y = -1.0f;
    const float r = static_cast<float>(std::log2(std::exp2(-0.9) + std::exp2(-1.0)));
    const float eps = std::numeric_limits<float>::epsilon();
    expect(passes<float>("logaddexp2", x, y, r, r + 3 * eps), true, "logaddexp2 float32, 3 eps of |y|");
    expect(passes<float>("logaddexp2", x, y, r, r + 5 * eps), false, "logaddexp2 float32, 5 eps of |y|");
    expect(passes<float>("logaddexp2", x, y, r, r * (1 + 1e-3f)), false, "logaddexp2 float32, 1e-3 relative");
  }
  {  // complex power: z**w with |w log z| about 30 (ill-conditioned) and about 1 (not)
    using C = std::complex<double>;
    const double eps = std::numeric_limits<double>::epsilon();
    for (const auto& [z, w, ill] :
         {std::tuple{C(2.0, 1.0), C(20.0, -3.0), true}, std::tuple{C(1.5, 0.5), C(1.0, 0.5), false}}) {
      const C r = std::exp(w * std::log(z));
      const double cond = 1 + std::abs(w * std::log(z));
      const double off = 3 * eps * cond * std::abs(r);  // in each part, within the bound
      expect(passes<C>("power", z, w, r, r + C(off, -off)), true, "complex power, 3 eps (1 + |w log z|) |r|");
      expect(passes<C>("float_power", z, w, r, r + C(0, off)), true, "complex float_power, 3 eps (1 + |w log z|) |r|");
      expect(passes<C>("power", z, w, r, r + C(5 * eps * cond * std::abs(r), 0)), false,
             "complex power, 5 eps (1 + |w log z|) |r|");
      expect(passes<C>("power", z, w, r, r * C(1 + 1e-3, 0)), false, "complex power, 1e-3 relative");
      expect(passes<C>("power", z, w, r, C(r.real(), nan)), false, "complex power, NaN part for a number");
      expect(passes<C>("power", z, w, C(inf, 0), C(1e308, 0)), false, "complex power, finite for inf");
      (void)ill;
    }
    // Direction lost: |w log z| about 1e130, so Im(w log z) is known to no digit and the
    // overflowed result's parts may carry any sign; a finite value for inf stays wrong,
    // and so does a sign flip where the angle is meaningful (|w log z| about 700).
    const C zh(0.26, 9.4), wh(6.2e129, 1.0);
    expect(passes<C>("float_power", zh, wh, C(-inf, inf), C(inf, inf)), true,
           "complex power, direction lost, inf signs");
    expect(passes<C>("float_power", zh, wh, C(-inf, inf), C(1e308, inf)), false,
           "complex power, direction lost, finite for inf");
    expect(passes<C>("power", C(10.0, -inf), C(-3e38, -1.5e22), C(0.0, -0.0), C(0.0, 0.0)), true,
           "complex power, w log z infinite, zero signs");
    expect(passes<C>("power", C(10.0, -inf), C(-3e38, -1.5e22), C(0.0, -0.0), C(1e-300, 0.0)), false,
           "complex power, w log z infinite, tiny for zero");
    const C zm(std::exp(1.0), 0.0), wm(710.0, 0.5);  // |r| overflows, angle 0.5: signs well defined
    expect(passes<C>("power", zm, wm, C(inf, inf), C(inf, -inf)), false, "complex power, meaningful angle, inf sign");
    // Real power keeps its ulp bound.
    const double r = std::pow(2.0, 30.5);
    expect(passes<double>("power", 2.0, 30.5, r, r * (1 + 8 * eps)), false, "real power, 8 eps relative");
  }
  {  // Floating-point flags: a real replay of diff_fma on the cpu target, against made-up NumPy flags.
    const auto* fma = user_ufunc("diff_fma");
    constexpr unsigned divide = 1, overflow = 2, underflow = 4, invalid = 8;
    // diff_fma(a, b, c) = a * b + c: 1e308 * 10 overflows (NumPy: {overflow}); 1 * 2 + 0 raises nothing.
    auto fma_case = [](double a, unsigned np_flags, unsigned free) {
      test_case c;
      c.ufunc_name = "diff_fma";
      for (double x : {a, 10.0, 0.0}) c.inputs.push_back({false, spec_of(std::vector<double>{x}), {}});
      expected_result e;
      e.type = ufunc::dtype_of<double>;
      e.shape = {1};
      const double r = a * 10.0;
      const auto* p = reinterpret_cast<const std::byte*>(&r);
      e.data.assign(p, p + sizeof r);
      c.expected.push_back(e);
      c.has_flags = true;
      c.np_flags = np_flags;
      c.flags_free = free;
      return c;
    };
    auto agrees = [&](const test_case& c, fp_mode mode) {
      return run_case(c, *fma, ufunc::target_id::cpu, true, mode).k == run_result::kind::pass;
    };
    expect(agrees(fma_case(1e308, overflow, 0), fp_mode::call), true, "flags: the same as NumPy's");
    expect(agrees(fma_case(1e308, 0, 0), fp_mode::call), false, "flags: ours {overflow}, NumPy {}");
    expect(agrees(fma_case(1e308, overflow | invalid, 0), fp_mode::call), false,
           "flags: ours {overflow}, NumPy {overflow,invalid}");
    expect(agrees(fma_case(1e308, overflow | invalid, invalid), fp_mode::call), true,
           "flags: invalid left out by the generator");
    expect(agrees(fma_case(0.1, divide, 0), fp_mode::call), false, "flags: ours {}, NumPy {divide}");
    expect(agrees(fma_case(0.1, underflow, 0), fp_mode::call), false,
           "flags: underflow compared for a correctly rounded loop");
    expect(agrees(fma_case(1e308, overflow, 0), fp_mode::raise), true, "raise: both raise overflow");
    expect(agrees(fma_case(1e308, 0, 0), fp_mode::raise), false, "raise: ours throws, NumPy does not");
    expect(agrees(fma_case(0.1, invalid, 0), fp_mode::raise), false, "raise: NumPy throws, ours does not");
    expect(agrees(fma_case(1e308, divide | overflow, 0), fp_mode::raise), false,
           "raise: NumPy throws for divide first");
    expect(agrees(fma_case(1e308, overflow, 0), fp_mode::warn), true, "warn: both warn overflow");
    expect(agrees(fma_case(1e308, overflow | invalid, 0), fp_mode::warn), false, "warn: NumPy warns invalid too");
    expect(agrees(fma_case(1e308, 0, overflow), fp_mode::warn), true, "warn: overflow left out");
  }
  std::cout << "ufunc_differential --self-check: " << (failed ? "FAILED" : "ok") << "\n";
  return failed ? 1 : 0;
}

}  // namespace differential
