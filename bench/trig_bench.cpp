// trig_bench: the float32 sin/cos kernel of the built-in ufuncs (ufuncs/src/simd_trig.hpp)
// on each x86 instruction set this CPU has, against xsimd's sin/cos (which the ufuncs
// used before), one thread, without the library's call overhead.
//
//   trig_bench [--rounds N] [--log2n A,B,...]
//                                   rate table: Gelem/s for 2^14 (in cache) and 2^24 elements
//                                   (or the sizes given) of (i % 1000) * 0.01f - 5 (parallel_bench's
//                                   sin input), written to a second array. Each round times every
//                                   loop once, one after the other (interleaved, so that a slow
//                                   stretch of a shared machine hits them alike); the table gives
//                                   the median and the best of the rounds, and the median of the
//                                   per-round ratios new / xsimd.
//   trig_bench --verify [--threads N] [--max X]
//                                   every float with |x| <= X (default: the fast range,
//                                   131071.99), both signs, per kernel variant (fma: AVX2 and
//                                   AVX-512; double: SSE2 and SSE4.2): the largest error in ulps
//                                   against the double-precision sin/cos rounded to float, how many
//                                   results differ from that correctly rounded one, whether the
//                                   instruction sets of the variant give the same bits (and how many
//                                   results differ from the first variant's), and whether any flag
//                                   but inexact was raised for |x| >= 2^-40. Exit status 1
//                                   if an error reaches 1 ulp, bits differ within a variant or a
//                                   flag was raised.
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
  const char* variant();                              \
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
  const char* (*variant)();
  loop_fn sin, cos, xsimd_sin, xsimd_cos;
};

