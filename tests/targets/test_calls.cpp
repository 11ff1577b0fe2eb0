// Built-in ufunc calls and methods on every target of the shared list
// (UFUNC_TEST_TARGETS, tests/test_support.hpp): written once, compiled into the unit
// suite (cpu, parallel) and into the CUDA test executable (cuda, host arrays in and
// out). Integer results are exact everywhere; so are the float sums and products of
// small integral values, whatever order a target adds them in.
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <ufunc/core/detail/streaming.hpp>

#include "test_support.hpp"

namespace {

// Values that every target computes exactly: small integers, as T.
template <class T>
ufunc::array_t<T> integral_values(std::int64_t n, int seed) {
  auto a = ufunc::empty<T>({n});
  for (std::int64_t i = 0; i < n; ++i) {
    const int v = static_cast<int>((i * 7 + seed * 13) % 23) - (std::is_unsigned_v<T> ? 0 : 11);
    if constexpr (std::is_same_v<T, bool>)
      a.data()[i] = v % 3 == 0;
    else if constexpr (ufunc::dtype_of<T>.is_complex())
      a.data()[i] = T(static_cast<typename T::value_type>(v), static_cast<typename T::value_type>(v % 5));
    else
      a.data()[i] = static_cast<T>(v);
  }
  return a;
}

}  // namespace

TEST_CASE_TEMPLATE("targets: add and multiply of every dtype, every length around the batch widths", T,
                   UFUNC_TEST_ALL_TYPES) {
  for (const ufunc::target_id target : ufunc_test::targets()) {
    CAPTURE(ufunc::to_string(target));
    for (std::int64_t n : {0, 1, 7, 16, 17, 63, 65, 1000, 4099}) {
      CAPTURE(n);
      const auto a = integral_values<T>(n, 1), b = integral_values<T>(n, 2);
      const ufunc::array sum = ufunc::add(a, b, {.target = target});
      const ufunc::array product = ufunc::multiply(a, b, {.target = target});
      REQUIRE(sum.device().is_host());
      REQUIRE(sum.type() == ufunc::dtype_of<T>);
      REQUIRE(product.type() == ufunc::dtype_of<T>);
      for (std::int64_t i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(sum.at<T>(i) == ufunc_test::wrapping_add(a.at(i), b.at(i)));
        CHECK(product.at<T>(i) == ufunc_test::wrapping_multiply(a.at(i), b.at(i)));
      }
    }
  }
}

TEST_CASE_TEMPLATE("targets: strided, reversed, transposed, broadcast and 0-d operands", T, UFUNC_TEST_REAL_TYPES) {
  const auto a = integral_values<T>(60, 3).reshape({6, 10});
  const auto row = integral_values<T>(10, 4);
  for (const ufunc::target_id target : ufunc_test::targets()) {
    CAPTURE(ufunc::to_string(target));
    // a[::-1, ::2] + row[1::2]
    const ufunc::array r =
        ufunc::add(a[{ufunc::slice{std::nullopt, std::nullopt, -1}, ufunc::slice{0, std::nullopt, 2}}],
                   row[{ufunc::slice{1, std::nullopt, 2}}], {.target = target});
    REQUIRE(r.shape() == ufunc::dim_vector{6, 5});
    for (std::int64_t i = 0; i < 6; ++i)
      for (std::int64_t j = 0; j < 5; ++j)
        CHECK(r.at<T>(i, j) == ufunc_test::wrapping_add(a.at(5 - i, 2 * j), row.at(2 * j + 1)));
    // a.T + column: (10, 6), F-ordered as on the host.
    const ufunc::array t = ufunc::multiply(a.transpose(), row.reshape({10, 1}), {.target = target});
    REQUIRE(t.shape() == ufunc::dim_vector{10, 6});
    CHECK(t.is_f_contiguous());
    for (std::int64_t i = 0; i < 10; ++i)
      for (std::int64_t j = 0; j < 6; ++j) CHECK(t.at<T>(i, j) == ufunc_test::wrapping_multiply(a.at(j, i), row.at(i)));
    const ufunc::array zero_d =
        ufunc::add(ufunc::scalar<T>(row.at(0)), ufunc::scalar<T>(row.at(1)), {.target = target});
    CHECK(zero_d.ndim() == 0);
    CHECK(zero_d.item<T>() == ufunc_test::wrapping_add(row.at(0), row.at(1)));
  }
}

