// ufunc::fuse on the cuda target: the graph runs as one kernel generated from it (each node
// calling its built-in operation, compiled by NVRTC through the kernel cache) and equals the
// chain of device calls (within two ulps for floats, exactly otherwise): every built-in
// ufunc as a node, mixed dtypes and weak scalars, broadcasting and strides, out= in place,
// where=, several outputs, Black-Scholes, a reduction at the end, errstate per node, and a
// node without device source refused by name.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <ufunc/backends/cuda/rtc/elementwise_kernel.hpp>
#include <ufunc/backends/cuda/rtc/kernel_cache.hpp>
#include <ufunc/fuse.hpp>
#include <ufunc/fusion/graph.hpp>
#include <ufunc/ufunc.hpp>
#include <ufunc/vectorize.hpp>

#include "../../examples/black_scholes.hpp"
#include "../test_support.hpp"

namespace {

constexpr auto cuda = ufunc::target_id::cuda;

// Equal dtypes and shapes; real floats within `ulps`, each complex part within max(ulps, 4)
// epsilons of the expected value's magnitude, everything else bit for bit.
void check_close(const ufunc::array& got, const ufunc::array& want, double ulps = 2) {
  REQUIRE(got.type() == want.type());
  REQUIRE(got.shape() == want.shape());
  const auto g = ufunc::to_host(got).copy(), w = ufunc::to_host(want).copy();
  const auto t = got.type();
  if (t == ufunc::float32 || t == ufunc::float64) {
    double worst = 0;
    for (std::int64_t k = 0; k < g.size(); ++k)
      worst =
          std::max(worst, t == ufunc::float32 ? ufunc_test::ulp_distance(reinterpret_cast<const float*>(g.data())[k],
                                                                         reinterpret_cast<const float*>(w.data())[k])
                                              : ufunc_test::ulp_distance(reinterpret_cast<const double*>(g.data())[k],
                                                                         reinterpret_cast<const double*>(w.data())[k]));
    CHECK(worst <= ulps);
  } else if (t.is_complex()) {
    // Relative to the magnitude, not per part: a part near zero from cancellation differs in
    // more of its own ulps when an fma is contracted or not.
    const auto gv = g.to_vector<std::complex<double>>(), wv = w.to_vector<std::complex<double>>();
    const double eps = t == ufunc::complex64 ? 1.1920929e-07 : 2.220446049250313e-16;
    int bad = 0;
    for (std::size_t k = 0; k < gv.size(); ++k) {
      const auto a = gv[k], b = wv[k];
      if (!std::isfinite(std::abs(b))) {
        bad += std::isnan(std::abs(a)) != std::isnan(std::abs(b));
        continue;
      }
      const double bound = std::max(ulps, 4.0) * eps * std::abs(b);
      bad += std::abs(a.real() - b.real()) > bound || std::abs(a.imag() - b.imag()) > bound;
    }
    CHECK(bad == 0);
  } else {
    CHECK(std::equal(g.data(), g.data() + g.nbytes(), w.data()));
  }
}

ufunc::array dev(const ufunc::array& a) { return ufunc::to_device(a); }

ufunc::array device_values(const std::vector<double>& v) {
  auto a = ufunc::empty<double>({static_cast<std::int64_t>(v.size())});
  std::copy(v.begin(), v.end(), a.data());
  return ufunc::to_device(a);
}

constexpr double riskless_rate = 0.02, volatility = 0.30;

}  // namespace

