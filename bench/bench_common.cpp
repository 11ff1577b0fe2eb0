// The harness's out-of-line parts (see bench_common.hpp for why they are not inline).
#include "bench_common.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace bench {

namespace {
bool g_failed = false;
}

bool any_check_failed() { return g_failed; }

data make_data(std::int64_t n) {
  data d;
  d.n = n;
  d.a = ufunc::empty<float>({n});
  d.b = ufunc::empty<float>({n});
  d.c = ufunc::empty<float>({n});
  for (std::int64_t i = 0; i < n; ++i) {
    d.a.data()[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
    d.b.data()[i] = static_cast<float>(i % 777) * 0.02f;
  }
  // Touch the output so that no out= case pays for its first page faults.
  std::memset(d.c.data(), 0, static_cast<std::size_t>(n) * sizeof(float));
  return d;
}

timing summarize(std::vector<double>& per_call_ns, int calls) {
  std::sort(per_call_ns.begin(), per_call_ns.end());
  timing t;
  t.samples = static_cast<int>(per_call_ns.size());
  t.calls = calls;
  const auto m = per_call_ns.size();
  t.median_ns = m % 2 ? per_call_ns[m / 2] : 0.5 * (per_call_ns[m / 2 - 1] + per_call_ns[m / 2]);
  t.min_ns = per_call_ns.front();
  return t;
}

void print(const result& r) {
  std::printf("RESULT\t%s\t%s\t%lld\t%lld\t%.1f\t%.1f\t%d\t%d\n", r.group.c_str(), r.variant.c_str(),
              static_cast<long long>(r.elements), static_cast<long long>(r.bytes), r.t.median_ns, r.t.min_ns,
              r.t.samples, r.t.calls);
  std::fflush(stdout);
}

void check(const std::string& what, const ufunc::array& got, const ufunc::array& expected, double tolerance) {
  const auto* g = reinterpret_cast<const float*>(got.data());
  const auto* e = reinterpret_cast<const float*>(expected.data());
  const bool same_size = got.size() == expected.size();
  double worst = same_size ? 0.0 : INFINITY;
  for (std::int64_t i = 0; same_size && i < expected.size(); ++i)
    worst = std::max(worst, std::fabs(double(g[i]) - double(e[i])));
  const bool ok = worst <= tolerance;
  std::printf("CHECK\t%s\t%s\tmax_abs_err=%g\n", ok ? "ok" : "FAIL", what.c_str(), worst);
  g_failed |= !ok;
}

}  // namespace bench
