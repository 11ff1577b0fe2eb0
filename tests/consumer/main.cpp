// Links the installed package, as a program built by a C++ compiler alone: its own functor
// vectorize'd for the host, and a built-in ufunc on the build's default target (the GPU in
// a cuda build: the library has the device code).
#include <cstdio>

#include <ufunc/ufunc.hpp>

int main() {
  auto axpy = ufunc::vectorize<float(float, float, float), ufunc::target::cpu>([](auto a, auto x, auto y) { return a * x + y; }, "axpy");
  auto x = ufunc::arange<float>(8.0f);
  auto y = axpy(2.0f, x, ufunc::full<float>({8}, 1.0f));
  auto z = ufunc::add(y, 1);
  std::printf("consumer: axpy(2, x, 1) + 1 = [");
  for (auto v : z.to_vector<float>()) std::printf(" %g", v);
  std::printf(" ] via %s\n", axpy.types()[0].c_str());
  return z.at<float>(7) == 16.0f ? 0 : 1;
}
