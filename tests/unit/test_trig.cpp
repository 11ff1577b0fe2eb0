// float32 sin and cos (ufuncs/src/simd_trig.hpp): accuracy against the double-
// precision functions, the same bits on every instruction set of a kernel variant (the
// suite runs once per set: tests/CMakeLists.txt), NumPy's special values, and the
// floating-point flags, which must be glibc's for special lanes and none for ordinary
// ones. The exhaustive version of the first two checks is bench/trig_bench.cpp --verify.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "test_support.hpp"

namespace {

using ufunc::fp_policy;

// The error of `got` in units of the last place of the correctly rounded result.
double ulp_error(float got, double exact) {
  const float rounded = static_cast<float>(exact);
  int e = 0;
  std::frexp(std::fabs(rounded), &e);
  const double ulp = std::ldexp(1.0, std::max(e, -125) - 24);
  return std::fabs(static_cast<double>(got) - exact) / ulp;
}

ufunc::array_t<float> float_array(const std::vector<float>& v) {
  auto a = ufunc::empty<float>({static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) a.data()[i] = v[i];
  return a;
}

// Inputs over the fast range [2^-40, 2^17) and next to multiples of pi/2, where the
// reduced argument is smallest.
std::vector<float> sample_inputs() {
  std::vector<float> v;
  for (std::uint32_t b = 0x2b800000u; b < 0x48000000u; b += 4093u) v.push_back(std::bit_cast<float>(b));
  for (int k = 1; k < 83443; k += 7) {
    const float m = static_cast<float>(k * (M_PI / 2));
    float lo = m, hi = m;
    for (int i = 0; i < 3; ++i) {
      lo = std::nextafter(lo, 0.0f);
      hi = std::nextafter(hi, 1e9f);
      v.push_back(lo);
      v.push_back(hi);
    }
    v.push_back(m);
  }
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

// The floating-point flags (fp_flag bits) that the call raises.
template <class F>
unsigned flags_of(F&& f) {
  unsigned seen = 0;
  ufunc::errstate guard({.all = fp_policy::call}, [&](std::string_view, unsigned flags) { seen |= flags; });
  f();
  return seen;
}

// The kernel variant that the instruction set of the built-in loops runs: "fma" (AVX2,
// AVX-512) or "double" (SSE2, SSE4.2 and other architectures), each with its own bits.
bool fma_variant() {
  const auto arch = ufunc::simd_arch();
  return arch == "avx2" || arch == "avx512bw";
}

constexpr unsigned underflow = static_cast<unsigned>(ufunc::fp_flag::underflow);
constexpr unsigned invalid = static_cast<unsigned>(ufunc::fp_flag::invalid);

}  // namespace

TEST_CASE("sin, cos float32: within 1 ulp of the double-precision functions, per variant") {
  const auto in = sample_inputs();
  const auto x = float_array(in);
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(target);
    const ufunc_test::parallel_split split(1000);
    const auto s = ufunc::sin(x, {.target = target}).to_vector<float>();
    const auto c = ufunc::cos(x, {.target = target}).to_vector<float>();
    double worst_sin = 0, worst_cos = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      worst_sin = std::max(worst_sin, ulp_error(s[i], std::sin(static_cast<double>(in[i]))));
      worst_cos = std::max(worst_cos, ulp_error(c[i], std::cos(static_cast<double>(in[i]))));
    }
    // Under 1 ulp, and under each variant's exhaustive maximum (bench/RESULTS.md, rounded
    // up), which a change of its arithmetic would show.
    CAPTURE(ufunc::simd_arch());
    CHECK(worst_sin < (fma_variant() ? 0.87 : 0.6));
    CHECK(worst_cos < (fma_variant() ? 0.87 : 0.6));
  }
}

TEST_CASE("sin, cos float32: the same bits on every instruction set of a variant") {
  // A hash of the results on sample_inputs(), all in the fast range (no libm): the
  // suite runs on each instruction set and each must find its variant's value. A change
  // of the kernel that changes any result needs a new value here (and a new exhaustive
  // run of bench/trig_bench.cpp --verify).
  const auto x = float_array(sample_inputs());
  std::uint64_t hash = 14695981039346656037ull;
  for (const auto* name : {"sin", "cos"}) {
    const auto r = (name[0] == 's' ? ufunc::sin(x) : ufunc::cos(x)).to_vector<float>();
    for (const float v : r) hash = (hash ^ std::bit_cast<std::uint32_t>(v)) * 1099511628211ull;
  }
  CAPTURE(ufunc::simd_arch());
  CHECK(hash == (fma_variant() ? 0xcb535ec54e0ab06bull : 0x1326fceeff336d3dull));
}

