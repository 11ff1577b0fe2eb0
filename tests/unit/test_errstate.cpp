// errstate / seterr: floating-point error policies, as np.errstate. Each policy and
// each kind of error, nesting, thread-locality, flags raised on TBB workers, casts,
// and no spurious flags from the SIMD path's padded batches.
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#if defined(__unix__)
#include <unistd.h>
#endif

#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/ufuncs/ops/common.hpp>

#include "test_support.hpp"

#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

namespace {

using ufunc::fp_policy;

// Collects the warnings of its lifetime (the handler is process-wide).
struct warnings {
  std::vector<std::string> seen;
  ufunc::warning_handler saved;
  warnings() {
    saved = ufunc::set_warning_handler([this](std::string_view m) { seen.emplace_back(m); });
  }
  ~warnings() { ufunc::set_warning_handler(std::move(saved)); }
  warnings(const warnings&) = delete;
  warnings& operator=(const warnings&) = delete;
};

// What the program writes to stderr (file descriptor 2) during its lifetime.
#if defined(__unix__)
struct stderr_capture {
  std::FILE* file = std::tmpfile();
  int saved = -1;
  stderr_capture() {
    std::fflush(stderr);
    saved = dup(2);
    dup2(fileno(file), 2);
  }
  std::string text() {
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    saved = -1;
    std::string s;
    std::rewind(file);
    for (int c; (c = std::fgetc(file)) != EOF;) s += static_cast<char>(c);
    return s;
  }
  ~stderr_capture() {
    if (saved >= 0) text();
    std::fclose(file);
  }
};
#endif

struct divides {
  template <class T>
  T operator()(T a, T b) const {
    return a / b;
  }
};
struct times {
  template <class T>
  T operator()(T a, T b) const {
    return a * b;
  }
};
struct logarithm {
  template <class T>
  T operator()(T a) const {
    using std::log;
    return log(a);
  }
};
struct square_root {
  template <class T>
  T operator()(T a) const {
    using std::sqrt;
    return sqrt(a);
  }
};

// Integer floor division as NumPy's loops do it: division by zero gives 0 and
// raises the divide flag by hand (integers raise no hardware flag).
struct int_floor_divide {
  std::int32_t operator()(std::int32_t a, std::int32_t b) const {
    if (b == 0) {
      ufunc::ops::raise_fp(ufunc::ops::fp_flag::divide);
      return 0;
    }
    const std::int32_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }
};

// Raises the flag named by its argument by hand (the x87 path of feraiseexcept for
// overflow and underflow, the SSE one for divide and invalid).
struct raise_by_hand {
  std::int32_t operator()(std::int32_t which) const {
    if (which == 1) ufunc::ops::raise_fp(ufunc::ops::fp_flag::divide);
    if (which == 2) ufunc::ops::raise_fp(ufunc::ops::fp_flag::overflow);
    if (which == 4) ufunc::ops::raise_fp(ufunc::ops::fp_flag::underflow);
    if (which == 8) ufunc::ops::raise_fp(ufunc::ops::fp_flag::invalid);
    return which;
  }
};

const auto fdivide =
    ufunc::vectorize<ufunc::signatures<float(float, float), double(double, double)>>(divides{}, "divide");
const auto fmultiply =
    ufunc::vectorize<ufunc::signatures<float(float, float), double(double, double)>>(times{}, "multiply");

// One call per kind of error, on double arrays.
struct error_case {
  const char* name;
  unsigned flag;
  const char* message;
  std::function<void()> run;
};
std::vector<error_case> error_cases() {
  auto d = [](std::initializer_list<double> v) { return ufunc::asarray<double>(v); };
  return {
      {"divide", static_cast<unsigned>(ufunc::fp_flag::divide), "divide by zero encountered in divide",
       [=] {
         (void)fdivide(d({1.0, 2.0}), d({1.0, 0.0}));
       }},
      {"over", static_cast<unsigned>(ufunc::fp_flag::overflow), "overflow encountered in multiply",
       [=] {
         (void)fmultiply(d({1e300, 1.0}), d({1e300, 1.0}));
       }},
      {"under", static_cast<unsigned>(ufunc::fp_flag::underflow), "underflow encountered in multiply",
       [=] {
         (void)fmultiply(d({1e-300, 1.0}), d({1e-300, 1.0}));
       }},
      {"invalid", static_cast<unsigned>(ufunc::fp_flag::invalid), "invalid value encountered in divide",
       [=] {
         (void)fdivide(d({0.0, 1.0}), d({0.0, 1.0}));
       }},
  };
}

ufunc::fp_error_changes only(const char* which, fp_policy p) {
  ufunc::fp_error_changes c{.all = fp_policy::ignore};
  const std::string w = which;
  if (w == "divide") c.divide = p;
  if (w == "over") c.over = p;
  if (w == "under") c.under = p;
  if (w == "invalid") c.invalid = p;
  return c;
}

}  // namespace

TEST_CASE("errstate: NumPy's defaults, seterr returns the previous policies") {
  const ufunc::fp_errors defaults{};
  CHECK(defaults.divide == fp_policy::warn);
  CHECK(defaults.over == fp_policy::warn);
  CHECK(defaults.under == fp_policy::ignore);
  CHECK(defaults.invalid == fp_policy::warn);
  CHECK(ufunc::geterr() == defaults);
  const auto old = ufunc::seterr({.divide = fp_policy::raise, .invalid = fp_policy::ignore});
  CHECK(old == defaults);
  CHECK(ufunc::geterr().divide == fp_policy::raise);
  CHECK(ufunc::geterr().over == fp_policy::warn);  // a full fp_errors: the member default
  CHECK(ufunc::geterr().invalid == fp_policy::ignore);
  ufunc::seterr(old);
  CHECK(ufunc::geterr() == defaults);
}

