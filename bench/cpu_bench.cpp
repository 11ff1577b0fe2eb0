// ufunc on the SIMD serial (cpu) backend against plain C++ loops; numpy_bench.py
// measures the same cases with NumPy and run_cpu.sh puts both in one table.
//
//   ufunc_cpu_bench [--quick] [--large-samples N] [--small-samples N] [--small-calls N]
//
// Every case is timed as the median and the minimum over samples. Large cases (2^24
// float32) time one call per sample; the 1024-element cases time batches of calls
// and divide, because a clock read per call would be a visible part of a ~100 ns call.
// Each RESULT line is tab-separated: group, variant, elements, bytes read+written,
// median ns per call, min ns per call, samples, calls per sample.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/ufunc.hpp>

#include "bench_common.hpp"

#ifndef BENCH_CXX_FLAGS
#define BENCH_CXX_FLAGS "?"
#endif

namespace bench {

namespace scalar {
void add(const float* a, const float* b, float* c, std::int64_t n);
void sin(const float* a, float* c, std::int64_t n);
float* add_new(const float* a, const float* b, std::int64_t n);
float* sin_new(const float* a, std::int64_t n);
}  // namespace scalar

// The copies of vectorize_cases.cpp, one per instruction set that CMake compiled.
#define BENCH_DECLARE_ARCH(ns)                                                                                  \
  namespace ns {                                                                                                \
  const char* simd_name();                                                                                      \
  void run(const data& big, const data& small, const references& ref, const plan& p, std::vector<result>& out); \
  }
BENCH_DECLARE_ARCH(baseline)
#if defined(BENCH_HAVE_avx2)
BENCH_DECLARE_ARCH(avx2)
#endif
#if defined(BENCH_HAVE_avx512)
BENCH_DECLARE_ARCH(avx512)
#endif
#undef BENCH_DECLARE_ARCH

namespace {

bool cpu_has_avx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
bool cpu_has_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
}

void run_library(const data& big, const data& small, const references& ref, const plan& p, std::vector<result>& out) {
  const auto add_bytes_big = 3 * big.n * std::int64_t{sizeof(float)};
  const auto sin_bytes_big = 2 * big.n * std::int64_t{sizeof(float)};
  const auto add_bytes_small = 3 * small.n * std::int64_t{sizeof(float)};
  const std::string lib = "ufunc::add [" + std::string(ufunc::simd_arch()) + "]";
  const std::string lib_sin = "ufunc::sin [" + std::string(ufunc::simd_arch()) + "]";

  auto t = measure([&] { keep(ufunc::add(big.a, big.b)); }, p.large_samples, 1, p.large_warmup);
  out.push_back({"add_f32_16M_alloc", lib, big.n, add_bytes_big, t});
  t = measure([&] { keep(ufunc::add(big.a, big.b, {.out = {big.c}})); }, p.large_samples, 1, p.large_warmup);
  out.push_back({"add_f32_16M_out", lib, big.n, add_bytes_big, t});
  check(lib + " add 2^24", big.c, ref.add_big, 0.0);

  t = measure([&] { keep(ufunc::sin(big.a)); }, p.large_samples, 1, p.large_warmup);
  out.push_back({"sin_f32_16M_alloc", lib_sin, big.n, sin_bytes_big, t});
  t = measure([&] { keep(ufunc::sin(big.a, {.out = {big.c}})); }, p.large_samples, 1, p.large_warmup);
  out.push_back({"sin_f32_16M_out", lib_sin, big.n, sin_bytes_big, t});
  check(lib_sin + " sin 2^24", big.c, ref.sin_big, 1e-6);

  // 1024 elements. ufunc::add has no typed overload: array_t operands go through the
  // same run-time resolution as untyped ones, so both are measured.
  const std::string on_typed = lib + " on array_t<float>";
  const std::string on_dyn = lib + " on ufunc::array";
  t = measure([&] { keep(ufunc::add(small.a, small.b)); }, p.small_samples, p.small_calls, p.small_warmup_calls);
  out.push_back({"add_f32_1024_alloc", on_typed, small.n, add_bytes_small, t});
  t = measure([&] { keep(ufunc::add(small.a, small.b, {.out = {small.c}})); }, p.small_samples, p.small_calls,
              p.small_warmup_calls);
  out.push_back({"add_f32_1024_out", on_typed, small.n, add_bytes_small, t});
  check(on_typed + " add 1024", small.c, ref.add_small, 0.0);

  const ufunc::array da = small.a, db = small.b, dc = small.c;  // dtype known only at run time
  t = measure([&] { keep(ufunc::add(da, db)); }, p.small_samples, p.small_calls, p.small_warmup_calls);
  out.push_back({"add_f32_1024_alloc", on_dyn, small.n, add_bytes_small, t});
  t = measure([&] { keep(ufunc::add(da, db, {.out = {dc}})); }, p.small_samples, p.small_calls, p.small_warmup_calls);
  out.push_back({"add_f32_1024_out", on_dyn, small.n, add_bytes_small, t});
  // Diagnostic: options built once, so the difference is what building them costs per call.
  const ufunc::call_options reused{.out = {dc}};
  t = measure([&] { keep(ufunc::add(da, db, reused)); }, p.small_samples, p.small_calls, p.small_warmup_calls);
  out.push_back({"add_f32_1024_out", on_dyn + " (options reused)", small.n, add_bytes_small, t});
  check(on_dyn + " add 1024", small.c, ref.add_small, 0.0);

  // One element, 1-d and 0-d: the whole time is the call's own host work.
  const ufunc::array one_a = small.a[{ufunc::slice{0, 1}}], one_b = small.b[{ufunc::slice{0, 1}}],
                     one_c = ufunc::array::empty({1}, ufunc::float32);
  const ufunc::array zero_a = one_a.reshape({}), zero_b = one_b.reshape({}), zero_c = one_c.reshape({});
  const auto add_bytes_one = 3 * std::int64_t{sizeof(float)};
  t = measure([&] { keep(ufunc::add(one_a, one_b)); }, p.small_samples, p.small_calls, p.small_warmup_calls);
  out.push_back({"add_f32_1_alloc", on_dyn, 1, add_bytes_one, t});
  t = measure([&] { keep(ufunc::add(one_a, one_b, {.out = {one_c}})); }, p.small_samples, p.small_calls,
              p.small_warmup_calls);
  out.push_back({"add_f32_1_out", on_dyn, 1, add_bytes_one, t});
  t = measure([&] { keep(ufunc::add(zero_a, zero_b)); }, p.small_samples, p.small_calls, p.small_warmup_calls);
  out.push_back({"add_f32_0d_alloc", on_dyn, 1, add_bytes_one, t});
  t = measure([&] { keep(ufunc::add(zero_a, zero_b, {.out = {zero_c}})); }, p.small_samples, p.small_calls,
              p.small_warmup_calls);
  out.push_back({"add_f32_0d_out", on_dyn, 1, add_bytes_one, t});
  check(on_dyn + " add 0-d", zero_c.reshape({1}), ref.add_small[{ufunc::slice{0, 1}}], 0.0);
}

void run_scalar(const data& big, const data& small, const plan& p, std::vector<result>& out) {
  const auto add_bytes_big = 3 * big.n * std::int64_t{sizeof(float)};
  const auto sin_bytes_big = 2 * big.n * std::int64_t{sizeof(float)};
  const auto add_bytes_small = 3 * small.n * std::int64_t{sizeof(float)};
  const std::string add_loop = "scalar loop c[i] = a[i] + b[i] [-O2]";
  const std::string sin_loop = "scalar loop c[i] = std::sin(a[i]) [-O2]";
  const float *a = big.a.data(), *b = big.b.data(), *sa = small.a.data(), *sb = small.b.data();
  float *c = big.c.data(), *sc = small.c.data();

  auto t = measure([&] { delete[] keep_ptr(scalar::add_new(a, b, big.n)); }, p.large_samples, 1, p.large_warmup);
  out.push_back({"add_f32_16M_alloc", add_loop + ", new[]", big.n, add_bytes_big, t});
  t = measure([&] { scalar::add(a, b, c, big.n); }, p.large_samples, 1, p.large_warmup);
  out.push_back({"add_f32_16M_out", add_loop, big.n, add_bytes_big, t});
  t = measure([&] { delete[] keep_ptr(scalar::sin_new(a, big.n)); }, p.large_samples, 1, p.large_warmup);
  out.push_back({"sin_f32_16M_alloc", sin_loop + ", new[]", big.n, sin_bytes_big, t});
  t = measure([&] { scalar::sin(a, c, big.n); }, p.large_samples, 1, p.large_warmup);
  out.push_back({"sin_f32_16M_out", sin_loop, big.n, sin_bytes_big, t});
  t = measure([&] { delete[] keep_ptr(scalar::add_new(sa, sb, small.n)); }, p.small_samples, p.small_calls,
              p.small_warmup_calls);
  out.push_back({"add_f32_1024_alloc", add_loop + ", new[]", small.n, add_bytes_small, t});
  t = measure([&] { scalar::add(sa, sb, sc, small.n); }, p.small_samples, p.small_calls, p.small_warmup_calls);
  out.push_back({"add_f32_1024_out", add_loop, small.n, add_bytes_small, t});
}

int parse_int(const char* s) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v <= 0) {
    std::fprintf(stderr, "ufunc_cpu_bench: '%s' is not a positive integer\n", s);
    std::exit(2);
  }
  return static_cast<int>(v);
}

}  // namespace

}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  plan p;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ufunc_cpu_bench: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return parse_int(argv[++i]);
    };
    if (arg == "--quick") {
      p = {.large_samples = 5, .large_warmup = 1, .small_samples = 20, .small_calls = 1000, .small_warmup_calls = 2000};
    } else if (arg == "--large-samples") {
      p.large_samples = value();
    } else if (arg == "--small-samples") {
      p.small_samples = value();
    } else if (arg == "--small-calls") {
      p.small_calls = value();
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--large-samples N] [--small-samples N] [--small-calls N]\n", argv[0]);
      return 2;
    }
  }

  std::printf("INFO\tsimd_arch\t%s\n", std::string(ufunc::simd_arch()).c_str());
  std::printf("INFO\tcompiler\t%s\n", __VERSION__);
  std::printf("INFO\tcxx_flags\t%s\n", BENCH_CXX_FLAGS);
  std::printf("INFO\tvectorize_baseline_simd\t%s\n", baseline::simd_name());
