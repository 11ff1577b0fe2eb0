// Generalized ufuncs on the host targets (issue 20): a stack of 10^6 (3x3)@(3x3) products,
// vecdot of (10^6, 16) rows, and a moving average over (10^5, 256) rows with a window of 8,
// through ufunc::gvectorize on targets cpu and parallel, every call writing into an existing
// output. bench/gufunc_numpy.py times np.matmul, np.vecdot and a NumPy moving average on the
// same data. Prints CSV: case,dtype,impl,target,seconds (median of repeated calls).
//
//   gufunc_bench [--rows N]    (the moving average's rows, 100000 unless given)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <ufunc/gvectorize.hpp>
#include <ufunc/ufunc.hpp>

#include "bench_common.hpp"
#include "gufunc_data.hpp"

namespace {

template <class T>
void run(const char* dtype, std::int64_t rows) {
  using sig = T(T, T);
  const auto matmul = ufunc::gvectorize<sig, ufunc::target::cpu>(
      "(m,n),(n,p)->(m,p)",
      [](ufunc::core_view<const T> a, ufunc::core_view<const T> b, ufunc::core_view<T> c) {
        for (std::int64_t i = 0; i < c.extent(0); ++i)
          for (std::int64_t j = 0; j < c.extent(1); ++j) {
            T s = 0;
            for (std::int64_t k = 0; k < a.extent(1); ++k) s += a(i, k) * b(k, j);
            c(i, j) = s;
          }
      },
      "matmul");
  const auto vecdot = ufunc::gvectorize<sig, ufunc::target::cpu>(
      "(n),(n)->()",
      [](ufunc::core_view<const T> x, ufunc::core_view<const T> y, ufunc::core_view<T> out) {
        T s = 0;
        for (std::int64_t i = 0; i < x.extent(0); ++i) s += x(i) * y(i);
        out() = s;
      },
      "vecdot");
  const auto move_mean = ufunc::gvectorize<T(T, std::int64_t), ufunc::target::cpu>(
      "(n),()->(n)",
      [](ufunc::core_view<const T> a, ufunc::core_view<const std::int64_t> window, ufunc::core_view<T> out) {
        const std::int64_t w = window();
        T sum = 0;
        for (std::int64_t i = 0; i < a.extent(0); ++i) {
          sum += a(i);
          if (i >= w) sum -= a(i - w);
          out(i) = sum / static_cast<T>(std::min(i + 1, w));
        }
      },
      "move_mean");
  const auto a = bench::gufunc_data<T>({1000000, 3, 3}), b = bench::gufunc_data<T>({1000000, 3, 3});
  auto c = ufunc::array::empty({1000000, 3, 3}, ufunc::dtype_of<T>);
  const auto x = bench::gufunc_data<T>({1000000, 16}), y = bench::gufunc_data<T>({1000000, 16});
  auto d = ufunc::array::empty({1000000}, ufunc::dtype_of<T>);
  const auto m = bench::gufunc_data<T>({rows, 256});
  auto mm = ufunc::array::empty({rows, 256}, ufunc::dtype_of<T>);
  for (auto t : {ufunc::target_id::cpu, ufunc::target_id::parallel}) {
    if (!ufunc::target_available(t)) continue;
    const std::string target(ufunc::to_string(t));
    std::printf("matmul_3x3,%s,gvectorize,%s,%.9g\n", dtype, target.c_str(),
                bench::median_seconds([&] { matmul(a, b, {.out = {c}, .target = t}); }));
    std::printf("vecdot_16,%s,gvectorize,%s,%.9g\n", dtype, target.c_str(),
                bench::median_seconds([&] { vecdot(x, y, {.out = {d}, .target = t}); }));
    std::printf("vecdot_16,%s,builtin_vecdot,%s,%.9g\n", dtype, target.c_str(),
                bench::median_seconds([&] { ufunc::vecdot(x, y, {.out = {d}, .target = t}); }));
    std::printf("matmul_3x3,%s,builtin_matmul,%s,%.9g\n", dtype, target.c_str(),
                bench::median_seconds([&] { ufunc::matmul(a, b, {.out = {c}, .target = t}); }));
    std::printf("move_mean_256,%s,gvectorize,%s,%.9g\n", dtype, target.c_str(),
                bench::median_seconds([&] { move_mean(m, 8, {.out = {mm}, .target = t}); }));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t rows = 100000;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--rows") rows = std::stoll(argv[i + 1]);
  std::printf("case,dtype,impl,target,seconds\n");
  run<float>("f32", rows);
  run<double>("f64", rows);
}
