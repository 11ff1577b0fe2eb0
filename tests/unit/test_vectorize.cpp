// vectorize: the typed (compile-time) path, the run-time path, SIMD detection,
// several signatures, several outputs, and introspection.
#include <cmath>
#include <string>
#include <tuple>

#include "test_support.hpp"

namespace {

struct plus {
  template <class T>
  T operator()(T a, T b) const {
    return a + b;
  }
};

// Typed parameters: cannot take SIMD batches, so the scalar path runs.
struct scalar_plus {
  float operator()(float a, float b) const { return a + b; }
};

// A functor whose results would differ between a scalar and a batch evaluation if
// any element took the scalar path: it counts its calls by kind.
struct poly {
  template <class T>
  T operator()(T x) const {
    return x * x * T(3) + x * T(0.5) - T(1);
  }
};

// A predicate that opts into the SIMD loops: its batch call returns a batch_bool.
struct within_one {
  static constexpr bool simd_predicate = true;
  template <class T>
  bool operator()(T a, T b) const {
    return std::abs(a - b) <= T(1);
  }
  template <class T, class A>
  xsimd::batch_bool<T, A> operator()(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b) const {
    return xsimd::abs(a - b) <= xsimd::batch<T, A>(T(1));
  }
};

}  // namespace

TEST_CASE("vectorize: a predicate that opts in runs on batches, every layout and tail") {
  CHECK(ufunc::backends::cpu::is_vectorizable<within_one, bool(float, float)>);
  CHECK(ufunc::backends::cpu::is_vectorizable<within_one, bool(double, double)>);
  CHECK_FALSE(ufunc::backends::cpu::is_vectorizable<within_one, bool(float, double)>);  // mixed types
  // Without the opt-in a bool signature never asks whether the body takes batches.
  CHECK_FALSE(ufunc::backends::cpu::is_vectorizable<decltype([](auto a, auto b) { return a > 0 && b > 0; }),
                                                    bool(float, float)>);
  auto near = ufunc::vectorize<ufunc::signatures<bool(float, float), bool(double, double)>>(within_one{}, "near");
  for (std::int64_t n = 1; n <= 40; ++n) {
    CAPTURE(n);
    auto x = ufunc::empty<double>({2 * n});
    for (std::int64_t i = 0; i < 2 * n; ++i) x.data()[i] = 0.75 * static_cast<double>(i % 5);
    const auto strided = x[{ufunc::slice{std::nullopt, std::nullopt, 2}}];
    const auto contiguous = strided.copy();
    for (const auto& a : {strided, contiguous}) {
      const auto r = near(a, 1.5).to_vector<bool>();
      REQUIRE(r.size() == static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i)
        CHECK(r[static_cast<std::size_t>(i)] == (std::abs(a.at<double>(i) - 1.5) <= 1.0));
    }
    CHECK(near(contiguous.astype(ufunc::float32), contiguous.astype(ufunc::float32)).to_vector<bool>() ==
          std::vector<bool>(static_cast<std::size_t>(n), true));
  }
}

TEST_CASE("vectorize: generic functors get the SIMD path, typed ones the scalar path") {
  using sig = float(float, float);
  CHECK(ufunc::backends::cpu::is_vectorizable<plus, sig>);
  CHECK(ufunc::backends::cpu::is_vectorizable<decltype([](auto a, auto b) { return a * b; }), sig>);
  CHECK_FALSE(ufunc::backends::cpu::is_vectorizable<scalar_plus, sig>);
  CHECK_FALSE(ufunc::backends::cpu::is_vectorizable<ufunc::scalar_only<plus>, sig>);
  CHECK_FALSE(ufunc::backends::cpu::is_vectorizable<plus, bool(bool, bool)>);      // no bool batches
  CHECK_FALSE(ufunc::backends::cpu::is_vectorizable<plus, double(float, float)>);  // mixed types
  CHECK_FALSE(
      ufunc::backends::cpu::is_vectorizable<plus, std::complex<float>(std::complex<float>, std::complex<float>)>);
}

