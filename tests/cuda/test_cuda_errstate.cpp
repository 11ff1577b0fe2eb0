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

TEST_CASE("cuda errstate: complex poles raise divide, logaddexp's overflowing x - y overflow (NumPy's flags)") {
  unsigned seen = 0;
  ufunc::errstate all_call({.all = ufunc::fp_policy::call}, [&](std::string_view, unsigned f) { seen |= f; });
  constexpr double f32_max = std::numeric_limits<float>::max(), f64_max = std::numeric_limits<double>::max();
  // NumPy 2.5's flags (np.errstate(all='call')) for one-element calls: divide 1, overflow 2.
  const fp_case cases[] = {
      {"arctan", "F->F", {0.0}, {1.0}, 1},
      {"arctan", "D->D", {-0.0}, {-1.0}, 1},
      {"arctanh", "F->F", {1.0}, {0.0}, 1},
      {"arctanh", "D->D", {-1.0}, {0.0}, 1},
      {"log1p", "F->F", {-1.0}, {0.0}, 1},
      {"log1p", "D->D", {-1.0}, {0.0}, 1},
      {"log", "D->D", {0.0}, {0.0}, 1},
      {"logaddexp", "ff->f", {f32_max, -f32_max}, {0, 0}, 2},
      {"logaddexp", "dd->d", {f64_max, -f64_max}, {0, 0}, 2},
      {"logaddexp2", "dd->d", {-f64_max, f64_max}, {0, 0}, 2},
  };
  for (const auto& c : cases) {
    const std::string loop = c.loop;
    std::vector<ufunc::operand> inputs;
    for (int k = 0; k < static_cast<int>(loop.find("->")); ++k)
      inputs.emplace_back(one_element(c, k, loop[static_cast<std::size_t>(k)]));
    seen = 0;
    (void)ufunc::find_builtin(c.name)->call(inputs, {.signature = c.loop, .target = cuda});
    CHECK_MESSAGE(seen == c.flags, describe(c, seen));
  }
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

// The methods' edge cases (NumPy names reduce, accumulate and reduceat in the message;
// at names the ufunc where NumPy runs an indexed loop, a 1-d add/subtract/multiply/
// divide/... without casts, else "at"): each kind from each method, on the kernels that run them
// (block reductions with partials, the warp and outer kernels, the in-order kernel of
// loops that are not reorderable, accumulate, at of binary and unary loops).
std::vector<method_case> method_cases() {
  const std::string over = "overflow encountered in ", divide = "divide by zero encountered in ",
                    invalid = "invalid value encountered in ";
  std::vector<method_case> c;
  c.push_back({"add.reduce float32, 2^20 elements (blocks and partials)",
               [](ufunc::target_id t) { return ufunc::add.reduce(filled<float>({1 << 20}, 1e37f), {.target = t}); },
               {over + "reduce"}});
  c.push_back({"add.reduce float32 axis 0 of (1000, 300) (outer kernel, slices)",
               [](ufunc::target_id t) {
                 return ufunc::add.reduce(filled<float>({1000, 300}, 1e37f), {.axis = 0, .target = t});
               },
               {over + "reduce"}});
  c.push_back({"add.reduce float32 axis 1 of (3000, 40) (a warp per output)",
               [](ufunc::target_id t) {
                 return ufunc::add.reduce(filled<float>({3000, 40}, 1e37f), {.axis = 1, .target = t});
               },
               {over + "reduce"}});
  c.push_back({"add.reduce float64 [inf, -inf, 1]",
               [](ufunc::target_id t) {
                 return ufunc::add.reduce(values_of<double>({inf, -inf, 1.0}), {.target = t});
               },
               {invalid + "reduce"}});
  c.push_back({"multiply.reduce float64 (in order)",
               [](ufunc::target_id t) {
                 return ufunc::multiply.reduce(values_of<double>({1e200, 1e200, 1.0}), {.target = t});
               },
               {over + "reduce"}});
  c.push_back({"divide.reduce float64 [1, 0] and [0, 0] rows",
               [](ufunc::target_id t) {
                 return ufunc::divide.reduce(values_of<double>({1.0, 0.0, 0.0, 0.0}, {2, 2}), {.axis = 1, .target = t});
               },
               {divide + "reduce", invalid + "reduce"}});
  c.push_back({"add.accumulate float32",
               [](ufunc::target_id t) {
                 return ufunc::add.accumulate(values_of<float>({big32, big32, 1.0f}), {.target = t});
               },
               {over + "accumulate"}});
  c.push_back({"divide.accumulate float64 [1, 0, 2]",
               [](ufunc::target_id t) {
                 return ufunc::divide.accumulate(values_of<double>({1.0, 0.0, 2.0}), {.target = t});
               },
               {divide + "accumulate"}});
  c.push_back(
      {"subtract.accumulate float64 [inf, inf] along axis 1",
       [](ufunc::target_id t) {
         return ufunc::subtract.accumulate(values_of<double>({inf, inf, 1.0, 2.0}, {2, 2}), {.axis = 1, .target = t});
       },
       {invalid + "accumulate"}});
  c.push_back({"add.reduceat float32, every segment overflows (a launch each, one report)",
               [](ufunc::target_id t) {
                 return ufunc::add.reduceat(filled<float>({8}, big32), indices({0, 2, 4, 6}), {.target = t});
               },
               {over + "reduceat"}});
  c.push_back({"divide.reduceat float64",
               [](ufunc::target_id t) {
                 return ufunc::divide.reduceat(values_of<double>({1.0, 0.0, 4.0, 2.0}), indices({0, 2}), {.target = t});
               },
               {divide + "reduceat"}});
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
               {invalid + "at"}});
  c.push_back({"log.at float64 (unary)",
               [](ufunc::target_id t) {
                 auto a = values_of<double>({0.0, 1.0});
                 ufunc::log.at(a, indices({0}), {.target = t});
                 return a;
               },
               {divide + "at"}});
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
  CHECK(w.messages == std::vector<std::string>{"overflow encountered in reduce", "overflow encountered in reduce"});
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
      CHECK_THROWS_WITH_AS(ufunc::add.reduce(a, {.axis = axis, .target = cuda}), "overflow encountered in reduce",
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

// Casts: astype and copies on device data report as the host target's "cast"
// (core/src/elementwise.cpp's copy_cast); the casts a call makes on cuda (inputs to
// the loop's dtypes, results into out) report with the call, under its name, as the
// host target's buffer casts do. The host target is the reference, at NumPy's edge
// values for each conversion (out-of-range floats to integers, double to single).
namespace {

// (math.h's ::nan makes a plain `nan` ambiguous here.)
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();

const ufunc::dtype all_dtypes[] = {ufunc::bool_,   ufunc::int8,      ufunc::uint8,     ufunc::int16,  ufunc::uint16,
                                   ufunc::int32,   ufunc::uint32,    ufunc::int64,     ufunc::uint64, ufunc::float32,
                                   ufunc::float64, ufunc::complex64, ufunc::complex128};

// Real parts: the bounds of every integer's conversion (x86 converts through int32 or
// int64), and the float32 overflow and underflow thresholds (tininess after rounding).
std::vector<double> cast_edges() {
  const double flt_min = std::numeric_limits<float>::min(), flt_max = std::numeric_limits<float>::max();
  std::vector<double> v = {qnan,
                           inf,
                           -inf,
                           0.0,
                           -1.0,
                           -0.5,
                           0.5,
                           1e300,
                           -1e300,
                           1e-300,
                           -1e-310,
                           -2147483649.0,
                           -2147483648.5,
                           -2147483649.5,
                           2147483647.5,
                           4294967295.5,
                           flt_min,
                           flt_min * (1 - std::ldexp(1.0, -24)),
                           -flt_min * (1 - std::ldexp(1.0, -25)),
                           std::ldexp(1.0, -149),
                           std::ldexp(1.0, -150),
                           -3 * std::ldexp(1.0, -151),
                           std::ldexp(1.5, -140),
                           flt_max,
                           -flt_max * (1 + std::ldexp(1.0, -25)),
                           flt_max * (1 + std::ldexp(1.0, -24)),
                           3.5e38};
  for (int e : {7, 8, 15, 16, 31, 32, 63, 64})
    for (double sign : {1.0, -1.0}) {
      const double p = sign * std::ldexp(1.0, e);
      // 2^63 - 1 and 2^64 + 1 round to 2^63 and 2^64 in double: their neighbours are
      // a double ulp away.
      const double ulp = std::ldexp(1.0, std::max(0, e - 53));
      v.insert(v.end(), {p, p - sign * ulp, p + sign * ulp});
    }
  return v;
}

// A one-element host array of `type` holding v as the host converts it (under ignore).
ufunc::array cast_source(std::complex<double> v, ufunc::dtype type) {
  ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  auto a = ufunc::array::empty({1}, ufunc::complex128);
  *reinterpret_cast<std::complex<double>*>(a.data()) = v;
  return a.astype(type);
}

// A host array's values as complex128 (under ignore), NaN equal to NaN.
std::vector<std::complex<double>> as_complex(const ufunc::array& a) {
  ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  const auto c = ufunc::to_host(a).astype(ufunc::complex128);
  const auto* p = reinterpret_cast<const std::complex<double>*>(c.data());
  return {p, p + c.size()};
}
bool same_complex(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& b) {
  const auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i].real(), b[i].real()) || !same(a[i].imag(), b[i].imag())) return false;
  return true;
}

