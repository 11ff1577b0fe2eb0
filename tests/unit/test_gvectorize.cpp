// Generalized ufuncs (ufunc::gvectorize, gufunc/): NumPy's gufunc rules on every host
// target: core dimensions from the last axes, loop dimensions broadcast, named sizes
// checked, optional dimensions, outputs allocated or given (other dtypes, in place,
// scalar cores), size-0 loops and cores, type resolution and casting, NumPy's error
// messages; the examples of Numba's @guvectorize docs against loops written out here.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/gvectorize.hpp>
#include <ufunc/ufunc.hpp>

#include "test_support.hpp"

#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

namespace {

using ufunc::core_view;

auto make_dot() {
  return ufunc::gvectorize<ufunc::signatures<float(float, float), double(double, double)>>(
      "(n),(n)->()",
      [](auto x, auto y, auto out) {
        typename decltype(out)::element_type s = 0;
        for (std::int64_t i = 0; i < x.extent(0); ++i) s += x(i) * y(i);
        out() = s;
      },
      "dot");
}

// c = a @ b on core views, as a user writes it.
void matmul_loops(core_view<const double> a, core_view<const double> b, core_view<double> c) {
  for (std::int64_t i = 0; i < c.extent(0); ++i)
    for (std::int64_t j = 0; j < c.extent(1); ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < a.extent(1); ++k) s += a(i, k) * b(k, j);
      c(i, j) = s;
    }
}

// A matmul with the dimension names of NumPy's signature or others.
auto make_matmul(std::string_view signature = "(m?,n),(n,p?)->(m?,p?)") {
  return ufunc::gvectorize<double(double, double)>(signature, &matmul_loops, "matmul");
}

struct numpy_matmul_case {
  std::vector<std::int64_t> a_shape, b_shape;
  const char* error;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};

const numpy_matmul_case numpy_matmul_cases[] = {
#include "../data/numpy_gufunc_matmul.inc"
};

// generate_gufunc_matmul.py's operands: element i (C order) is ((i * 37 + salt) % 19 - 9) / 4.
ufunc::array formula(const std::vector<std::int64_t>& shape, std::int64_t salt) {
  auto a = ufunc::array::empty(ufunc::dim_vector(std::span<const std::int64_t>(shape)), ufunc::float64);
  auto* p = reinterpret_cast<double*>(a.data());
  for (std::int64_t i = 0; i < a.size(); ++i) p[i] = static_cast<double>((i * 37 + salt) % 19 - 9) / 4.0;
  return a;
}

ufunc::array iota(const ufunc::dim_vector& shape, double start = 1) {
  auto a = ufunc::array::empty(shape, ufunc::float64);
  auto* p = reinterpret_cast<double*>(a.data());
  for (std::int64_t i = 0; i < a.size(); ++i)
    p[i] = start + static_cast<double>(i % 7) - 0.25 * static_cast<double>(i % 3);
  return a;
}

}  // namespace

TEST_CASE("gvectorize: (n),(n)->() over broadcast loop dimensions, on every host target") {
  const auto dot = make_dot();
  CHECK(dot.types() == std::vector<std::string>{"ff->f", "dd->d"});
  const auto a = iota({3, 1, 4}), b = iota({2, 4}, 5);
  for (auto t : ufunc_test::host_targets()) {
    const auto d = dot(a, b, {.target = t});
    REQUIRE(d.shape() == ufunc::dim_vector{3, 2});
    CHECK(d.type() == ufunc::float64);
    const auto av = a.to_vector<double>(), bv = b.to_vector<double>(), dv = d.to_vector<double>();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += av[std::size_t(i * 4 + k)] * bv[std::size_t(j * 4 + k)];
        CHECK(dv[std::size_t(i * 2 + j)] == s);
      }
  }
  // float32 operands take the float32 loop; int32 ones the first loop they cast to safely (float64).
  CHECK(dot(a.astype(ufunc::float32), b.astype(ufunc::float32)).type() == ufunc::float32);
  CHECK(dot(a.astype(ufunc::int32), b.astype(ufunc::int32)).type() == ufunc::float64);
}

