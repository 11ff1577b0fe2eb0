// np.square on a 1000x1000 int64 array, as in the NumPy-vs-Numba tutorial, written
// once as a scalar function with two loops (int64 and float32, as Numba's
// signature list 'int64(int64)', 'float32(float32)').
#include <cstdio>

#include <ufunc/ufunc.hpp>

#include "example_target.hpp"

struct Square {
  template <class T>
  UFUNC_HOST_DEVICE T operator()(T x) const {
    return x * x;
  }
};

int main() try {
  auto square =
      ufunc::vectorize<ufunc::signatures<std::int64_t(std::int64_t), float(float)>, example_target>(Square{}, "square");

  auto a = ufunc::arange<std::int64_t>(1000 * 1000).reshape({1000, 1000});
  ufunc::array_t<std::int64_t> s = square(a);  // the int64 loop, chosen at compile time
  std::printf("square.types = [%s, %s], target %s\n", square.types()[0].c_str(), square.types()[1].c_str(),
              describe_target(example_target::id).c_str());
  std::printf("a: int64 %s, a[0, :4] = [%ld %ld %ld %ld]\n", ufunc::array::shape_string(a.shape()).c_str(), a.at(0, 0),
              a.at(0, 1), a.at(0, 2), a.at(0, 3));
  std::printf("square(a)[0, :4] = [%ld %ld %ld %ld], square(a)[-1, -1] = %ld\n", s.at(0, 0), s.at(0, 1), s.at(0, 2),
              s.at(0, 3), s.at(-1, -1));

  auto f = ufunc::asarray<float>({0.5f, 1.5f, -2.0f});
  auto fs = square(f);  // the float32 loop
  std::printf("square([0.5, 1.5, -2.0]) = [%g %g %g] (float32)\n", fs.at(0), fs.at(1), fs.at(2));
  return s.at(-1, -1) == 999999LL * 999999LL ? 0 : 1;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
