// Generalized ufuncs: Numba's @guvectorize examples in C++.
//
//   @guvectorize([(float64[:], float64, float64[:])], '(n),()->(n)')
//   def g(x, y, res):
//       for i in range(x.shape[0]):
//           res[i] = x[i] + y
//
//   @guvectorize(['void(float64[:,:], float64[:,:], float64[:,:])'], '(m,n),(n,p)->(m,p)')
//   def matmul(a, b, out): ...
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include <ufunc/gvectorize.hpp>
#include <ufunc/ufunc.hpp>

#include "example_target.hpp"

namespace {

// The values of a 0-, 1- or 2-d array, a row per line.
std::string show(const ufunc::array& a) {
  const auto v = a.to_vector<double>();
  const std::int64_t cols = a.ndim() == 0 ? 1 : a.shape()[a.ndim() - 1];
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%10.1f", v[k]);
    s += std::string(k % static_cast<std::size_t>(cols) == 0 ? "  [" : "") + buf +
         (k % static_cast<std::size_t>(cols) == static_cast<std::size_t>(cols - 1) ? " ]\n" : "");
  }
  return s;
}

}  // namespace

int main() try {
  auto g = ufunc::gvectorize<double(double, double)>(
      "(n),()->(n)",
      [](ufunc::core_view<const double> x, ufunc::core_view<const double> y, ufunc::core_view<double> res) {
        for (std::int64_t i = 0; i < x.extent(0); ++i) res(i) = x(i) + y();
      },
      "g");
  auto matmul = ufunc::gvectorize<ufunc::signatures<float(float, float), double(double, double)>>(
      "(m,n),(n,p)->(m,p)",
      [](auto a, auto b, auto out) {
        for (std::int64_t i = 0; i < out.extent(0); ++i)
          for (std::int64_t j = 0; j < out.extent(1); ++j) {
            typename decltype(out)::element_type s = 0;
            for (std::int64_t k = 0; k < a.extent(1); ++k) s += a(i, k) * b(k, j);
            out(i, j) = s;
          }
      },
      "matmul");

  // Gufuncs run on host targets so far (issue 20): where the preset's target is the GPU, the
  // example runs on the host's best target and says so.
  std::optional<ufunc::target_id> target = example_call_target;
  if (ufunc::call_target(target) == ufunc::target_id::cuda) {
    target = ufunc::target_available(ufunc::target_id::parallel) ? ufunc::target_id::parallel : ufunc::target_id::cpu;
    std::printf("(gufuncs run on host targets only so far: target cuda is the default here, this runs on %s)\n",
                std::string(ufunc::to_string(*target)).c_str());
  }
  std::printf("on target %s:\n", describe_target(target).c_str());

  // g(np.arange(5), 2) and g over a (2, 5) array with one y per row.
  const auto x = ufunc::arange<double>(5.0);
  std::printf("g(arange(5), 2):\n%s", show(g(x, 2.0, {.target = target})).c_str());
  const auto rows = ufunc::arange<double>(10.0).reshape({2, 5});
  const auto ys = ufunc::arange<double>(2.0);
  std::printf("g(arange(10).reshape(2, 5), [0, 1]):\n%s", show(g(rows, ys, {.target = target})).c_str());

  // A stack of 1000 (3, 4) @ (4, 2) products, broadcast against one right-hand matrix.
  const auto a = ufunc::arange<double>(1000.0 * 12).reshape({1000, 3, 4});
  const auto b = ufunc::arange<double>(8.0).reshape({4, 2});
  const auto c = matmul(a, b, {.target = target});
  std::printf("matmul((1000, 3, 4), (4, 2)) -> %s; c[999]:\n%s", ufunc::array::shape_string(c.shape()).c_str(),
              show(c[{std::int64_t{999}}]).c_str());
  // Core sizes are checked as NumPy checks them.
  try {
    (void)matmul(a, ufunc::arange<double>(6.0).reshape({3, 2}), {.target = target});
  } catch (const ufunc::value_error& e) {
    std::printf("matmul((1000, 3, 4), (3, 2)): %s\n", e.what());
  }
  return 0;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