TEST_CASE("gvectorize: (m?,n),(n,p?)->(m?,p?) as NumPy's matmul: broadcasting, strides, missing dimensions") {
  const auto mm = make_matmul();
  auto reference = [](const ufunc::array& x, const ufunc::array& y) {  // 2-d @ 2-d, by loops
    const auto xc = x.copy(), yc = y.copy();
    const auto* p = reinterpret_cast<const double*>(xc.data());
    const auto* q = reinterpret_cast<const double*>(yc.data());
    const std::int64_t m = x.shape()[0], n = x.shape()[1], r = y.shape()[1];
    std::vector<double> c(std::size_t(m * r), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < r; ++j) {
        double s = 0;
        for (std::int64_t k = 0; k < n; ++k) s += p[i * n + k] * q[k * r + j];
        c[std::size_t(i * r + j)] = s;
      }
    return c;
  };
  // (2, 1, 3, 4) @ (5, 4, 2) -> (2, 5, 3, 2)
  const auto a = iota({2, 1, 3, 4}), b = iota({5, 4, 2}, 3);
  const auto c = mm(a, b);
  REQUIRE(c.shape() == ufunc::dim_vector{2, 5, 3, 2});
  const auto cv = c.to_vector<double>();
  const auto as = a.reshape({2, 3, 4}), bs = b;
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 5; ++j) {
      // The (3, 4) and (4, 2) blocks, through views of the operands.
      const auto x = as[{i}];
      const auto y = bs[{j}];
      const auto want = reference(x, y);
      for (std::size_t k = 0; k < 6; ++k) CHECK(cv[std::size_t((i * 5 + j) * 6) + k] == want[k]);
    }
  // Transposed and reversed operands are read in place.
  const auto at = iota({4, 3}).transpose();  // (3, 4), F-ordered
  const auto br = iota({4, 2}, 2)[{ufunc::slice{std::nullopt, std::nullopt, -1}}];
  CHECK(mm(at, br).to_vector<double>() == reference(at, br));
  // A missing optional dimension: (n) @ (n, p) -> (p), (m, n) @ (n) -> (m), (n) @ (n) -> ().
  const auto v = iota({4}, 2), m2 = iota({4, 3});
  const auto vm = mm(v, m2);
  CHECK(vm.shape() == ufunc::dim_vector{3});
  CHECK(vm.to_vector<double>() == reference(v.reshape({1, 4}), m2));
  const auto mv = mm(m2.transpose(), v);
  CHECK(mv.shape() == ufunc::dim_vector{3});
  CHECK(mv.to_vector<double>() == reference(m2.transpose(), v.reshape({4, 1})));
  const auto vv = mm(v, v);
  CHECK(vv.ndim() == 0);
  CHECK(vv.to_vector<double>() == reference(v.reshape({1, 4}), v.reshape({4, 1})));
  // NumPy's messages.
  CHECK_THROWS_WITH_AS((void)mm(iota({2, 3}), iota({4})),
                       "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                       "(m?,n),(n,p?)->(m?,p?) (size 4 is different from 3)",
                       ufunc::value_error);
  CHECK_THROWS_WITH_AS((void)mm(iota({2, 3}), iota({3}), {.out = {ufunc::array::empty({2, 3}, ufunc::float64)}}),
                       "matmul: Output operand 0 has a mismatch in its core dimension 0, with gufunc signature "
                       "(m?,n),(n,p?)->(m?,p?) (size 3 is different from 2)",
                       ufunc::value_error);
}

TEST_CASE("gvectorize: a matmul of NumPy's signature against np.matmul on random shapes (results and messages)") {
  const auto matmul = make_matmul("(n?,k),(k,m?)->(n?,m?)");
  int results = 0, errors = 0;
  for (const auto& c : numpy_matmul_cases) {
    CAPTURE(ufunc::array::shape_string(c.a_shape));
    CAPTURE(ufunc::array::shape_string(c.b_shape));
    const auto a = formula(c.a_shape, 1), b = formula(c.b_shape, 5);
    const std::string error = c.error;
    if (error.starts_with("operands could not be broadcast")) {  // nditer's message in NumPy
      CHECK_THROWS_WITH_AS((void)matmul(a, b), doctest::Contains("matmul: the loop dimensions"),
                           ufunc::broadcast_error);
      ++errors;
    } else if (!error.empty()) {
      CHECK_THROWS_WITH_AS((void)matmul(a, b), error.c_str(), ufunc::value_error);
      ++errors;
    } else {
      const auto r = matmul(a, b);
      REQUIRE(r.shape() == ufunc::dim_vector(std::span<const std::int64_t>(c.shape)));
      const auto v = r.to_vector<double>();
      REQUIRE(v.size() == c.values.size());
      // Sums of at most 3 products of quarters: exact in either order.
      for (std::size_t k = 0; k < v.size(); ++k) CHECK(v[k] == c.values[k]);
      ++results;
    }
  }
  MESSAGE(results << " results and " << errors << " errors as NumPy's");
  CHECK(results >= 50);
  CHECK(errors >= 20);
}