TEST_CASE("errstate: each policy for each kind of error") {
  for (const auto& k : error_cases()) {
    CAPTURE(k.name);
    {
      warnings w;
      ufunc::errstate guard(only(k.name, fp_policy::ignore));
      k.run();
      CHECK(w.seen.empty());
    }
    {
      warnings w;
      ufunc::errstate guard(only(k.name, fp_policy::warn));
      k.run();
      REQUIRE(w.seen.size() == 1);
      CHECK(w.seen[0] == k.message);
    }
    {
      ufunc::errstate guard(only(k.name, fp_policy::raise));
      try {
        k.run();
        FAIL("no floating_point_error");
      } catch (const ufunc::floating_point_error& e) {
        CHECK(std::string(e.what()) == k.message);
        CHECK(e.flag() == k.flag);
      }
      // It is a ufunc::error like every other.
      CHECK_THROWS_AS(k.run(), ufunc::error);
    }
    {
      std::vector<std::pair<std::string, unsigned>> calls;
      ufunc::errstate guard(only(k.name, fp_policy::call),
                            [&](std::string_view what, unsigned flags) { calls.emplace_back(what, flags); });
      k.run();
      REQUIRE(calls.size() == 1);
      CHECK(calls[0].first == k.message);
      CHECK((calls[0].second & k.flag) != 0);
    }
#if defined(__unix__)
    {
      ufunc::errstate guard(only(k.name, fp_policy::print));
      stderr_capture err;
      k.run();
      k.run();  // every time, as NumPy's 'print'
      const std::string line = std::string("Warning: ") + k.message + "\n";
      CHECK(err.text() == line + line);
    }
#endif
  }
}

TEST_CASE("errstate: several kinds in one call, in NumPy's order; raise stops at the first raising kind") {
  // 1/0 (divide), 0/0 (invalid), 1e300/1e-300 (overflow).
  const auto a = ufunc::asarray<double>({1.0, 0.0, 1e300}), b = ufunc::asarray<double>({0.0, 0.0, 1e-300});
  {
    warnings w;
    ufunc::errstate guard({.all = fp_policy::warn});
    (void)fdivide(a, b);
    CHECK(w.seen == std::vector<std::string>{"divide by zero encountered in divide", "overflow encountered in divide",
                                             "invalid value encountered in divide"});
  }
  {
    warnings w;
    ufunc::errstate guard({.all = fp_policy::warn, .invalid = fp_policy::raise});
    CHECK_THROWS_WITH_AS(fdivide(a, b), "invalid value encountered in divide", ufunc::floating_point_error);
    CHECK(w.seen.size() == 2);  // divide and overflow warned first
  }
  {
    unsigned flags = 0;
    ufunc::errstate guard({.all = fp_policy::call}, [&](std::string_view, unsigned f) { flags = f; });
    (void)fdivide(a, b);
    CHECK(flags == (static_cast<unsigned>(ufunc::fp_flag::divide) | static_cast<unsigned>(ufunc::fp_flag::overflow) |
                    static_cast<unsigned>(ufunc::fp_flag::invalid)));
  }
}

TEST_CASE("errstate: nesting restores, also when the scope is left by an exception") {
  const auto before = ufunc::geterr();
  {
    ufunc::errstate outer({.divide = fp_policy::raise});
    CHECK(ufunc::geterr().divide == fp_policy::raise);
    CHECK(ufunc::geterr().invalid == before.invalid);  // not named: unchanged, as np.errstate
    {
      ufunc::errstate inner({.all = fp_policy::ignore, .over = fp_policy::print});
      CHECK(ufunc::geterr() ==
            ufunc::fp_errors{fp_policy::ignore, fp_policy::print, fp_policy::ignore, fp_policy::ignore});
      CHECK_NOTHROW(fdivide(ufunc::asarray<double>({1.0}), 0.0));
    }
    CHECK(ufunc::geterr().divide == fp_policy::raise);
    CHECK_THROWS_AS(fdivide(ufunc::asarray<double>({1.0}), 0.0), ufunc::floating_point_error);
    try {
      ufunc::errstate inner({.divide = fp_policy::warn});
      throw std::runtime_error("leave");
    } catch (const std::runtime_error&) {
    }
    CHECK(ufunc::geterr().divide == fp_policy::raise);
  }
  CHECK(ufunc::geterr() == before);
}

TEST_CASE("errstate: seterrcall, and 'call' without a function") {
  {
    ufunc::errstate guard({.divide = fp_policy::call});
    const auto saved = ufunc::seterrcall(nullptr);
    CHECK_THROWS_AS(fdivide(ufunc::asarray<double>({1.0}), 0.0), ufunc::value_error);
    ufunc::seterrcall(saved);
  }
  int n = 0;
  const auto old = ufunc::seterrcall([&](std::string_view, unsigned) { ++n; });
  {
    ufunc::errstate guard({.divide = fp_policy::call});
    (void)fdivide(ufunc::asarray<double>({1.0}), 0.0);
  }
  CHECK(n == 1);
  CHECK(static_cast<bool>(ufunc::geterrcall()));
  ufunc::seterrcall(old);
  // The function may throw: the exception leaves the call.
  ufunc::errstate guard({.divide = fp_policy::call}, [](std::string_view what, unsigned) {
    throw std::runtime_error("logged: " + std::string(what));
  });
  CHECK_THROWS_WITH_AS(fdivide(ufunc::asarray<double>({1.0}), 0.0), "logged: divide by zero encountered in divide",
                       std::runtime_error);
}

