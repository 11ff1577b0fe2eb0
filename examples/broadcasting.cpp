// NumPy broadcasting: a row of shape (1, 4) plus a column of shape (3, 1) gives a
// (3, 4) matrix, without copying either operand.
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
  auto row = ufunc::arange<float>(4.0f).reshape({1, 4});                   // [[0 1 2 3]]
  auto col = ufunc::asarray<float>({0.0f, 10.0f, 20.0f}).reshape({3, 1});  // [[0] [10] [20]]
  auto add = ufunc::vectorize<float(float, float), example_target>(Add{}, "add");
  auto m = add(row, col);

  std::printf("row %s + col %s -> %s on target %s\n", ufunc::array::shape_string(row.shape()).c_str(),
              ufunc::array::shape_string(col.shape()).c_str(), ufunc::array::shape_string(m.shape()).c_str(),
              describe_target(example_target::id).c_str());
  for (std::int64_t i = 0; i < 3; ++i) {
    std::printf("  [");
    for (std::int64_t j = 0; j < 4; ++j) std::printf(" %4g", m.at(i, j));
    std::printf(" ]\n");
  }
  try {
    (void)add(ufunc::arange<float>(3.0f), ufunc::arange<float>(4.0f));
  } catch (const ufunc::broadcast_error& e) {
    std::printf("shapes (3,) and (4,): %s\n", e.what());
  }
  return m.at(2, 3) == 23.0f ? 0 : 1;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