TEST_CASE("gvectorize: Numba's moving average (n),()->(n), a weak scalar window, out= and in place") {
  const auto move_mean = ufunc::gvectorize<double(double, std::int64_t)>(
      "(n),()->(n)",
      [](core_view<const double> a, core_view<const std::int64_t> window, core_view<double> out) {
        const std::int64_t w = window();
        double sum = 0;
        for (std::int64_t i = 0; i < a.extent(0); ++i) {
          sum += a(i);
          if (i >= w) sum -= a(i - w);
          out(i) = sum / static_cast<double>(std::min(i + 1, w));
        }
      },
      "move_mean");
  const auto a = iota({20}).reshape({2, 10});
  const auto r = move_mean(a, 3);
  REQUIRE(r.shape() == ufunc::dim_vector{2, 10});
  const auto av = a.to_vector<double>(), rv = r.to_vector<double>();
  for (std::size_t row = 0; row < 2; ++row)
    for (std::size_t i = 0; i < 10; ++i) {
      double s = 0;
      std::size_t count = 0;
      for (std::size_t k = i >= 2 ? i - 2 : 0; k <= i; ++k, ++count) s += av[row * 10 + k];
      CHECK(rv[row * 10 + i] == doctest::Approx(s / static_cast<double>(count)).epsilon(1e-14));
    }
  // In place: the output is the input; the input is read from a copy, as NumPy does.
  auto b = a.copy();
  (void)move_mean(b, 3, {.out = {b}});
  CHECK(b.to_vector<double>() == rv);
  // An output of another dtype (same_kind: float64 to float32).
  auto f = ufunc::array::empty({2, 10}, ufunc::float32);
  (void)move_mean(a, 3, {.out = {f}});
  const auto fv = f.to_vector<float>();
  for (std::size_t i = 0; i < 20; ++i) CHECK(fv[i] == static_cast<float>(rv[i]));
  CHECK_THROWS_WITH_AS((void)move_mean(a, 3, {.out = {ufunc::array::empty({2, 10}, ufunc::int32)}}),
                       "Cannot cast ufunc 'move_mean' output 0 from float64 to int32 with casting rule 'same_kind'",
                       ufunc::casting_error);
}

