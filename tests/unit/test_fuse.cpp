// ufunc::fuse on the host targets: fused equals the same calls made one by one, bit for
// bit and dtype for dtype (mixed dtypes, weak scalars, every built-in binary and unary
// ufunc as a node, broadcasting, strides, out= in place, where=, several outputs), one
// trace per tuple of input dtypes, no temporaries of the call's size, and errors that
// name the node.
#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>

#include <ufunc/core/detail/memory.hpp>
#include <ufunc/fuse.hpp>

#include "../../examples/black_scholes.hpp"
#include "test_support.hpp"

namespace {

// The same bytes, dtype and shape (C-ordered copies, so strides do not matter).
void check_same(const ufunc::array& got, const ufunc::array& want) {
  REQUIRE(got.type() == want.type());
  REQUIRE(got.shape() == want.shape());
  const auto g = got.copy(), w = want.copy();
  CHECK(std::memcmp(g.data(), w.data(), static_cast<std::size_t>(g.nbytes())) == 0);
}

// float32 arrays of the same shape within `ulps`: the compiler may contract a C++ double
// expression (r + 0.5 * v * v) into an fma where the traced nodes round twice.
void check_float32_close(const ufunc::array& got, const ufunc::array& want, double ulps) {
  REQUIRE(got.type() == ufunc::float32);
  REQUIRE(want.type() == ufunc::float32);
  REQUIRE(got.shape() == want.shape());
  const auto g = got.copy(), w = want.copy();
  double worst = 0;
  for (std::int64_t k = 0; k < g.size(); ++k)
    worst = std::max(worst, ufunc_test::ulp_distance(reinterpret_cast<const float*>(g.data())[k],
                                                     reinterpret_cast<const float*>(w.data())[k]));
  CHECK(worst <= ulps);
}

// A view of a 2-d array with its columns in reverse order (negative stride).
ufunc::array reversed_columns(const ufunc::array& a) {
  const auto last = (a.shape()[1] - 1) * a.strides()[1];
  return ufunc::array(a.data() + last, a.type(), a.shape(), {a.strides()[0], -a.strides()[1]}, a.owner());
}

}  // namespace

TEST_CASE("fuse: sqrt(a*a + b*b) equals the chain on float32 and float64, contiguous, strided, broadcast") {
  auto hyp = ufunc::fuse([](auto a, auto b) { return ufunc::sqrt(a * a + b * b); }, "hyp");
  auto chain = [](const ufunc::array& a, const ufunc::array& b) {
    return ufunc::sqrt(ufunc::add(ufunc::multiply(a, a), ufunc::multiply(b, b)));
  };
  for (std::size_t n : {1u, 7u, 511u, 512u, 513u, 5000u}) {
    CAPTURE(n);
    const ufunc::array x = ufunc_test::sample_array<float>(n, 1), y = ufunc_test::sample_array<float>(n, 2);
    check_same(hyp(x, y), chain(x, y));
    const ufunc::array xd = ufunc_test::sample_array<double>(n, 3), yd = ufunc_test::sample_array<double>(n, 4);
    check_same(hyp(xd, yd), chain(xd, yd));
  }
  const ufunc::array m = ufunc_test::sample_array<float>(60 * 70, 5).reshape({60, 70});
  const ufunc::array row = ufunc_test::sample_array<float>(70, 6).reshape({1, 70});
  check_same(hyp(m, row), chain(m, row));
  const ufunc::array mt = ufunc_test::sample_array<float>(70 * 60, 9).reshape({70, 60});
  check_same(hyp(m.transpose(), mt), chain(m.transpose(), mt));
  const auto reversed = m[{ufunc::slice{std::nullopt, std::nullopt, -2}}];
  check_same(hyp(reversed, reversed), chain(reversed, reversed));
  CHECK(hyp.traces() == 2);  // float32 and float64
  CHECK(hyp.ufunc().types() == std::vector<std::string>{"ff->f", "dd->d"});
}

TEST_CASE("fuse: mixed dtypes and weak scalars resolve per node as the chain does") {
  auto f = ufunc::fuse([](auto a, auto b, auto c) { return a * b + c - 3; }, "f");
  const ufunc::array i8 = ufunc_test::sample_array<std::int8_t>(1000, 1);
  const ufunc::array f32 = ufunc_test::sample_array<float>(1000, 2);
  const ufunc::array u16 = ufunc_test::sample_array<std::uint16_t>(1000, 3);
  const auto want = ufunc::subtract(ufunc::add(ufunc::multiply(i8, f32), u16), 3);
  check_same(f(i8, f32, u16), want);
  CHECK(f(i8, f32, u16).type() == ufunc::float32);
  // Integers: int8 * int8 wraps as in the chain; a weak 2.5 makes it float64.
  auto g = ufunc::fuse([](auto a) { return (a * a) * 2.5; }, "g");
  check_same(g(i8), ufunc::multiply(ufunc::multiply(i8, i8), 2.5));
  CHECK(g(i8).type() == ufunc::float64);
  // Booleans and comparisons; complex.
  auto h = ufunc::fuse([](auto a, auto b) { return (a < b) & (b <= 0.5f); }, "h");
  const ufunc::array g32 = ufunc_test::sample_array<float>(1000, 9);
  check_same(h(f32, g32), ufunc::bitwise_and(ufunc::less(f32, g32), ufunc::less_equal(g32, 0.5f)));
  const ufunc::array c64 = ufunc_test::sample_array<std::complex<float>>(300, 4);
  auto k = ufunc::fuse([](auto a) { return ufunc::exp(a) * a - 1; }, "k");
  check_same(k(c64), ufunc::subtract(ufunc::multiply(ufunc::exp(c64), c64), 1));
}