// Every (message, flags) the 'call' policy hands over while `run` runs, the stream
// waited for at the end.
reports reports_of(const std::function<void()>& run) {
  reports got;
  ufunc::errstate guard({.all = ufunc::fp_policy::call},
                        [&](std::string_view m, unsigned f) { got.emplace_back(std::string(m), f); });
  run();
  ufunc::backends::cuda::synchronize();
  return got;
}

std::string describe_reports(const reports& r) {
  std::string s;
  for (const auto& [m, f] : r) s += "[" + m + " | " + std::to_string(f) + "]";
  return s.empty() ? "nothing" : s;
}

}  // namespace

TEST_CASE("cuda errstate: astype on device data reports the host target's cast flags for every pair at edge values") {
  const auto edges = cast_edges();
  std::vector<std::string> differ;
  std::set<std::string> messages;
  int compared = 0;
  for (const auto from : all_dtypes) {
    const bool complex_source = from.kind() == ufunc::dtype_kind::complex;
    for (const auto to : all_dtypes) {
      if (from == to) continue;
      for (const double re : edges)
        for (const double im : {0.0, qnan, 1e300, 1e-300}) {
          if (im != 0.0 && !complex_source) continue;
          const auto host = cast_source({re, im}, from);
          const auto device = ufunc::to_device(host);
          ufunc::array host_result, device_result;
          const reports h = reports_of([&] { host_result = host.astype(to); });
          const reports d = reports_of([&] { device_result = device.astype(to); });
          ++compared;
          for (const auto& [m, f] : h) messages.insert(m);
          const bool same_values = same_complex(as_complex(device_result), as_complex(host_result));
          if (h == d && same_values) continue;
          const auto src = as_complex(host)[0];
          differ.push_back(std::string(from.name()) + " -> " + std::string(to.name()) + " of (" + number(src.real()) +
                           ", " + number(src.imag()) + "): host " + describe_reports(h) + ", device " +
                           describe_reports(d) + (same_values ? "" : ", values differ"));
        }
    }
  }
  MESSAGE(compared << " one-element casts compared with the host target; " << differ.size() << " differ");
  for (std::size_t k = 0; k < differ.size() && k < 40; ++k) MESSAGE("differs: " << differ[k]);
  CHECK(differ.empty());
  // The edge values reach every kind a cast raises on the host.
  CHECK(messages == std::set<std::string>{"invalid value encountered in cast", "overflow encountered in cast",
                                          "underflow encountered in cast"});
}

