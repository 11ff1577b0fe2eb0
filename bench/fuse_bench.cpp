// Fusion on the host targets (issue 19): sqrt(a*a + b*b) on float32 and float64 as four
// built-in calls with preallocated outputs (the unfused chain), as one fused ufunc
// (ufunc::fuse), and as one vectorized functor (the floor a C++ user gets by hand), on
// targets cpu and parallel. bench/fuse_peers.py times NumPy and numexpr on the same
// expression. Then "bs_call", the call price of the Black-Scholes formula (examples/black_scholes.hpp,
// r = 0.02, v = 0.30): fused, its unfused chain (call_unfused) and a vectorized functor of the same
// formula (xsimd's exp and log). Then "dot", add.reduce(a * b) over all axes: the fused reduction
// at the end against the chain (multiply into a preallocated array, then add.reduce) and against
// "read_floor", add.reduce over one array of 2n elements (the bytes the fused pass reads, once).
// Prints CSV: expr,dtype,n,impl,target,seconds (median of repeated calls).
//
//   fuse_bench [log2 sizes...]        (default 16 20 22 24)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ufunc/fuse.hpp>
#include <ufunc/ufunc.hpp>

#include "../examples/black_scholes.hpp"
#include "bench_common.hpp"

namespace {

struct hyp_functor {
  template <class T>
  T operator()(T a, T b) const {
    using std::sqrt;
    return sqrt(a * a + b * b);
  }
};

// The call price as one functor, for scalars and SIMD batches alike.
struct bs_call_functor {
  template <class T>
  static T pick(const auto& c, T a, T b) {
    if constexpr (std::is_arithmetic_v<T>)
      return c ? a : b;
    else
      return ufunc::simd::select(c, a, b);
  }
  template <class T>
  static T cnd(T d) {
    using std::abs;
    using std::exp;
    const T k = T(1) / (T(1) + T(0.2316419) * abs(d));
    const T poly =
        k * (T(0.31938153) + k * (T(-0.356563782) + k * (T(1.781477937) + k * (T(-1.821255978) + k * T(1.330274429)))));
    const T ret = T(0.39894228040143267794) * exp(T(-0.5) * d * d) * poly;
    return pick(d > T(0), T(1) - ret, ret);
  }
  template <class T>
  T operator()(T s, T x, T t) const {
    using std::exp;
    using std::log;
    using std::sqrt;
    const T r(0.02), v(0.30);
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + T(0.5) * v * v) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;
    return s * cnd(d1) - x * exp(-r * t) * cnd(d2);
  }
};

template <class T>
void run_black_scholes(std::int64_t n, const char* dtype) {
  const auto s = ufunc::full<T>({n}, T(42)), x = ufunc::full<T>({n}, T(40)), t = ufunc::full<T>({n}, T(0.5));
  ufunc::array out = ufunc::empty<T>({n});
  auto fused =
      ufunc::fuse([](auto a, auto b, auto c) { return std::get<0>(black_scholes(a, b, c, 0.02, 0.30)); }, "bs_call");
  auto functor = ufunc::vectorize<ufunc::signatures<float(float, float, float), double(double, double, double)>,
                                  ufunc::target::cpu>(bs_call_functor{}, "bs_call_vectorized");
  const std::vector<ufunc::operand> args{s, x, t};
  for (auto target : {ufunc::target_id::cpu, ufunc::target_id::parallel}) {
    if (!ufunc::target_available(target)) continue;
    const char* tname = target == ufunc::target_id::cpu ? "cpu" : "parallel";
    const double chain = bench::median_seconds([&] { (void)fused.call_unfused(args, {.target = target}); });
    const double one = bench::median_seconds([&] { fused(s, x, t, {.out = {out}, .target = target}); });
    const double by_hand = bench::median_seconds(
        [&] { functor(ufunc::array(s), ufunc::array(x), ufunc::array(t), {.out = {out}, .target = target}); });
    std::printf("bs_call,%s,%lld,unfused_chain,%s,%.9g\n", dtype, static_cast<long long>(n), tname, chain);
    std::printf("bs_call,%s,%lld,fused,%s,%.9g\n", dtype, static_cast<long long>(n), tname, one);
    std::printf("bs_call,%s,%lld,vectorized_functor,%s,%.9g\n", dtype, static_cast<long long>(n), tname, by_hand);
  }
}