TEST_CASE("cuda fuse: sqrt(a*a + b*b) is one generated kernel equal to the chain; strided, broadcast, out= in place") {
  auto hyp = ufunc::fuse([](auto a, auto b) { return ufunc::sqrt(a * a + b * b); }, "hyp");
  const auto chain = [](const ufunc::array& a, const ufunc::array& b) {
    return ufunc::sqrt(ufunc::add(ufunc::multiply(a, a), ufunc::multiply(b, b)));
  };
  for (std::size_t n : {1u, 7u, 1023u, 1024u, 1025u, 100003u}) {
    CAPTURE(n);
    const auto x = dev(ufunc_test::sample_array<float>(n, 1)), y = dev(ufunc_test::sample_array<float>(n, 2));
    const auto got = hyp(x, y);
    CHECK(got.device() == x.device());
    check_close(got, chain(x, y));
    const auto xd = dev(ufunc_test::sample_array<double>(n, 3)), yd = dev(ufunc_test::sample_array<double>(n, 4));
    check_close(hyp(xd, yd), chain(xd, yd));
  }
  const auto m = dev(ufunc_test::sample_array<float>(60 * 70, 5).reshape({60, 70}));
  const auto row = dev(ufunc_test::sample_array<float>(70, 6).reshape({1, 70}));
  check_close(hyp(m, row), chain(m, row));
  check_close(hyp(m.transpose(), m.transpose()), chain(m.transpose(), m.transpose()));
  const auto reversed = m[{ufunc::slice{std::nullopt, std::nullopt, -2}}];
  check_close(hyp(reversed, row), chain(reversed, row));
  auto inplace = dev(ufunc_test::sample_array<float>(5000, 7));
  const auto other = dev(ufunc_test::sample_array<float>(5000, 8));
  const auto want = chain(inplace, other);
  hyp(inplace, other, {.out = {inplace}});
  check_close(inplace, want);
  // Host arrays on target cuda: in and out as for any ufunc.
  const auto hx = ufunc_test::sample_array<double>(999, 9);
  check_close(hyp(hx, hx, {.target = cuda}), chain(hx, hx));
}

TEST_CASE("cuda fuse: every built-in unary and binary ufunc as a node equals its device call, on every dtype") {
  // Per input dtype, the ufuncs whose device call takes it, up to 14 outputs to a graph (a
  // kernel compile each: NVRTC takes ~0.3 s for the headers), each output compared with the
  // ufunc's own call on the same device inputs.
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  int compared = 0;
  for (int arity : {1, 2}) {
    for (int k = 0; k < ufunc::dtype::count; ++k) {
      const auto t = ufunc::dtype::from_index(k);
      CAPTURE(t.name());
      std::vector<ufunc::array> in;
      for (int i = 0; i < arity; ++i)
        in.push_back(dev(ufunc_test::sample_array<double>(1000, unsigned(11 + i)).astype(t)));
      const std::vector<ufunc::operand> args(in.begin(), in.end());
      std::vector<const ufunc::function*> nodes;
      std::vector<std::vector<ufunc::array>> wants;
      for (const ufunc::function& f : ufunc::builtin_list) {
        if (f.nin() != arity) continue;
        try {
          wants.push_back(f.call(args));
          nodes.push_back(&f);
        } catch (const ufunc::error&) {
          // the chain refuses these dtypes (as NumPy) or raises on these values
        }
      }
      for (std::size_t first = 0; first < nodes.size();) {
        std::vector<ufunc::fusion::expr> inputs, outputs;
        for (int i = 0; i < arity; ++i) inputs.push_back(ufunc::fusion::input(i));
        std::vector<ufunc::array> want;
        std::size_t last = first;
        while (last < nodes.size() && outputs.size() + std::size_t(nodes[last]->nout()) <= 14) {
          for (const auto& e : ufunc::fusion::apply_all(*nodes[last], inputs)) outputs.push_back(e);
          want.insert(want.end(), wants[last].begin(), wants[last].end());
          ++last;
        }
        const std::vector<ufunc::dtype> types(std::size_t(arity), t);
        const auto g = ufunc::fusion::compile_graph(outputs, types, {}, "nodes");
        REQUIRE(g->runs_on_device());
        ufunc::function all("nodes", arity, static_cast<int>(outputs.size()));
        all.add_loop(g->loop(g));
        const auto got = all.call(args, {.signature = g->types().str()});
        REQUIRE(got.size() == want.size());
        for (std::size_t o = 0; o < got.size(); ++o) {
          CAPTURE(o);
          check_close(got[o], want[o]);
          ++compared;
        }
        first = last;
      }
    }
  }
  MESSAGE(compared << " node results compared with their device calls");
  CHECK(compared > 600);
}