TEST_CASE("cuda errstate: device casts report only the kinds a conversion raises, per element") {
  // NaN and out-of-range values to integers: invalid; to bool and among floats they
  // raise nothing; float64 to float32 overflows and underflows; complex to real reads
  // the real part only (a NaN or huge imaginary part raises nothing).
  const unsigned over = static_cast<unsigned>(ufunc::fp_flag::overflow),
                 under = static_cast<unsigned>(ufunc::fp_flag::underflow),
                 bad = static_cast<unsigned>(ufunc::fp_flag::invalid);
  const auto flags_of = [](std::complex<double> v, ufunc::dtype from, ufunc::dtype to) {
    const auto d = ufunc::to_device(cast_source(v, from));
    unsigned f = 0;
    for (const auto& [m, k] : reports_of([&] { (void)d.astype(to); })) f |= k;
    return f;
  };
  CHECK(flags_of(qnan, ufunc::float64, ufunc::int32) == bad);
  CHECK(flags_of(qnan, ufunc::float64, ufunc::bool_) == 0);
  CHECK(flags_of(qnan, ufunc::float64, ufunc::float32) == 0);
  CHECK(flags_of(2147483648.0, ufunc::float64, ufunc::int8) == bad);  // through int32
  CHECK(flags_of(2147483647.0, ufunc::float64, ufunc::int8) == 0);    // wraps, no flag
  CHECK(flags_of(4294967296.0, ufunc::float64, ufunc::uint32) == 0);  // through int64
  CHECK(flags_of(-1.0, ufunc::float64, ufunc::uint64) == 0);
  CHECK(flags_of(18446744073709551616.0, ufunc::float64, ufunc::uint64) == bad);
  CHECK(flags_of(1e300, ufunc::float64, ufunc::float32) == over);
  CHECK(flags_of(1e-300, ufunc::float64, ufunc::float32) == under);
  CHECK(flags_of(std::ldexp(1.0, -140), ufunc::float64, ufunc::float32) == 0);  // exact subnormal
  CHECK(flags_of({1.0, qnan}, ufunc::complex128, ufunc::int16) == 0);
  CHECK(flags_of({1.0, 1e300}, ufunc::complex128, ufunc::float32) == 0);
  CHECK(flags_of({1e-300, 1e300}, ufunc::complex128, ufunc::complex64) == (over | under));
  CHECK(flags_of({qnan, 0.0}, ufunc::complex64, ufunc::uint8) == bad);
  // The value as the host target's (x86 NumPy's): NaN to int32 is INT32_MIN.
  const auto r = ufunc::to_host(ufunc::to_device(cast_source(qnan, ufunc::float64)).astype(ufunc::int32));
  CHECK(r.to_vector<std::int32_t>()[0] == std::numeric_limits<std::int32_t>::min());
}