TEST_CASE("fuse: ufunc::where as np.where: any condition dtype, x and y promoted as a call's operands") {
  const ufunc::array f32 = ufunc_test::sample_array<float>(1000, 2);
  const ufunc::array i8 = ufunc_test::sample_array<std::int8_t>(1000, 1);
  const ufunc::array u8 = ufunc_test::sample_array<std::uint8_t>(1000, 3);
  const auto xs = f32.to_vector<float>();
  // A float condition: where(f32 > 0.5, f32, 0.0) keeps float32 (the 0.0 is weak).
  auto clip = ufunc::fuse([](auto a) { return ufunc::where(a > 0.5, a, 0.0); }, "clip");
  const auto c = clip(f32);
  CHECK(c.type() == ufunc::float32);
  const auto cv = c.to_vector<float>();
  for (std::size_t k = 0; k < xs.size(); ++k) CHECK(cv[k] == (xs[k] > 0.5f ? xs[k] : 0.0f));
  // An int8 condition counts where it is nonzero; int8 and uint8 branches give int16 (NumPy's result_type).
  auto pick = ufunc::fuse([](auto m, auto a, auto b) { return ufunc::where(m, a, b); }, "pick");
  const auto p = pick(i8, i8, u8);
  CHECK(p.type() == ufunc::int16);
  const auto mv = i8.to_vector<std::int8_t>();
  const auto uv = u8.to_vector<std::uint8_t>();
  const auto pv = p.to_vector<std::int16_t>();
  for (std::size_t k = 0; k < mv.size(); ++k) CHECK(pv[k] == (mv[k] != 0 ? mv[k] : std::int16_t(uv[k])));
  // Fused equals the same steps unfused, bit for bit, on every host target.
  for (auto t : ufunc_test::host_targets())
    check_same(pick(i8, f32, u8, {.target = t}), pick.call_unfused(std::vector<ufunc::operand>{i8, f32, u8}).front());
  CHECK(pick.explain({ufunc::int8, ufunc::float32, ufunc::uint8}).find("where(") != std::string::npos);
  // The truth test of a bool condition is the condition: no int64 cast and compare (the chain's values).
  CHECK(pick.explain({ufunc::int8, ufunc::float32, ufunc::uint8}).find("not_equal(x0, c0)  bb->?") !=
        std::string::npos);
  CHECK(pick.explain({ufunc::bool_, ufunc::float32, ufunc::uint8}).find("not_equal") == std::string::npos);
  CHECK(clip.explain({ufunc::float32}).find("not_equal") == std::string::npos);
  const ufunc::array b8 = ufunc_test::sample_array<bool>(1000, 5);
  for (auto t : ufunc_test::host_targets())
    check_same(pick(b8, f32, u8, {.target = t}), pick.call_unfused(std::vector<ufunc::operand>{b8, f32, u8}).front());
}

TEST_CASE("fuse: every built-in unary and binary float64 ufunc as a node equals its call") {
  const ufunc::array x = ufunc_test::sample_array<double>(777, 7), y = ufunc_test::sample_array<double>(777, 8);
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  for (const ufunc::function& f : ufunc::builtin_list) {
    if (f.nout() != 1) continue;
    CAPTURE(f.name());
    try {
      if (f.nin() == 1) {
        auto fused = ufunc::fuse([&f](auto a) { return ufunc::fusion::apply(f, {{a}}); }, "one");
        check_same(fused(x), f(x));
      } else if (f.nin() == 2) {
        auto fused = ufunc::fuse([&f](auto a, auto b) { return ufunc::fusion::apply(f, {{a, b}}); }, "two");
        check_same(fused(x, y), f(x, y));
      }
    } catch (const ufunc::no_loop_error&) {
      CHECK_THROWS_AS(f.nin() == 1 ? f(x) : f(x, y), ufunc::no_loop_error);  // the chain refuses too
    }
  }
}

TEST_CASE("fuse: out= in place, where=, several outputs, 0-d, parallel") {
  auto axpy = ufunc::fuse([](auto a, auto x, auto y) { return a * x + y; }, "axpy");
  ufunc::array y = ufunc_test::sample_array<double>(3000, 1);
  const ufunc::array x = ufunc_test::sample_array<double>(3000, 2);
  const ufunc::array a = ufunc::full<double>({}, 2.5);  // 0-d
  const auto want = ufunc::add(ufunc::multiply(a, x), y);
  axpy(a, x, y, {.out = {y}});  // in place
  check_same(y, want);
  const ufunc::array mask = ufunc::greater(x, 0.3);
  ufunc::array out = ufunc::zeros<double>({3000});
  axpy(a, x, y, {.out = {out}, .where = mask});
  const auto masked_want = ufunc::zeros<double>({3000});
  ufunc::add(ufunc::multiply(a, x), y, {.out = {masked_want}, .where = mask});
  check_same(out, masked_want);

  auto both = ufunc::fuse([](auto p, auto q) { return std::make_tuple(p + q, p * q); }, "both");
  const auto results = both.call(std::vector<ufunc::operand>{x, y});
  REQUIRE(results.size() == 2);
  check_same(results[0], ufunc::add(x, y));
  check_same(results[1], ufunc::multiply(x, y));
  if (ufunc::target_available(ufunc::target_id::parallel)) {
    const ufunc_test::parallel_split split(64);
    check_same(axpy(a, x, y, {.target = ufunc::target_id::parallel}), ufunc::add(ufunc::multiply(a, x), y));
  }
}

