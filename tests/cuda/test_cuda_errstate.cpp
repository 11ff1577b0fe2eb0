// errstate on the cuda target: the flags the device gathers (backends/cuda/fp_flags.hpp,
// ufuncs/src/device_fp_rules.hpp) against NumPy's, loop by loop at edge values, and
// the policies: raise and call at the call, warn deferred to the next wait for the
// stream, nothing corrupted.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <span>
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

// The ufunc methods on cuda (reduce, accumulate, reduceat, at): their kernels gather
// flags as calls do, attached to every launch by cuda::launch_method. The host target
// is the reference (NumPy's behaviour, tests/unit): the same method on the same host
// arrays (on cuda: copied in, the result copied back) must report the same kinds.
namespace {

constexpr auto cpu = ufunc::target_id::cpu;
constexpr float big32 = 3e38f;

// A method run on a target, on host arrays made anew for each run; its result as
// float64 values.
struct method_case {
  std::string what;
  std::function<ufunc::array(ufunc::target_id)> run;
  std::vector<std::string> expected;  // the messages, in NumPy's order of kinds
};

using reports = std::vector<std::pair<std::string, unsigned>>;

// Every (message, flags) the 'call' policy hands over while `run` runs on t.
reports reported(const method_case& c, ufunc::target_id t, std::vector<double>* result = nullptr) {
  reports got;
  ufunc::errstate guard({.all = ufunc::fp_policy::call},
                        [&](std::string_view m, unsigned f) { got.emplace_back(std::string(m), f); });
  const ufunc::array r = c.run(t);
  ufunc::backends::cuda::synchronize();
  if (result) *result = r.astype(ufunc::float64).to_vector<double>();
  return got;
}

template <class T>
ufunc::array values_of(std::initializer_list<T> v, ufunc::dim_vector shape = {}) {
  return ufunc::asarray<T>(v, std::move(shape));
}
template <class T>
ufunc::array filled(ufunc::dim_vector shape, T value) {
  auto a = ufunc::empty<T>(shape);
  std::fill(a.data(), a.data() + a.size(), value);
  return a;
}
ufunc::array indices(std::initializer_list<std::int64_t> v) { return ufunc::asarray<std::int64_t>(v); }

bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

// The methods' edge cases: each kind from each method, on the kernels that run them
// (block reductions with partials, the warp and outer kernels, the in-order kernel of
// loops that are not reorderable, accumulate, at of binary and unary loops).
std::vector<method_case> method_cases() {
  const std::string over = "overflow encountered in ", divide = "divide by zero encountered in ",
                    invalid = "invalid value encountered in ";
  std::vector<method_case> c;
  c.push_back({"add.reduce float32, 2^20 elements (blocks and partials)",
               [](ufunc::target_id t) { return ufunc::add.reduce(filled<float>({1 << 20}, 1e37f), {.target = t}); },
               {over + "add"}});
  c.push_back({"add.reduce float32 axis 0 of (1000, 300) (outer kernel, slices)",
               [](ufunc::target_id t) {
                 return ufunc::add.reduce(filled<float>({1000, 300}, 1e37f), {.axis = 0, .target = t});
               },
               {over + "add"}});
  c.push_back({"add.reduce float32 axis 1 of (3000, 40) (a warp per output)",
               [](ufunc::target_id t) {
                 return ufunc::add.reduce(filled<float>({3000, 40}, 1e37f), {.axis = 1, .target = t});
               },
               {over + "add"}});
  c.push_back({"add.reduce float64 [inf, -inf, 1]",
               [](ufunc::target_id t) {
                 return ufunc::add.reduce(values_of<double>({inf, -inf, 1.0}), {.target = t});
               },
               {invalid + "add"}});
  c.push_back({"multiply.reduce float64 (in order)",
               [](ufunc::target_id t) {
                 return ufunc::multiply.reduce(values_of<double>({1e200, 1e200, 1.0}), {.target = t});
               },
               {over + "multiply"}});
  c.push_back({"divide.reduce float64 [1, 0] and [0, 0] rows",
               [](ufunc::target_id t) {
                 return ufunc::divide.reduce(values_of<double>({1.0, 0.0, 0.0, 0.0}, {2, 2}), {.axis = 1, .target = t});
               },
               {divide + "divide", invalid + "divide"}});
  c.push_back({"add.accumulate float32",
               [](ufunc::target_id t) {
                 return ufunc::add.accumulate(values_of<float>({big32, big32, 1.0f}), {.target = t});
               },
               {over + "add"}});
  c.push_back({"divide.accumulate float64 [1, 0, 2]",
               [](ufunc::target_id t) {
                 return ufunc::divide.accumulate(values_of<double>({1.0, 0.0, 2.0}), {.target = t});
               },
               {divide + "divide"}});
  c.push_back(
      {"subtract.accumulate float64 [inf, inf] along axis 1",
       [](ufunc::target_id t) {
         return ufunc::subtract.accumulate(values_of<double>({inf, inf, 1.0, 2.0}, {2, 2}), {.axis = 1, .target = t});
       },
       {invalid + "subtract"}});
  c.push_back({"add.reduceat float32, every segment overflows (a launch each, one report)",
               [](ufunc::target_id t) {
                 return ufunc::add.reduceat(filled<float>({8}, big32), indices({0, 2, 4, 6}), {.target = t});
               },
               {over + "add"}});
  c.push_back({"divide.reduceat float64",
               [](ufunc::target_id t) {
                 return ufunc::divide.reduceat(values_of<double>({1.0, 0.0, 4.0, 2.0}), indices({0, 2}), {.target = t});
               },
               {divide + "divide"}});
  c.push_back({"multiply.at float64 (in order)",
               [](ufunc::target_id t) {
                 auto a = values_of<double>({1e300, 1.0, 2.0});
                 ufunc::multiply.at(a, indices({0, 0, 2}), values_of<double>({1e10, 1.0, 3.0}), {.target = t});
                 return a;
               },
               {over + "multiply"}});
  c.push_back({"add.at float32",
               [](ufunc::target_id t) {
                 auto a = values_of<float>({big32, 1.0f});
                 ufunc::add.at(a, indices({0, 1}), values_of<float>({big32, 1.0f}), {.target = t});
                 return a;
               },
               {over + "add"}});
  c.push_back({"divide.at float64",
               [](ufunc::target_id t) {
                 auto a = values_of<double>({1.0, 0.0, 3.0});
                 ufunc::divide.at(a, indices({0, 1}), values_of<double>({0.0, 0.0}), {.target = t});
                 return a;
               },
               {divide + "divide", invalid + "divide"}});
  c.push_back({"sqrt.at float64 (unary)",
               [](ufunc::target_id t) {
                 auto a = values_of<double>({-1.0, 4.0});
                 ufunc::sqrt.at(a, indices({0, 1}), {.target = t});
                 return a;
               },
               {invalid + "sqrt"}});
  c.push_back({"log.at float64 (unary)",
               [](ufunc::target_id t) {
                 auto a = values_of<double>({0.0, 1.0});
                 ufunc::log.at(a, indices({0}), {.target = t});
                 return a;
               },
               {divide + "log"}});
  return c;
}

std::vector<std::string> messages_of(const reports& r) {
  std::vector<std::string> m;
  for (const auto& [message, flags] : r) m.push_back(message);
  return m;
}

}  // namespace