namespace {

// Where a call runs: the host target on host arrays, cuda on device arrays, cuda on
// host arrays (host-in/host-out).
enum class placement { cpu_host, cuda_device, cuda_host };

struct call_cast_case {
  std::string what;
  // Runs the call with its operands placed by `on` (to_device when device is set)
  // under `target`; returns out (or the result).
  std::function<ufunc::array(const std::function<ufunc::array(ufunc::array)>& on, ufunc::target_id target)> run;
  reports expected;
};

std::vector<call_cast_case> call_cast_cases() {
  const unsigned over = static_cast<unsigned>(ufunc::fp_flag::overflow),
                 under = static_cast<unsigned>(ufunc::fp_flag::underflow),
                 bad = static_cast<unsigned>(ufunc::fp_flag::invalid),
                 div = static_cast<unsigned>(ufunc::fp_flag::divide);
  const auto unsafe = ufunc::casting::unsafe;
  std::vector<call_cast_case> c;
  c.push_back({"add(float64 [nan, 1e300, 1, -inf], 0.0, out=int32)",
               [=](const auto& on, ufunc::target_id t) {
                 auto out = on(ufunc::array::zeros({4}, ufunc::int32));
                 (void)ufunc::add(on(values_of<double>({qnan, 1e300, 1.0, -inf})), 0.0,
                                  {.out = {out}, .casting = unsafe, .target = t});
                 return out;
               },
               {{"invalid value encountered in add", bad}}});
  c.push_back({"add(float64 [1e300, 1e-300, 2], 0.0, out=float32)",
               [=](const auto& on, ufunc::target_id t) {
                 auto out = on(ufunc::array::zeros({3}, ufunc::float32));
                 (void)ufunc::add(on(values_of<double>({1e300, 1e-300, 2.0})), 0.0,
                                  {.out = {out}, .casting = unsafe, .target = t});
                 return out;
               },
               {{"overflow encountered in add", over | under}, {"underflow encountered in add", over | under}}});
  c.push_back({"add(float64 [nan, 3e9], 1.0, dtype=int32): the input cast",
               [=](const auto& on, ufunc::target_id t) {
                 return ufunc::add(on(values_of<double>({qnan, 3e9})), 1.0,
                                   {.dtype = ufunc::int32, .casting = unsafe, .target = t});
               },
               {{"invalid value encountered in add", bad}}});
  c.push_back(
      {"multiply(float64 [1e300, 1e-300], same, dtype=float32): input casts, inf * inf in the loop",
       [=](const auto& on, ufunc::target_id t) {
         const auto x = on(values_of<double>({1e300, 1e-300}));
         return ufunc::multiply(x, x, {.dtype = ufunc::float32, .casting = unsafe, .target = t});
       },
       {{"overflow encountered in multiply", over | under}, {"underflow encountered in multiply", over | under}}});
  c.push_back(
      {"multiply(float64 [3e38, 1e-30], same, out=float32): the loop is finite, the out cast is not",
       [=](const auto& on, ufunc::target_id t) {
         const auto x = on(values_of<double>({3e38, 1e-30}));
         auto out = on(ufunc::array::zeros({2}, ufunc::float32));
         (void)ufunc::multiply(x, x, {.out = {out}, .casting = unsafe, .target = t});
         return out;
       },
       {{"overflow encountered in multiply", over | under}, {"underflow encountered in multiply", over | under}}});
  c.push_back(
      {"divide([0, 1], [0, 0], out=int32): the loop's kinds and the cast's, reported once",
       [=](const auto& on, ufunc::target_id t) {
         auto out = on(ufunc::array::zeros({2}, ufunc::int32));
         (void)ufunc::divide(on(values_of<double>({0.0, 1.0})), on(values_of<double>({0.0, 0.0})),
                             {.out = {out}, .casting = unsafe, .target = t});
         return out;
       },
       {{"divide by zero encountered in divide", div | bad}, {"invalid value encountered in divide", div | bad}}});
  c.push_back({"add(float64 [nan, 1], 0.0, out=int32, where=[false, true]): the masked NaN is not cast",
               [=](const auto& on, ufunc::target_id t) {
                 auto out = on(ufunc::array::zeros({2}, ufunc::int32));
                 (void)ufunc::add(
                     on(values_of<double>({qnan, 1.0})), 0.0,
                     {.out = {out}, .where = on(values_of<bool>({false, true})), .casting = unsafe, .target = t});
                 return out;
               },
               {}});
  c.push_back({"add(float64 [nan, 1e300], 0.0, out=int32, where=[true, false]): the selected NaN is",
               [=](const auto& on, ufunc::target_id t) {
                 auto out = on(ufunc::array::zeros({2}, ufunc::int32));
                 (void)ufunc::add(
                     on(values_of<double>({qnan, 1e300})), 0.0,
                     {.out = {out}, .where = on(values_of<bool>({true, false})), .casting = unsafe, .target = t});
                 return out;
               },
               {{"invalid value encountered in add", bad}}});
  c.push_back({"add(complex128 [1e300+nan j, nan+1j], 0, out=int16): the real part decides",
               [=](const auto& on, ufunc::target_id t) {
                 const auto x = on(values_of<std::complex<double>>({{1e300, qnan}, {qnan, 1.0}}));
                 auto out = on(ufunc::array::zeros({2}, ufunc::int16));
                 (void)ufunc::add(x, 0.0, {.out = {out}, .casting = unsafe, .target = t});
                 return out;
               },
               {{"invalid value encountered in add", bad}}});
  c.push_back({"add(complex128 [1e300+1e-300j], 0, out=complex64)",
               [=](const auto& on, ufunc::target_id t) {
                 const auto x = on(values_of<std::complex<double>>({{1e300, 1e-300}}));
                 auto out = on(ufunc::array::zeros({1}, ufunc::complex64));
                 (void)ufunc::add(x, 0.0, {.out = {out}, .casting = unsafe, .target = t});
                 return out;
               },
               {{"overflow encountered in add", over | under}, {"underflow encountered in add", over | under}}});
  c.push_back({"add(int64 [2^62], 1, out=float32): integers to float32 raise nothing",
               [=](const auto& on, ufunc::target_id t) {
                 auto out = on(ufunc::array::zeros({1}, ufunc::float32));
                 (void)ufunc::add(on(values_of<std::int64_t>({std::int64_t{1} << 62})), std::int64_t{1},
                                  {.out = {out}, .casting = unsafe, .target = t});
                 return out;
               },
               {}});
  return c;
}

ufunc::array place(ufunc::array a, placement p) { return p == placement::cuda_device ? ufunc::to_device(a) : a; }

}  // namespace

