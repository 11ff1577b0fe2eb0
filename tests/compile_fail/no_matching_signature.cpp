// expect: no signature of this ufunc matches the argument element types
// The typed path never casts silently: an int32 array given to a float ufunc does not compile.
#include <cstdint>

#include <ufunc/vectorize.hpp>

int main() {
  auto add = ufunc::vectorize<float(float, float), ufunc::target::cpu>([](auto a, auto b) { return a + b; });
  auto x = ufunc::arange<std::int32_t>(4);
  (void)add(x, x);
}
