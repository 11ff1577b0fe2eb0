// Links the installed package: a vectorize'd functor and a built-in ufunc.
#include <cstdio>

#include <ufunc/ufunc.hpp>

int main() {
  auto axpy = ufunc::vectorize<float(float, float, float)>([](auto a, auto x, auto y) { return a * x + y; }, "axpy");
  auto x = ufunc::arange<float>(8.0f);
  auto y = axpy(2.0f, x, ufunc::full<float>({8}, 1.0f));
  auto z = ufunc::add(y, 1);
  std::printf("consumer: axpy(2, x, 1) + 1 = [");
  for (auto v : z.to_vector<float>()) std::printf(" %g", v);
  std::printf(" ] via %s\n", axpy.types()[0].c_str());
  return z.at<float>(7) == 16.0f ? 0 : 1;
}
