// The ufunc::vectorize cases. vectorize instantiates its inner loop in the caller's
// translation unit, so its instruction set is whatever this TU is compiled for:
// the baseline (SSE2 on x86-64) unless -m flags say otherwise. bench/CMakeLists.txt
// compiles this file once per instruction set, each copy in its own namespace
// (BENCH_ARCH_NAMESPACE), and cpu_bench.cpp only calls a copy the CPU can run.
#include <cmath>
#include <string>
#include <vector>

#include <ufunc/vectorize.hpp>

#include "bench_common.hpp"

#ifndef BENCH_ARCH_NAMESPACE
#error "vectorize_cases.cpp is compiled through bench/CMakeLists.txt, which defines BENCH_ARCH_NAMESPACE"
#endif
#ifndef BENCH_ARCH_LABEL
#define BENCH_ARCH_LABEL "?"
#endif

namespace bench::BENCH_ARCH_NAMESPACE {

const char* simd_name() { return ufunc::simd::default_arch::name(); }

void run(const data& big, const data& small, const references& ref, const plan& p, std::vector<result>& out) {
  const std::string variant = std::string("vectorize [") + simd_name() + "; " + BENCH_ARCH_LABEL + "]";

  // One body for scalars and batches: the loop calls it with xsimd batches when it can.
  auto add_fn = [](auto x, auto y) { return x + y; };
  // `using std::sin` serves float; for an xsimd batch, argument-dependent lookup adds
  // xsimd::sin, which is the better match (a using-declaration does not stop ADL).
  auto sin_fn = [](auto x) {
    using std::sin;
    return sin(x);
  };
  // Otherwise these cases would silently measure the scalar fallback.
  static_assert(ufunc::backends::cpu::is_vectorizable<decltype(add_fn), float(float, float)>);
  static_assert(ufunc::backends::cpu::is_vectorizable<decltype(sin_fn), float(float)>);
  const auto vadd = ufunc::vectorize<float(float, float), ufunc::target::cpu>(add_fn, "bench_add");
  const auto vsin = ufunc::vectorize<float(float), ufunc::target::cpu>(sin_fn, "bench_sin");

  const auto n_big = big.n, n_small = small.n;
  const auto add_bytes_big = 3 * n_big * std::int64_t{sizeof(float)};
  const auto sin_bytes_big = 2 * n_big * std::int64_t{sizeof(float)};
  const auto add_bytes_small = 3 * n_small * std::int64_t{sizeof(float)};

  // Large arrays: memory bound for add, compute bound for sin.
  {
    auto t = measure([&] { keep(vadd(big.a, big.b)); }, p.large_samples, 1, p.large_warmup);
    out.push_back({"add_f32_16M_alloc", variant, n_big, add_bytes_big, t});
    t = measure([&] { keep(vadd(big.a, big.b, {.out = {big.c}})); }, p.large_samples, 1, p.large_warmup);
    out.push_back({"add_f32_16M_out", variant, n_big, add_bytes_big, t});
    check(variant + " add 2^24", big.c, ref.add_big, 0.0);
    check(variant + " add 2^24 alloc", vadd(big.a, big.b), ref.add_big, 0.0);

    t = measure([&] { keep(vsin(big.a)); }, p.large_samples, 1, p.large_warmup);
    out.push_back({"sin_f32_16M_alloc", variant, n_big, sin_bytes_big, t});
    t = measure([&] { keep(vsin(big.a, {.out = {big.c}})); }, p.large_samples, 1, p.large_warmup);
    out.push_back({"sin_f32_16M_out", variant, n_big, sin_bytes_big, t});
    check(variant + " sin 2^24", big.c, ref.sin_big, 1e-6);
  }

  // 1024 elements: the per-call cost of the typed path.
  {
    auto t = measure([&] { keep(vadd(small.a, small.b)); }, p.small_samples, p.small_calls, p.small_warmup_calls);
    out.push_back({"add_f32_1024_alloc", variant, n_small, add_bytes_small, t});
    // As a user writes it: the options (and their std::vector of outputs) are built per call.
    t = measure([&] { keep(vadd(small.a, small.b, {.out = {small.c}})); }, p.small_samples, p.small_calls,
                p.small_warmup_calls);
    out.push_back({"add_f32_1024_out", variant, n_small, add_bytes_small, t});
    // Diagnostic: the same with one options object reused, to show what building it costs.
    const ufunc::call_options reused{.out = {small.c}};
    t = measure([&] { keep(vadd(small.a, small.b, reused)); }, p.small_samples, p.small_calls, p.small_warmup_calls);
    out.push_back({"add_f32_1024_out", variant + " (options reused)", n_small, add_bytes_small, t});
    check(variant + " add 1024", small.c, ref.add_small, 0.0);
  }
}

}  // namespace bench::BENCH_ARCH_NAMESPACE
