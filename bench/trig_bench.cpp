// trig_bench: the float32 sin/cos kernel of the built-in ufuncs (ufuncs/src/simd_trig.hpp)
// on each x86 instruction set this CPU has, against xsimd's sin/cos (which the ufuncs
// used before), one thread, without the library's call overhead.
//
//   trig_bench [--samples N]        rate table: Gelem/s for 2^14 (in cache) and 2^24 elements
//                                   of (i % 1000) * 0.01f - 5 (parallel_bench's sin input)
//   trig_bench --verify [--threads N] [--max X]
//                                   every float with |x| <= X (default: the fast range,
//                                   131071.99), both signs: the largest error in ulps
//                                   against the double-precision sin/cos, how many results
//                                   differ from the rounded double result, whether every
//                                   instruction set gives the same bits, and whether any
//                                   flag but inexact was raised. Exit status 1 if an error
//                                   exceeds 1 ulp, the bits differ or a flag was raised.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using loop_fn = void (*)(const float*, float*, std::int64_t);

#define BENCH_DECLARE(ns)                             \
  namespace trig_bench::ns {                          \
  const char* name();                                 \
  void sin(const float*, float*, std::int64_t);       \
  void cos(const float*, float*, std::int64_t);       \
  void xsimd_sin(const float*, float*, std::int64_t); \
  void xsimd_cos(const float*, float*, std::int64_t); \
  }
BENCH_DECLARE(baseline)
#if defined(BENCH_HAVE_sse4_2)
BENCH_DECLARE(sse4_2)
#endif
#if defined(BENCH_HAVE_avx2)
BENCH_DECLARE(avx2)
#endif
#if defined(BENCH_HAVE_avx512)
BENCH_DECLARE(avx512)
#endif