TEST_CASE("targets: out= (in place, strided, another dtype) and where= leave the unselected elements") {
  for (const ufunc::target_id target : ufunc_test::targets()) {
    CAPTURE(ufunc::to_string(target));
    auto a = ufunc::arange<float>(10.0f);
    const ufunc::array same = ufunc::multiply(a, 2, {.out = {a}, .target = target});  // PyCUDA's doublify
    CHECK(same.data() == static_cast<const ufunc::array&>(a).data());
    for (int i = 0; i < 10; ++i) CHECK(a.at(i) == 2.0f * static_cast<float>(i));

    auto big = ufunc::zeros<float>({20});
    ufunc::add(a, 1.0f, {.out = {big[{ufunc::slice{0, std::nullopt, 2}}]}, .target = target});
    for (int i = 0; i < 20; ++i) CHECK(big.at(i) == (i % 2 == 0 ? static_cast<float>(i + 1) : 0.0f));

    auto wide = ufunc::full<double>({3, 10}, -1.0);
    ufunc::add(a, 0.5f, {.out = {wide}, .target = target});  // broadcast to out's shape, cast to float64
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 10; ++j) CHECK(wide.at(i, j) == 2.0 * j + 0.5);

    auto mask = ufunc::empty<bool>({10});
    for (int i = 0; i < 10; ++i) mask.data()[i] = i % 3 == 0;
    auto kept = ufunc::full<double>({10}, 7.0);
    ufunc::subtract(a, 1, {.out = {kept}, .where = mask, .target = target});
    for (int i = 0; i < 10; ++i) CHECK(kept.at(i) == (i % 3 == 0 ? 2.0 * i - 1 : 7.0));
    const ufunc::array fresh = ufunc::subtract(a, 1, {.where = mask, .target = target});  // zero where not selected
    for (int i = 0; i < 10; ++i) CHECK(fresh.at<float>(i) == (i % 3 == 0 ? 2.0f * static_cast<float>(i) - 1 : 0.0f));
  }
}

TEST_CASE_TEMPLATE("targets: reduce and accumulate of add and maximum over each axis, keepdims, initial, where", T,
                   std::int32_t, std::int64_t, std::uint8_t, float, double) {
  const auto x = integral_values<T>(12 * 37, 5).reshape({12, 37});
  auto mask = ufunc::empty<bool>({12, 37});
  for (std::int64_t i = 0; i < mask.size(); ++i) mask.data()[i] = i % 4 != 1;
  const auto host = ufunc::target_id::cpu;
  for (const ufunc::target_id target : ufunc_test::targets()) {
    CAPTURE(ufunc::to_string(target));
    auto same = [](const ufunc::array& got, const ufunc::array& want) {
      REQUIRE(got.device().is_host());
      REQUIRE(got.type() == want.type());
      REQUIRE(got.shape() == want.shape());
      CHECK(got.to_vector<double>() == want.to_vector<double>());
    };
    for (int axis : {0, 1}) {
      CAPTURE(axis);
      same(ufunc::add.reduce(x, {.axis = axis, .target = target}),
           ufunc::add.reduce(x, {.axis = axis, .target = host}));
      same(ufunc::maximum.reduce(x, {.axis = axis, .keepdims = true, .target = target}),
           ufunc::maximum.reduce(x, {.axis = axis, .keepdims = true, .target = host}));
      same(ufunc::add.reduce(x, {.axis = axis, .initial = 100, .where = mask, .target = target}),
           ufunc::add.reduce(x, {.axis = axis, .initial = 100, .where = mask, .target = host}));
      same(ufunc::add.accumulate(x, {.axis = axis, .target = target}),
           ufunc::add.accumulate(x, {.axis = axis, .target = host}));
    }
    same(ufunc::add.reduce(x, {.axis = ufunc::all_axes, .target = target}),
         ufunc::add.reduce(x, {.axis = ufunc::all_axes, .target = host}));
    // Every element of the sum and maximum, checked against a plain loop once.
    const ufunc::array total = ufunc::add.reduce(x, {.axis = 1, .target = target});
    const ufunc::array top = ufunc::maximum.reduce(x, {.axis = 0, .target = target});
    for (std::int64_t i = 0; i < 12; ++i) {
      double s = 0;
      for (std::int64_t j = 0; j < 37; ++j) s += static_cast<double>(x.at(i, j));
      CHECK(total.to_vector<double>()[static_cast<std::size_t>(i)] == s);
    }
    for (std::int64_t j = 0; j < 37; ++j) {
      T m = x.at(0, j);
      for (std::int64_t i = 1; i < 12; ++i) m = std::max(m, x.at(i, j));
      CHECK(top.at<T>(j) == m);
    }
  }
}