TEST_CASE(
    "fuse: contiguous calls run node by node over runs, equal to the chain: tails, broadcasting, casts, copies, "
    "streaming, flags") {
  const std::string runs = "host: runs of " + std::to_string(ufunc::fixed_run) + " contiguous elements";
  auto f = ufunc::fuse(
      [](auto a, auto b, auto c) { return ufunc::sqrt(a * a + b) / (c - 0.5) + ufunc::exp(-a) * 0.25; }, "f");
  CHECK(f.explain({ufunc::float32, ufunc::float32, ufunc::float32}).find(runs) != std::string::npos);
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  for (std::int64_t n :
       {ufunc::fixed_run - 1, ufunc::fixed_run, ufunc::fixed_run + 1, std::int64_t{1000}, std::int64_t{4096 + 77}}) {
    CAPTURE(n);
    const auto count = static_cast<std::size_t>(n);
    for (auto t : ufunc_test::host_targets()) {
      const ufunc_test::parallel_split split(300);
      const ufunc::array x = ufunc_test::sample_array<float>(count, 1), y = ufunc_test::sample_array<float>(count, 2),
                         z = ufunc_test::sample_array<float>(count, 3);
      const auto args = std::vector<ufunc::operand>{x, y, z};
      check_same(f(x, y, z, {.target = t}), f.call_unfused(args).front());
      // Broadcast inputs (a 0-d array, a shape-(1,) array) are spread over a run.
      const ufunc::array y0 = ufunc::full<float>({}, 2.5f), y1 = ufunc::full<float>({1}, -0.75f);
      check_same(f(x, y0, z, {.target = t}), f.call_unfused(std::vector<ufunc::operand>{x, y0, z}).front());
      check_same(f(y1, y, x, {.target = t}), f.call_unfused(std::vector<ufunc::operand>{y1, y, x}).front());
      // Casts inside the graph (int8 and uint16 to float32); a predicate's bool output.
      auto g = ufunc::fuse([](auto a, auto b, auto c) { return a * b + c - 3; }, "g");
      const ufunc::array i8 = ufunc_test::sample_array<std::int8_t>(count, 4);
      const ufunc::array u16 = ufunc_test::sample_array<std::uint16_t>(count, 5);
      CHECK(g.explain({ufunc::int8, ufunc::float32, ufunc::uint16}).find(runs) != std::string::npos);
      check_same(g(i8, x, u16, {.target = t}), ufunc::subtract(ufunc::add(ufunc::multiply(i8, x), u16), 3));
      auto h = ufunc::fuse([](auto a, auto b) { return (a < b) & (b <= 0.5f); }, "h");
      check_same(h(x, y, {.target = t}), ufunc::bitwise_and(ufunc::less(x, y), ufunc::less_equal(y, 0.5f)));
      // Several outputs, one copied (a node after it reads an operand), out= in place.
      auto q = ufunc::fuse([](auto a, auto b) { return std::make_tuple(a * 2, a + b); }, "q");
      ufunc::array xs = x.copy();
      const auto want0 = ufunc::multiply(x, 2), want1 = ufunc::add(x, y);
      q.call(std::vector<ufunc::operand>{xs, y}, {.out = {xs, ufunc::array(ufunc::empty<float>({n}))}, .target = t});
      check_same(xs, want0);
      const auto both = q.call(std::vector<ufunc::operand>{x, y}, {.target = t});
      check_same(both[0], want0);
      check_same(both[1], want1);
      // Streaming stores (every output large): an aligned output and one that is not.
      {
        const auto saved = ufunc::detail::streaming_threshold();
        ufunc::detail::set_streaming_threshold(1);
        auto wide = ufunc::array::zeros({n + 1}, ufunc::float32);
        const auto misaligned = wide[{ufunc::slice{1, std::nullopt}}];
        f(x, y, z, {.out = {misaligned}, .target = t});
        const auto aligned = f(x, y, z, {.target = t});
        ufunc::detail::set_streaming_threshold(saved);
        check_same(misaligned, f.call_unfused(args).front());
        check_same(aligned, f.call_unfused(args).front());
      }
    }
  }
  // Floating-point errors raised inside a run reach errstate; none where no value raises.
  const std::size_t n = 1000;
  const ufunc::array x = ufunc_test::sample_array<float>(n, 1), y = ufunc_test::sample_array<float>(n, 2);
  ufunc::array c = ufunc::full<float>({1000}, 3.0f);
  auto d = ufunc::fuse([](auto a, auto b, auto k) { return a * b / (k - 3); }, "d");
  const ufunc::errstate raise({.divide = ufunc::fp_policy::raise});
  CHECK_THROWS_WITH_AS((void)d(x, y, c), doctest::Contains("divide by zero encountered in d"),
                       ufunc::floating_point_error);
  c = ufunc::full<float>({1000}, 5.0f);
  CHECK_NOTHROW((void)d(x, y, c));
  reinterpret_cast<float*>(c.data())[700] = 3.0f;  // one zero divisor, in the third run
  CHECK_THROWS_AS((void)d(ufunc::full<float>({1000}, 1.0f), y, c), ufunc::floating_point_error);
}

TEST_CASE("fuse: C++ scalar arguments are weak, as in the chain of calls; one trace per scalar kind and fit") {
  // Black-Scholes' r and v: float scalars beside float32 arrays keep float32.
  auto axpy = ufunc::fuse([](auto a, auto x, auto y) { return a * x + y; }, "axpy");
  const auto x = ufunc_test::sample_array<float>(1000, 1), y = ufunc_test::sample_array<float>(1000, 2);
  for (const auto t : ufunc_test::host_targets()) {
    const auto got = axpy(2.5, x, y, {.target = t});
    CHECK(got.type() == ufunc::float32);
    check_same(got, ufunc::add(ufunc::multiply(2.5, x), y));
    check_same(axpy(0.1, x, y, {.target = t}), ufunc::add(ufunc::multiply(0.1, x), y));  // rounded once, as a call
  }
  CHECK(axpy.traces() == 1);  // every float value: one trace
  // Integers: int8 stays int8 for values that fit; a value that does not is the call's error.
  const auto i8 = ufunc_test::sample_array<std::int8_t>(100, 3);
  check_same(axpy(3, i8, i8), ufunc::add(ufunc::multiply(3, i8), i8));
  check_same(axpy(-7, i8, i8), ufunc::add(ufunc::multiply(-7, i8), i8));
  CHECK(axpy.traces() == 3);  // 3 and -7 fit different dtypes (-7 no unsigned one): a trace each
  check_same(axpy(100, i8, i8), ufunc::add(ufunc::multiply(100, i8), i8));
  CHECK(axpy.traces() == 3);  // 100 fits what 3 fits
  CHECK_THROWS_AS((void)axpy(300, i8, i8), ufunc::overflow_error);
  CHECK_THROWS_AS((void)ufunc::multiply(300, i8), ufunc::overflow_error);
  // Comparisons take any Python integer exactly (NumPy 2): int8 < 1000 is true everywhere.
  auto below = ufunc::fuse([](auto a, auto b) { return a < b; }, "below");
  check_same(below(i8, 1000), ufunc::less(i8, 1000));
  check_same(below(i8, 5), ufunc::less(i8, 5));
  // Complex and bool scalars; a scalar beside a scalar and an array.
  auto scale = ufunc::fuse([](auto s, auto a) { return s * a; }, "scale");
  check_same(scale(std::complex<double>(1.0, 2.0), x), ufunc::multiply(std::complex<double>(1.0, 2.0), x));
  check_same(scale(true, i8), ufunc::multiply(true, i8));
  auto three = ufunc::fuse([](auto s, auto t, auto a) { return (s + t) * a; }, "three");
  check_same(three(1.5, 2, x), three.call_unfused(std::vector<ufunc::operand>{1.5, 2, x}).front());
  CHECK(three(1.5, 2, x).type() == ufunc::float32);  // 1.5 + 2 is a weak float, as Python's 3.5
  // A scalar call and an array call of the same default dtypes are different graphs:
  // float64 array beside float32 promotes, a float scalar does not.
  const auto a64 = ufunc_test::sample_array<double>(1000, 4);
  CHECK(axpy(a64, x, y).type() == ufunc::float64);
  CHECK(axpy(2.5, x, y).type() == ufunc::float32);
  CHECK(axpy(a64, x, y).type() == ufunc::float64);
  // A float scalar that overflows the loop's dtype raises overflow, as the call's conversion does.
  {
    ufunc::errstate guard({.over = ufunc::fp_policy::raise});
    CHECK_THROWS_AS((void)ufunc::multiply(1e300, x), ufunc::floating_point_error);
    CHECK_THROWS_AS((void)axpy(1e300, x, y), ufunc::floating_point_error);
  }
  // Only scalars: as a call of scalars, a 0-d result.
  auto id = ufunc::fuse([](auto a) { return a * 2; }, "double_it");
  CHECK(id(2.0).ndim() == 0);
  CHECK(id(2.0).item<double>() == 4.0);
}