TEST_CASE("errstate: a warning handler may throw; the default prints each message once") {
  {
    ufunc::errstate guard({.divide = fp_policy::warn});
    const auto saved = ufunc::set_warning_handler([](std::string_view m) { throw std::runtime_error(std::string(m)); });
    CHECK_THROWS_WITH_AS(fdivide(ufunc::asarray<double>({1.0}), 0.0), "divide by zero encountered in divide",
                         std::runtime_error);
    ufunc::set_warning_handler(saved);
  }
#if defined(__unix__)
  const auto saved = ufunc::set_warning_handler({});  // the default sink
  auto once = ufunc::vectorize<double(double, double)>(divides{}, "errstate_test_divide_once");
  {
    ufunc::errstate guard({.divide = fp_policy::warn});
    stderr_capture err;
    (void)once(ufunc::asarray<double>({1.0}), 0.0);
    (void)once(ufunc::asarray<double>({1.0}), 0.0);
    CHECK(err.text() == "RuntimeWarning: divide by zero encountered in errstate_test_divide_once\n");
  }
  ufunc::set_warning_handler(saved);
#endif
}

TEST_CASE("errstate: integer loops raise the flags by hand (ops::raise_fp)") {
  auto floor_divide = ufunc::vectorize<std::int32_t(std::int32_t, std::int32_t)>(int_floor_divide{}, "floor_divide");
  const auto a = ufunc::asarray<std::int32_t>({7, -7, 3}), b = ufunc::asarray<std::int32_t>({2, 2, 0});
  {
    ufunc::errstate guard({.divide = fp_policy::raise});
    CHECK_THROWS_WITH_AS(floor_divide(a, b), "divide by zero encountered in floor_divide", ufunc::floating_point_error);
    CHECK(floor_divide(a, ufunc::asarray<std::int32_t>({2, 2, 1})).to_vector() == std::vector<std::int32_t>{3, -4, 3});
  }
  // Every flag through raise_fp, overflow and underflow included (glibc sets those two
  // in the x87 status word, not in SSE's MXCSR).
  auto by_hand = ufunc::vectorize<std::int32_t(std::int32_t)>(raise_by_hand{}, "by_hand");
  for (const auto& expected : std::vector<std::pair<int, std::string>>{{1, "divide by zero encountered in by_hand"},
                                                                       {2, "overflow encountered in by_hand"},
                                                                       {4, "underflow encountered in by_hand"},
                                                                       {8, "invalid value encountered in by_hand"}}) {
    // Not a structured binding: CAPTURE's lambda captures it, which clang 14 refuses.
    const int which = expected.first;
    const std::string& message = expected.second;
    CAPTURE(which);
    warnings w;
    ufunc::errstate guard({.all = fp_policy::warn});
    (void)by_hand(ufunc::asarray<std::int32_t>({0, which, 0}));
    CHECK(w.seen == std::vector<std::string>{message});
    w.seen.clear();
    (void)by_hand(ufunc::asarray<std::int32_t>({0, 0}));  // the flags were cleared before this call
    CHECK(w.seen.empty());
  }
}

TEST_CASE("errstate: flags raised before a call are not reported by it") {
  warnings w;
  ufunc::errstate guard({.all = fp_policy::warn});
  ufunc::ops::raise_fp(ufunc::ops::fp_flag::overflow);
  ufunc::ops::raise_fp(ufunc::ops::fp_flag::invalid);
  (void)fdivide(ufunc::asarray<double>({1.0}), 2.0);
  CHECK(w.seen.empty());
}

TEST_CASE("errstate: casts raise invalid and overflow as NumPy's do") {
  warnings w;
  ufunc::errstate guard({.all = fp_policy::warn});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  (void)ufunc::asarray<double>({1.0, nan}).astype(ufunc::int32);
  CHECK(w.seen == std::vector<std::string>{"invalid value encountered in cast"});
  w.seen.clear();
  (void)ufunc::asarray<double>({1e300}).astype(ufunc::float32);
  CHECK(w.seen == std::vector<std::string>{"overflow encountered in cast"});
  w.seen.clear();
  // Out of range of the conversion NumPy's x86 builds use: int32 for int8..int32,
  // int64 for uint32 and int64, [-2^63, 2^64) for uint64.
  (void)ufunc::asarray<double>({3e9}).astype(ufunc::int8);
  (void)ufunc::asarray<float>({3e9f}).astype(ufunc::int32);
  (void)ufunc::asarray<double>({1e19}).astype(ufunc::int64);
  (void)ufunc::asarray<double>({-1e19}).astype(ufunc::uint64);
  CHECK(w.seen.size() == 4);
  w.seen.clear();
  (void)ufunc::asarray<double>({1000.0, -1.0}).astype(ufunc::int8);  // wraps, no flag
  (void)ufunc::asarray<double>({5e9, -3e9}).astype(ufunc::uint32);
  (void)ufunc::asarray<double>({1e10}).astype(ufunc::int64);
  (void)ufunc::asarray<double>({1e19, -1.0}).astype(ufunc::uint64);
  (void)ufunc::asarray<double>({nan}).astype(ufunc::bool_);
  CHECK(w.seen.empty());
  // Inside a ufunc call, a cast's flags are the call's (NumPy: "... in add").
  auto out = ufunc::zeros<std::int64_t>({3});
  ufunc::add(ufunc::asarray<double>({1.0, nan, 2.0}), 0.0, {.out = {out}, .casting = ufunc::casting::unsafe});
  CHECK(w.seen == std::vector<std::string>{"invalid value encountered in add"});
}

TEST_CASE("errstate: the built-in ufuncs are named in the message") {
  ufunc::errstate guard({.over = fp_policy::raise});
  const auto x = ufunc::full<float>({100}, 1e30f);
  CHECK_THROWS_WITH_AS(ufunc::multiply(x, x), "overflow encountered in multiply", ufunc::floating_point_error);
  CHECK_THROWS_WITH_AS(ufunc::square(x), "overflow encountered in square", ufunc::floating_point_error);
  CHECK_NOTHROW(ufunc::multiply(x, 1e-30f));
}