TEST_CASE("sin, cos float32: special values and their flags, as NumPy and glibc") {
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  const float subnormal = 1e-40f;
  // Each value in a batch of ordinary values, at every position of a SIMD batch.
  auto one = [](float v, bool cosine, std::int64_t pos) {
    std::vector<float> in(37, 0.5f);
    in[static_cast<std::size_t>(pos)] = v;
    const auto x = float_array(in);
    float r = 0;
    const unsigned flags = flags_of(
        [&] { r = (cosine ? ufunc::cos(x) : ufunc::sin(x)).to_vector<float>()[static_cast<std::size_t>(pos)]; });
    return std::pair{r, flags};
  };
  for (const std::int64_t pos : {0, 5, 36}) {
    CAPTURE(pos);
    auto [s0, f0] = one(-0.0f, false, pos);
    CHECK((s0 == 0.0f && std::signbit(s0)));
    CHECK(f0 == 0);
    CHECK(one(0.0f, false, pos) == std::pair{0.0f, 0u});
    CHECK(one(-0.0f, true, pos) == std::pair{1.0f, 0u});
    for (const bool cosine : {false, true}) {
      CAPTURE(cosine);
      for (const float v : {inf, -inf}) {
        auto [r, f] = one(v, cosine, pos);
        CHECK(std::isnan(r));
        CHECK(f == invalid);
      }
      auto [rn, fn] = one(nan, cosine, pos);
      CHECK(std::isnan(rn));
      CHECK(fn == 0);
      // Arguments beyond the fast range: glibc's correctly reduced values.
      for (const float v : {131072.0f, -2e5f, 1e30f, 3.4e38f}) {
        CAPTURE(v);
        CHECK(one(v, cosine, pos) == std::pair{cosine ? std::cos(v) : std::sin(v), 0u});
      }
      // Tiny normal arguments: no flag (NumPy's SIMD loop raises underflow below
      // about 2^-61; glibc does not).
      for (const float v : {1e-30f, -1e-20f, 1e-12f, 1e-10f, 2e-38f}) {
        CAPTURE(v);
        CHECK(one(v, cosine, pos) == std::pair{cosine ? 1.0f : v, 0u});
      }
    }
    // A subnormal: sin(x) = x with underflow (NumPy and glibc); cos(x) = 1 without
    // a flag (glibc; NumPy raises underflow there too).
    CHECK(one(subnormal, false, pos) == std::pair{subnormal, underflow});
    CHECK(one(-subnormal, false, pos) == std::pair{-subnormal, underflow});
    CHECK(one(subnormal, true, pos) == std::pair{1.0f, 0u});
  }
}

TEST_CASE("sin, cos float32: no flags from ordinary inputs in SIMD bodies, tails, strided and parallel pieces") {
  const ufunc_test::parallel_split split(5);
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(target);
    const ufunc::call_options on{.target = target};
    for (std::int64_t n = 1; n <= 70; ++n) {
      CAPTURE(n);
      auto a = ufunc::empty<float>({n});
      auto b = ufunc::empty<float>({3 * n});
      for (std::int64_t i = 0; i < n; ++i) a.data()[i] = (i % 3 == 0) ? 1e-12f * float(i + 1) : 0.7f * float(i) - 20;
      for (std::int64_t i = 0; i < 3 * n; ++i) b.data()[i] = 1000.5f * float(i) - 7e4f;
      const auto bs = b[{ufunc::slice{std::nullopt, std::nullopt, 3}}];
      CHECK(flags_of([&] { (void)ufunc::sin(a, on); }) == 0);
      CHECK(flags_of([&] { (void)ufunc::cos(a, on); }) == 0);
      CHECK(flags_of([&] { (void)ufunc::sin(bs, on); }) == 0);
      CHECK(flags_of([&] { (void)ufunc::cos(bs, on); }) == 0);
      // One infinity, wherever it is, raises invalid.
      const std::int64_t k = n / 2;
      const float saved = a.data()[k];
      a.data()[k] = std::numeric_limits<float>::infinity();
      CHECK(flags_of([&] { (void)ufunc::sin(a, on); }) == invalid);
      a.data()[k] = saved;
    }
  }
}