TEST_CASE("cuda errstate: device methods report overflow, divide and invalid as the host target (call policy)") {
  for (const auto& c : method_cases()) {
    CAPTURE(c.what);
    std::vector<double> host_result, device_result;
    const reports host = reported(c, cpu, &host_result);
    const reports device = reported(c, cuda, &device_result);
    CHECK(messages_of(host) == c.expected);  // the reference is what the test expects
    CHECK(messages_of(device) == messages_of(host));
    CHECK(device == host);  // the flags handed over too
    CHECK(same_values(device_result, host_result));
  }
}

TEST_CASE("cuda errstate: device methods raise at the method, as the host target") {
  for (const auto& c : method_cases()) {
    CAPTURE(c.what);
    for (const auto t : {cpu, cuda}) {
      CAPTURE(ufunc::to_string(t));
      ufunc::errstate guard({.all = ufunc::fp_policy::raise});
      CHECK_THROWS_WITH_AS(c.run(t), c.expected[0].c_str(), ufunc::floating_point_error);
    }
  }
  // Nothing left behind: the next method reports nothing.
  ufunc::errstate guard({.all = ufunc::fp_policy::raise});
  CHECK(ufunc::add.reduce(values_of<double>({1.0, 2.0}), {.target = cuda}).to_vector<double>()[0] == 3.0);
}