TEST_CASE("errstate: the settings are per thread; a new thread starts with NumPy's defaults") {
  ufunc::errstate guard({.all = fp_policy::raise});
  ufunc::fp_errors there;
  std::size_t warned = 0;
  bool threw = false;
  {
    warnings w;
    std::thread t([&] {
      there = ufunc::geterr();
      try {
        (void)fdivide(ufunc::asarray<double>({1.0}), 0.0);  // the default there: warn
      } catch (const ufunc::floating_point_error&) {
        threw = true;
      }
      ufunc::seterr({.divide = fp_policy::ignore});  // does not reach the main thread
    });
    t.join();
    warned = w.seen.size();
  }
  CHECK(there == ufunc::fp_errors{});
  CHECK_FALSE(threw);
  CHECK(warned == 1);
  CHECK(ufunc::geterr().divide == fp_policy::raise);
  CHECK_THROWS_AS(fdivide(ufunc::asarray<double>({1.0}), 0.0), ufunc::floating_point_error);
}

TEST_CASE("errstate: where= leaves masked elements out; every policy ignore skips the flag work") {
  warnings w;
  ufunc::errstate guard({.all = fp_policy::raise});
  const auto a = ufunc::asarray<double>({1.0, 2.0, 3.0}), b = ufunc::asarray<double>({0.0, 2.0, 0.0});
  const auto mask = ufunc::asarray<bool>({false, true, false});
  ufunc::array out = ufunc::zeros<double>({3});
  CHECK_NOTHROW(fdivide.ufunc()(a, b, {.out = {out}, .where = mask}));
  CHECK(out.to_vector<double>() == std::vector<double>{0.0, 1.0, 0.0});
  ufunc::errstate none({.all = fp_policy::ignore});
  CHECK_FALSE(ufunc::detail::fp_checks_enabled());
  CHECK_NOTHROW(fdivide(a, b));
}

TEST_CASE_TEMPLATE("errstate: no spurious flags from padded SIMD batches (tails, strided, broadcast)", T, float,
                   double) {
  auto divide = ufunc::vectorize<T(T, T)>(divides{}, "divide");
  auto log = ufunc::vectorize<T(T)>(logarithm{}, "log");
  auto sqrt = ufunc::vectorize<T(T)>(square_root{}, "sqrt");
  std::vector<ufunc::target_id> targets = {ufunc::target_id::cpu};
#if defined(UFUNC_HAS_TBB)
  targets.push_back(ufunc::target_id::parallel);
#endif
  const ufunc_test::parallel_split split(5);  // pieces of 5: a tail in every piece
  warnings w;
  ufunc::errstate guard({.all = fp_policy::raise});
  for (const auto target : targets) {
    CAPTURE(target);
    const ufunc::call_options on{.target = target};
    for (std::int64_t n = 1; n <= 70; ++n) {
      CAPTURE(n);
      // Nonzero, positive values (1.5, 2.5, ...), contiguous, then every third of 3n.
      auto a = ufunc::empty<T>({n}), b = ufunc::empty<T>({3 * n});
      for (std::int64_t i = 0; i < n; ++i) a.data()[i] = T(1.5) + T(i);
      for (std::int64_t i = 0; i < 3 * n; ++i) b.data()[i] = T(0.5) + T(i);
      const auto bs = b[{ufunc::slice{std::nullopt, std::nullopt, 3}}];
      const auto br = b[{ufunc::slice{std::nullopt, std::nullopt, -3}}];
      CHECK_NOTHROW(divide(a, a, on));
      CHECK_NOTHROW(divide(a, bs, on));
      CHECK_NOTHROW(divide(bs, br, on));
      CHECK_NOTHROW(divide(a, T(3), on));
      CHECK_NOTHROW(divide(T(3), bs, on));
      CHECK_NOTHROW(log(a, on));
      CHECK_NOTHROW(log(bs, on));
      CHECK_NOTHROW(sqrt(a, on));
      CHECK_NOTHROW(sqrt(br, on));
      // And the one zero is found wherever it is (SIMD body or tail).
      for (std::int64_t k : {std::int64_t{0}, n / 2, n - 1}) {
        a.data()[k] = T(0);
        CHECK_THROWS_AS(divide(T(1), a, on), ufunc::floating_point_error);
        a.data()[k] = T(1.5) + T(k);
      }
    }
  }
  CHECK(w.seen.empty());
}

#if defined(UFUNC_HAS_TBB)

