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

// The functions, over core views. UFUNC_HOST_DEVICE: where the preset's target is the GPU
// they compile for it too, and run there one thread per loop element.
struct g_fn {
  template <class X, class Y, class R>
  UFUNC_HOST_DEVICE void operator()(X x, Y y, R res) const {
    for (std::int64_t i = 0; i < x.extent(0); ++i) res(i) = x(i) + y();
  }
};

struct matmul_fn {
  template <class A, class B, class C>
  UFUNC_HOST_DEVICE void operator()(A a, B b, C out) const {
    for (std::int64_t i = 0; i < out.extent(0); ++i)
      for (std::int64_t j = 0; j < out.extent(1); ++j) {
        typename C::element_type s = 0;
        for (std::int64_t k = 0; k < a.extent(1); ++k) s += a(i, k) * b(k, j);
        out(i, j) = s;
      }
  }
};

}  // namespace

int main() try {
  auto g = ufunc::gvectorize<double(double, double), example_target>("(n),()->(n)", g_fn{}, "g");
  auto matmul = ufunc::gvectorize<ufunc::signatures<float(float, float), double(double, double)>, example_target>(
      "(m,n),(n,p)->(m,p)", matmul_fn{}, "matmul");

  // Host arrays: on the GPU target the call copies them there and the results back.
  const std::optional<ufunc::target_id> target = example_call_target;
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
