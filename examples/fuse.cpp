// The Black-Scholes formula of Numba's and CuPy's examples as one fused ufunc: call and
// put prices of options from the stock price S, strike X and time T, with the riskless
// rate R and volatility V passed as scalars (weak, as in a call). Written once with ufunc's
// operators and built-in ufuncs, traced, and run as one pass over memory (no temporaries of
// the arrays' size); the results equal the same calls made one by one, bit for bit. Then a
// fused function that ends in a reduction (cupy.fuse's): the mean call price.
//
//   def cnd(d): K = 1 / (1 + 0.2316419 * abs(d)); ret = RSQRT2PI * exp(-0.5 * d * d) * (K * (A1 + K * ...))
//               return np.where(d > 0, 1 - ret, ret)
//   def black_scholes(S, X, T, r, v): d1 = (log(S / X) + (r + 0.5 * v * v) * T) / (v * sqrt(T)); ...
#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <tuple>

#include <ufunc/fuse.hpp>
#include <ufunc/ufunc.hpp>

#include "black_scholes.hpp"
#include "example_target.hpp"

namespace {

constexpr double riskless_rate = 0.02, volatility = 0.30;

}  // namespace

int main() try {
  const std::int64_t n = 1'000'000;
  auto s = ufunc::empty<double>({n}), x = ufunc::empty<double>({n}), t = ufunc::empty<double>({n});
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> price(5, 30), strike(1, 100), years(0.25, 10);
  for (std::int64_t i = 0; i < n; ++i) s.data()[i] = price(gen), x.data()[i] = strike(gen), t.data()[i] = years(gen);

  auto fused =
      ufunc::fuse([](auto S, auto X, auto T, auto R, auto V) { return black_scholes(S, X, T, R, V); }, "black_scholes");
  // On target cuda the fused function runs as one kernel generated from its graph and
  // compiled at run time (NVRTC, cached on disk); on the host targets as one blocked pass.
  const std::optional<ufunc::target_id> target = example_call_target;
  const std::vector<ufunc::operand> args{s, x, t, riskless_rate, volatility};
  const auto prices = fused.call(args, {.target = target});
  std::printf("black_scholes on %lld options, one fused pass on target %s:\n", static_cast<long long>(n),
              describe_target(target).c_str());
  std::printf("  S=%.2f X=%.2f T=%.2f -> call %.4f, put %.4f\n", s.data()[0], x.data()[0], t.data()[0],
              prices[0].to_vector<double>()[0], prices[1].to_vector<double>()[0]);
  const std::string nodes =
      fused.explain({ufunc::float64, ufunc::float64, ufunc::float64, ufunc::float64, ufunc::float64});
  std::printf("%zu nodes per block of elements; the first three:\n%s",
              std::count(nodes.begin(), nodes.end(), '\n') - 2,  // less its "host:" and "cuda:" lines
              nodes.substr(0, nodes.find('\n', nodes.find('\n', nodes.find('\n') + 1) + 1) + 1).c_str());

  // The same formula as ordinary calls, one array per step: the same bits.
  const auto unfused = fused.call_unfused(args, {.target = target});
  const bool same = prices[0].to_vector<double>() == unfused[0].to_vector<double>() &&
                    prices[1].to_vector<double>() == unfused[1].to_vector<double>();
  std::printf("equal to the unfused calls, bit for bit: %s\n", same ? "yes" : "NO");

  // A reduction at the end: the mean call price, the prices computed in the fused pass.
  auto mean_call = ufunc::fuse(
      [n](auto S, auto X, auto T, auto R, auto V) {
        return ufunc::add.reduce(std::get<0>(black_scholes(S, X, T, R, V)) / static_cast<double>(n),
                                 {.axis = ufunc::all_axes});
      },
      "mean_call");
  const auto mean = mean_call.call(args, {.target = target}).front();
  const bool same_mean = mean.item<double>() == mean_call.call_unfused(args, {.target = target}).front().item<double>();
  std::printf("mean call price %.6f (fused reduction equal to the unfused one: %s)\n", mean.item<double>(),
              same_mean ? "yes" : "NO");
  return same && same_mean ? 0 : 1;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