TEST_CASE("gvectorize: scalar cores, output-only core dimensions, size-0 loops and cores, errors") {
  const auto dot = make_dot();
  // Writes to a scalar output land in out=.
  auto out = ufunc::zeros<double>({3});
  (void)dot(iota({3, 5}), iota({5}), {.out = {out}});
  CHECK(out.to_vector<double>() == dot(iota({3, 5}), iota({5})).to_vector<double>());
  CHECK(out.to_vector<double>()[0] != 0.0);
  // Size 0: no loop element, or an empty core (the sum of nothing).
  CHECK(dot(iota({0, 4}), iota({4})).shape() == ufunc::dim_vector{0});
  CHECK(dot(iota({3, 0}), iota({0})).to_vector<double>() == std::vector<double>{0.0, 0.0, 0.0});
  // An output-only core dimension needs out=.
  const auto outer = ufunc::gvectorize<double(double)>(
      "(n)->(n,m)",
      [](core_view<const double> x, core_view<double> y) {
        for (std::int64_t i = 0; i < y.extent(0); ++i)
          for (std::int64_t j = 0; j < y.extent(1); ++j) y(i, j) = x(i) * static_cast<double>(j);
      },
      "spread");
  CHECK_THROWS_WITH_AS((void)outer(iota({3})),
                       "spread: Output operand 0 has core dimension 1 unspecified, with gufunc signature (n)->(n,m)",
                       ufunc::value_error);
  auto wide = ufunc::array::empty({3, 2}, ufunc::float64);
  (void)outer(iota({3}), {.out = {wide}});
  CHECK(wide.to_vector<double>()[5] == iota({3}).to_vector<double>()[2]);  // (2, 1): x(2) * 1
  CHECK(wide.to_vector<double>()[4] == 0.0);
  // Given outputs take part in the loop shape, but are not broadcast themselves (NumPy accepts
  // out= of shape (1, 2) for loop dimensions (2,), and refuses (3,) and ()).
  auto lifted = ufunc::zeros<double>({1, 2});
  (void)dot(iota({2, 3}), iota({3}), {.out = {lifted}});
  CHECK(lifted.to_vector<double>() == dot(iota({2, 3}), iota({3})).to_vector<double>());
  CHECK_THROWS_WITH_AS((void)dot(iota({2, 3}), iota({3}), {.out = {ufunc::zeros<double>({3})}}),
                       doctest::Contains("dot: the loop dimensions"), ufunc::broadcast_error);
  CHECK_THROWS_WITH_AS((void)dot(iota({2, 3}), iota({3}), {.out = {ufunc::zeros<double>({})}}),
                       "dot: output operand 0 has loop dimensions (), not the broadcast loop shape (2,)",
                       ufunc::broadcast_error);
  CHECK_THROWS_WITH_AS((void)dot(iota({}), iota({3})),
                       "dot: Input operand 0 does not have enough dimensions (has 0, gufunc core with signature "
                       "(n),(n)->() requires 1)",
                       ufunc::value_error);
  CHECK_THROWS_WITH_AS((void)dot(iota({3}), iota({3}), {.where = ufunc::full<bool>({3}, true)}),
                       doctest::Contains("where= is not supported"), ufunc::value_error);
  CHECK_THROWS_WITH_AS((void)dot(iota({3})), "gufunc 'dot' takes 2 inputs, not 1", ufunc::value_error);
  CHECK_THROWS_AS((void)dot(iota({3}), iota({3}), {.target = ufunc::target_id::cuda}), ufunc::target_error);
  CHECK_THROWS_WITH_AS(ufunc::gvectorize<double(double)>(
                           "(n)->(n", [](auto, auto) {}, "bad"),
                       "expect ',' or ')' at position 7 in \"(n)->(n\"", ufunc::value_error);
}

TEST_CASE("gvectorize: floating-point errors reach errstate under the gufunc's name") {
  const auto dot = make_dot();
  unsigned flags = 0;
  std::string who;
  ufunc::errstate guard({.all = ufunc::fp_policy::call}, [&](std::string_view name, unsigned f) {
    flags |= f;
    who = std::string(name);
  });
  const auto big = ufunc::full<double>({2}, 1e200);
  CHECK(std::isinf(dot(big, big).to_vector<double>()[0]));
  CHECK((flags & static_cast<unsigned>(ufunc::fp_flag::overflow)) != 0);
  CHECK(who == "overflow encountered in dot");
}

TEST_CASE("gvectorize: many loop elements split over the parallel target give the cpu target's results") {
  const auto dot = make_dot();
  const auto a = iota({20000, 5}), b = iota({5}, 2);
  const auto want = dot(a, b, {.target = ufunc::target_id::cpu}).to_vector<double>();
  for (auto t : ufunc_test::host_targets()) CHECK(dot(a, b, {.target = t}).to_vector<double>() == want);
}

#if defined(UFUNC_HAS_TBB)
TEST_CASE("gvectorize: the parallel target splits by the cores' work, not by the count of loop elements") {
  // Pieces of 1000 elements' work, calls of more than 4000 split: 100 rows of 512 are 100 loop
  // elements but 512 elements' work each (a row in, a row out), so the call is split.
  const ufunc_test::parallel_split pieces(1000, 4000);
  const auto reversed = ufunc::gvectorize<double(double), ufunc::target::parallel>(
      "(n)->(n)",
      [](ufunc::core_view<const double> a, ufunc::core_view<double> out) {
        for (std::int64_t i = 0; i < a.extent(0); ++i) out(i) = a(a.extent(0) - 1 - i);
      },
      "reversed");
  const auto a = iota({100, 512});
  const auto want = reversed(a, {.target = ufunc::target_id::cpu}).to_vector<double>();
  auto splits = ufunc::backends::parallel::split_calls();
  CHECK(reversed(a).to_vector<double>() == want);
  CHECK(ufunc::backends::parallel::split_calls() == splits + 1);
  // 4 rows of 512 are 2048 elements' work: on the calling thread.
  splits = ufunc::backends::parallel::split_calls();
  const auto small = iota({4, 512});
  CHECK(reversed(small).to_vector<double>() == reversed(small, {.target = ufunc::target_id::cpu}).to_vector<double>());
  CHECK(ufunc::backends::parallel::split_calls() == splits);
}
#endif