#if defined(BENCH_HAVE_avx2)
  std::printf("INFO\tvectorize_avx2_simd\t%s (%s)\n", avx2::simd_name(), cpu_has_avx2() ? "run" : "CPU lacks it");
#endif
#if defined(BENCH_HAVE_avx512)
  std::printf("INFO\tvectorize_avx512_simd\t%s (%s)\n", avx512::simd_name(), cpu_has_avx512() ? "run" : "CPU lacks it");
#endif
  std::printf("INFO\tplan\tlarge: %d samples x 1 call; small: %d samples x %d calls\n", p.large_samples,
              p.small_samples, p.small_calls);
  std::fflush(stdout);

  const data big = make_data(std::int64_t{1} << 24);
  const data small = make_data(1024);
  references ref;
  ref.add_big = ufunc::empty<float>({big.n});
  ref.sin_big = ufunc::empty<float>({big.n});
  ref.add_small = ufunc::empty<float>({small.n});
  scalar::add(big.a.data(), big.b.data(), ref.add_big.data(), big.n);
  scalar::sin(big.a.data(), ref.sin_big.data(), big.n);
  scalar::add(small.a.data(), small.b.data(), ref.add_small.data(), small.n);

  std::vector<result> results;
  auto flush = [&] {
    for (const auto& r : results) print(r);
    results.clear();
  };
  run_library(big, small, ref, p, results);
  flush();
  baseline::run(big, small, ref, p, results);
  flush();
#if defined(BENCH_HAVE_avx2)
  if (cpu_has_avx2()) avx2::run(big, small, ref, p, results);
  flush();
#endif
#if defined(BENCH_HAVE_avx512)
  if (cpu_has_avx512()) avx512::run(big, small, ref, p, results);
  flush();
#endif
  run_scalar(big, small, p, results);
  flush();
  return any_check_failed() ? 1 : 0;
}