TEST_CASE("fuse: a float, complex or bool value of weak operands only stays weak, as Python's scalar arithmetic") {
  // (r + 0.5 * v * v) * t with r, v doubles: computed unfused, the scalar part is a plain
  // double (in NumPy a Python float), weak beside float32 t.
  const auto t = ufunc::add(ufunc::absolute(ufunc_test::sample_array<float>(1000, 1)), 0.25);
  auto drift = ufunc::fuse([](auto r, auto v, auto a) { return (r + 0.5 * v * v) * a; }, "drift");
  const std::vector<ufunc::operand> drift_args{0.02, 0.3, t};
  const double r = 0.02, v = 0.3;
  for (const auto target : ufunc_test::host_targets()) {
    const auto got = drift(0.02, 0.3, t, {.target = target});
    CHECK(got.type() == ufunc::float32);
    check_same(got, drift.call_unfused(drift_args, {.target = target}).front());
    check_float32_close(got, ufunc::multiply(r + 0.5 * v * v, t), 1);
  }
  // Black-Scholes on float32 arrays with double r and v: float32 throughout, as
  // black_scholes called on the arrays with plain doubles.
  auto bs = ufunc::fuse([](auto p, auto k, auto y, auto rate, auto vol) { return black_scholes(p, k, y, rate, vol); },
                        "black_scholes");
  const auto s = ufunc::add(ufunc::multiply(ufunc::absolute(ufunc_test::sample_array<float>(1000, 2)), 5.0), 5.0);
  const auto x = ufunc::add(ufunc::multiply(ufunc::absolute(ufunc_test::sample_array<float>(1000, 3)), 50.0), 1.0);
  const std::vector<ufunc::operand> bs_args{s, x, t, r, v};
  // r and v captured as plain doubles: r + 0.5 * v * v is C++ arithmetic, one weak constant.
  auto bs_plain = ufunc::fuse(
      [r, v](auto price, auto strike, auto time) { return black_scholes(price, strike, time, r, v); }, "bs_plain");
  const auto plain = bs_plain.call_unfused(std::vector<ufunc::operand>{s, x, t});
  CHECK(plain[0].type() == ufunc::float32);
  for (const auto target : ufunc_test::host_targets()) {
    const auto got = bs.call(bs_args, {.target = target});
    const auto unfused = bs.call_unfused(bs_args, {.target = target});
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(got[k].type() == ufunc::float32);
      check_same(got[k], unfused[k]);
    }
    check_float32_close(got[0], plain[0], 4);
    check_float32_close(got[1], plain[1], 4);
  }
  // Complex: z * 2.0 is a weak complex, so beside float32 the result is complex64.
  auto rotate = ufunc::fuse([](auto z, auto a) { return (z * 2.0) * a; }, "rotate");
  const std::complex<double> z(1.0, -2.0);
  const auto rotated = rotate(z, t);
  CHECK(rotated.type() == ufunc::complex64);
  check_same(rotated, rotate.call_unfused(std::vector<ufunc::operand>{z, t}).front());
  check_same(rotated, ufunc::multiply(z * 2.0, t));
  // Bool: r > 0.01 is a weak bool; beside int8 it keeps int8 (as a strong bool would).
  const auto i8 = ufunc_test::sample_array<std::int8_t>(100, 4);
  auto gate = ufunc::fuse([](auto rate, auto a) { return (rate > 0.01) * a; }, "gate");
  check_same(gate(r, i8), gate.call_unfused(std::vector<ufunc::operand>{r, i8}).front());
  check_same(gate(r, i8), ufunc::multiply(true, i8));
  // An integer stays strong int64 (NumPy would keep int8 for 2 + 3, a Python int, after
  // checking its value against int8: a trace knows no value).
  auto shift = ufunc::fuse([](auto n, auto a) { return (n + 3) * a; }, "shift");
  const auto shifted = shift(2, i8);
  CHECK(shifted.type() == ufunc::int64);
  check_same(shifted, shift.call_unfused(std::vector<ufunc::operand>{2, i8}).front());
  check_same(shifted, ufunc::multiply(ufunc::scalar<std::int64_t>(5), i8));
  // A weak value returned as it is keeps its dtype, float64 (unfused: 0-d, as a call of
  // scalars gives); where a later node reads it, it is weak.
  auto half = ufunc::fuse([](auto rate, auto a) { return std::make_tuple(rate * 0.5, a + rate * 0.5); }, "half");
  const std::vector<ufunc::operand> half_args{r, t};
  const auto halves = half.call_unfused(half_args), fused_halves = half.call(half_args);
  CHECK(halves[0].type() == ufunc::float64);
  CHECK(halves[0].ndim() == 0);
  CHECK(fused_halves[0].type() == ufunc::float64);
  check_same(fused_halves[1], halves[1]);
  CHECK(halves[1].type() == ufunc::float32);
}