namespace {

struct isa {
  const char* (*name)();
  loop_fn sin, cos, xsimd_sin, xsimd_cos;
};

std::vector<isa> available() {
  std::vector<isa> v;
#define BENCH_ISA(ns)                                                                                     \
  v.push_back({trig_bench::ns::name, trig_bench::ns::sin, trig_bench::ns::cos, trig_bench::ns::xsimd_sin, \
               trig_bench::ns::xsimd_cos})
  BENCH_ISA(baseline);
#if defined(BENCH_HAVE_sse4_2)
  if (__builtin_cpu_supports("sse4.2")) BENCH_ISA(sse4_2);
#endif
#if defined(BENCH_HAVE_avx2)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) BENCH_ISA(avx2);
#endif
#if defined(BENCH_HAVE_avx512)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma"))
    BENCH_ISA(avx512);
#endif
#undef BENCH_ISA
  return v;
}

// Elements per second of f on n elements: the best of `samples` timings, each of
// enough repetitions to last about a millisecond (noise from other jobs only slows).
double rate(loop_fn f, std::int64_t n, int samples) {
  std::vector<float> in(static_cast<std::size_t>(n)), out(in.size());
  for (std::int64_t i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
  const std::int64_t reps = std::max<std::int64_t>(1, (std::int64_t{1} << 17) / n);
  f(in.data(), out.data(), n);
  double best = 1e30;
  for (int s = 0; s < samples; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t r = 0; r < reps; ++r) f(in.data(), out.data(), n);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return static_cast<double>(n * reps) / best;
}

// The ulp of the float nearest to `exact` (subnormals: 2^-149).
double ulp_at(double exact) {
  int e = 0;
  std::frexp(std::fabs(static_cast<float>(exact)), &e);
  return std::ldexp(1.0, std::max(e, -125) - 24);
}

struct tally {
  double max_ulp = 0;
  float worst = 0;
  std::uint64_t count = 0, not_rounded = 0, mismatches = 0;
  int flags = 0;
};

tally verify(const std::vector<isa>& isas, bool cosine, std::uint32_t max_bits, int threads) {
  constexpr std::uint32_t chunk = 1u << 20;
  constexpr std::uint32_t tiny_bits = 0x2b800000u;  // below: libm's lanes, whose flags are libm's
  std::vector<tally> per(static_cast<std::size_t>(threads));
  std::atomic<std::uint64_t> next{0};
  auto work = [&](tally& t) {
    std::vector<float> in(chunk), ref(chunk), other(chunk);
    for (std::uint64_t start; (start = next.fetch_add(chunk)) <= max_bits;) {
      const auto n = static_cast<std::int64_t>(std::min<std::uint64_t>(chunk, max_bits + std::uint64_t{1} - start));
      for (const std::uint32_t sign : {0u, 0x80000000u}) {
        for (std::int64_t i = 0; i < n; ++i)
          in[static_cast<std::size_t>(i)] = std::bit_cast<float>(static_cast<std::uint32_t>(start + i) | sign);
        std::feclearexcept(FE_ALL_EXCEPT);
        (cosine ? isas.back().cos : isas.back().sin)(in.data(), ref.data(), n);
        if (start >= tiny_bits) t.flags |= std::fetestexcept(FE_UNDERFLOW | FE_OVERFLOW | FE_INVALID | FE_DIVBYZERO);
        for (std::size_t k = 0; k + 1 < isas.size(); ++k) {
          (cosine ? isas[k].cos : isas[k].sin)(in.data(), other.data(), n);
          if (std::memcmp(ref.data(), other.data(), static_cast<std::size_t>(n) * sizeof(float)) != 0)
            for (std::int64_t i = 0; i < n; ++i)
              t.mismatches += std::bit_cast<std::uint32_t>(ref[static_cast<std::size_t>(i)]) !=
                              std::bit_cast<std::uint32_t>(other[static_cast<std::size_t>(i)]);
        }
        for (std::int64_t i = 0; i < n; ++i) {
          const auto x = static_cast<double>(in[static_cast<std::size_t>(i)]);
          const float got = ref[static_cast<std::size_t>(i)];
          const double exact = cosine ? std::cos(x) : std::sin(x);
          const double err = std::fabs(static_cast<double>(got) - exact) / ulp_at(exact);
          t.not_rounded += got != static_cast<float>(exact);
          if (err > t.max_ulp) t.max_ulp = err, t.worst = static_cast<float>(x);
          ++t.count;
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (auto& t : per) pool.emplace_back(work, std::ref(t));
  for (auto& th : pool) th.join();
  tally all;
  for (const auto& t : per) {
    if (t.max_ulp > all.max_ulp) all.max_ulp = t.max_ulp, all.worst = t.worst;
    all.count += t.count, all.not_rounded += t.not_rounded, all.mismatches += t.mismatches, all.flags |= t.flags;
  }
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  bool check = false;
  int samples = 300, threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  float max_x = 0x1.fffffep16f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--verify")
      check = true;
    else if (a == "--samples" && i + 1 < argc)
      samples = std::atoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (a == "--max" && i + 1 < argc)
      max_x = std::strtof(argv[++i], nullptr);
    else {
      std::fprintf(stderr, "usage: trig_bench [--samples N] | --verify [--threads N] [--max X]\n");
      return 2;
    }
  }
  const auto isas = available();
  if (check) {
    std::printf("instruction sets compared:");
    for (const auto& s : isas) std::printf(" %s", s.name());
    std::printf("\n");
    int status = 0;
    for (const bool cosine : {false, true}) {
      const tally t = verify(isas, cosine, std::bit_cast<std::uint32_t>(std::fabs(max_x)), threads);
      std::printf(
          "%s, |x| <= %.9g: %llu floats, max error %.4f ulp (at x = %a), %llu (%.3f%%) differ from the "
          "rounded double result, %llu differ between instruction sets, flags %s\n",
          cosine ? "cos" : "sin", static_cast<double>(max_x), static_cast<unsigned long long>(t.count), t.max_ulp,
          static_cast<double>(t.worst), static_cast<unsigned long long>(t.not_rounded),
          100.0 * static_cast<double>(t.not_rounded) / static_cast<double>(t.count),
          static_cast<unsigned long long>(t.mismatches), t.flags ? "RAISED" : "none");
      status |= t.max_ulp > 1.0 || t.mismatches != 0 || t.flags != 0;
    }
    return status;
  }
  std::printf("| instruction set | n | xsimd sin | new sin | xsimd cos | new cos |\n|---|---|---|---|---|---|\n");
  for (const auto& s : isas)
    for (const int log2n : {14, 24}) {
      const std::int64_t n = std::int64_t{1} << log2n;
      const int k = log2n == 14 ? samples : std::max(3, samples / 50);
      std::printf("| %s | 2^%d | %.2f | %.2f | %.2f | %.2f |\n", s.name(), log2n, rate(s.xsimd_sin, n, k) / 1e9,
                  rate(s.sin, n, k) / 1e9, rate(s.xsimd_cos, n, k) / 1e9, rate(s.cos, n, k) / 1e9);
      std::fflush(stdout);
    }
  std::printf("(Gelem/s, one thread)\n");
  return 0;
}