TEST_CASE("errstate: flags raised on TBB workers reach the caller; the policy applies once per call") {
  const ufunc_test::parallel_split grain(8);
  auto divide = ufunc::vectorize<double(double, double), ufunc::target::parallel>(divides{}, "divide");
  auto floor_divide = ufunc::vectorize<std::int32_t(std::int32_t, std::int32_t), ufunc::target::parallel>(
      int_floor_divide{}, "floor_divide");
  const std::int64_t n = 4000;
  auto x = ufunc::full<double>({n}, 1.0), y = ufunc::full<double>({n}, 2.0);
  y.data()[3777] = 0.0;  // one piece of 500, on whichever thread takes it
  {
    ufunc::errstate guard({.divide = fp_policy::raise});
    CHECK_THROWS_WITH_AS(divide(x, y), "divide by zero encountered in divide", ufunc::floating_point_error);
    // Nothing hangs, no flag is left behind on a worker: the next call is clean.
    y.data()[3777] = 2.0;
    CHECK(divide(x, y).at(3777) == 0.5);
    y.data()[3777] = 0.0;
  }
  {
    warnings w;
    y.data()[5] = 0.0;
    y.data()[2000] = 0.0;
    (void)divide(x, y);  // three pieces raise; one warning
    CHECK(w.seen == std::vector<std::string>{"divide by zero encountered in divide"});
    w.seen.clear();
    auto xi = ufunc::full<std::int32_t>({n}, 7), yi = ufunc::full<std::int32_t>({n}, 2);
    yi.data()[2999] = 0;
    (void)floor_divide(xi, yi);
    CHECK(w.seen == std::vector<std::string>{"divide by zero encountered in floor_divide"});
  }
  {
    ufunc::errstate guard({.all = fp_policy::raise});
    CHECK_NOTHROW(divide(x, 3.0));
    // Several user threads at once, each with its own policy, sharing the workers.
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        ufunc::seterr({.divide = t % 2 ? fp_policy::raise : fp_policy::ignore});
        for (int k = 0; k < 20; ++k) {
          bool threw = false;
          try {
            (void)divide(x, y);
          } catch (const ufunc::floating_point_error&) {
            threw = true;
          }
          if (threw != (t % 2 == 1)) ++wrong;
        }
      });
    for (auto& th : threads) th.join();
    CHECK(wrong.load() == 0);
  }
}

#endif

TEST_CASE("errstate: the methods report once, named as NumPy names them") {
  // NumPy 2: np.add.reduce(np.full(4, 3e38, np.float32)) warns "overflow encountered in reduce", accumulate
  // and reduceat name themselves too, at and outer name the ufunc; reduceat reports once however many of its
  // segments overflow; a dtype= cast is part of reduce ("... in reduce") but a cast of its own ("... in cast")
  // for accumulate and reduceat.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto x = ufunc::full<float>({8}, 3e38f);
  const auto idx = ufunc::asarray<std::int64_t>({0, 2, 4, 6});
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    std::vector<std::pair<std::string, unsigned>> calls;
    ufunc::errstate guard({.all = fp_policy::call},
                          [&](std::string_view m, unsigned flags) { calls.emplace_back(std::string(m), flags); });
    const auto seen = [&](auto&& run) {
      calls.clear();
      run();
      std::vector<std::string> m;
      for (const auto& c : calls) m.push_back(c.first);
      return m;
    };
    using v = std::vector<std::string>;
    const auto over = static_cast<unsigned>(ufunc::fp_flag::overflow);
    CHECK(seen([&] { (void)ufunc::add.reduce(x, {.target = target}); }) == v{"overflow encountered in reduce"});
    CHECK(seen([&] { (void)ufunc::add.accumulate(x, {.target = target}); }) == v{"overflow encountered in accumulate"});
    ufunc::array r;
    CHECK(seen([&] { r = ufunc::add.reduceat(x, idx, {.target = target}); }) == v{"overflow encountered in reduceat"});
    CHECK(calls.size() == 1);
    CHECK(calls[0].second == over);
    CHECK(std::isinf(r.to_vector<float>()[3]));
    CHECK(seen([&] {
            auto y = x.copy();
            ufunc::add.at(y, ufunc::asarray<std::int64_t>({0, 0}), ufunc::full<float>({2}, 3e38f), {.target = target});
          }) == v{"overflow encountered in add"});
    CHECK(seen([&] { (void)ufunc::add.outer(x, x, {.target = target}); }) == v{"overflow encountered in add"});
    const auto with_nan = ufunc::asarray<double>({1.0, nan, 1.0, nan});
    CHECK(seen([&] { (void)ufunc::add.reduce(with_nan, {.dtype = ufunc::int32, .target = target}); }) ==
          v{"invalid value encountered in reduce"});
    CHECK(seen([&] { (void)ufunc::add.accumulate(with_nan, {.dtype = ufunc::int32, .target = target}); }) ==
          v{"invalid value encountered in cast"});
    CHECK(seen([&] {
            (void)ufunc::add.reduceat(with_nan, ufunc::asarray<std::int64_t>({0, 2}),
                                      {.dtype = ufunc::int32, .target = target});
          }) == v{"invalid value encountered in cast"});
  }
}