TEST_CASE("fuse: a reduction at the end (cupy.fuse's) equals the chain's reduce, with axis, keepdims, out=") {
  auto dot = ufunc::fuse([](auto a, auto b) { return ufunc::add.reduce(a * b); }, "dot");
  const auto x = ufunc_test::sample_array<double>(1000, 1), y = ufunc_test::sample_array<double>(1000, 2);
  for (const auto t : ufunc_test::host_targets()) {
    const auto got = dot(x, y, {.target = t});
    CHECK(got.ndim() == 0);
    check_same(got, ufunc::add.reduce(ufunc::multiply(x, y), {.target = t}));
  }
  check_same(dot(x, y), dot.call_unfused(std::vector<ufunc::operand>{x, y}).front());
  // Per row and over every axis, keepdims, integers reduced as NumPy reduces them (int8 -> int64).
  const auto m = ufunc_test::sample_array<float>(60 * 70, 3).reshape({60, 70});
  auto rows = ufunc::fuse(
      [](auto a) { return ufunc::maximum.reduce(ufunc::sqrt(a * a + 1.0f), {.axis = 1, .keepdims = true}); }, "rows");
  const auto want_rows =
      ufunc::maximum.reduce(ufunc::sqrt(ufunc::add(ufunc::multiply(m, m), 1.0f)), {.axis = 1, .keepdims = true});
  check_same(rows(m), want_rows);
  CHECK(rows(m).shape() == ufunc::dim_vector{60, 1});
  auto total = ufunc::fuse([](auto a) { return ufunc::add.reduce(a * 3, {.axis = ufunc::all_axes}); }, "total");
  const auto i8 = ufunc_test::sample_array<std::int8_t>(300, 4).reshape({10, 30});
  check_same(total(i8), ufunc::add.reduce(ufunc::multiply(i8, 3), {.axis = ufunc::all_axes}));
  CHECK(total(i8).type() == ufunc::add.reduce(ufunc::multiply(i8, 3), {.axis = ufunc::all_axes}).type());
  CHECK(total.explain({ufunc::int8}).find("result = add.reduce(out0, axis=None)") != std::string::npos);
  CHECK(rows.explain({ufunc::float32}).find("result = maximum.reduce(out0, axis=1, keepdims)") != std::string::npos);
  // out= is the reduction's; scalars passed to the call stay weak.
  auto out = ufunc::array::zeros({}, ufunc::float64);
  (void)dot(x, y, {.out = {out}});
  check_same(out, ufunc::add.reduce(ufunc::multiply(x, y)));
  auto scaled = ufunc::fuse([](auto s, auto a) { return ufunc::add.reduce(s * a); }, "scaled");
  check_same(scaled(0.5, x), ufunc::add.reduce(ufunc::multiply(0.5, x)));
  CHECK(dot.explain({ufunc::float64, ufunc::float64}) ==
        "out0 = multiply(x0, x1)  dd->d\nhost: runs of 256 contiguous elements, blocks of 1024 otherwise\ncuda: one "
        "kernel generated from these nodes (device_source())\nresult = "
        "add.reduce(out0, axis=0)  host: in the same pass, folding out0 as it is computed; cuda: after the pass, "
        "over out0 (one temporary)\n");
  // What is refused, and said so.
  CHECK_THROWS_WITH_AS((void)dot(x, y, {.where = ufunc::array::zeros({1000}, ufunc::bool_)}),
                       doctest::Contains("where= does not apply"), ufunc::value_error);
  auto two = ufunc::fuse([](auto a) { return std::make_tuple(ufunc::add.reduce(a), a * 2); }, "two");
  CHECK_THROWS_WITH_AS((void)two.call(std::vector<ufunc::operand>{x}), doctest::Contains("only output"),
                       ufunc::value_error);
  auto inner = ufunc::fuse([](auto a) { return ufunc::add.reduce(a) * 2; }, "inner");
  CHECK_THROWS_WITH_AS((void)inner(x), doctest::Contains("only at the end"), ufunc::value_error);
  CHECK_THROWS_AS((void)ufunc::fuse([](auto a) { return ufunc::sqrt.reduce(a); }, "unary"), ufunc::value_error);
}

