// errstate on the cuda target: the flags the device gathers (backends/cuda/fp_flags.hpp,
// ufuncs/src/device_fp_rules.hpp) against NumPy's, loop by loop at edge values, and
// the policies: raise and call at the call, warn deferred to the next wait for the
// stream, nothing corrupted.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <ufunc/backends/cuda/runtime.hpp>

#include "../test_support.hpp"

namespace {

constexpr auto cuda = ufunc::target_id::cuda;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct fp_case {
  const char* name;
  const char* loop;
  double re[2];
  double im[2];
  unsigned flags;
};

const fp_case numpy_cases[] = {
#include "../data/numpy_fp_flags.inc"
};

// Where the device's flags differ from NumPy's: NumPy's come from its host code's
// intermediate steps, which the device does not repeat. Each key: ufunc, loop, the
// device's flags, NumPy's flags (a case outside these keys must agree exactly).
const std::string complex_steps =
    "NumPy's complex loops (npy_c* over glibc) raise flags in intermediate steps that C99 Annex G leaves "
    "open: invalid for NaN parts, underflow in products of tiny parts, overflow in |z| or Smith's division";
const std::string simd_float32 =
    "NumPy's AVX-512 float32 sin/cos/exp raise underflow in their polynomial for tiny arguments";
const std::string pow_overflow = "glibc's pow(DBL_MAX, inf) raises overflow; pow(2, inf) does not";
const std::map<std::string, std::string> known_differences = {
    {"arccos D->D 0 4", complex_steps},
    {"arccos F->F 0 4", complex_steps},
    {"arccosh D->D 0 4", complex_steps},
    {"arccosh F->F 0 4", complex_steps},
    {"arcsin D->D 0 4", complex_steps},
    {"arcsin F->F 0 4", complex_steps},
    {"arcsinh D->D 0 4", complex_steps},
    {"arcsinh F->F 0 4", complex_steps},
    {"arctan D->D 0 4", complex_steps},
    {"arctan F->F 0 4", complex_steps},
    {"arctanh D->D 0 4", complex_steps},
    {"arctanh F->F 0 4", complex_steps},
    {"cos D->D 0 4", complex_steps},
    {"cos f->f 0 4", simd_float32},
    {"cos F->F 0 4", complex_steps},
    {"cosh D->D 0 4", complex_steps},
    {"cosh F->F 0 4", complex_steps},
    {"divide DD->D 0 4", complex_steps},
    {"divide DD->D 0 8", complex_steps},
    {"divide DD->D 8 12", complex_steps},
    {"divide FF->F 0 4", complex_steps},
    {"divide FF->F 0 8", complex_steps},
    {"divide FF->F 8 12", complex_steps},
    {"exp2 D->D 0 4", complex_steps},
    {"exp2 D->D 0 8", complex_steps},
    {"exp2 F->F 0 4", complex_steps},
    {"exp2 F->F 0 8", complex_steps},
    {"exp D->D 0 8", complex_steps},
    {"exp f->f 0 4", simd_float32},
    {"exp F->F 0 8", complex_steps},
    {"expm1 D->D 0 2", complex_steps},
    {"expm1 D->D 0 4", complex_steps},
    {"expm1 F->F 0 2", complex_steps},
    {"expm1 F->F 0 4", complex_steps},
    {"float_power DD->D 0 10", complex_steps},
    {"float_power DD->D 0 2", complex_steps},
    {"float_power DD->D 0 4", complex_steps},
    {"float_power DD->D 0 8", complex_steps},
    {"float_power DD->D 2 10", complex_steps},
    {"float_power DD->D 2 14", complex_steps},
    {"float_power DD->D 2 6", complex_steps},
    {"float_power DD->D 8 10", complex_steps},
    {"float_power DD->D 8 12", complex_steps},
    {"log10 D->D 0 4", complex_steps},
    {"log10 F->F 0 4", complex_steps},
    {"log1p D->D 0 4", complex_steps},
    {"log1p F->F 0 4", complex_steps},
    {"log2 D->D 0 4", complex_steps},
    {"log2 F->F 0 4", complex_steps},
    {"log D->D 0 4", complex_steps},
    {"log F->F 0 4", complex_steps},
    {"multiply DD->D 0 2", complex_steps},
    {"multiply FF->F 0 2", complex_steps},
    {"power DD->D 0 10", complex_steps},
    {"power dd->d 0 2", pow_overflow},
    {"power DD->D 0 2", complex_steps},
    {"power DD->D 0 4", complex_steps},
    {"power DD->D 0 8", complex_steps},
    {"power DD->D 2 10", complex_steps},
    {"power DD->D 2 14", complex_steps},
    {"power DD->D 2 6", complex_steps},
    {"power DD->D 8 10", complex_steps},
    {"power DD->D 8 12", complex_steps},
    {"power FF->F 0 10", complex_steps},
    {"power ff->f 0 2", pow_overflow},
    {"power FF->F 0 2", complex_steps},
    {"power FF->F 0 4", complex_steps},
    {"power FF->F 0 8", complex_steps},
    {"power FF->F 2 10", complex_steps},
    {"power FF->F 2 14", complex_steps},
    {"power FF->F 2 6", complex_steps},
    {"power FF->F 8 10", complex_steps},
    {"power FF->F 8 12", complex_steps},
    {"reciprocal D->D 0 4", complex_steps},
    {"reciprocal D->D 0 8", complex_steps},
    {"reciprocal F->F 0 4", complex_steps},
    {"reciprocal F->F 0 8", complex_steps},
    {"sign D->D 0 4", complex_steps},
    {"sign F->F 0 4", complex_steps},
    {"sin D->D 0 4", complex_steps},
    {"sin D->D 0 8", complex_steps},
    {"sin f->f 0 4", simd_float32},
    {"sin F->F 0 4", complex_steps},
    {"sin F->F 0 8", complex_steps},
    {"sinh D->D 0 4", complex_steps},
    {"sinh D->D 0 8", complex_steps},
    {"sinh F->F 0 4", complex_steps},
    {"sinh F->F 0 8", complex_steps},
    {"tan D->D 0 4", complex_steps},
    {"tan F->F 0 4", complex_steps},
    {"tanh D->D 0 4", complex_steps},
    {"tanh F->F 0 4", complex_steps},
};

ufunc::array one_element(const fp_case& c, int k, char type) {
  auto host = ufunc::array::empty({1}, ufunc::complex128);
  *reinterpret_cast<std::complex<double>*>(host.data()) = {c.re[k], c.im[k]};
  return ufunc::to_device(host.astype(ufunc::dtype::from_char(type)));
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

std::string describe(const fp_case& c, unsigned got) {
  std::string s = std::string(c.name) + " " + c.loop + " (";
  const std::string loop = c.loop;
  const auto nin = loop.find("->");
  for (std::size_t k = 0; k < nin; ++k) {
    if (k) s += ", ";
    s += number(c.re[k]);
    if (loop[k] == 'F' || loop[k] == 'D') s += (c.im[k] < 0 ? "" : "+") + number(c.im[k]) + "j";
  }
  return s + "): device " + std::to_string(got) + ", NumPy " + std::to_string(c.flags);
}

}  // namespace

TEST_CASE("cuda errstate: the device's flags equal NumPy's for every float loop at edge values") {
  unsigned seen = 0;
  ufunc::errstate all_call({.all = ufunc::fp_policy::call}, [&](std::string_view, unsigned f) { seen |= f; });
  std::vector<std::string> unexpected;
  std::map<std::string, int> known_seen;
  int compared = 0;
  for (const auto& c : numpy_cases) {
    const ufunc::function* f = ufunc::find_builtin(c.name);
    REQUIRE(f != nullptr);
    const std::string loop = c.loop;
    const int nin = static_cast<int>(loop.find("->"));
    std::vector<ufunc::operand> inputs;
    for (int k = 0; k < nin; ++k) inputs.emplace_back(one_element(c, k, loop[static_cast<std::size_t>(k)]));
    seen = 0;
    (void)f->call(inputs, {.signature = c.loop, .target = cuda});
    ++compared;
    if (seen == c.flags) continue;
    const std::string key =
        std::string(c.name) + " " + c.loop + " " + std::to_string(seen) + " " + std::to_string(c.flags);
    if (known_differences.count(key))
      ++known_seen[key];
    else
      unexpected.push_back(describe(c, seen));
  }
  MESSAGE(compared << " one-element calls compared with NumPy; " << unexpected.size() << " unexpected differences");
  for (const auto& [key, n] : known_seen) MESSAGE("known difference, " << n << " case(s): " << key);
  for (const auto& u : unexpected) MESSAGE("differs: " << u);
  CHECK(unexpected.empty());
}

namespace {

// Collects warnings instead of printing them; restores the default on exit.
struct captured_warnings {
  std::vector<std::string> messages;
  captured_warnings() {
    ufunc::set_warning_handler([this](std::string_view m) { messages.emplace_back(m); });
  }
  ~captured_warnings() { ufunc::set_warning_handler({}); }
  captured_warnings(const captured_warnings&) = delete;
  captured_warnings& operator=(const captured_warnings&) = delete;
};

ufunc::array host_values(const std::vector<double>& v) {
  auto a = ufunc::empty<double>({static_cast<std::int64_t>(v.size())});
  std::copy(v.begin(), v.end(), a.data());
  return a;
}
ufunc::array device_values(const std::vector<double>& v) { return ufunc::to_device(host_values(v)); }

}  // namespace

TEST_CASE("cuda errstate: raise throws at the call that divided by zero; out= holds the results; the next call works") {
  const auto one = device_values({1.0, 2.0, 3.0}), zero = device_values({1.0, 0.0, 1.0});
  auto out = ufunc::to_device(ufunc::array::zeros({3}, ufunc::float64));
  {
    ufunc::errstate guard({.divide = ufunc::fp_policy::raise});
    CHECK_THROWS_WITH_AS(ufunc::divide(one, zero, {.out = {out}, .target = cuda}),
                         "divide by zero encountered in divide", ufunc::floating_point_error);
    const auto got = ufunc::to_host(out).to_vector<double>();
    CHECK(got == std::vector<double>{1.0, inf, 3.0});  // written, as NumPy writes before raising
    // The same call without a zero divisor, and an invalid value under 'raise' for divide only.
    CHECK_NOTHROW(ufunc::divide(one, one, {.out = {out}, .target = cuda}));
    CHECK_NOTHROW(ufunc::sqrt(device_values({-1.0}), {.target = cuda}));
  }
  {
    ufunc::errstate guard({.invalid = ufunc::fp_policy::raise});
    try {
      (void)ufunc::sqrt(device_values({4.0, -1.0}), {.target = cuda});
      FAIL("sqrt(-1) under invalid='raise' did not throw");
    } catch (const ufunc::floating_point_error& e) {
      CHECK(e.flag() == static_cast<unsigned>(ufunc::fp_flag::invalid));
    }
  }
  CHECK(ufunc::to_host(ufunc::add(one, one, {.target = cuda})).to_vector<double>() == std::vector<double>{2, 4, 6});
}

TEST_CASE("cuda errstate: warn is reported when the library next waits for the stream, under the call's policies") {
  captured_warnings w;
  const auto x = device_values({0.0, 1.0});
  auto r = ufunc::log(x, {.target = cuda});  // NumPy's default policies: divide='warn'
  CHECK(w.messages.empty());                 // the call did not wait
  {
    // Policies changed after the call do not apply to it.
    ufunc::errstate guard({.all = ufunc::fp_policy::raise});
    const auto host = ufunc::to_host(r);
    CHECK(host.to_vector<double>()[0] == -inf);
  }
  REQUIRE(w.messages.size() == 1);
  CHECK(w.messages[0] == "divide by zero encountered in log");
  w.messages.clear();
  ufunc::backends::cuda::synchronize();  // nothing left to report
  CHECK(w.messages.empty());
}

TEST_CASE("cuda errstate: ignore gathers nothing; host-in/host-out calls report before they return") {
  captured_warnings w;
  {
    ufunc::errstate guard({.all = ufunc::fp_policy::ignore});
    (void)ufunc::to_host(ufunc::log(device_values({0.0}), {.target = cuda}));
  }
  CHECK(w.messages.empty());
  const auto host_result = ufunc::divide(host_values({0.0}), host_values({0.0}), {.target = cuda});
  CHECK(std::isnan(host_result.to_vector<double>()[0]));
  REQUIRE(w.messages.size() == 1);
  CHECK(w.messages[0] == "invalid value encountered in divide");
}

TEST_CASE("cuda errstate: more calls in flight than flag slots, each reported once, in order") {
  captured_warnings w;
  const auto x = device_values({1e300});
  constexpr int calls = 2500;  // more than twice the ring
  for (int i = 0; i < calls; ++i) (void)ufunc::multiply(x, x, {.target = cuda});
  ufunc::backends::cuda::synchronize();
  CHECK(w.messages.size() == calls);
  CHECK(w.messages.back() == "overflow encountered in multiply");
}

TEST_CASE("cuda errstate: the call policy calls the function at the call with every kind raised") {
  std::vector<unsigned> calls;
  ufunc::errstate guard({.all = ufunc::fp_policy::call}, [&](std::string_view, unsigned f) { calls.push_back(f); });
  // 0/0 and 1/0 in one call: invalid and divide, the function once per kind.
  (void)ufunc::divide(device_values({0.0, 1.0}), device_values({0.0, 0.0}), {.target = cuda});
  REQUIRE(calls.size() == 2);
  CHECK(calls[0] == (static_cast<unsigned>(ufunc::fp_flag::divide) | static_cast<unsigned>(ufunc::fp_flag::invalid)));
}

TEST_CASE("cuda: integer power with a negative exponent raises value_error at the call, whatever the policies") {
  auto base = ufunc::empty<std::int32_t>({4}), exponent = ufunc::empty<std::int32_t>({4});
  for (int i = 0; i < 4; ++i) base.data()[i] = i + 2, exponent.data()[i] = i;
  const auto db = ufunc::to_device(base), de = ufunc::to_device(exponent);
  CHECK(ufunc::to_host(ufunc::power(db, de, {.target = cuda})).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{1, 3, 16, 125});
  exponent.data()[2] = -1;
  const auto negative = ufunc::to_device(exponent);
  for (const auto policy : {ufunc::fp_policy::ignore, ufunc::fp_policy::warn}) {
    ufunc::errstate guard({.all = policy});
    CHECK_THROWS_WITH_AS(ufunc::power(db, negative, {.target = cuda}),
                         "Integers to negative integer powers are not allowed.", ufunc::value_error);
    CHECK_THROWS_AS(ufunc::power(db, -3, {.target = cuda}), ufunc::value_error);  // a scalar exponent
  }
  // Unsigned exponents cannot be negative; the next call works.
  CHECK(ufunc::to_host(ufunc::power(db, de, {.target = cuda})).to_vector<std::int32_t>()[3] == 125);
}