TEST_CASE("cuda errstate: casts inside calls report with the call, as the host target (call policy)") {
  for (const auto& c : call_cast_cases()) {
    CAPTURE(c.what);
    std::vector<std::complex<double>> values[3];
    reports got[3];
    for (const auto p : {placement::cpu_host, placement::cuda_device, placement::cuda_host}) {
      CAPTURE(static_cast<int>(p));
      const auto on = [p](ufunc::array a) { return place(std::move(a), p); };
      ufunc::array result;
      got[static_cast<int>(p)] = reports_of([&] { result = c.run(on, p == placement::cpu_host ? cpu : cuda); });
      values[static_cast<int>(p)] = as_complex(result);
    }
    CHECK(got[0] == c.expected);  // the reference is what the test expects
    CHECK(got[1] == got[0]);
    CHECK(got[2] == got[0]);
    CHECK(same_complex(values[1], values[0]));
    CHECK(same_complex(values[2], values[0]));
  }
}

TEST_CASE("cuda errstate: casts under raise throw at the cast or the call, after writing out, as the host target") {
  ufunc::errstate guard({.all = ufunc::fp_policy::raise});
  const auto x = values_of<double>({qnan, 1.0, 1e300});
  const auto dx = ufunc::to_device(x);
  CHECK_THROWS_WITH_AS((void)dx.astype(ufunc::int32), "invalid value encountered in cast", ufunc::floating_point_error);
  CHECK_THROWS_WITH_AS((void)dx.astype(ufunc::float32), "overflow encountered in cast", ufunc::floating_point_error);
  auto host_out = ufunc::array::zeros({3}, ufunc::int32);
  CHECK_THROWS_WITH_AS(ufunc::add(x, 1.0, {.out = {host_out}, .casting = ufunc::casting::unsafe, .target = cpu}),
                       "invalid value encountered in add", ufunc::floating_point_error);
  auto device_out = ufunc::to_device(ufunc::array::zeros({3}, ufunc::int32));
  CHECK_THROWS_WITH_AS(ufunc::add(dx, 1.0, {.out = {device_out}, .casting = ufunc::casting::unsafe, .target = cuda}),
                       "invalid value encountered in add", ufunc::floating_point_error);
  // out holds the host target's values: NumPy writes before it raises.
  CHECK(ufunc::to_host(device_out).to_vector<std::int32_t>() == host_out.to_vector<std::int32_t>());
  CHECK(host_out.to_vector<std::int32_t>()[1] == 2);
  // Nothing left behind; same-dtype copies and integer casts never raise.
  CHECK(ufunc::to_host(ufunc::to_device(values_of<double>({1.5})).astype(ufunc::int32)).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{1});
  CHECK_NOTHROW((void)ufunc::to_host(dx));
  CHECK_NOTHROW((void)dx.copy());
}