TEST_CASE("fuse: a reduction at the end folds the values as they are computed, bit for bit the chain's") {
  // The fold reads the graph's values piece by piece where it would read the temporary:
  // blocks of 4096 (pairwise sums keep their grouping), runs that cross rows, strided runs
  // (outer axes: the scalar form of the sums), in-order folds in pieces, no start value
  // (the first elements computed apart), casts into the accumulator, layouts of transposed
  // inputs, broadcasting, weak scalars, on every host target.
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  auto same_as_chain = [](const auto& fused, const std::vector<ufunc::operand>& in) {
    for (const auto t : ufunc_test::host_targets()) {
      const auto got = fused.call(in, {.target = t}).front();
      const auto want = fused.call_unfused(in, {.target = t}).front();
      check_same(got, want);
    }
  };
  const std::vector<ufunc::axes> axes_2d = {ufunc::axes(0), ufunc::axes(1), ufunc::axes(ufunc::all_axes),
                                            ufunc::axes{1, 0}, ufunc::axes::none()};
  for (const bool keepdims : {false, true}) {
    for (const auto& ax : axes_2d) {
      const ufunc::reduce_options o{.axis = ax, .keepdims = keepdims};
      auto sum = ufunc::fuse([o](auto a, auto b) { return ufunc::add.reduce(a * b + 1.0, o); }, "sum");
      auto most = ufunc::fuse([o](auto a) { return ufunc::maximum.reduce(ufunc::sqrt(a * a + 0.5), o); }, "most");
      auto prod = ufunc::fuse([o](auto a) { return ufunc::multiply.reduce(a * 0.25 + 1.0, o); }, "prod");
      for (const auto& shape : {ufunc::dim_vector{60, 70}, ufunc::dim_vector{3, 5000}, ufunc::dim_vector{9000, 3},
                                ufunc::dim_vector{1, 4097}, ufunc::dim_vector{0, 5}}) {
        CAPTURE(shape[0]);
        CAPTURE(shape[1]);
        CAPTURE(keepdims);
        const auto n = static_cast<std::size_t>(shape[0] * shape[1]);
        for (const ufunc::dtype t : {ufunc::float32, ufunc::float64, ufunc::complex128}) {
          const auto x = ufunc_test::sample_array<double>(n, 1).astype(t).reshape(shape);
          const auto y = ufunc_test::sample_array<double>(n, 2).astype(t).reshape(shape);
          same_as_chain(sum, {x, y});
          if (n > 0) same_as_chain(prod, {x});
          if (n > 0 && !t.is_complex()) same_as_chain(most, {x});
        }
        if (n == 0) continue;
        // A transposed input: the values are laid out as the pass would allocate them (F).
        const auto xt = ufunc_test::sample_array<float>(n, 3).reshape({shape[1], shape[0]}).transpose();
        const auto yt = ufunc_test::sample_array<float>(n, 4).reshape({shape[1], shape[0]}).transpose();
        same_as_chain(sum, {xt, yt});
        same_as_chain(most, {xt});
        // Broadcast rows, a reversed input, a weak scalar.
        const auto row = ufunc_test::sample_array<float>(static_cast<std::size_t>(shape[1]), 5).reshape({1, shape[1]});
        const auto x = ufunc_test::sample_array<float>(n, 6).reshape(shape);
        same_as_chain(sum, {x, row});
        same_as_chain(sum, {row, 2.5});
        same_as_chain(sum, {reversed_columns(ufunc_test::sample_array<float>(n, 7).reshape(shape)), x});
      }
    }
  }
  // 1-d lengths around the fold's blocks (4096) and the fused loop's runs (256); 3-d boxes.
  for (const std::size_t n : {1u, 255u, 4095u, 4096u, 4097u, 12289u, 70001u}) {
    CAPTURE(n);
    auto dot = ufunc::fuse([](auto a, auto b) { return ufunc::add.reduce(a * b); }, "dot");
    auto low = ufunc::fuse([](auto a) { return ufunc::minimum.reduce(a - 0.5f); }, "low");
    auto diff = ufunc::fuse([](auto a) { return ufunc::subtract.reduce(a * 2.0f); }, "diff");
    const auto x = ufunc_test::sample_array<float>(n, 8), y = ufunc_test::sample_array<float>(n, 9);
    same_as_chain(dot, {x, y});
    same_as_chain(low, {x});
    same_as_chain(diff, {x});
    const auto i8 = ufunc_test::sample_array<std::int8_t>(n, 10);
    same_as_chain(dot, {i8, i8});  // int8 values, an int64 accumulator: cast as they are folded
    const auto h = ufunc_test::sample_array<float>(n, 11).astype(ufunc::float16);
    same_as_chain(dot, {h, h});
  }
  const auto cube = ufunc_test::sample_array<double>(5 * 40 * 300, 12).reshape({5, 40, 300});
  for (const auto& ax : {ufunc::axes{0, 2}, ufunc::axes(1), ufunc::axes{0, 1}, ufunc::axes(ufunc::all_axes)}) {
    auto sum = ufunc::fuse([ax](auto a) { return ufunc::add.reduce(ufunc::exp(a), {.axis = ax}); }, "sum");
    auto most = ufunc::fuse([ax](auto a) { return ufunc::fmax.reduce(ufunc::sin(a), {.axis = ax}); }, "most");
    same_as_chain(sum, {cube});
    same_as_chain(most, {cube});
    same_as_chain(sum, {cube.transpose()});
  }
  // dtype=, initial= and out= as reduce takes them: out= of another dtype, out= that is an input.
  auto sum32 = ufunc::fuse(
      [](auto a) { return ufunc::add.reduce(a * a, {.axis = 0, .dtype = ufunc::float64, .initial = 1.5}); }, "sum32");
  const auto m = ufunc_test::sample_array<float>(300 * 20, 13).reshape({300, 20});
  same_as_chain(sum32, {m});
  auto rows = ufunc::fuse([](auto a) { return ufunc::add.reduce(a * 2.0f, {.axis = 1}); }, "rows");
  auto out16 = ufunc::array::zeros({300}, ufunc::float16);
  (void)rows(m, {.out = {out16}});
  check_same(out16, ufunc::add.reduce(ufunc::multiply(m, 2.0f), {.axis = 1}).astype(ufunc::float16));
  auto col = m.copy();
  const auto want = ufunc::add.reduce(ufunc::multiply(col, 2.0f), {.axis = 1});
  const ufunc::array first_column(col.data(), ufunc::float32, {300}, {col.strides()[0]}, col.owner());
  (void)rows(col, {.out = {first_column}});  // out= is read as an input: accumulated apart
  check_same(first_column, want);
}

TEST_CASE("fuse: a reduction at the end allocates nothing of the operand's size; flags of the pass before reduce's") {
  auto dot = ufunc::fuse([](auto a, auto b) { return ufunc::add.reduce(a * b); }, "dot");
  const auto x = ufunc_test::sample_array<float>(1 << 16, 1), y = ufunc_test::sample_array<float>(1 << 16, 2);
  auto out = ufunc::array::zeros({}, ufunc::float32);
  (void)dot(x, y, {.out = {out}});  // the first call traces and compiles
  for (const auto t : ufunc_test::host_targets()) {
    ufunc::detail::inject_host_allocation_failures(1);
    CHECK_NOTHROW((void)dot(x, y, {.out = {out}, .target = t}));
    CHECK(ufunc::detail::pending_host_allocation_failures() == 1);
    ufunc::detail::inject_host_allocation_failures(0);
    check_same(out, ufunc::add.reduce(ufunc::multiply(x, y)));
  }
  // The pass's flags under the fused function's name, then the reduction's, as the chain
  // reports them (its first under the node's ufunc: multiply).
  const auto big = ufunc::array::zeros({5000}, ufunc::float32);
  ufunc::add(big, 1e20f, {.out = {big}});
  ufunc::multiply(big, 1.0f, {.out = {big}});
  const float max_value = std::numeric_limits<float>::max();
  const auto huge = ufunc::add(ufunc::array::zeros({5000}, ufunc::float32), max_value / 4);
  for (const auto t : ufunc_test::host_targets()) {
    std::vector<std::string> messages;
    {
      const ufunc::errstate guard({.all = ufunc::fp_policy::call},
                                  [&](std::string_view m, unsigned) { messages.emplace_back(m); });
      (void)dot(big, big, {.target = t});  // 1e40 overflows in the pass
      (void)dot(huge, ufunc::add(ufunc::array::zeros({5000}, ufunc::float32), 1.0f), {.target = t});  // sum overflows
      (void)dot(x, y, {.target = t});                                                                 // nothing
    }
    CHECK(messages == std::vector<std::string>{"overflow encountered in dot", "overflow encountered in reduce"});
  }
}

