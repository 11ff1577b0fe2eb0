// The plain C++ loops the library is compared with, in their own translation unit
// so that bench/CMakeLists.txt can compile them at -O2 for the baseline instruction
// set (no -march), as code written without any SIMD effort would be. The pointers
// are not __restrict, so the compiler cannot assume c does not alias a or b.
#include <cmath>
#include <cstdint>

namespace bench::scalar {

void add(const float* a, const float* b, float* c, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void sin(const float* a, float* c, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) c[i] = std::sin(a[i]);
}

// Allocating variants, as np.add(a, b) without out=: new[] leaves the memory
// uninitialized, as NumPy's allocation does. The caller deletes the result.
float* add_new(const float* a, const float* b, std::int64_t n) {
  auto* c = new float[static_cast<std::size_t>(n)];
  add(a, b, c, n);
  return c;
}

float* sin_new(const float* a, std::int64_t n) {
  auto* c = new float[static_cast<std::size_t>(n)];
  sin(a, c, n);
  return c;
}

}  // namespace bench::scalar