TEST_CASE("cuda errstate: casts under warn report once, when the library next waits; under ignore, nothing") {
  const auto dx = ufunc::to_device(values_of<double>({qnan, 1.0}));
  {
    captured_warnings w;
    ufunc::errstate guard({.all = ufunc::fp_policy::warn});
    const auto r = dx.astype(ufunc::int64);
    CHECK(w.messages.empty());  // the cast did not wait
    (void)ufunc::to_host(r);
    CHECK(w.messages == std::vector<std::string>{"invalid value encountered in cast"});
    w.messages.clear();
    auto out = ufunc::to_device(ufunc::array::zeros({2}, ufunc::int8));
    (void)ufunc::add(dx, 1.0, {.out = {out}, .casting = ufunc::casting::unsafe, .target = cuda});
    ufunc::backends::cuda::synchronize();
    CHECK(w.messages == std::vector<std::string>{"invalid value encountered in add"});  // not also "... in cast"
    w.messages.clear();
    // Host-in/host-out: reported before the call returns.
    auto host_out = ufunc::array::zeros({2}, ufunc::uint16);
    (void)ufunc::add(values_of<double>({qnan, 1.0}), 1.0,
                     {.out = {host_out}, .casting = ufunc::casting::unsafe, .target = cuda});
    CHECK(w.messages == std::vector<std::string>{"invalid value encountered in add"});
  }
  {
    captured_warnings w;
    ufunc::errstate guard({.all = ufunc::fp_policy::ignore});
    const auto r = ufunc::to_host(dx.astype(ufunc::int32));
    auto out = ufunc::to_device(ufunc::array::zeros({2}, ufunc::int32));
    (void)ufunc::add(dx, 1.0, {.out = {out}, .casting = ufunc::casting::unsafe, .target = cuda});
    ufunc::backends::cuda::synchronize();
    CHECK(w.messages.empty());
    CHECK(r.to_vector<std::int32_t>() == std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), 1});
    CHECK(ufunc::to_host(out).to_vector<std::int32_t>() ==
          std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), 2});
  }
}

