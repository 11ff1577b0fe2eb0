// Output memory order (order='K'): ufunc::add on transposed operands, whose result
// NumPy allocates in the inputs' order so that every write is contiguous, against the
// same call on C-ordered operands, on the cpu target. order_bench.py times NumPy on
// the same cases.
//
//   ufunc_order_bench [samples] [rows cols]      (default 15 samples, 4096 x 4096 float32)
//
// Prints one line per case: median and minimum ms per call, and the result's strides.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ufunc/ufunc.hpp>

namespace {

template <class F>
void time_case(const char* name, int samples, F&& f) {
  ufunc::array r = f();  // warm-up: page faults of the first allocation, caches
  std::vector<double> ms;
  for (int s = 0; s < samples; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    r = f();
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%-26s median %8.2f ms  min %8.2f ms  strides %s\n", name, ms[ms.size() / 2], ms.front(),
              ufunc::array::shape_string(r.strides()).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 15;
  const std::int64_t rows = argc > 3 ? std::atol(argv[2]) : 4096, cols = argc > 3 ? std::atol(argv[3]) : 4096;
  auto a = ufunc::empty<float>({rows, cols}), b = ufunc::empty<float>({rows, cols});
  for (std::int64_t i = 0; i < a.size(); ++i) {
    a.data()[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
    b.data()[i] = static_cast<float>(i % 777) * 0.02f;
  }
  const ufunc::array at = a.transpose(), bt = b.transpose();
  const ufunc::call_options cpu{.target = ufunc::target_id::cpu};
  std::printf("ufunc, target cpu, float32 %lld x %lld, %d samples\n", static_cast<long long>(rows),
              static_cast<long long>(cols), samples);
  time_case("add(a, b)", samples, [&] { return ufunc::add(a, b, cpu); });
  time_case("add(a.T, b.T)", samples, [&] { return ufunc::add(at, bt, cpu); });
  time_case("add(a.T, b)   [square]", samples,
            [&] { return rows == cols ? ufunc::add(at, b, cpu) : ufunc::add(a, b, cpu); });
  return 0;
}