template <class T>
void run(std::int64_t n) {
  const char* dtype = sizeof(T) == 4 ? "f32" : "f64";
  const auto a = ufunc::full<T>({n}, T(1.25)), b = ufunc::full<T>({n}, T(2.5));
  ufunc::array out = ufunc::empty<T>({n}), t1 = ufunc::empty<T>({n}), t2 = ufunc::empty<T>({n});
  auto hyp = ufunc::fuse([](auto x, auto y) { return ufunc::sqrt(x * x + y * y); }, "hyp");
  auto composed = ufunc::vectorize<ufunc::signatures<float(float, float), double(double, double)>, ufunc::target::cpu>(
      hyp_functor{}, "hyp_vectorized");
  for (auto target : {ufunc::target_id::cpu, ufunc::target_id::parallel}) {
    if (!ufunc::target_available(target)) continue;
    const ufunc::call_options on{.target = target};
    const char* tname = target == ufunc::target_id::cpu ? "cpu" : "parallel";
    const double chain = bench::median_seconds([&] {
      ufunc::multiply(a, a, {.out = {t1}, .target = target});
      ufunc::multiply(b, b, {.out = {t2}, .target = target});
      ufunc::add(t1, t2, {.out = {t1}, .target = target});
      ufunc::sqrt(t1, {.out = {out}, .target = target});
    });
    const double fused = bench::median_seconds([&] { hyp(a, b, {.out = {out}, .target = target}); });
    const double by_hand =
        bench::median_seconds([&] { composed(ufunc::array(a), ufunc::array(b), {.out = {out}, .target = target}); });
    (void)on;
    std::printf("hyp,%s,%lld,unfused_chain,%s,%.9g\n", dtype, static_cast<long long>(n), tname, chain);
    std::printf("hyp,%s,%lld,fused,%s,%.9g\n", dtype, static_cast<long long>(n), tname, fused);
    std::printf("hyp,%s,%lld,vectorized_functor,%s,%.9g\n", dtype, static_cast<long long>(n), tname, by_hand);
    auto dot = ufunc::fuse([](auto x, auto y) { return ufunc::add.reduce(x * y, {.axis = ufunc::all_axes}); }, "dot");
    const double dot_chain = bench::median_seconds([&] {
      ufunc::multiply(a, b, {.out = {t1}, .target = target});
      (void)ufunc::add.reduce(t1, {.axis = ufunc::all_axes, .target = target});
    });
    const double dot_fused = bench::median_seconds([&] { (void)dot(a, b, {.target = target}); });
    std::printf("dot,%s,%lld,unfused_chain,%s,%.9g\n", dtype, static_cast<long long>(n), tname, dot_chain);
    const auto both = ufunc::full<T>({2 * n}, T(1.25));
    const double floor =
        bench::median_seconds([&] { (void)ufunc::add.reduce(both, {.axis = ufunc::all_axes, .target = target}); });
    std::printf("dot,%s,%lld,fused,%s,%.9g\n", dtype, static_cast<long long>(n), tname, dot_fused);
    std::printf("dot,%s,%lld,read_floor,%s,%.9g\n", dtype, static_cast<long long>(n), tname, floor);
  }
  run_black_scholes<T>(n, dtype);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int k = 1; k < argc; ++k) sizes.push_back(std::atoi(argv[k]));
  if (sizes.empty()) sizes = {16, 20, 22, 24};
  std::printf("expr,dtype,n,impl,target,seconds\n");
  for (int log2 : sizes) {
    run<float>(std::int64_t{1} << log2);
    run<double>(std::int64_t{1} << log2);
  }
}
