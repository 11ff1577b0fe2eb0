// expect: signature arguments must be element types
// long double is not a ufunc element type.
#include <ufunc/vectorize.hpp>

int main() {
  auto bad = ufunc::vectorize<long double(long double), ufunc::target::cpu>([](auto x) { return x; });
  (void)bad;
}