TEST_CASE("cuda fuse: mixed dtypes, weak scalars, where=, several outputs, 0-d, as the chain on the device") {
  auto mixed = ufunc::fuse([](auto a, auto b, auto c) { return a * b + c; }, "mixed");
  const auto i8 = dev(ufunc_test::sample_array<std::int8_t>(3000, 1));
  const auto f32 = dev(ufunc_test::sample_array<float>(3000, 2));
  const auto u16 = dev(ufunc_test::sample_array<std::uint16_t>(3000, 3));
  check_close(mixed(i8, f32, u16), ufunc::add(ufunc::multiply(i8, f32), u16));
  auto axpy = ufunc::fuse([](auto a, auto x, auto y) { return a * x + y; }, "axpy");
  const auto x = dev(ufunc_test::sample_array<float>(3000, 4)), y = dev(ufunc_test::sample_array<float>(3000, 5));
  check_close(axpy(2.5, x, y), ufunc::add(ufunc::multiply(2.5, x), y));  // weak: float32
  CHECK(axpy(2.5, x, y).type() == ufunc::float32);
  // The weak 2.5 is read once by the kernel: with contiguous arrays (the contiguous
  // instantiation), reversed and 2-d ones (the strided ones), in place, and of every length
  // around a tile.
  for (std::size_t n : {1u, 255u, 1024u, 1025u, 4099u}) {
    CAPTURE(n);
    const auto xn = dev(ufunc_test::sample_array<float>(n, 9)), yn = dev(ufunc_test::sample_array<float>(n, 10));
    check_close(axpy(-1.5, xn, yn), ufunc::add(ufunc::multiply(-1.5, xn), yn), 0);
  }
  const auto back = x[{ufunc::slice{std::nullopt, std::nullopt, -3}}], ahead = y[{ufunc::slice{0, 1000}}];
  check_close(axpy(0.75, back, ahead), ufunc::add(ufunc::multiply(0.75, back), ahead), 0);
  const auto grid = dev(ufunc_test::sample_array<float>(40 * 75, 11).reshape({40, 75}));
  check_close(axpy(3.0, grid.transpose(), 1.0f), ufunc::add(ufunc::multiply(3.0, grid.transpose()), 1.0f), 0);
  auto acc = dev(ufunc_test::sample_array<float>(3000, 12));
  const auto acc_want = ufunc::add(ufunc::multiply(0.5, x), acc);
  axpy(0.5, x, acc, {.out = {acc}});
  check_close(acc, acc_want, 0);
  const auto mask = ufunc::greater(x, 0.3f);
  auto out = dev(ufunc::array::zeros({3000}, ufunc::float32));
  axpy(2.5, x, y, {.out = {out}, .where = mask});
  auto masked_want = dev(ufunc::array::zeros({3000}, ufunc::float32));
  ufunc::add(ufunc::multiply(2.5, x), y, {.out = {masked_want}, .where = mask});
  check_close(out, masked_want);
  auto both = ufunc::fuse([](auto p, auto q) { return std::make_tuple(ufunc::floor_divide(p, q), p % q); }, "both");
  const auto p = dev(ufunc_test::sample_array<std::int32_t>(2000, 6));
  const auto q = dev(ufunc::add(ufunc::absolute(ufunc_test::sample_array<std::int32_t>(2000, 7)), 1));
  const auto r = both.call(std::vector<ufunc::operand>{p, q});
  check_close(r[0], ufunc::floor_divide(p, q));
  check_close(r[1], ufunc::remainder(p, q));
  auto sel = ufunc::fuse([](auto d, auto e) { return ufunc::where(d > 0.0f, 1.0f - e, e); }, "sel");
  check_close(sel(x, y), sel.call_unfused(std::vector<ufunc::operand>{x, y}, {.target = cuda}).front(), 0);
  auto share = ufunc::fuse([](auto c, auto t) { return ufunc::astype(c, ufunc::float64) / t; }, "share");
  check_close(share(u16, f32), ufunc::divide(u16.astype(ufunc::float64), f32), 0);
  const auto zero_d = dev(ufunc::full<double>({}, 3.0));
  check_close(axpy(zero_d, zero_d, zero_d), ufunc::add(ufunc::multiply(zero_d, zero_d), zero_d));
  const auto cz = dev(ufunc_test::sample_array<std::complex<double>>(500, 8));
  auto cplx = ufunc::fuse([](auto z) { return ufunc::exp(z * z) + ufunc::absolute(z); }, "cplx");
  check_close(cplx(cz), cplx.call_unfused(std::vector<ufunc::operand>{cz}, {.target = cuda}).front(), 8);
}