std::vector<isa> available() {
  std::vector<isa> v;
#define BENCH_ISA(ns)                                                                                   \
  v.push_back({trig_bench::ns::name, trig_bench::ns::variant, trig_bench::ns::sin, trig_bench::ns::cos, \
               trig_bench::ns::xsimd_sin, trig_bench::ns::xsimd_cos})
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

// Elements per second of one timing of f: enough calls on n elements to last about 2 ms
// (one call from 2^19 elements on).
double rate(loop_fn f, const std::vector<float>& in, std::vector<float>& out) {
  const auto n = static_cast<std::int64_t>(in.size());
  const std::int64_t reps = std::max<std::int64_t>(1, (std::int64_t{1} << 19) / n);
  const auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t r = 0; r < reps; ++r) f(in.data(), out.data(), n);
  return static_cast<double>(n * reps) / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void rate_table(const std::vector<isa>& isas, const std::vector<int>& sizes, int rounds) {
  std::printf(
      "| instruction set | n | xsimd sin | new sin | new/xsimd | xsimd cos | new cos | new/xsimd |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& s : isas)
    for (const int log2n : sizes) {
      const auto n = static_cast<std::size_t>(std::int64_t{1} << log2n);
      std::vector<float> in(n), out(n);
      for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
      const loop_fn fns[4] = {s.xsimd_sin, s.sin, s.xsimd_cos, s.cos};
      for (const auto f : fns) f(in.data(), out.data(), static_cast<std::int64_t>(n));  // page in, warm up
      std::vector<double> r[4], ratio[2];
      for (int k = 0; k < rounds; ++k) {
        for (int j = 0; j < 4; ++j) r[j].push_back(rate(fns[j], in, out) / 1e9);
        for (int j = 0; j < 2; ++j) ratio[j].push_back(r[2 * j + 1].back() / r[2 * j].back());
      }
      auto cell = [](const std::vector<double>& v) {
        static char buf[4][32];
        static int next = 0;
        char* b = buf[next++ % 4];
        std::snprintf(b, 32, "%.2f (%.2f)", median(v), *std::max_element(v.begin(), v.end()));
        return b;
      };
      std::printf("| %s | 2^%d | %s | %s | %.2fx |", s.name(), log2n, cell(r[0]), cell(r[1]), median(ratio[0]));
      std::printf(" %s | %s | %.2fx |\n", cell(r[2]), cell(r[3]), median(ratio[1]));
      std::fflush(stdout);
    }
  std::printf(
      "(Gelem/s, one thread: median (best) of %d interleaved rounds; new/xsimd: median of the per-round ratios)\n",
      rounds);
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
  std::uint64_t count = 0, not_rounded = 0, mismatches = 0, other_variant = 0;
  int flags = 0;
  void merge(const tally& t) {
    if (t.max_ulp > max_ulp) max_ulp = t.max_ulp, worst = t.worst;
    count += t.count, not_rounded += t.not_rounded, mismatches += t.mismatches, flags |= t.flags;
    other_variant += t.other_variant;
  }
};

// One tally per variant (the variants in order of first appearance in isas); the first
// instruction set of a variant is its reference, the others must give its bits.
std::vector<tally> verify(const std::vector<isa>& isas, const std::vector<std::string>& variants, bool cosine,
                          std::uint32_t max_bits, int threads) {
  constexpr std::uint32_t chunk = 1u << 20;
  constexpr std::uint32_t tiny_bits = 0x2b800000u;  // below: libm's lanes, whose flags are libm's
  std::vector<std::vector<tally>> per(static_cast<std::size_t>(threads), std::vector<tally>(variants.size()));
  std::atomic<std::uint64_t> next{0};
  auto work = [&](std::vector<tally>& t) {
    std::vector<float> in(chunk);
    std::vector<double> exact(chunk);
    std::vector<std::vector<float>> ref(variants.size(), std::vector<float>(chunk));
    std::vector<float> other(chunk);
    for (std::uint64_t start; (start = next.fetch_add(chunk)) <= max_bits;) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, max_bits + std::uint64_t{1} - start));
      for (const std::uint32_t sign : {0u, 0x80000000u}) {
        for (std::size_t i = 0; i < n; ++i) {
          in[i] = std::bit_cast<float>(static_cast<std::uint32_t>(start + i) | sign);
          exact[i] = cosine ? std::cos(static_cast<double>(in[i])) : std::sin(static_cast<double>(in[i]));
        }
        std::vector<bool> seen(variants.size(), false);
        for (const auto& s : isas) {
          const auto v =
              static_cast<std::size_t>(std::find(variants.begin(), variants.end(), s.variant()) - variants.begin());
          float* got = seen[v] ? other.data() : ref[v].data();
          std::feclearexcept(FE_ALL_EXCEPT);
          (cosine ? s.cos : s.sin)(in.data(), got, static_cast<std::int64_t>(n));
          if (start >= tiny_bits)
            t[v].flags |= std::fetestexcept(FE_UNDERFLOW | FE_OVERFLOW | FE_INVALID | FE_DIVBYZERO);
          if (seen[v]) {
            if (std::memcmp(ref[v].data(), got, n * sizeof(float)) != 0)
              for (std::size_t i = 0; i < n; ++i)
                t[v].mismatches += std::bit_cast<std::uint32_t>(ref[v][i]) != std::bit_cast<std::uint32_t>(got[i]);
            continue;
          }
          seen[v] = true;
          if (v > 0)
            for (std::size_t i = 0; i < n; ++i)
              t[v].other_variant += std::bit_cast<std::uint32_t>(ref[0][i]) != std::bit_cast<std::uint32_t>(got[i]);
          for (std::size_t i = 0; i < n; ++i) {
            const double err = std::fabs(static_cast<double>(got[i]) - exact[i]) / ulp_at(exact[i]);
            t[v].not_rounded += got[i] != static_cast<float>(exact[i]);
            if (err > t[v].max_ulp) t[v].max_ulp = err, t[v].worst = in[i];
            ++t[v].count;
          }
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (auto& t : per) pool.emplace_back(work, std::ref(t));
  for (auto& th : pool) th.join();
  std::vector<tally> all(variants.size());
  for (const auto& t : per)
    for (std::size_t v = 0; v < variants.size(); ++v) all[v].merge(t[v]);
  return all;
}

std::vector<int> parse_sizes(const std::string& s) {
  std::vector<int> v;
  for (std::size_t p = 0; p < s.size();) {
    const std::size_t q = std::min(s.find(',', p), s.size());
    v.push_back(std::atoi(s.substr(p, q - p).c_str()));
    p = q + 1;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  bool check = false;
  int rounds = 21, threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> sizes = {14, 24};
  float max_x = 0x1.fffffep16f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--verify")
      check = true;
    else if (a == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (a == "--log2n" && i + 1 < argc)
      sizes = parse_sizes(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (a == "--max" && i + 1 < argc)
      max_x = std::strtof(argv[++i], nullptr);
    else {
      std::fprintf(stderr, "usage: trig_bench [--rounds N] [--log2n A,B,...] | --verify [--threads N] [--max X]\n");
      return 2;
    }
  }
  const auto isas = available();
  if (!check) {
    rate_table(isas, sizes, rounds);
    return 0;
  }
  std::vector<std::string> variants;
  std::printf("instruction sets compared:");
  for (const auto& s : isas) {
    std::printf(" %s (%s)", s.name(), s.variant());
    if (std::find(variants.begin(), variants.end(), s.variant()) == variants.end()) variants.emplace_back(s.variant());
  }
  std::printf("\n");
  int status = 0;
  for (const bool cosine : {false, true}) {
    const auto t = verify(isas, variants, cosine, std::bit_cast<std::uint32_t>(std::fabs(max_x)), threads);
    for (std::size_t v = 0; v < variants.size(); ++v) {
      std::printf(
          "%s, %s variant, |x| <= %.9g: %llu floats, max error %.4f ulp (at x = %a), %llu (%.3f%%) not the "
          "correctly rounded result, %llu differ between its instruction sets, %llu from the %s variant, flags %s\n",
          cosine ? "cos" : "sin", variants[v].c_str(), static_cast<double>(max_x),
          static_cast<unsigned long long>(t[v].count), t[v].max_ulp, static_cast<double>(t[v].worst),
          static_cast<unsigned long long>(t[v].not_rounded),
          100.0 * static_cast<double>(t[v].not_rounded) / static_cast<double>(t[v].count),
          static_cast<unsigned long long>(t[v].mismatches), static_cast<unsigned long long>(t[v].other_variant),
          variants[0].c_str(), t[v].flags ? "RAISED" : "none");
      status |= t[v].max_ulp >= 1.0 || t[v].mismatches != 0 || t[v].flags != 0;
    }
  }
  return status;
}
