// trig_call_bench: ufunc::sin and ufunc::cos float32 through the library's calls (target
// cpu, out=), on the built-in loops of the instruction set that UFUNC_SIMD_ARCH caps
// (run_trig.sh runs it once per set). Input: (i % 1000) * 0.01f - 5, as trig_bench and
// trig_numpy.py.
//
//   trig_call_bench [--rounds N] [--log2n K]
//
// Each round times sin and cos once each (interleaved, so that a slow stretch of a
// shared machine hits both alike); prints the median and the best Gelem/s.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ufunc/ufunc.hpp>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 21, log2n = 24;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (a == "--log2n" && i + 1 < argc)
      log2n = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: trig_call_bench [--rounds N] [--log2n K]\n");
      return 2;
    }
  }
  const std::int64_t n = std::int64_t{1} << log2n;
  auto a = ufunc::empty<float>({n});
  auto c = ufunc::empty<float>({n});
  for (std::int64_t i = 0; i < n; ++i) a.data()[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
  const ufunc::call_options out{.out = {c}, .target = ufunc::target_id::cpu};
  // Enough calls per timing to last about 2 ms (one call from 2^19 elements on).
  const std::int64_t reps = std::max<std::int64_t>(1, (std::int64_t{1} << 19) / n);
  auto rate = [&](auto&& call) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t r = 0; r < reps; ++r) call();
    return static_cast<double>(n * reps) /
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 1e9;
  };
  auto sin_call = [&] { (void)ufunc::sin(a, out); };
  auto cos_call = [&] { (void)ufunc::cos(a, out); };
  sin_call();  // page in, warm up
  cos_call();
  std::vector<double> s, co;
  for (int k = 0; k < rounds; ++k) {
    s.push_back(rate(sin_call));
    co.push_back(rate(cos_call));
  }
  std::printf("ufunc::sin [%s] 2^%d out=: %.3f (best %.3f) Gelem/s\n", std::string(ufunc::simd_arch()).c_str(), log2n,
              median(s), *std::max_element(s.begin(), s.end()));
  std::printf("ufunc::cos [%s] 2^%d out=: %.3f (best %.3f) Gelem/s\n", std::string(ufunc::simd_arch()).c_str(), log2n,
              median(co), *std::max_element(co.begin(), co.end()));
  return 0;
}