TEST_CASE("targets: errstate policies hold on every target; integer division by zero gives 0 and warns") {
  const auto one = ufunc::asarray<double>({1.0, 2.0, 3.0});
  const auto zero = ufunc::asarray<double>({1.0, 0.0, 1.0});
  const auto ione = ufunc::asarray<std::int32_t>({7, 8, 9});
  const auto izero = ufunc::asarray<std::int32_t>({2, 0, 4});
  for (const ufunc::target_id target : ufunc_test::targets()) {
    CAPTURE(ufunc::to_string(target));
    {
      ufunc::errstate guard({.divide = ufunc::fp_policy::raise});
      CHECK_THROWS_WITH_AS(ufunc::divide(one, zero, {.target = target}), "divide by zero encountered in divide",
                           ufunc::floating_point_error);
      CHECK_THROWS_WITH_AS(ufunc::floor_divide(ione, izero, {.target = target}),
                           "divide by zero encountered in floor_divide", ufunc::floating_point_error);
      CHECK_NOTHROW(ufunc::divide(one, one, {.target = target}));
    }
    unsigned seen = 0;
    ufunc::errstate calls({.all = ufunc::fp_policy::call}, [&](std::string_view, unsigned f) { seen |= f; });
    const ufunc::array q = ufunc::floor_divide(ione, izero, {.target = target});
    CHECK(q.to_vector<std::int32_t>() == std::vector<std::int32_t>{3, 0, 2});
    CHECK(seen == static_cast<unsigned>(ufunc::fp_flag::divide));
    seen = 0;
    (void)ufunc::sqrt(ufunc::asarray<double>({4.0, -1.0}), {.target = target});
    CHECK(seen == static_cast<unsigned>(ufunc::fp_flag::invalid));
  }
}

TEST_CASE(
    "targets: float16 and bfloat16 add and multiply round the float result once, at every length, offset and "
    "store kind") {
  // Random bit patterns (NaNs, infinities, subnormals, overflow) around the SIMD loops' steps
  // (8 and 16 lanes, bfloat16's pairs of registers), unaligned slices, and with the streaming
  // stores of a large output forced (threshold 1 byte) and off.
  const std::int64_t saved_threshold = ufunc::detail::streaming_threshold();
  std::uint32_t state = 12345;
  const auto next_bits = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<std::uint16_t>(state >> 16);
  };
  for (const ufunc::dtype t : {ufunc::float16, ufunc::bfloat16}) {
    CAPTURE(t.name());
    for (const std::int64_t threshold : {std::int64_t{0}, std::int64_t{1}}) {
      ufunc::detail::set_streaming_threshold(threshold);
      CAPTURE(threshold);
      for (const std::int64_t n : {1, 7, 8, 15, 16, 17, 31, 32, 33, 47, 64, 100, 4099}) {
        for (const std::int64_t offset : {0, 1, 8}) {
          CAPTURE(n);
          CAPTURE(offset);
          auto x = ufunc::array::empty({n + 8}, t), y = ufunc::array::empty({n + 8}, t);
          auto* xb = reinterpret_cast<std::uint16_t*>(x.data());
          auto* yb = reinterpret_cast<std::uint16_t*>(y.data());
          for (std::int64_t i = 0; i < n + 8; ++i) {
            xb[i] = next_bits();
            yb[i] = next_bits();
          }
          const ufunc::array xs = x[{ufunc::slice{offset, offset + n}}], ys = y[{ufunc::slice{1, 1 + n}}];
          for (const ufunc::target_id target : ufunc_test::targets()) {
            CAPTURE(ufunc::to_string(target));
            const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
            const ufunc::array sum = ufunc::add(xs, ys, {.target = target});
            const ufunc::array product = ufunc::multiply(xs, ys, {.target = target});
            REQUIRE(sum.type() == t);
            const auto* s = reinterpret_cast<const std::uint16_t*>(sum.data());
            const auto* p = reinterpret_cast<const std::uint16_t*>(product.data());
            std::int64_t wrong = 0;
            for (std::int64_t i = 0; i < n; ++i) {
              const std::uint16_t a = xb[offset + i], b = yb[1 + i];
              // The float result of the two values, rounded once to the 16-bit type.
              const auto rounded = [&]<class H>(H, auto op) {
                return H(op(static_cast<float>(H::from_bits(a)), static_cast<float>(H::from_bits(b)))).bits();
              };
              const auto want = [&](auto op) {
                return t == ufunc::float16 ? rounded(ufunc::float16_t{}, op) : rounded(ufunc::bfloat16_t{}, op);
              };
              const std::uint16_t want_sum = want(std::plus<float>{}), want_product = want(std::multiplies<float>{});
              // Any NaN for a NaN (which payload comes through is the hardware's choice).
              const std::uint16_t exponent = t == ufunc::float16 ? 0x7c00 : 0x7f80;
              const auto same = [&](std::uint16_t got, std::uint16_t want) {
                const bool got_nan = (got & 0x7fff) > exponent, want_nan = (want & 0x7fff) > exponent;
                return got_nan || want_nan ? got_nan == want_nan : got == want;
              };
              wrong += !same(s[i], want_sum) + !same(p[i], want_product);
            }
            CHECK(wrong == 0);
          }
        }
      }
    }
  }
  ufunc::detail::set_streaming_threshold(saved_threshold);
}