namespace {

// A matrix product that declares its output elements independent, and counts the largest
// output core it was called with (what the split shows to the function).
struct counted_product {
  static constexpr bool independent_output_elements = true;
  std::shared_ptr<std::atomic<std::int64_t>> largest_output = std::make_shared<std::atomic<std::int64_t>>(0);

  void operator()(core_view<const double> a, core_view<const double> b, core_view<double> c) const {
    std::int64_t seen = largest_output->load();
    while (seen < c.size() && !largest_output->compare_exchange_weak(seen, c.size())) {
    }
    matmul_loops(a, b, c);
  }
};

// "(n,n)->(n)": the diagonal, each element its own.
struct diagonal_fn {
  static constexpr bool independent_output_elements = true;
  void operator()(core_view<const double> a, core_view<double> d) const {
    for (std::int64_t i = 0; i < d.extent(0); ++i) d(i) = a(i, i);
  }
};

}  // namespace

TEST_CASE("gvectorize: independent output elements run one to a call where the loop is short (parallel), same sums") {
  const counted_product f;
  const auto mm = ufunc::gvectorize<double(double, double)>("(m,n),(n,p)->(m,p)", f, "product");
  const auto unsplit = make_matmul("(m,n),(n,p)->(m,p)");
  for (auto t : ufunc_test::host_targets()) {
    // One 40x70 @ 70x30 product, and through reversed and transposed views: 1200 output elements
    // of one loop element, each computed alone, the same sums in the same order.
    const auto a = iota({40, 70}), b = iota({70, 30}, 3);
    f.largest_output->store(0);
    CHECK(mm(a, b, {.target = t}).to_vector<double>() == unsplit(a, b, {.target = t}).to_vector<double>());
    // The serial cpu target keeps whole cores: it has no threads to spread the elements over.
    CHECK(f.largest_output->load() == (t == ufunc::target_id::cpu ? 1200 : 1));
    const auto at = iota({70, 40}).transpose(), br = b[{ufunc::slice{std::nullopt, std::nullopt, -1}}];
    CHECK(mm(at, br, {.target = t}).to_vector<double>() == unsplit(at, br, {.target = t}).to_vector<double>());
    // A broadcast loop of 3 elements, into a strided out=.
    const auto stack = iota({3, 1, 40, 70});
    auto out = ufunc::array::zeros({3, 2, 40, 60}, ufunc::float64);
    auto into = out[{ufunc::slice{}, ufunc::slice{}, ufunc::slice{}, ufunc::slice{std::nullopt, std::nullopt, 2}}];
    (void)mm(stack, iota({2, 70, 30}, 2), {.out = {into}, .target = t});
    CHECK(into.copy().to_vector<double>() == unsplit(stack, iota({2, 70, 30}, 2), {.target = t}).to_vector<double>());
    // Small cores over a loop of 300 elements keep their loop: the function sees whole 3x3 cores.
    f.largest_output->store(0);
    const auto small_a = iota({300, 3, 3}), small_b = iota({3, 3}, 2);
    CHECK(mm(small_a, small_b, {.target = t}).to_vector<double>() ==
          unsplit(small_a, small_b, {.target = t}).to_vector<double>());
    CHECK(f.largest_output->load() == 9);
  }
}

TEST_CASE("gvectorize: a name repeated in an input core steps along its diagonal when outputs are split (parallel)") {
  const auto diagonal = ufunc::gvectorize<double(double)>("(n,n)->(n)", diagonal_fn{}, "diagonal");
  const auto a = iota({100, 100});
  const auto v = a.to_vector<double>();
  for (auto t : ufunc_test::host_targets()) {
    const auto d = diagonal(a, {.target = t}).to_vector<double>();
    REQUIRE(d.size() == 100);
    for (std::size_t i = 0; i < 100; ++i) CHECK(d[i] == v[i * 101]);
  }
}