namespace {

// What `run` reports through the call policy on its target, having waited for the device.
template <class Fn>
unsigned flags_after(Fn&& run) {
  unsigned flags = 0;
  ufunc::errstate guard({.all = ufunc::fp_policy::call}, [&](std::string_view, unsigned f) { flags |= f; });
  run();
  ufunc::backends::cuda::synchronize();
  return flags;
}

// n values with a NaN at every fifth position (either sign).
template <class T>
ufunc::array nan_sprinkled(std::int64_t n, std::int64_t phase) {
  auto a = ufunc::empty<T>({n});
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (std::int64_t i = 0; i < n; ++i) a.data()[i] = i % 5 == phase ? (i % 2 ? -nan : nan) : T(i % 7) - T(3);
  return a;
}

}  // namespace

TEST_CASE_TEMPLATE("cuda errstate: ordered comparisons and min/max of NaN raise nothing, as NumPy's real loops", T,
                   float, double) {
  const ufunc::lazy_function* comparisons[] = {&ufunc::less, &ufunc::less_equal, &ufunc::greater,
                                               &ufunc::greater_equal};
  const ufunc::lazy_function* extrema[] = {&ufunc::maximum, &ufunc::minimum, &ufunc::fmax, &ufunc::fmin};
  for (const std::int64_t n : {1, 2, 31, 67, 1000, 1 << 17}) {
    CAPTURE(n);
    const auto a = nan_sprinkled<T>(n, 0), b = nan_sprinkled<T>(n, 2);
    const auto da = ufunc::to_device(a), db = ufunc::to_device(b);
    for (const auto* f : comparisons) {
      CAPTURE(f->get().name());
      ufunc::errstate guard({.all = ufunc::fp_policy::raise});
      ufunc::array r;
      CHECK_NOTHROW(r = (*f)(da, db, {.target = cuda}));
      CHECK(ufunc::to_host(r).to_vector<bool>() == (*f)(a, b, {.target = cpu}).template to_vector<bool>());
      CHECK_NOTHROW((void)ufunc::to_host((*f)(da, T(1), {.target = cuda})));
      CHECK(flags_after([&] { (void)(*f)(da, std::numeric_limits<T>::quiet_NaN(), {.target = cuda}); }) == 0);
    }
    for (const auto* f : extrema) {
      CAPTURE(f->get().name());
      CHECK(flags_after([&] {
              (void)(*f)(da, db, {.target = cuda});
              (void)f->reduce(da, {.target = cuda});
              (void)f->accumulate(da, {.target = cuda});
            }) == 0);
      CHECK(same_values(ufunc::to_host((*f)(da, db, {.target = cuda})).template to_vector<double>(),
                        (*f)(a, b, {.target = cpu}).astype(ufunc::float64).template to_vector<double>()));
    }
  }
  // outer of device arrays: quiet too.
  const auto small = ufunc::to_device(nan_sprinkled<T>(12, 1));
  CHECK(flags_after([&] { (void)ufunc::less.outer(small, small, {.target = cuda}); }) == 0);
}

