// Numba's first @vectorize example, in C++:
//
//   @vectorize(['float32(float32, float32)'], target='cuda')
//   def Add(a, b):
//       return a + b
//
//   a = np.ones(100000, dtype=np.float32); b = np.ones(100000, dtype=np.float32)
//   c = Add(a, b)
//
// The target is the template's second argument (here the preset's default,
// UFUNC_DEFAULT_TARGET: cpu, parallel or cuda); the same functor serves every
// target. UFUNC_HOST_DEVICE lets the cuda target compile it for the GPU too.
#include <cstdio>

#include <ufunc/ufunc.hpp>

#include "example_target.hpp"

struct Add {
  template <class T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return a + b;
  }
};

int main() try {
  auto add = ufunc::vectorize<float(float, float), example_target>(Add{}, "Add");

  const std::int64_t n = 100000;
  auto a = ufunc::full<float>({n}, 1.0f);
  auto b = ufunc::full<float>({n}, 1.0f);
  auto c = add(a, b);

  std::printf("Add.types = %s, target = %s\n", add.types()[0].c_str(),
              describe_target(example_target::id).c_str());
  std::printf("a[:5] = [%g %g %g %g %g], b[:5] = [%g %g %g %g %g]\n", a.at(0), a.at(1), a.at(2), a.at(3), a.at(4),
              b.at(0), b.at(1), b.at(2), b.at(3), b.at(4));
  std::printf("c = Add(a, b): shape %s, c[:5] = [%g %g %g %g %g], c[-1] = %g\n",
              ufunc::array::shape_string(c.shape()).c_str(), c.at(0), c.at(1), c.at(2), c.at(3), c.at(4), c.at(-1));
  return c.at(n - 1) == 2.0f ? 0 : 1;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
