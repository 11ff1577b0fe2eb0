// The parallel (TBB) target: same results as cpu bit for bit whatever the split,
// thread limits, exceptions thrown on workers, and many user threads at once.
#include <atomic>
#include <stdexcept>
#include <thread>

#include "test_support.hpp"

#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>

namespace {

namespace par = ufunc::backends::parallel;

struct sine_poly {
  template <class T>
  T operator()(T x) const {
    using std::sin;
    return sin(x) * x + T(0.25);
  }
};

}  // namespace

TEST_CASE_TEMPLATE("parallel: results equal the cpu target bit for bit for any grain", T, float, double, std::int32_t,
                   std::uint8_t) {
  auto f = ufunc::vectorize<T(T, T), ufunc::target::parallel>([](auto a, auto b) { return a * b + a; }, "f");
  auto g = ufunc::vectorize<T(T, T), ufunc::target::cpu>([](auto a, auto b) { return a * b + a; }, "g");
  const auto x = ufunc_test::sample_array<T>(10007, 1), y = ufunc_test::sample_array<T>(10007, 2);
  const auto expected = g(x, y).to_vector();
  for (std::int64_t grain : {1, 3, 64, 1000, 100000}) {
    CAPTURE(grain);
    const ufunc_test::parallel_split guard(grain);
    CHECK(f(x, y).to_vector() == expected);
    // Strided and broadcast operands too.
    auto xs = x[{ufunc::slice{std::nullopt, std::nullopt, -3}}];
    CHECK(f(xs, y.at(0)).to_vector() == g(xs, y.at(0)).to_vector());
  }
}

TEST_CASE("parallel: SIMD math agrees with the cpu target across piece edges") {
  const ufunc_test::parallel_split guard(37);
  auto par_sin = ufunc::vectorize<float(float), ufunc::target::parallel>(sine_poly{}, "s");
  auto cpu_sin = ufunc::vectorize<float(float), ufunc::target::cpu>(sine_poly{}, "s");
  const auto x = ufunc_test::sample_array<float>(5000, 3);
  CHECK(par_sin(x).to_vector() == cpu_sin(x).to_vector());
  const ufunc::array a = ufunc::add(x, x, {.target = ufunc::target_id::parallel});
  const ufunc::array b = ufunc::add(x, x, {.target = ufunc::target_id::cpu});
  CHECK(a.to_vector<float>() == b.to_vector<float>());
}

TEST_CASE("parallel: split by measured cost, calls and reductions equal the cpu target bit for bit") {
  // Whether a piece after the first runs here or on a worker depends on timing; the bits never do.
  const ufunc_test::parallel_split guard(64, 0);
  const auto x = ufunc_test::sample_array<double>(40007, 4);
  const auto cpu = ufunc::target_id::cpu, parallel = ufunc::target_id::parallel;
  for (int round = 0; round < 3; ++round) {
    CHECK(ufunc::array(ufunc::sin(x, {.target = parallel})).to_vector<double>() ==
          ufunc::array(ufunc::sin(x, {.target = cpu})).to_vector<double>());
    CHECK(ufunc::add.reduce(x, {.target = parallel}).to_vector<double>() ==
          ufunc::add.reduce(x, {.target = cpu}).to_vector<double>());
    const auto m = x[{ufunc::slice{0, 40000}}].reshape({200, 200});
    for (int axis : {0, 1}) {
      CAPTURE(axis);
      CHECK(ufunc::add.reduce(m, {.axis = axis, .target = parallel}).to_vector<double>() ==
            ufunc::add.reduce(m, {.axis = axis, .target = cpu}).to_vector<double>());
    }
  }
}

TEST_CASE("parallel: a thread limit through a task arena") {
  const ufunc_test::parallel_split guard(16);
  par::set_max_threads(1);
  CHECK(par::max_threads() == 1);
  auto r = ufunc::add(ufunc::arange<double>(1000.0), 1.0, {.target = ufunc::target_id::parallel});
  CHECK(r.at<double>(999) == 1000.0);
  par::set_max_threads(0);
  CHECK(par::max_threads() == 0);
  CHECK_THROWS_AS(par::set_max_threads(-1), ufunc::value_error);
  CHECK_THROWS_AS(par::set_grain(0), ufunc::value_error);
}

TEST_CASE("parallel: an exception thrown by the functor on a worker reaches the caller") {
  const ufunc_test::parallel_split guard(8);
  auto picky = ufunc::vectorize<double(double), ufunc::target::parallel>(
      [](double x) {
        if (x == 777.0) throw std::domain_error("777 is not allowed");
        return x;
      },
      "picky");
  auto x = ufunc::arange<double>(2000.0);
  CHECK_THROWS_WITH_AS(picky(x), "777 is not allowed", std::domain_error);
  // Nothing hangs and the next call succeeds.
  CHECK(picky(ufunc::arange<double>(100.0)).at(99) == 99.0);
}

TEST_CASE("parallel: many user threads calling at once") {
  const ufunc_test::parallel_split guard(64);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t, &failures] {
      for (int k = 0; k < 50; ++k) {
        auto x = ufunc::full<float>({static_cast<std::int64_t>(500 + 37 * k)}, static_cast<float>(t));
        const ufunc::array r = ufunc::multiply(x, 2, {.target = ufunc::target_id::parallel});
        for (auto v : r.to_vector<float>())
          if (v != 2.0f * static_cast<float>(t)) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
}

#else

TEST_CASE("parallel: not compiled in; the target reports itself unavailable") {
  CHECK_FALSE(ufunc::target_available(ufunc::target_id::parallel));
  CHECK_THROWS_AS(ufunc::add(ufunc::arange<float>(3.0f), 1, {.target = ufunc::target_id::parallel}),
                  ufunc::target_error);
}

#endif