TEST_CASE("cuda fuse: steps of C++ scalars alone run once per thread, with the chain's values and flags") {
  // r * r + 0.5 is computed once per thread (before its elements), the product per element.
  auto scaled = ufunc::fuse([](auto a, auto r) { return a * (r * r + 0.5); }, "scaled_square");
  const auto chain = [&](const ufunc::array& a, double r) {
    return scaled.call_unfused(std::vector<ufunc::operand>{a, r}, {.target = cuda}).front();
  };
  for (std::size_t n : {1u, 255u, 1025u, 4099u}) {
    CAPTURE(n);
    const auto x = dev(ufunc_test::sample_array<float>(n, 13));
    check_close(scaled(x, 2.5), chain(x, 2.5), 0);
    check_close(scaled(x, -0.75), chain(x, -0.75), 0);
  }
  const auto x = dev(ufunc_test::sample_array<float>(3000, 14));
  const auto back = x[{ufunc::slice{std::nullopt, std::nullopt, -2}}];
  check_close(scaled(back, 1.25), chain(back, 1.25), 0);
  // A uniform step that overflows (1e200 squared, in float64) is reported as the chain's
  // multiply reports it; none is where no element is computed.
  const ufunc::errstate guard({.over = ufunc::fp_policy::raise});
  CHECK_THROWS_WITH_AS((void)scaled(x, 1e200), doctest::Contains("overflow encountered"), ufunc::floating_point_error);
  CHECK_THROWS_AS((void)chain(x, 1e200), ufunc::floating_point_error);
  CHECK_NOTHROW((void)scaled(x, 3.0));
  auto out = dev(ufunc::array::zeros({3000}, ufunc::float32));
  const auto none = dev(ufunc::array::zeros({3000}, ufunc::bool_));
  CHECK_NOTHROW(scaled(x, 1e200, {.out = {out}, .where = none}));
  CHECK(ufunc::to_host(out).to_vector<float>() == std::vector<float>(3000, 0.0f));
}

TEST_CASE("cuda fuse: infinities and NaN reach errstate through values the kernel does not probe") {
  // The fast path probes only the values that no use carries on (fusion/src/nonfinite.hpp):
  // here a, exp's result and c (first graph), a - b, the square root, log's argument and the
  // product (second) are not probed. Every combination of special values gives the flags of
  // the chain's device calls, all kinds reported through seterrcall.
  auto first = ufunc::fuse([](auto a, auto b, auto c) { return ufunc::exp(a * 2.0) / b + c; }, "probe_first");
  auto second =
      ufunc::fuse([](auto a, auto b, auto c) { return ufunc::sqrt(a - b) * ufunc::log(c) + a; }, "probe_second");
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> values{1.5, 0.0, -1.0, inf, -inf, std::nan(""), 100.0, 1e-30};
  unsigned seen = 0;
  const ufunc::errstate report({.all = ufunc::fp_policy::call}, [&](std::string_view, unsigned f) { seen |= f; });
  const auto flags = [&](const auto& call) {
    seen = 0;
    call();
    return seen;
  };
  int mismatches = 0, raised = 0;
  const auto compare = [&](auto& f) {
    for (const ufunc::dtype t : {ufunc::float32, ufunc::float64})
      for (const double a : values)
        for (const double b : values)
          for (const double c : values) {
            const std::vector<ufunc::operand> args{device_values({a}).astype(t), device_values({b}).astype(t),
                                                   device_values({c}).astype(t)};
            const unsigned fused = flags([&] { (void)f.call(args); });
            const unsigned chain = flags([&] { (void)f.call_unfused(args, {.target = cuda}); });
            raised += fused != 0;
            if (fused != chain && ++mismatches <= 5)
              MESSAGE(f.ufunc().name() << " " << t.name() << " a=" << a << " b=" << b << " c=" << c << ": fused "
                                       << fused << ", chain " << chain);
          }
  };
  compare(first);
  compare(second);
  CHECK(mismatches == 0);
  CHECK(raised > 100);  // the special values do raise
  // A C++ scalar whose steps run once per thread reaches the elements' probes the same way.
  auto scaled = ufunc::fuse([](auto a, auto r) { return a * ufunc::sqrt(r - 1.0); }, "probe_scalar");
  const auto x = dev(ufunc_test::sample_array<float>(1000, 5));
  for (const double r : {2.0, 0.0, inf, -inf, std::nan("")}) {
    CAPTURE(r);
    const std::vector<ufunc::operand> args{x, r};
    CHECK(flags([&] { (void)scaled.call(args); }) == flags([&] { (void)scaled.call_unfused(args, {.target = cuda}); }));
  }
}