TEST_CASE("errstate: a Python scalar's conversion to the loop's dtype reports overflow only, as \"cast\"") {
  // NumPy 2 (NEP 50) converts a Python scalar into the loop's dtype before the loop and checks that
  // conversion for overflow alone, reported on its own:
  //   np.add(np.ones(2, 'f'), 1e-300)                  no flag, [1, 1]
  //   np.equal(np.zeros((2, 1), 'f'), 5e-324)          no flag
  //   np.add(np.ones(2, 'f'), 1e300)                   "overflow encountered in cast", [inf, inf]
  //   np.add(np.ones(2, 'f'), 3.4028235677973366e38)   overflow (rounds to inf); 3.4028234663852886e38 none
  //   np.add(np.ones(0, 'f'), 1e300)                   overflow, the array is empty
  //   np.add(np.ones(2, 'F'), 1e300j)                  overflow; 1e-300j none
  //   np.add(1e300, 1e300, dtype='f')                  overflow twice (one report per scalar)
  //   np.add(np.ones(2, 'f'), 1e300, dtype='d')        none
  //   np.add(np.ones(2, 'i'), 1e300, dtype='f')        overflow; 1e-300 none, and np.add(1e-300, 1.0, dtype='f')
  //                                                    none (a scalar not weak, converted straight all the same)
  //   np.add.reduce(np.ones(2, 'f'), initial=1e300)    overflow ("... in cast"); initial=1e-300 none
  // and under errstate(all='raise') np.add(np.ones(2, 'f'), 1e300) raises "overflow encountered in cast".
  const auto ones = ufunc::full<float>({2}, 1.0f);
  const auto empty = ufunc::array::empty({0}, ufunc::float32);
  const auto cones = ufunc::full<std::complex<float>>({2}, 1.0f);
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    std::vector<std::string> calls;
    ufunc::errstate guard({.all = fp_policy::call}, [&](std::string_view m, unsigned) { calls.emplace_back(m); });
    const auto seen = [&](auto&& run) {
      calls.clear();
      run();
      return calls;
    };
    using v = std::vector<std::string>;
    const v none, cast = {"overflow encountered in cast"};
    ufunc::array r;
    CHECK(seen([&] { r = ufunc::add(ones, 1e-300, {.target = target}); }) == none);
    CHECK(r.to_vector<float>() == std::vector<float>{1, 1});
    CHECK(seen([&] { (void)ufunc::equal(ufunc::zeros<float>({2, 1}), 5e-324, {.target = target}); }) == none);
    CHECK(seen([&] { r = ufunc::add(ones, 1e300, {.target = target}); }) == cast);
    CHECK(std::isinf(r.to_vector<float>()[1]));
    CHECK(seen([&] { (void)ufunc::add(ones, 3.4028235677973366e38, {.target = target}); }) == cast);
    CHECK(seen([&] { (void)ufunc::add(ones, 3.4028234663852886e38, {.target = target}); }) == none);
    CHECK(seen([&] { (void)ufunc::add(empty, 1e300, {.target = target}); }) == cast);
    CHECK(seen([&] {
            (void)ufunc::add(ufunc::zeros<float>({2, 3}).transpose(), -1e300, {.target = target});
          }) == cast);  // not C-ordered: the general path
    CHECK(seen([&] { (void)ufunc::add(cones, std::complex<double>(0, 1e300), {.target = target}); }) == cast);
    CHECK(seen([&] { (void)ufunc::add(cones, std::complex<double>(0, 1e-300), {.target = target}); }) == none);
    CHECK(seen([&] { (void)ufunc::add(1e300, 1e300, {.dtype = ufunc::float32, .target = target}); }) ==
          v{cast[0], cast[0]});
    CHECK(seen([&] { (void)ufunc::add(ones, 1e300, {.dtype = ufunc::float64, .target = target}); }) == none);
    const auto ints = ufunc::full<std::int32_t>({2}, 1);
    CHECK(seen([&] { (void)ufunc::add(ints, 1e300, {.dtype = ufunc::float32, .target = target}); }) == cast);
    CHECK(seen([&] { (void)ufunc::add(ints, 1e-300, {.dtype = ufunc::float32, .target = target}); }) == none);
    CHECK(seen([&] { (void)ufunc::add(1e-300, 1.0, {.dtype = ufunc::float32, .target = target}); }) == none);
    CHECK(seen([&] { r = ufunc::add.reduce(ones, {.initial = 1e300, .target = target}); }) == cast);
    CHECK(std::isinf(r.item<float>()));
    CHECK(seen([&] { r = ufunc::add.reduce(ones, {.initial = 1e-300, .target = target}); }) == none);
    CHECK(r.item<float>() == 2.0f);
  }
  ufunc::errstate guard({.all = fp_policy::raise});
  CHECK_THROWS_WITH_AS(ufunc::add(ones, 1e300), "overflow encountered in cast", ufunc::floating_point_error);
  CHECK_NOTHROW(ufunc::add(ones, 1e-300));
}

