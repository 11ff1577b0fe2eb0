// A/B: streaming stores on/off, same process, interleaved, median of reps.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <ufunc/core/detail/streaming.hpp>
#include <ufunc/ufunc.hpp>
#include <vector>
using clk = std::chrono::steady_clock;
double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int main(int argc, char** argv) {
  const int lo = argc > 1 ? atoi(argv[1]) : 18, hi = argc > 2 ? atoi(argv[2]) : 26;
  const int reps = argc > 3 ? atoi(argv[3]) : 15;
  const auto target = (argc > 4 && std::string(argv[4]) == "par") ? ufunc::target_id::parallel : ufunc::target_id::cpu;
  std::printf("target %s; times in ms, median of %d, on/off interleaved\n",
              target == ufunc::target_id::cpu ? "cpu" : "parallel", reps);
  std::printf("%6s %9s | %8s %8s %6s | %8s %8s %6s | %8s %8s %6s\n", "log2n", "out MiB", "add off", "add on", "on/off",
              "sin off", "sin on", "on/off", "chain off", "chain on", "on/off");
  for (int l = lo; l <= hi; ++l) {
    const std::int64_t n = std::int64_t{1} << l;
    auto a = ufunc::empty<float>({n}), b = ufunc::empty<float>({n}), c = ufunc::empty<float>({n}),
         d = ufunc::empty<float>({n});
    for (std::int64_t i = 0; i < n; ++i) {
      a.data()[i] = (i % 1000) * 0.01f - 5;
      b.data()[i] = (i % 777) * 0.02f;
      c.data()[i] = 0;
      d.data()[i] = 0;
    }
    const int calls = std::max<std::int64_t>(1, (std::int64_t{1} << 24) / n);
    std::vector<std::function<void()>> fs = {
        [&] { ufunc::add(a, b, {.out = {c}, .target = target}); },
        [&] { ufunc::sin(a, {.out = {c}, .target = target}); },
        [&] {
          ufunc::add(a, b, {.out = {c}, .target = target});
          ufunc::multiply(c, a, {.out = {d}, .target = target});
        },
    };
    double r[3][2];
    for (int k = 0; k < 3; ++k) {
      std::vector<double> t[2];
      for (int rep = 0; rep < reps + 2; ++rep)
        for (int on = 0; on < 2; ++on) {
          ufunc::detail::set_streaming_threshold(on ? 1 : 0);
          fs[k]();
          auto t0 = clk::now();
          for (int i = 0; i < calls; ++i) fs[k]();
          if (rep >= 2) t[on].push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count() / calls);
        }
      r[k][0] = med(t[0]);
      r[k][1] = med(t[1]);
    }
    std::printf("%6d %9.2f | %8.4f %8.4f %6.3f | %8.4f %8.4f %6.3f | %8.4f %8.4f %6.3f\n", l, n * 4.0 / (1 << 20),
                r[0][0], r[0][1], r[0][1] / r[0][0], r[1][0], r[1][1], r[1][1] / r[1][0], r[2][0], r[2][1],
                r[2][1] / r[2][0]);
  }
}
