// expect: the functor cannot be called as one of the signatures says
// A functor taking a pointer cannot serve float(float, float).
#include <ufunc/vectorize.hpp>

int main() {
  auto bad = ufunc::vectorize<float(float, float), ufunc::target::cpu>([](const float* a, float b) { return *a + b; });
  (void)bad;
}
