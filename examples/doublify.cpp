// PyCUDA's "doublify" (a[idx] *= 2 on a 4x4 float32 array) as an in-place ufunc
// call: multiply(a, 2, out=a).
#include <cstdio>
#include <random>

#include <ufunc/ufunc.hpp>

#include "example_target.hpp"

static void print(const char* title, const ufunc::array_t<float>& a) {
  std::printf("%s\n", title);
  for (std::int64_t i = 0; i < 4; ++i)
    std::printf("  [% .4f % .4f % .4f % .4f]\n", a.at(i, 0), a.at(i, 1), a.at(i, 2), a.at(i, 3));
}

int main() try {
  auto a = ufunc::empty<float>({4, 4});
  std::mt19937 gen(7);
  std::normal_distribution<float> randn;
  for (std::int64_t i = 0; i < 16; ++i) a.data()[i] = randn(gen);
  const auto before = a.copy();
  print("a:", a);

  ufunc::multiply(a, 2, {.out = {a}, .target = example_call_target});  // in place; 2 is weak, so the loop stays float32
  print(("a after multiply(a, 2, out=a) on target " + describe_target() + ":").c_str(), a);

  for (std::int64_t i = 0; i < 16; ++i)
    if (a.data()[i] != 2.0f * before.data()[i]) return 1;
  return 0;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