TEST_CASE("errstate: at reports once, after every position, under the ufunc's name or \"at\" as NumPy") {
  // NumPy 2's ufunc.at checks the flags once at the end: under the ufunc's name where it runs the loop's
  // indexed variant (no cast, a 1-d, b at most 1-d, one index array, and add/subtract/multiply (not bool),
  // divide (floats), floor_divide/maximum/minimum/fmax/fmin (not complex)), else under "at". Hard-coded:
  //   np.float_power.at(np.array([-1., 1e30], 'f'), [0, 1], np.array([0.5, 2.])): under all='raise'
  //     "overflow encountered in at" (invalid from (-1)**0.5, overflow from 1e60 cast back to float32: the
  //     first kind of the whole at), a == [nan, inf]; under 'call' overflow then invalid value, both "in at"
  //   np.add.at(np.array([1e308, 1.]), [0], 1e308)                         "overflow encountered in add"
  //   np.add.at(np.array([1e308, 1.]), np.array([[0]]), np.array([1e308]))  "... in add"
  //   np.add.at(np.array([1e308, 1.]), np.array([True, False]), np.array([1e308]))  "... in add"
  //   np.add.at(np.array([1e308, 1.]), np.array([[0]]), np.array([[1e308]]))  "... in at" (b 2-d)
  //   np.add.at(np.array([[1e308, 1.]]), [0], np.array([1e308]))            "... in at" (a 2-d)
  //   np.add.at(np.array([[1e308, 1.]]), ([0], [0]), np.array([1e308]))     "... in at" (two index arrays)
  //   np.add.at(np.array([1e38], 'f'), [0], np.array([1e308]))              "... in at" (a cast)
  //   np.divide.at(np.array([1.]), [0], np.array([0.]))                     "divide by zero encountered in divide"
  //   np.divide.at(np.array([1+0j]), [0], np.array([0j]))                   divide by zero, invalid value, "in at"
  //   np.floor_divide.at(np.array([1]), [0], np.array([0]))                 "... in floor_divide"
  //   np.remainder.at(np.array([1]), [0], np.array([0]))                    "... in at"
  //   np.sqrt.at(np.array([-1.]), [0])                                      "invalid value encountered in at"
  //   np.ldexp.at(np.array([1e308, 1.]), [0], np.array([2000], 'i'))        "overflow encountered in at"
  const auto i64 = [](std::initializer_list<std::int64_t> v) { return ufunc::asarray<std::int64_t>(v); };
  const auto f64 = [](std::initializer_list<double> v) { return ufunc::asarray<double>(v); };
  const auto zero = i64({0});
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    std::vector<std::string> calls;
    auto seen = [&](auto&& run) {
      calls.clear();
      ufunc::errstate guard({.all = fp_policy::call}, [&](std::string_view m, unsigned) { calls.emplace_back(m); });
      run();
      return calls;
    };
    using v = std::vector<std::string>;
    const ufunc::call_options on{.target = target};
    {
      auto a = ufunc::asarray<float>({-1.0f, 1e30f});
      CHECK(seen([&] {
              ufunc::float_power.at(a, i64({0, 1}), f64({0.5, 2.0}), on);
            }) == v{"overflow encountered in at", "invalid value encountered in at"});
      a = ufunc::asarray<float>({-1.0f, 1e30f});
      {
        ufunc::errstate raise({.all = fp_policy::raise});
        CHECK_THROWS_WITH_AS(ufunc::float_power.at(a, i64({0, 1}), f64({0.5, 2.0}), on), "overflow encountered in at",
                             ufunc::floating_point_error);
      }
      const auto got = a.to_vector<float>();
      CHECK(std::isnan(got[0]));
      CHECK(std::isinf(got[1]));
    }
    const auto over_in = [](const char* name) { return v{std::string("overflow encountered in ") + name}; };
    auto big = [&] { return f64({1e308, 1.0}); };
    CHECK(seen([&] { ufunc::add.at(big(), zero, 1e308, on); }) == over_in("add"));
    CHECK(seen([&] { ufunc::add.at(big(), i64({0}).reshape({1, 1}), f64({1e308}), on); }) == over_in("add"));
    CHECK(seen([&] { ufunc::add.at(big(), ufunc::asarray<bool>({true, false}), f64({1e308}), on); }) == over_in("add"));
    CHECK(seen([&] {
            ufunc::add.at(big(), i64({0}).reshape({1, 1}), f64({1e308}).reshape({1, 1}), on);
          }) == over_in("at"));
    CHECK(seen([&] { ufunc::add.at(big().reshape({1, 2}), zero, f64({1e308}), on); }) == over_in("at"));
    CHECK(seen([&] { ufunc::add.at(big().reshape({1, 2}), {zero, zero}, f64({1e308}), on); }) == over_in("at"));
    CHECK(seen([&] { ufunc::add.at(ufunc::asarray<float>({1e38f}), zero, f64({1e308}), on); }) == over_in("at"));
    CHECK(seen([&] { ufunc::divide.at(f64({1.0}), zero, f64({0.0}), on); }) ==
          v{"divide by zero encountered in divide"});
    CHECK(seen([&] {
            ufunc::divide.at(ufunc::asarray<std::complex<double>>({1.0}), zero,
                             ufunc::asarray<std::complex<double>>({0.0}), on);
          }) == v{"divide by zero encountered in at", "invalid value encountered in at"});
    CHECK(seen([&] { ufunc::floor_divide.at(i64({1}), zero, i64({0}), on); }) ==
          v{"divide by zero encountered in floor_divide"});
    CHECK(seen([&] { ufunc::remainder.at(i64({1}), zero, i64({0}), on); }) == v{"divide by zero encountered in at"});
    CHECK(seen([&] { ufunc::sqrt.at(f64({-1.0}), zero, on); }) == v{"invalid value encountered in at"});
    CHECK(seen([&] { ufunc::ldexp.at(big(), zero, ufunc::asarray<std::int32_t>({2000}), on); }) == over_in("at"));
  }
}

