// cupy.sin on a million random doubles, checked against the scalar sine as
// `np.allclose(cp.sin(x).get(), np.sin(x))` does: the library's built-in sin ufunc
// on the preset's default target, host arrays in, host array out.
#include <cmath>
#include <cstdio>
#include <random>

#include <ufunc/ufunc.hpp>

#include "example_target.hpp"

int main() try {
  const std::int64_t n = 1000000;
  auto x = ufunc::empty<double>({n});
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> dist(-100.0, 100.0);
  for (std::int64_t i = 0; i < n; ++i) x.data()[i] = dist(gen);

  ufunc::array y = ufunc::sin(x, {.target = example_call_target});

  std::int64_t far = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double expected = std::sin(x.data()[i]);
    if (std::abs(y.at<double>(i) - expected) > 1e-8 + 1e-5 * std::abs(expected)) ++far;  // np.allclose's tolerances
  }
  std::printf("sin of %ld float64 values on target %s: sin(x[0]=%g) = %g; allclose to std::sin: %s\n", n,
              describe_target().c_str(), x.at(0), y.at<double>(0), far == 0 ? "True" : "False");
  return far == 0 ? 0 : 1;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