TEST_CASE("vectorize: untyped arrays take the run-time path with NumPy's casting") {
  auto add = ufunc::vectorize<float(float, float), ufunc::target::cpu>(plus{}, "add");
  ufunc::array i16 = ufunc::arange<std::int16_t>(5);
  ufunc::array r = add(i16, i16);  // int16 casts safely to float32
  CHECK(r.type() == ufunc::float32);
  CHECK(r.at<float>(4) == 8.0f);
  ufunc::array i32 = ufunc::arange<std::int32_t>(5);
  CHECK_THROWS_AS(add(i32, i32), ufunc::no_loop_error);  // int32 -> float32 is not safe
  ufunc::array f64 = ufunc::arange<double>(5.0);
  CHECK_THROWS_AS(add(f64, 1), ufunc::no_loop_error);

  // Loops can be added after creation; the run-time path then finds them.
  ufunc::function f = add.ufunc();
  f.add_loop(ufunc::backends::cpu::make_loop<double(double, double)>(plus{}));
  CHECK(add.types() == std::vector<std::string>{"ff->f", "dd->d"});
  CHECK(add(f64, 1).type() == ufunc::float64);
}

TEST_CASE("vectorize: SIMD and tails agree with the same functor on every layout") {
  auto f = ufunc::vectorize<float(float), ufunc::target::cpu>(poly{}, "poly");
  const auto values = ufunc_test::sample_values<float>(1001, 7);
  auto x = ufunc::asarray<float>(std::span<const float>(values));
  auto contiguous = f(x);
  auto reversed = f(x[{ufunc::slice{std::nullopt, std::nullopt, -1}}]);
  auto strided = f(x[{ufunc::slice{0, std::nullopt, 3}}]);
  for (std::int64_t i = 0; i < 1001; ++i) {
    CAPTURE(i);
    CHECK(reversed.at(1000 - i) == contiguous.at(i));  // bit-for-bit, whatever path
    if (i % 3 == 0) CHECK(strided.at(i / 3) == contiguous.at(i));
  }
}

TEST_CASE("vectorize: mixed argument types, bool and complex signatures use the scalar path") {
  auto scale = ufunc::vectorize<double(float, std::int32_t), ufunc::target::cpu>(
      [](float x, std::int32_t k) { return static_cast<double>(x) * k; }, "scale");
  CHECK(scale.types() == std::vector<std::string>{"fi->d"});
  auto r = scale(ufunc::arange<float>(4.0f), ufunc::full<std::int32_t>({4}, 3));
  CHECK(r.at(3) == 9.0);

  auto both = ufunc::vectorize<bool(bool, bool), ufunc::target::cpu>([](bool a, bool b) { return a && b; }, "both");
  auto t = ufunc::full<bool>({3}, true);
  CHECK(both(t, false).at(0) == false);

  using c = std::complex<double>;
  auto cmul = ufunc::vectorize<c(c, c), ufunc::target::cpu>([](c a, c b) { return a * b; }, "cmul");
  auto z = cmul(ufunc::full<c>({2}, c(0, 1)), ufunc::full<c>({2}, c(0, 1)));
  CHECK(z.at(1) == c(-1, 0));
}

TEST_CASE("vectorize: several outputs, as divmod and modf") {
  auto split = ufunc::vectorize<std::tuple<double, double>(double), ufunc::target::cpu>(
      [](double x) {
        double whole;
        const double frac = std::modf(x, &whole);
        return std::tuple{frac, whole};
      },
      "split");
  CHECK(split.nout == 2);
  CHECK(split.types() == std::vector<std::string>{"d->dd"});
  auto [frac, whole] = split(ufunc::asarray<double>({1.25, -2.5, 3.0}));
  CHECK(frac.at(0) == 0.25);
  CHECK(whole.at(1) == -2.0);
  CHECK(frac.at(1) == -0.5);

  // Run-time path and preallocated outputs.
  auto f = ufunc::zeros<double>({3}), w = ufunc::zeros<double>({3});
  const ufunc::operand in[] = {ufunc::array(ufunc::asarray<double>({0.5, 1.5, 2.75}))};
  auto outs = split.call(in, {.out = {f, w}});
  REQUIRE(outs.size() == 2);
  CHECK(f.at(2) == 0.75);
  CHECK(w.at(2) == 2.0);
  CHECK_THROWS_AS(split.ufunc()(in[0]), ufunc::value_error);  // operator() returns one output; use call()
}

TEST_CASE("vectorize: typed weak scalars are range-checked at run time") {
  auto add8 = ufunc::vectorize<std::int8_t(std::int8_t, std::int8_t), ufunc::target::cpu>(plus{}, "add8");
  auto x = ufunc::full<std::int8_t>({4}, 100);
  CHECK(add8(x, 27).at(0) == 127);
  CHECK(add8(x, 28).at(0) == static_cast<std::int8_t>(-128));  // wraps, as NumPy
  CHECK_THROWS_AS(add8(x, 300), ufunc::overflow_error);
}