TEST_CASE_TEMPLATE("errstate: complex absolute raises no flag, as NumPy's loops: |z| beyond the largest number is inf",
                   R, float, double) {
  // NumPy's complex absolute loops (F->f, D->d) compute |z| in SIMD lanes and then clear the
  // status word (loops_unary_complex), for every layout but those its iterator hands to the scalar
  // fallback: a complex64 |3.4e38 + 3.4e38j| is inf, and np.abs of it raises nothing, contiguous,
  // strided, 2-d into an out= view with negative steps (seed 7's r9241), into a float64 out=, at.
  // Hard-coded (NumPy 2.4, all='call'):
  //   z = np.full(8, 3.4028235e38 + 3.4028235e38j, 'F'); np.abs(z)     [inf ...], no flag
  //   np.abs(np.full((4, 16), z[0]), out=np.empty((8, 48), 'f')[7:0:-2, 47:1:-3])   no flag
  //   np.abs(np.full(8, 1e-45 + 1e-45j, 'F'))                          [1e-45 ...], no flag
  //   np.abs(np.full(8, 1.79e308 + 1.79e308j))                         [inf ...], no flag
  //   np.absolute.at(z, [0, 2])                                        no flag
  // (np.abs(z[::-1]) raises overflow there: NumPy's scalar fallback; the differential runner
  // leaves that out, generate_cases.py's layout_flags.)
  using C = std::complex<R>;
  using L = std::numeric_limits<R>;
  const R max = L::max(), tiny = L::denorm_min(), inf = L::infinity(), nan = L::quiet_NaN();
  const std::vector<C> values = {{max, max},      {-max, max},          {R(0.75) * max, -R(0.75) * max},
                                 {max, R(1)},     {max / 2, max / 2},   {max, tiny},
                                 {tiny, tiny},    {3 * tiny, 4 * tiny}, {L::min(), L::min()},
                                 {inf, nan},      {nan, R(1)},          {R(3), R(-4)},
                                 {R(0), R(-0.0)}, {-max, nan},          {R(1e-30), R(1e30)}};
  // The expected magnitudes: glibc's hypot (float: of the parts in double, rounded once), and inf,
  // quietly, where it does not fit.
  const auto want = [](C z) -> R {
    if constexpr (std::is_same_v<R, float>)
      return static_cast<float>(std::hypot(double(z.real()), double(z.imag())));
    else
      return std::hypot(z.real(), z.imag());
  };
  const std::int64_t n = 37;  // a SIMD body and a tail on every instruction set
  std::vector<C> cycle(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    cycle[static_cast<std::size_t>(i)] = values[static_cast<std::size_t>(i) % values.size()];
  const auto z = ufunc::asarray<C>(std::span<const C>(cycle));
  const auto z2 = ufunc::asarray<C>(std::span<const C>(cycle.data(), 32), {4, 8});
  const ufunc_test::parallel_split split(5);
  unsigned seen = 0;
  ufunc::errstate guard({.all = fp_policy::call}, [&](std::string_view, unsigned f) { seen |= f; });
  const auto same = [](R got, R expected) {
    return (std::isnan(got) && std::isnan(expected)) || (got == expected && !std::signbit(got));
  };
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    const ufunc::call_options on{.target = target};
    seen = 0;
    const ufunc::array r = ufunc::absolute(z, on);
    CHECK(seen == 0u);
    REQUIRE(r.type() == ufunc::dtype_of<R>);
    for (std::int64_t i = 0; i < n; ++i) {
      CAPTURE(i);
      CHECK(same(r.at<R>(i), want(cycle[static_cast<std::size_t>(i)])));
    }
    seen = 0;
    const ufunc::array rev = ufunc::absolute(z[{ufunc::slice{std::nullopt, std::nullopt, -1}}], on);
    CHECK(seen == 0u);
    for (std::int64_t i = 0; i < n; ++i) CHECK(same(rev.at<R>(i), r.at<R>(n - 1 - i)));
    seen = 0;
    (void)ufunc::absolute(z[{ufunc::slice{1, std::nullopt, 3}}], on);
    CHECK(seen == 0u);
    // r9241's layout: out= a view with negative steps on both axes.
    auto base = ufunc::zeros<R>({8, 24});
    auto out = base[{ufunc::slice{7, 0, -2}, ufunc::slice{23, 1, -3}}];
    REQUIRE(out.shape() == ufunc::dim_vector{4, 8});
    seen = 0;
    ufunc::absolute(z2, {.out = {out}, .casting = ufunc::casting::safe, .target = target});
    CHECK(seen == 0u);
    for (std::int64_t i = 0; i < 4; ++i)
      for (std::int64_t j = 0; j < 8; ++j) CHECK(same(out.template at<R>(i, j), r.at<R>(i * 8 + j)));
    // Into a float64 out= (the loop's inf cast to double) and under raise.
    auto wide = ufunc::zeros<double>({n});
    seen = 0;
    ufunc::absolute(z, {.out = {wide}, .target = target});
    CHECK(seen == 0u);
    {
      ufunc::errstate raise({.all = fp_policy::raise});
      CHECK_NOTHROW((void)ufunc::absolute(z, on));
    }
    // at: the magnitudes written back into the complex array.
    auto a = ufunc::asarray<C>(std::span<const C>(cycle));
    seen = 0;
    ufunc::absolute.at(a, ufunc::asarray<std::int64_t>({0, 2, 6, 9}), on);
    CHECK(seen == 0u);
    CHECK(std::isinf(a.template at<C>(0).real()));
  }
}

TEST_CASE_TEMPLATE("complex absolute: subnormal and huge magnitudes are glibc's hypot, rounded once", R, float,
                   double) {
  // ops::absolute computes |z| where it can neither overflow nor underflow and rounds a subnormal
  // result by hand (detail::quiet_abs): the values must still be glibc's hypot (for float32, of the
  // parts in double, rounded once, as glibc's hypotf), or one subnormal ulp from it for float64, whose
  // scaled hypot is rounded twice.
  using C = std::complex<R>;
  using L = std::numeric_limits<R>;
  std::mt19937_64 rng(20261125);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<C> zs;
  for (int k = 0; k < 4000; ++k) {
    // Parts with exponents near the bottom (subnormal results) and the top (inf or not).
    const int lo_exp = L::min_exponent - L::digits - 2, hi_exp = L::max_exponent;
    const bool top = k % 2 == 1;
    const int e1 = top ? hi_exp - int(rng() % 8) : lo_exp + int(rng() % 40);
    const int e2 = e1 - int(rng() % 30);
    zs.emplace_back(R(std::ldexp(unit(rng), e1)), R(std::ldexp(unit(rng), e2)) * (k % 3 == 0 ? R(-1) : R(1)));
  }
  auto z = ufunc::asarray<C>(std::span<const C>(zs));
  const ufunc::array r = ufunc::absolute(z);
  int off = 0;
  for (std::size_t i = 0; i < zs.size(); ++i) {
    const C v = zs[i];
    const R got = r.at<R>(static_cast<std::int64_t>(i));
    if constexpr (std::is_same_v<R, float>) {
      const float want = static_cast<float>(std::hypot(double(v.real()), double(v.imag())));
      if (got != want && ++off < 10) std::printf("    |%a%+ai|: ours %a, glibc %a\n", v.real(), v.imag(), got, want);
    } else {
      const double want = std::hypot(v.real(), v.imag());
      const bool ok = std::isinf(want) ? std::isinf(got)
                                       : std::abs(got - want) <= (std::abs(want) < L::min() ? L::denorm_min() : 0.0);
      if (!ok && ++off < 10) std::printf("    |%a%+ai|: ours %a, glibc %a\n", v.real(), v.imag(), got, want);
    }
  }
  CHECK(off == 0);
}
