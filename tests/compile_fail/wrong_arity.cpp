// expect: no match for call|no matching function for call|constraints not satisfied
// A binary ufunc called with one operand.
#include <ufunc/vectorize.hpp>

int main() {
  auto add = ufunc::vectorize<float(float, float), ufunc::target::cpu>([](auto a, auto b) { return a + b; });
  auto x = ufunc::arange<float>(4.0f);
  (void)add(x);
}