TEST_CASE("targets: float16 overflow and underflow reach errstate from every position of the SIMD steps") {
  // One element that overflows (60000 + 60000) or underflows (1e-4 * 1e-4 rounds to 0 in
  // float16) among finite ones, at each position of a length that runs the two-register
  // steps, the one-register steps and the tail; the loops narrow with F16C on AVX2 and
  // AVX-512, which raises the flags in hardware, and by hand elsewhere. The same values in
  // bfloat16 (whose range is float32's) raise nothing.
  constexpr std::int64_t n = 71;
  for (const ufunc::target_id target : ufunc_test::targets()) {
    CAPTURE(ufunc::to_string(target));
    for (std::int64_t at = 0; at < n; ++at) {
      CAPTURE(at);
      std::vector<float> big(n, 1.0f), tiny(n, 0.5f);
      big[static_cast<std::size_t>(at)] = 60000.0f;
      tiny[static_cast<std::size_t>(at)] = 1e-4f;
      const ufunc::array b = ufunc::asarray<float>(big).astype(ufunc::float16);
      const ufunc::array t = ufunc::asarray<float>(tiny).astype(ufunc::float16);
      unsigned seen = 0;
      const ufunc::errstate calls({.all = ufunc::fp_policy::call}, [&](std::string_view, unsigned f) { seen |= f; });
      const ufunc::array sum = ufunc::add(b, b, {.target = target});
      CHECK(seen == static_cast<unsigned>(ufunc::fp_flag::overflow));
      CHECK(std::isinf(static_cast<float>(sum.at<ufunc::float16_t>(at))));
      seen = 0;
      const ufunc::array product = ufunc::multiply(t, t, {.target = target});
      CHECK(seen == static_cast<unsigned>(ufunc::fp_flag::underflow));
      CHECK(static_cast<float>(product.at<ufunc::float16_t>(at)) == 0.0f);
      seen = 0;
      (void)ufunc::add(b.astype(ufunc::bfloat16), b.astype(ufunc::bfloat16), {.target = target});
      CHECK(seen == 0u);
    }
  }
}

TEST_CASE("targets: float16 and bfloat16 nextafter between the signed zeros gives y, as C's nextafter and NumPy 2.5") {
  // x: +0, -0, +0, -0, the smallest subnormal of each sign; y: the other zero, the same zero, then toward 0.
  const std::vector<std::uint16_t> x_bits{0x0000, 0x8000, 0x0000, 0x8000, 0x0001, 0x8001};
  const std::vector<std::uint16_t> y_bits{0x8000, 0x0000, 0x0000, 0x8000, 0x8000, 0x0000};
  const std::vector<std::uint16_t> want{0x8000, 0x0000, 0x0000, 0x8000, 0x0000, 0x8000};
  for (const ufunc::dtype t : {ufunc::float16, ufunc::bfloat16}) {
    CAPTURE(t.name());
    auto x = ufunc::array::empty({6}, t), y = ufunc::array::empty({6}, t);
    std::memcpy(x.data(), x_bits.data(), 12);
    std::memcpy(y.data(), y_bits.data(), 12);
    for (const ufunc::target_id target : ufunc_test::targets()) {
      CAPTURE(ufunc::to_string(target));
      const ufunc::array r = ufunc::nextafter(x, y, {.target = target});
      REQUIRE(r.type() == t);
      std::vector<std::uint16_t> got(6);
      std::memcpy(got.data(), r.data(), 12);
      CHECK(got == want);
    }
  }
}