TEST_CASE("cuda errstate: device methods warn once per kind and method, when the library next waits") {
  for (const auto& c : method_cases()) {
    CAPTURE(c.what);
    std::vector<std::string> host, device;
    for (const auto t : {cpu, cuda}) {
      captured_warnings w;
      ufunc::errstate guard({.all = ufunc::fp_policy::warn});
      (void)c.run(t);
      ufunc::backends::cuda::synchronize();
      (t == cpu ? host : device) = w.messages;
    }
    CHECK(host == c.expected);
    CHECK(device == host);
  }
  // Device data: the report waits for the stream; two methods report twice.
  captured_warnings w;
  const auto x = ufunc::to_device(filled<float>({1 << 16}, 1e37f));
  auto r1 = ufunc::add.reduce(x, {.target = cuda});
  auto r2 = ufunc::add.reduce(x, {.target = cuda});
  CHECK(std::isinf(ufunc::to_host(r2).to_vector<float>()[0]));
  ufunc::backends::cuda::synchronize();
  CHECK(w.messages == std::vector<std::string>{"overflow encountered in add", "overflow encountered in add"});
}

TEST_CASE("cuda errstate: device methods under ignore report nothing and give the host target's results") {
  captured_warnings w;
  ufunc::errstate guard({.all = ufunc::fp_policy::ignore});
  for (const auto& c : method_cases()) {
    CAPTURE(c.what);
    std::vector<double> host_result, device_result;
    ufunc::array device_array;
    CHECK_NOTHROW(device_array = c.run(cuda));
    ufunc::backends::cuda::synchronize();
    device_result = device_array.astype(ufunc::float64).to_vector<double>();
    host_result = c.run(cpu).astype(ufunc::float64).to_vector<double>();
    CHECK(same_values(device_result, host_result));
  }
  CHECK(w.messages.empty());
}

TEST_CASE("cuda errstate: reduce with where= classifies only the selected elements") {
  ufunc::errstate guard({.all = ufunc::fp_policy::raise});
  // 1-d: the masked-out -inf would make inf + -inf invalid.
  const auto x = values_of<double>({inf, -inf, 1.0});
  const auto mask = values_of<bool>({true, false, true});
  for (const auto t : {cpu, cuda}) {
    CAPTURE(ufunc::to_string(t));
    ufunc::array r;
    REQUIRE_NOTHROW(r = ufunc::add.reduce(x, {.where = mask, .target = t}));
    CHECK(r.to_vector<double>()[0] == inf);
    CHECK_THROWS_AS(ufunc::add.reduce(x, {.target = t}), ufunc::floating_point_error);  // unmasked: invalid
  }
  // 2-d float32, huge values only where the mask is false, on the block, warp and
  // outer kernels (axis 1 of long and short rows, axis 0).
  for (const ufunc::dim_vector shape :
       {ufunc::dim_vector{4, 100000}, ufunc::dim_vector{3000, 40}, ufunc::dim_vector{1000, 300}}) {
    for (const int axis : {0, 1}) {
      CAPTURE(shape[0]);
      CAPTURE(shape[1]);
      CAPTURE(axis);
      auto a = ufunc::empty<float>(shape);
      auto m = ufunc::empty<bool>(shape);
      for (std::int64_t i = 0; i < a.size(); ++i) {
        // Every output has masked-out elements, at least two (they would overflow).
        const bool selected = (i / shape[1] + i % shape[1]) % 2 == 1;
        m.data()[i] = selected;
        a.data()[i] = selected ? 1.0f : big32;
      }
      const auto host = ufunc::add.reduce(a, {.axis = axis, .where = m, .target = cpu});
      ufunc::array device;
      REQUIRE_NOTHROW(device = ufunc::add.reduce(a, {.axis = axis, .where = m, .target = cuda}));
      CHECK(device.to_vector<float>() == host.to_vector<float>());  // small integers: exact in any order
      CHECK_THROWS_WITH_AS(ufunc::add.reduce(a, {.axis = axis, .target = cuda}), "overflow encountered in add",
                           ufunc::floating_point_error);
    }
  }
}

namespace {

// Integer arrays of dtype t, from int64 values.
ufunc::array ints(const std::vector<std::int64_t>& v, ufunc::dtype t, ufunc::dim_vector shape = {}) {
  return ufunc::asarray<std::int64_t>(std::span<const std::int64_t>(v), std::move(shape)).astype(t);
}
std::vector<std::int64_t> as_int64(const ufunc::array& a) { return a.astype(ufunc::int64).to_vector<std::int64_t>(); }

}  // namespace

