// The Black-Scholes formula of Numba's and CuPy's examples on symbolic arguments (inside
// ufunc::fuse): call and put prices from the stock price s, strike x and time t, with the
// riskless rate r and volatility v. Shared by examples/fuse.cpp, bench/fuse_cuda_bench.cpp and
// the CUDA fusion tests.
#pragma once

#include <tuple>

#include <ufunc/fuse.hpp>
#include <ufunc/ufunc.hpp>

// The cumulative normal distribution (Abramowitz-Stegun, as in the Numba example).
template <class D>
auto cnd(const D& d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double rsqrt2pi = 0.39894228040143267794;
  const auto k = 1.0 / (1.0 + 0.2316419 * ufunc::absolute(d));
  const auto ret = rsqrt2pi * ufunc::exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return ufunc::where(d > 0.0, 1.0 - ret, ret);
}

template <class A, class B>
auto black_scholes(const A& s, const A& x, const A& t, const B& r, const B& v) {
  const auto sqrt_t = ufunc::sqrt(t);
  const auto d1 = (ufunc::log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t);
  const auto d2 = d1 - v * sqrt_t;
  const auto discount = ufunc::exp(-r * t);
  const auto call = s * cnd(d1) - x * discount * cnd(d2);
  const auto put = x * discount * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1));
  return std::make_tuple(call, put);
}