TEST_CASE("fuse: one trace per dtype tuple, no temporaries, errors that name the node") {
  auto f = ufunc::fuse([](auto a, auto b) { return ufunc::sqrt(a * a + b * b) / (a + 1); }, "f");
  const ufunc::array x = ufunc_test::sample_array<float>(1 << 16, 1), y = ufunc_test::sample_array<float>(1 << 16, 2);
  ufunc::array out = ufunc::empty<float>({1 << 16});
  (void)f(x, y, {.out = {out}});
  // No host allocation in a fused call with out= (the next one would fail: injected);
  // the unfused chain allocates its temporaries.
  ufunc::detail::inject_host_allocation_failures(1);
  CHECK_NOTHROW((void)f(x, y, {.out = {out}}));
  CHECK(ufunc::detail::pending_host_allocation_failures() == 1);
  CHECK_THROWS_AS((void)ufunc::multiply(x, x), ufunc::memory_error);
  ufunc::detail::inject_host_allocation_failures(0);
  CHECK(f.traces() == 1);
  CHECK(ufunc::fuse([](auto a) { return a + 1; }, "p").explain({ufunc::int16}) ==
        "out0 = add(x0, c0)  hh->h\nhost: runs of 256 contiguous elements, blocks of 1024 otherwise\ncuda: one kernel "
        "generated from these nodes (device_source())\n");
  // The same ufunc on the same values runs once.
  CHECK(ufunc::fuse([](auto a) { return a * 2 + a * 2; }, "cse").explain({ufunc::int16}) ==
        "t0 = multiply(x0, c0)  hh->h\nout0 = add(t0, t0)  hh->h\nhost: runs of 256 contiguous elements, blocks of "
        "1024 otherwise\ncuda: one kernel generated from these nodes "
        "(device_source())\n");
  CHECK(ufunc::fuse([](auto a) { return a * 2 + a * 3; }, "no_cse").explain({ufunc::int16}) ==
        "t0 = multiply(x0, c0)  hh->h\nt1 = multiply(x0, c1)  hh->h\nout0 = add(t0, t1)  hh->h\nhost: runs of 256 "
        "contiguous elements, blocks of 1024 otherwise\ncuda: one kernel "
        "generated from these nodes (device_source())\n");
  // A node after the output's reads an operand (the output may be that operand): copied.
  CHECK(ufunc::fuse([](auto a) { return std::make_tuple(a * 2, a + 1); }, "q").explain({ufunc::int16}) ==
        "t0 = multiply(x0, c0)  hh->h\nout1 = add(x0, c1)  hh->h\nout0 = t0  int16\nhost: runs of 256 contiguous "
        "elements, blocks of 1024 otherwise\ncuda: one kernel generated from "
        "these nodes (device_source())\n");
  auto bad = ufunc::fuse([](auto a, auto b) { return (a + b) & b; }, "bad");
  CHECK_THROWS_WITH_AS((void)bad(x, y), doctest::Contains("fuse: node 1, bitwise_and(float32, float32)"),
                       ufunc::no_loop_error);
  auto overflow = ufunc::fuse([](auto a) { return a + 300; }, "o");
  CHECK_THROWS_AS((void)overflow(ufunc_test::sample_array<std::int8_t>(10, 1)), ufunc::overflow_error);
}

namespace {

// A random expression over two inputs: built-in unary and binary ufuncs, weak constants.
ufunc::fusion::expr random_expr(std::mt19937& gen, const ufunc::fusion::expr& a, const ufunc::fusion::expr& b,
                                int depth) {
  static const ufunc::lazy_function unary[] = {ufunc::negative, ufunc::absolute, ufunc::sqrt,  ufunc::exp,
                                               ufunc::square,   ufunc::sin,      ufunc::floor, ufunc::logical_not};
  static const ufunc::lazy_function binary[] = {ufunc::add,     ufunc::subtract, ufunc::multiply,    ufunc::divide,
                                                ufunc::maximum, ufunc::less,     ufunc::bitwise_and, ufunc::power,
                                                ufunc::hypot,   ufunc::remainder};
  std::uniform_int_distribution<int> pick(0, 9);
  const int p = pick(gen);
  if (depth == 0 || p < 2) return p % 2 ? a : b;
  if (p < 4) {
    const ufunc::fusion::expr arg[] = {random_expr(gen, a, b, depth - 1)};
    return ufunc::fusion::apply(unary[std::size_t(gen() % 8)], arg);
  }
  ufunc::fusion::expr left = random_expr(gen, a, b, depth - 1);
  ufunc::fusion::expr right = p < 6 ? ufunc::fusion::constant(gen() % 2 ? ufunc::weak_scalar(int(gen() % 7) - 3)
                                                                        : ufunc::weak_scalar(0.5 * double(gen() % 9)))
                                    : random_expr(gen, a, b, depth - 1);
  if (gen() % 2) std::swap(left, right);
  const ufunc::fusion::expr args[] = {left, right};
  return ufunc::fusion::apply(binary[std::size_t(gen() % 10)], args);
}

}  // namespace

TEST_CASE("fuse: random graphs over every pair of dtypes equal their unfused calls, or fail as they do") {
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  std::mt19937 gen(20261126);
  int compared = 0, refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const unsigned seed = static_cast<unsigned>(gen());
    auto fused = ufunc::fuse(
        [seed](auto a, auto b) {
          std::mt19937 g(seed);
          return random_expr(g, a, b, 3);
        },
        "random");
    const auto ta = ufunc::dtype::from_index(int(gen() % ufunc::dtype::count));
    const auto tb = ufunc::dtype::from_index(int(gen() % ufunc::dtype::count));
    // Below a run (blocks only), or runs and a tail.
    const std::size_t n = trial % 2 ? 37 : 2 * std::size_t(ufunc::fixed_run) + 37;
    const ufunc::array a = ufunc_test::sample_array<double>(n, trial).astype(ta);
    const ufunc::array b = ufunc_test::sample_array<double>(n, trial + 1).astype(tb);
    CAPTURE(trial);
    CAPTURE(ta.name());
    CAPTURE(tb.name());
    std::vector<ufunc::array> want;
    try {
      want = fused.call_unfused(std::vector<ufunc::operand>{a, b});
    } catch (const ufunc::no_loop_error&) {
      CHECK_THROWS_AS((void)fused(a, b), ufunc::no_loop_error);
      ++refused;
      continue;
    } catch (const ufunc::error& e) {
      // Integer division by zero, a weak integer too large for its loop: the same kind of error.
      CHECK_THROWS_AS((void)fused(a, b), ufunc::error);
      ++refused;
      continue;
    }
    if (want[0].ndim() == 0 || want[0].shape() != a.shape()) continue;  // the inputs themselves
    check_same(fused(a, b), want[0]);
    ++compared;
  }
  MESSAGE(compared << " graphs compared, " << refused << " refused by both");
  CHECK(compared > 100);
}