TEST_CASE("cuda errstate: complex comparisons report invalid where NumPy's do (the host target's flags)") {
  using C = std::complex<double>;
  const std::vector<C> values = {{1, 0}, {qnan, 0}, {0, qnan}, {1, qnan}, {qnan, qnan}, {1, 1}, {2, 0}};
  const ufunc::lazy_function* comparisons[] = {&ufunc::less, &ufunc::less_equal, &ufunc::greater,
                                               &ufunc::greater_equal};
  for (const auto* f : comparisons) {
    for (const C x : values) {
      for (const C y : values) {
        CAPTURE(f->get().name());
        CAPTURE(x);
        CAPTURE(y);
        for (const auto type : {ufunc::complex64, ufunc::complex128}) {
          const auto hx = ufunc::asarray<C>({x, x, x}).astype(type), hy = ufunc::asarray<C>({y}).astype(type);
          const auto dx = ufunc::to_device(hx), dy = ufunc::to_device(hy);
          const unsigned host_flags = flags_after([&] { (void)(*f)(hx, hy, {.target = cpu}); });
          const unsigned device_flags = flags_after([&] { (void)(*f)(dx, dy, {.target = cuda}); });
          const bool numpy = std::isnan(x.real()) || std::isnan(y.real()) ||
                             (x.real() == y.real() && (std::isnan(x.imag()) || std::isnan(y.imag())));
          CHECK(host_flags == (numpy ? static_cast<unsigned>(ufunc::fp_flag::invalid) : 0u));
          CHECK(device_flags == host_flags);
          CHECK(ufunc::to_host((*f)(dx, dy, {.target = cuda})).to_vector<bool>() ==
                (*f)(hx, hy, {.target = cpu}).to_vector<bool>());
          // maximum and friends order the same way, quietly.
          CHECK(flags_after([&] {
                  (void)ufunc::maximum(dx, dy, {.target = cuda}), (void)ufunc::fmin(dx, dy, {.target = cuda});
                }) == 0);
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("cuda errstate: complex absolute raises no flag where |z| is beyond the largest number", R, float,
                   double) {
  // NumPy's complex absolute (F->f, D->d) clears the status word after its SIMD loop: |3.4e38 + 3.4e38j| is
  // inf without overflow (seed 7's r9241), and a subnormal |z| comes without underflow. fp_rule<absolute>.
  using C = std::complex<R>;
  using L = std::numeric_limits<R>;
  const std::vector<C> v = {{L::max(), L::max()},
                            {R(0.75) * L::max(), -R(0.75) * L::max()},
                            {L::denorm_min(), L::denorm_min()},
                            {R(3), R(4)},
                            {L::max(), R(1)}};
  const auto z = ufunc::to_device(ufunc::asarray<C>(std::span<const C>(v)));
  unsigned seen = 0;
  ufunc::errstate guard({.all = ufunc::fp_policy::call}, [&](std::string_view, unsigned f) { seen |= f; });
  const auto r = ufunc::to_host(ufunc::absolute(z, {.target = cuda})).template to_vector<R>();
  CHECK(seen == 0u);
  CHECK(std::isinf(r[0]));
  CHECK(std::isinf(r[1]));
  CHECK(r[2] == L::denorm_min());
  CHECK(r[3] == R(5));
  CHECK(r[4] == L::max());
}