TEST_CASE("cuda: integer power methods raise NumPy's ValueError for a negative exponent, whatever the policies") {
  const char* message = "Integers to negative integer powers are not allowed.";
  for (const auto t : {ufunc::int8, ufunc::int32, ufunc::int64}) {
    CAPTURE(t.name());
    const auto x = ints({2, 3, -1, 2}, t);
    for (const auto policy : {ufunc::fp_policy::ignore, ufunc::fp_policy::warn}) {
      ufunc::errstate guard({.all = policy});
      for (const auto target : {cpu, cuda}) {
        CAPTURE(ufunc::to_string(target));
        CHECK_THROWS_WITH_AS(ufunc::power.reduce(x, {.target = target}), message, ufunc::value_error);
        CHECK_THROWS_WITH_AS(ufunc::power.accumulate(x, {.target = target}), message, ufunc::value_error);
        // Segments [2] and [3, -1, 2]: the -1 is an exponent.
        CHECK_THROWS_WITH_AS(ufunc::power.reduceat(x, indices({0, 1}), {.target = target}), message,
                             ufunc::value_error);
        auto a = ints({2, 3}, t);
        CHECK_THROWS_WITH_AS(ufunc::power.at(a, indices({1}), ints({-2}, t), {.target = target}), message,
                             ufunc::value_error);
      }
      // Device data: the method waits for its kernel, the error comes from it.
      CHECK_THROWS_WITH_AS(ufunc::power.reduce(ufunc::to_device(x), {.target = cuda}), message, ufunc::value_error);
      // A first element is no exponent.
      CHECK(as_int64(ufunc::power.reduceat(x, indices({0, 2}), {.target = cuda})) == std::vector<std::int64_t>{8, 1});
    }
  }
  // A negative base is fine; the next method works.
  CHECK(as_int64(ufunc::power.reduce(ints({-2, 3}, ufunc::int32), {.target = cuda})) == std::vector<std::int64_t>{-8});
}

TEST_CASE("cuda: integer power methods give the host target's results, wrap-around included") {
  // (6, 50) arrays whose folds raise bases (-4..4, at the first position of every
  // fold) to exponents (0..4, every other position): `by_rows` for folds along axis 1
  // (columns 0, 3, 10 and 49 start reduceat's segments), `by_columns` along axis 0.
  constexpr std::int64_t rows = 6, cols = 50;
  const auto fill = [&](bool signed_bases, auto is_base) {
    std::vector<std::int64_t> v(static_cast<std::size_t>(rows * cols));
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::int64_t i = r * cols + c;
        const std::int64_t base = i * 7 % 9 - 4;
        v[static_cast<std::size_t>(i)] = is_base(r, c) ? (signed_bases || base >= 0 ? base : -base) : i % 5;
      }
    return v;
  };
  for (const auto t :
       {ufunc::int8, ufunc::uint8, ufunc::int16, ufunc::int32, ufunc::uint32, ufunc::int64, ufunc::uint64}) {
    CAPTURE(t.name());
    const bool is_signed = t.kind() == ufunc::dtype_kind::signed_int;
    // Bases start reduceat's segments; a fold along a whole row has one base (a negative
    // base further on would be a negative exponent).
    const auto by_rows =
        ints(fill(is_signed, [](std::int64_t, std::int64_t c) { return c == 0 || c == 3 || c == 10 || c == 49; }), t,
             {rows, cols});
    const auto by_rows_one_base =
        ints(fill(is_signed, [](std::int64_t, std::int64_t c) { return c == 0; }), t, {rows, cols});
    const auto by_columns = ints(fill(is_signed, [](std::int64_t r, std::int64_t) { return r == 0; }), t, {rows, cols});
    const auto run = [&](ufunc::target_id target) {
      std::vector<std::vector<std::int64_t>> r;
      r.push_back(as_int64(ufunc::power.reduce(by_columns, {.axis = 0, .target = target})));
      r.push_back(as_int64(ufunc::power.accumulate(by_columns, {.axis = 0, .target = target})));
      r.push_back(as_int64(ufunc::power.reduce(by_rows_one_base, {.axis = 1, .target = target})));
      r.push_back(as_int64(ufunc::power.accumulate(by_rows_one_base, {.axis = 1, .target = target})));
      r.push_back(as_int64(ufunc::power.reduceat(by_rows, indices({0, 3, 10, 49}), {.axis = 1, .target = target})));
      auto a = by_rows.copy();
      ufunc::power.at(a, indices({0, 2, 2, 5}), ints(std::vector<std::int64_t>(4 * cols, 3), t, {4, cols}),
                      {.target = target});
      r.push_back(as_int64(a));
      return r;
    };
    const auto host = run(cpu);
    const auto device = run(cuda);
    REQUIRE(host.size() == device.size());
    for (std::size_t k = 0; k < host.size(); ++k) {
      CAPTURE(k);
      CHECK(device[k] == host[k]);
    }
    // NumPy: np.power.reduce(np.array([3, 5], np.int8)) is 3 ** 5 = 243 wrapped, -13.
    CHECK(as_int64(ufunc::power.reduce(ints({3, 5}, t), {.target = cuda})) ==
          std::vector<std::int64_t>{t == ufunc::int8 ? -13 : 243});
  }
}