TEST_CASE("cuda fuse: Black-Scholes (Numba's and CuPy's example) equals its unfused device calls") {
  auto bs =
      ufunc::fuse([](auto s, auto x, auto t, auto r, auto v) { return black_scholes(s, x, t, r, v); }, "black_scholes");
  const std::size_t n = 100000;
  const auto s = dev(ufunc::add(ufunc::multiply(ufunc::absolute(ufunc_test::sample_array<double>(n, 1)), 5.0), 5.0));
  const auto x = dev(ufunc::add(ufunc::multiply(ufunc::absolute(ufunc_test::sample_array<double>(n, 2)), 50.0), 1.0));
  const auto t = dev(ufunc::add(ufunc::multiply(ufunc::absolute(ufunc_test::sample_array<double>(n, 3)), 5.0), 0.25));
  const std::vector<ufunc::operand> args{s, x, t, riskless_rate, volatility};
  const auto got = bs.call(args);
  const auto want = bs.call_unfused(args, {.target = cuda});
  check_close(got[0], want[0], 4);
  check_close(got[1], want[1], 4);
  CHECK(got[0].device() == s.device());
  // float32 inputs with the float scalars weak: float32 throughout, as the chain.
  const std::vector<ufunc::operand> args32{s.astype(ufunc::float32), x.astype(ufunc::float32), t.astype(ufunc::float32),
                                           riskless_rate, volatility};
  const auto got32 = bs.call(args32);
  CHECK(got32[0].type() == ufunc::float32);
  check_close(got32[0], bs.call_unfused(args32, {.target = cuda})[0], 4);
}

TEST_CASE("cuda fuse: a reduction at the end, errstate per node, the kernel cache, a node without device code") {
  auto dot = ufunc::fuse([](auto a, auto b) { return ufunc::add.reduce(a * b); }, "dot");
  const auto x = dev(ufunc_test::sample_array<double>(10000, 1)), y = dev(ufunc_test::sample_array<double>(10000, 2));
  check_close(dot(x, y), ufunc::add.reduce(ufunc::multiply(x, y)), 0);
  // errstate: the flags each node's device rule gives, as the chain's device loops report.
  auto ratio = ufunc::fuse([](auto a, auto b) { return ufunc::log(a) / b; }, "ratio");
  const auto one_zero = device_values({1.0, 0.0}), twos = device_values({2.0, 2.0});
  {
    const ufunc::errstate guard({.divide = ufunc::fp_policy::raise});
    CHECK_THROWS_WITH_AS((void)ratio(one_zero, twos), doctest::Contains("divide by zero encountered in ratio"),
                         ufunc::floating_point_error);                          // log(0): a pole
    CHECK_THROWS_AS((void)ratio(twos, one_zero), ufunc::floating_point_error);  // x / 0
    CHECK_NOTHROW((void)ratio(twos, twos));
  }
  {
    const ufunc::errstate guard({.invalid = ufunc::fp_policy::raise});
    const auto minus = device_values({-1.0, -1.0});
    CHECK_THROWS_AS((void)ratio(minus, twos), ufunc::floating_point_error);  // log(-1)
  }
  // The second call of a dtype tuple compiles nothing.
  auto& cache = ufunc::cuda::rtc::kernel_cache::process();
  const auto before = cache.stats();
  (void)ratio(twos, twos);
  CHECK(cache.stats().compiles == before.compiles);
  CHECK(cache.stats().disk_hits == before.disk_hits);
  // An elementwise_kernel is a node: its body becomes a functor in the fused kernel.
  const ufunc::cuda::elementwise_kernel sqdiff("T x, T y", "T z", "z = (x - y) * (x - y);", "squared_diff");
  const ufunc::function& kernel_node = sqdiff.ufunc();
  (void)sqdiff(x, y);  // its loop for float64
  auto dist = ufunc::fuse(
      [&kernel_node](auto a, auto b) {
        return ufunc::sqrt(ufunc::fusion::apply(kernel_node, {{a, b}}) + 1.0);
      },
      "dist");
  check_close(dist(x, y), ufunc::sqrt(ufunc::add(sqdiff(x, y), 1.0)), 2);
  // A vectorize'd functor has no source for a generated kernel: refused, naming it.
  const auto twice =
      ufunc::vectorize<ufunc::signatures<double(double)>, ufunc::target::cpu>([](double v) { return 2 * v; }, "twice");
  const ufunc::function& node = twice.ufunc();
  auto g = ufunc::fuse([&node](auto a) { return ufunc::fusion::apply(node, {{a + 1.0}}); }, "with_twice");
  CHECK_THROWS_WITH_AS((void)g(x), doctest::Contains("node twice"), ufunc::value_error);
  CHECK(ufunc::to_host(g(ufunc::to_host(x))).size() == 10000);  // the host targets run it
}