TEST_CASE("fuse: random reductions at the end (shapes, axes, layouts, dtypes, reducers) equal the chain's") {
  // The pieces the fold asks for cross axes in every way a layout allows: 1-4 dimensions,
  // random extents (1 and 0 included), random reduced axes, keepdims, transposed, reversed
  // and broadcast inputs, every dtype, reducers with and without an identity, in order.
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  std::mt19937 gen(20261129);
  const ufunc::function* reducers[] = {&ufunc::add.get(),     &ufunc::multiply.get(),   &ufunc::maximum.get(),
                                       &ufunc::minimum.get(), &ufunc::logical_or.get(), &ufunc::subtract.get()};
  int compared = 0, refused = 0;
  for (int trial = 0; trial < 800; ++trial) {
    CAPTURE(trial);
    const int nd = 1 + int(gen() % 4);
    ufunc::dim_vector shape;
    const std::int64_t extents[] = {0, 1, 2, 3, 5, 17, 64, 300};
    for (int d = 0; d < nd; ++d) shape.push_back(extents[gen() % (trial % 7 == 0 ? 8 : 7) + (trial % 7 == 0 ? 0 : 1)]);
    std::int64_t size = 1;
    for (auto e : shape) size *= e;
    if (size > 200000) continue;
    std::vector<int> axes;
    for (int d = 0; d < nd; ++d)
      if (gen() % 2) axes.push_back(d - (gen() % 2 ? nd : 0));  // negative axes too
    const bool all = gen() % 5 == 0;
    const ufunc::function& f = *reducers[gen() % 6];
    const ufunc::reduce_options o{.axis = all ? ufunc::axes(ufunc::all_axes) : ufunc::axes(axes),
                                  .keepdims = gen() % 2 == 0};
    CAPTURE(f.name());
    auto fused =
        ufunc::fuse([&f, o](auto a, auto b) { return ufunc::fusion::reduce(f, a * b + a, o); }, "random_reduce");
    const auto type = ufunc::dtype::from_index(int(gen() % ufunc::dtype::count));
    CAPTURE(type.name());
    // a: C-ordered, transposed (the reverse axis order) or reversed along its last axis; b: a's
    // shape, or broadcast from its last axis.
    ufunc::array a = ufunc_test::sample_array<double>(static_cast<std::size_t>(size), trial).astype(type);
    const int layout = int(gen() % 3);
    if (layout == 0) {
      a = a.reshape(shape);
    } else if (layout == 1) {
      ufunc::dim_vector reversed;
      for (int d = nd; d-- > 0;) reversed.push_back(shape[std::size_t(d)]);
      a = a.reshape(reversed).transpose();
    } else {
      a = a.reshape(shape);
      if (nd == 2 && shape[1] > 0) a = reversed_columns(a);
    }
    ufunc::array b =
        gen() % 2
            ? ufunc_test::sample_array<double>(static_cast<std::size_t>(size), trial + 1).astype(type).reshape(shape)
            : ufunc_test::sample_array<double>(static_cast<std::size_t>(shape.back()), trial + 2)
                  .astype(type)
                  .reshape({shape.back()});
    for (const auto t : ufunc_test::host_targets()) {
      std::vector<ufunc::array> want;
      try {
        want = fused.call_unfused(std::vector<ufunc::operand>{a, b}, {.target = t});
      } catch (const ufunc::error& e) {
        // No loop, an axis out of range, a repeated axis, no identity for an empty axis,
        // several axes of an in-order reducer: the same kind of error, said by reduce.
        CAPTURE(e.what());
        CHECK_THROWS_AS((void)fused(a, b, {.target = t}), ufunc::error);
        ++refused;
        continue;
      }
      check_same(fused(a, b, {.target = t}), want[0]);
      ++compared;
    }
  }
  MESSAGE(compared << " reductions compared, " << refused << " refused by both");
  CHECK(compared > 600);
}

TEST_CASE("fuse: the methods of a fused binary ufunc run its loop one step at a time, as the chain's would") {
  auto fma_like = ufunc::fuse([](auto a, auto b) { return a * 2 + b; }, "fma_like");
  const ufunc::array x = ufunc_test::sample_array<double>(1000, 3).reshape({10, 100});
  (void)fma_like(x, x);  // compiles the dd->d loop
  // reduce: acc = acc * 2 + x[i], in order, as a loop of the same function would do.
  std::vector<double> want(100);
  const auto v = x.to_vector<double>();
  for (std::size_t j = 0; j < 100; ++j) {
    double acc = v[j];
    for (std::size_t i = 1; i < 10; ++i) acc = acc * 2 + v[i * 100 + j];
    want[j] = acc;
  }
  CHECK(fma_like.ufunc().reduce(x, {.axis = 0}).to_vector<double>() == want);
  const auto acc = fma_like.ufunc().accumulate(x, {.axis = 0}).to_vector<double>();
  CHECK(std::equal(want.begin(), want.end(), acc.end() - 100));
}

TEST_CASE("fuse: astype casts as ndarray.astype, values and flags, in the graph and in the chain") {
  auto share = ufunc::fuse([](auto c, auto t) { return ufunc::astype(c, ufunc::float64) / t; }, "share");
  const auto counts = ufunc_test::sample_array<std::int32_t>(2000, 1);
  const auto totals = ufunc_test::sample_array<float>(2000, 2);
  const auto want = ufunc::divide(counts.astype(ufunc::float64), totals);
  check_same(share(counts, totals), want);
  check_same(share.call_unfused(std::vector<ufunc::operand>{counts, totals}).front(), want);
  CHECK(share.explain({ufunc::int32, ufunc::float32}).find("t0 = cast(x0)  i->d") != std::string::npos);
  // Every pair of dtypes: the values of astype (unsafe casting, NumPy's for out-of-range floats).
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  for (int from = 0; from < ufunc::dtype::count; ++from)
    for (int to = 0; to < ufunc::dtype::count; ++to) {
      const auto a = ufunc_test::sample_array<double>(300, unsigned(from + 3)).astype(ufunc::dtype::from_index(from));
      const auto t = ufunc::dtype::from_index(to);
      auto cast = ufunc::fuse([t](auto x) { return ufunc::astype(x, t); }, "to");
      CAPTURE(a.type().name());
      CAPTURE(t.name());
      check_same(cast(a), a.astype(t));
    }
  // NaN to an integer raises invalid as NumPy's astype: "invalid value encountered in cast"
  // unfused; under the fused ufunc's name fused.
  auto to_int = ufunc::fuse([](auto x) { return ufunc::astype(x * 2.0, ufunc::int32); }, "to_int");
  const auto nan = ufunc::full<double>({4}, std::numeric_limits<double>::quiet_NaN());
  const ufunc::errstate raise({.invalid = ufunc::fp_policy::raise});
  CHECK_THROWS_WITH_AS((void)to_int(nan), "invalid value encountered in to_int", ufunc::floating_point_error);
  CHECK_THROWS_WITH_AS((void)to_int.call_unfused(std::vector<ufunc::operand>{nan}), "invalid value encountered in cast",
                       ufunc::floating_point_error);
}
