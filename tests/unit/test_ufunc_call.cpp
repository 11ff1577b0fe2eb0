// Calls of built-in ufuncs through the run-time path: every dtype, every operand
// layout, out=, where=, dtype=/signature=/casting=, and every bad input.
#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include "test_support.hpp"

#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

namespace {

using ufunc_test::wrapping_add;

// NumPy's complex product on x86-64 with FMA (its SIMD loops fuse; so do ours).
template <class T>
T reference_multiply(T a, T b) {
  if constexpr (ufunc::dtype_of<T>.is_complex())
    return T{std::fma(a.real(), b.real(), -(a.imag() * b.imag())), std::fma(a.real(), b.imag(), a.imag() * b.real())};
  else
    return ufunc_test::wrapping_multiply(a, b);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE_TEMPLATE("ufunc call: add and multiply every dtype, every length around the SIMD width", T,
                   UFUNC_TEST_ALL_TYPES) {
  // Lengths around every batch width (up to 64 int8 lanes) exercise the SIMD body and tails.
  for (std::size_t n : {0u, 1u, 3u, 7u, 8u, 15u, 16u, 17u, 31u, 33u, 63u, 64u, 65u, 130u, 1000u}) {
    CAPTURE(n);
    const auto a = ufunc_test::sample_array<T>(n, 1), b = ufunc_test::sample_array<T>(n, 2);
    const ufunc::array sum = ufunc::add(a, b), product = ufunc::multiply(a, b);
    REQUIRE(sum.type() == ufunc::dtype_of<T>);
    REQUIRE(product.type() == ufunc::dtype_of<T>);
    for (std::size_t i = 0; i < n; ++i) {
      CAPTURE(i);
      CHECK(sum.template at<T>(i) == wrapping_add(a.at(i), b.at(i)));
      CHECK(product.template at<T>(i) == reference_multiply(a.at(i), b.at(i)));
    }
  }
}

TEST_CASE_TEMPLATE("ufunc call: strided, reversed, transposed and broadcast operands are never copied", T,
                   UFUNC_TEST_REAL_TYPES) {
  const auto av = ufunc_test::sample_values<T>(6 * 10, 3), bv = ufunc_test::sample_values<T>(10, 4);
  auto a = ufunc::asarray<T>(std::span<const T>(av), {6, 10});
  auto row = ufunc::asarray<T>(std::span<const T>(bv));

  SUBCASE("every second column, reversed rows") {
    auto x = a[{ufunc::slice{std::nullopt, std::nullopt, -1}, ufunc::slice{0, std::nullopt, 2}}];  // a[::-1, ::2]
    auto y = row[{ufunc::slice{1, std::nullopt, 2}}];                                              // row[1::2]
    const ufunc::array r = ufunc::add(x, y);
    REQUIRE(r.shape() == ufunc::dim_vector{6, 5});
    for (std::int64_t i = 0; i < 6; ++i)
      for (std::int64_t j = 0; j < 5; ++j)
        CHECK(r.at<T>(i, j) == wrapping_add(av[(5 - i) * 10 + 2 * j], bv[2 * j + 1]));
  }
  SUBCASE("transposed plus column broadcast") {
    auto t = a.transpose();  // (10, 6)
    auto col = ufunc::asarray<T>(std::span<const T>(bv)).reshape({10, 1});
    const ufunc::array r = ufunc::add(t, col);
    REQUIRE(r.shape() == ufunc::dim_vector{10, 6});
    for (std::int64_t i = 0; i < 10; ++i)
      for (std::int64_t j = 0; j < 6; ++j) CHECK(r.at<T>(i, j) == wrapping_add(av[j * 10 + i], bv[i]));
  }
  SUBCASE("row plus column gives a matrix; 0-d operands broadcast everywhere") {
    auto col = row.reshape({10, 1});
    const ufunc::array r = ufunc::add(row, col);
    REQUIRE(r.shape() == ufunc::dim_vector{10, 10});
    for (std::int64_t i = 0; i < 10; ++i)
      for (std::int64_t j = 0; j < 10; ++j) CHECK(r.at<T>(i, j) == wrapping_add(bv[j], bv[i]));
    const ufunc::array s = ufunc::add(ufunc::scalar<T>(bv[0]), row);
    for (std::int64_t j = 0; j < 10; ++j) CHECK(s.at<T>(j) == wrapping_add(bv[0], bv[j]));
    const ufunc::array zero_d = ufunc::add(ufunc::scalar<T>(bv[0]), ufunc::scalar<T>(bv[1]));
    CHECK(zero_d.ndim() == 0);
    CHECK(zero_d.item<T>() == wrapping_add(bv[0], bv[1]));
  }
}

TEST_CASE("ufunc call: out= writes in place, casts to the out dtype, and may alias an input exactly") {
  auto a = ufunc::arange<float>(10.0f);
  SUBCASE("in place, as PyCUDA's doublify: multiply(a, 2, out=a)") {
    auto r = ufunc::multiply(a, 2, {.out = {a}});
    CHECK(r.data() == static_cast<const ufunc::array&>(a).data());
    for (int i = 0; i < 10; ++i) CHECK(a.at<float>(i) == 2.0f * static_cast<float>(i));
  }
  SUBCASE("out of a wider dtype is cast (same_kind allows float32 -> float64)") {
    auto out = ufunc::zeros<double>({10});
    ufunc::add(a, a, {.out = {out}});
    for (int i = 0; i < 10; ++i) CHECK(out.at<double>(i) == 2.0 * i);
  }
  SUBCASE("out of a strided view writes only its elements") {
    auto big = ufunc::zeros<float>({20});
    auto every_other = big[{ufunc::slice{0, std::nullopt, 2}}];
    ufunc::add(a, 1.0f, {.out = {every_other}});
    for (int i = 0; i < 20; ++i) CHECK(big.at<float>(i) == (i % 2 == 0 ? static_cast<float>(i / 2 + 1) : 0.0f));
  }
  SUBCASE("inputs broadcast up to the out shape") {
    auto out = ufunc::zeros<float>({3, 10});
    ufunc::add(a, 1, {.out = {out}});
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 10; ++j) CHECK(out.at<float>(i, j) == static_cast<float>(j + 1));
  }
}

TEST_CASE("ufunc call: where= writes only selected elements") {
  auto a = ufunc::arange<std::int32_t>(8);
  std::vector<bool> pick = {true, false, true, true, false, false, true, false};
  auto mask = ufunc::empty<bool>({8});
  for (int i = 0; i < 8; ++i) mask.at<bool>(i) = pick[i];

  SUBCASE("with out: unselected elements keep their values") {
    auto out = ufunc::full<std::int32_t>({8}, -7);
    ufunc::add(a, 100, {.out = {out}, .where = mask});
    for (int i = 0; i < 8; ++i) CHECK(out.at<std::int32_t>(i) == (pick[i] ? i + 100 : -7));
  }
  SUBCASE("without out: unselected elements are zero") {
    auto r = ufunc::add(a, 100, {.where = mask});
    for (int i = 0; i < 8; ++i) CHECK(r.at<std::int32_t>(i) == (pick[i] ? i + 100 : 0));
  }
  SUBCASE("a broadcast mask, with a cast output") {
    auto out = ufunc::zeros<double>({2, 8});
    ufunc::add(a, 0.5, {.out = {out}, .where = mask});
    for (int r = 0; r < 2; ++r)
      for (int i = 0; i < 8; ++i) CHECK(out.at<double>(r, i) == (pick[i] ? i + 0.5 : 0.0));
  }
  SUBCASE("a long mask with runs crossing buffer blocks") {
    auto x = ufunc::arange<std::int16_t>(5000);
    auto m = ufunc::empty<bool>({5000});
    for (int i = 0; i < 5000; ++i) m.at<bool>(i) = (i / 700) % 2 == 0;
    auto out = ufunc::full<float>({5000}, -1.0f);
    ufunc::add(x, 1, {.out = {out}, .where = m});  // int16 loop, float32 out: buffered
    for (int i = 0; i < 5000; ++i) CHECK(out.at<float>(i) == ((i / 700) % 2 == 0 ? static_cast<float>(i + 1) : -1.0f));
  }
}

TEST_CASE("ufunc call: dtype=, signature= and casting= choose and police the loop") {
  auto i8 = ufunc::arange<std::int8_t>(4);
  auto i16 = ufunc::arange<std::int16_t>(4);
  CHECK(ufunc::add(i8, i16).type() == ufunc::int16);
  CHECK(ufunc::add(i8, i16, {.dtype = ufunc::float32}).type() == ufunc::float32);
  CHECK(ufunc::add(i8, i8, {.signature = "dd->d"}).type() == ufunc::float64);
  auto f64 = ufunc::arange<double>(4.0);
  CHECK(ufunc::add(f64, f64, {.dtype = ufunc::float32}).type() == ufunc::float32);  // same_kind allows it
  CHECK_THROWS_AS(ufunc::add(f64, f64, {.dtype = ufunc::float32, .casting = ufunc::casting::safe}),
                  ufunc::casting_error);
  CHECK_THROWS_AS(ufunc::subtract(f64, f64, {.dtype = ufunc::bool_}), ufunc::no_loop_error);  // no loop gives bool

  // NumPy picks hh->h by safe casting, then refuses to cast input 0 under 'no'.
  try {
    (void)ufunc::add(i8, i16, {.casting = ufunc::casting::no});
    FAIL("expected casting_error");
  } catch (const ufunc::casting_error& e) {
    CHECK(contains(e.what(), "input 0 from int8 to int16 with casting rule 'no'"));
  }
  auto c64 = ufunc::zeros<std::complex<float>>({4});
  CHECK_THROWS_AS(ufunc::add(c64, c64, {.signature = "ff->f"}), ufunc::casting_error);
  CHECK(ufunc::add(c64, c64, {.signature = "ff->f", .casting = ufunc::casting::unsafe}).type() == ufunc::float32);
  CHECK_THROWS_AS(ufunc::add(i8, i8, {.signature = "f->f"}), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::add(i8, i8, {.signature = "xx->x"}), ufunc::value_error);
}

TEST_CASE("ufunc call: Python scalars in the logical ufuncs and comparisons, as NumPy 2") {
  auto f32 = ufunc::zeros<float>({2});
  auto c64 = ufunc::full<std::complex<float>>({2}, {1.0f, 0.0f});
  auto u16 = ufunc::full<std::uint16_t>({2}, 1);
  auto i16 = ufunc::full<std::int16_t>({2}, 1);
  auto i64 = ufunc::full<std::int64_t>({2}, 1);
  constexpr auto no = ufunc::casting::no;
  constexpr auto equiv = ufunc::casting::equiv;
  SUBCASE("logical ufuncs test a scalar for truth as given, under every casting rule") {
    // np.logical_or(zeros_float32, 1e-310) is true: the scalar is not flushed to float32 0.
    CHECK(ufunc::logical_or(f32, 1e-310).to_vector<bool>() == std::vector<bool>{true, true});
    CHECK(ufunc::logical_xor(-5e-324, c64).to_vector<bool>() == std::vector<bool>{false, false});
    CHECK(ufunc::logical_or(f32, std::complex<double>(0, 1e-310)).to_vector<bool>() == std::vector<bool>{true, true});
    CHECK(ufunc::logical_and(f32, -24.18, {.casting = equiv}).type() == ufunc::bool_);
    CHECK(ufunc::logical_xor(c64, std::complex<double>(-4.1, 0.12), {.casting = equiv}).type() == ufunc::bool_);
    CHECK(ufunc::logical_and(c64, true, {.casting = no}).to_vector<bool>() == std::vector<bool>{true, true});
    // signature= converts the scalar to its slot: float32 flushes it; bool refuses it under 'equiv'.
    CHECK(ufunc::logical_or(f32, 1e-310, {.signature = "ff->?"}).to_vector<bool>() == std::vector<bool>{false, false});
    CHECK_THROWS_AS(ufunc::logical_or(f32, 2.5, {.signature = "?\?->?", .casting = equiv}), ufunc::casting_error);
    CHECK(ufunc::logical_or(f32, 2.5, {.signature = "?\?->?", .casting = no}).type() == ufunc::bool_);
  }
  SUBCASE("comparisons take a Python int against an integer array whatever its value and the rule") {
    // np.less_equal(uint16_array, -1, casting='equiv') is all false.
    CHECK(ufunc::less_equal(u16, -1, {.casting = equiv}).to_vector<bool>() == std::vector<bool>{false, false});
    CHECK(ufunc::greater(2147483648LL, u16, {.casting = no}).to_vector<bool>() == std::vector<bool>{true, true});
    CHECK(
        ufunc::not_equal(ufunc::full<std::int8_t>({1}, 1), std::numeric_limits<std::int64_t>::min(), {.casting = equiv})
            .to_vector<bool>() == std::vector<bool>{true});
    // A float array still refuses a Python int under 'equiv' (NumPy: cannot cast Python int to float32).
    CHECK_THROWS_AS(ufunc::less(f32, 3, {.casting = equiv}), ufunc::casting_error);
  }
  SUBCASE("signature= checks a Python int against its slot before any cast") {
    CHECK_THROWS_AS(ufunc::not_equal(3, 256, {.signature = "BB->?"}), ufunc::overflow_error);
    CHECK_THROWS_AS(ufunc::greater(2147483647, i16, {.signature = "bb->?"}), ufunc::overflow_error);
    CHECK_THROWS_AS(ufunc::logical_and(-9, ufunc::zeros<std::complex<double>>({2}), {.signature = "BB->?"}),
                    ufunc::overflow_error);
    CHECK_THROWS_AS(ufunc::logical_or(i64, -129, {.signature = "LL->?"}), ufunc::overflow_error);
    // A float for an integer slot is truncated first: -8 out of bounds for uint8.
    CHECK_THROWS_AS(ufunc::logical_xor(c64, -8.55, {.signature = "BB->?"}), ufunc::overflow_error);
    // Into a bool slot any scalar converts by truth, but under 'equiv'.
    auto flags = ufunc::full<bool>({2}, true);
    CHECK(ufunc::bitwise_xor(4, flags, {.signature = "?\?->?"}).to_vector<bool>() == std::vector<bool>{false, false});
    CHECK(ufunc::add(2.5, flags, {.signature = "?\?->?", .casting = no}).type() == ufunc::bool_);
    CHECK_THROWS_AS(ufunc::bitwise_xor(4, flags, {.signature = "?\?->?", .casting = equiv}), ufunc::casting_error);
    // dtype= leaves the inputs to promotion: int64 -> bool is refused.
    CHECK_THROWS_AS(ufunc::bitwise_xor(4, flags, {.dtype = ufunc::bool_}), ufunc::casting_error);
  }
}

TEST_CASE("ufunc call: ldexp's dtype= takes a loop the inputs cast to safely, whatever the rule (NumPy)") {
  auto f32 = ufunc::full<float>({2}, 1);
  auto f64 = ufunc::full<double>({2}, 1);
  auto i32 = ufunc::full<std::int32_t>({2}, 1);
  auto i64 = ufunc::full<std::int64_t>({2}, 1);
  CHECK(ufunc::ldexp(f32, i64, {.dtype = ufunc::float32}).type() == ufunc::float32);
  CHECK(ufunc::ldexp(ufunc::full<std::int16_t>({2}, 1), i32, {.dtype = ufunc::float32}).type() == ufunc::float32);
  CHECK(ufunc::ldexp(f32, 2, {.dtype = ufunc::float32}).type() == ufunc::float32);
  CHECK(ufunc::ldexp(i64, i32, {.dtype = ufunc::float64}).type() == ufunc::float64);
  CHECK_THROWS_AS(ufunc::ldexp(f64, i64, {.dtype = ufunc::float32}), ufunc::no_loop_error);
  CHECK_THROWS_AS(ufunc::ldexp(f64, i64, {.dtype = ufunc::float32, .casting = ufunc::casting::unsafe}),
                  ufunc::no_loop_error);
  CHECK_THROWS_AS(ufunc::ldexp(i64, i32, {.dtype = ufunc::float32}), ufunc::no_loop_error);
  CHECK_THROWS_AS(ufunc::ldexp(-48, 2, {.dtype = ufunc::float32}), ufunc::no_loop_error);
  CHECK_THROWS_AS(ufunc::ldexp(ufunc::full<std::complex<float>>({2}, 1), i64, {.dtype = ufunc::float32}),
                  ufunc::no_loop_error);
  auto out = ufunc::zeros<double>({2});
  CHECK_THROWS_AS(ufunc::ldexp(f64, i64, {.out = {out}, .dtype = ufunc::float32}), ufunc::no_loop_error);
  // signature= fixes the loop itself: the inputs are cast under the rule.
  CHECK(ufunc::ldexp(f64, i64, {.signature = "fl->f"}).type() == ufunc::float32);
}

TEST_CASE("ufunc call: floats out of an integer's range cast as x86 NumPy's do") {
  const auto x = ufunc::asarray<double>({3e10, 5e9, 2e19, -1e19, 70000.0, std::nan(""), INFINITY});
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  auto cast = [&]<class T>(T) {
    auto o = ufunc::zeros<T>({7});
    ufunc::positive(x, {.out = {o}, .casting = ufunc::casting::unsafe});  // float64 loop, output cast
    return o.template to_vector<T>();
  };
  // Up to 32 bits (but uint32) through int32: INT32_MIN, truncated.
  constexpr std::int32_t m32 = std::numeric_limits<std::int32_t>::min();
  CHECK(cast(std::int32_t{}) == std::vector<std::int32_t>{m32, m32, m32, m32, 70000, m32, m32});
  CHECK(cast(std::int16_t{}) == std::vector<std::int16_t>{0, 0, 0, 0, 4464, 0, 0});
  CHECK(cast(std::uint8_t{}) == std::vector<std::uint8_t>{0, 0, 0, 0, 112, 0, 0});
  // uint32 and int64 through int64; uint64 from 2^64 up is 0.
  CHECK(cast(std::uint32_t{}) == std::vector<std::uint32_t>{4230196224u, 705032704u, 0, 0, 70000, 0, 0});
  constexpr std::uint64_t h = 0x8000000000000000ull;
  CHECK(cast(std::uint64_t{}) == std::vector<std::uint64_t>{30000000000ull, 5000000000ull, 0, h, 70000, h, 0});
}

TEST_CASE("ufunc call: bad input raises the specific error, naming what was wrong") {
  auto a = ufunc::arange<float>(3.0f);
  auto b = ufunc::arange<float>(4.0f);

  SUBCASE("shapes that do not broadcast show both shapes") {
    try {
      (void)ufunc::add(a, b);
      FAIL("expected broadcast_error");
    } catch (const ufunc::broadcast_error& e) {
      CHECK(std::string(e.what()) == "operands could not be broadcast together with shapes (3,) (4,)");
    }
  }
  SUBCASE("no matching loop shows the input dtypes and the registered signatures") {
    auto flags = ufunc::zeros<bool>({3});
    try {
      (void)ufunc::subtract(flags, flags);
      FAIL("expected no_loop_error");
    } catch (const ufunc::no_loop_error& e) {
      CHECK(contains(e.what(), "ufunc 'subtract': boolean subtract is not supported"));
    }
    auto square = ufunc::vectorize<ufunc::signatures<float(float), double(double)>, ufunc::target::cpu>(
        [](auto x) { return x * x; }, "square");
    try {
      (void)square(ufunc::array(ufunc::zeros<std::complex<float>>({3})));
      FAIL("expected no_loop_error");
    } catch (const ufunc::no_loop_error& e) {
      CHECK(std::string(e.what()) ==
            "ufunc 'square' has no loop for input dtypes (complex64); registered signatures: f->f d->d");
    }
  }
  SUBCASE("out of the wrong dtype or shape, read-only out, wrong number of outs") {
    auto out_i = ufunc::zeros<std::int32_t>({3});
    try {
      ufunc::add(a, a, {.out = {out_i}});
      FAIL("expected casting_error");
    } catch (const ufunc::casting_error& e) {
      CHECK(contains(e.what(), "output 0 from float32 to int32 with casting rule 'same_kind'"));
    }
    auto out_short = ufunc::zeros<float>({1});
    try {
      ufunc::add(a, a, {.out = {out_short}});
      FAIL("expected broadcast_error");
    } catch (const ufunc::broadcast_error& e) {
      CHECK(contains(e.what(),
                     "non-broadcastable output operand with shape (1,) doesn't match the broadcast shape (3,)"));
    }
    auto readonly = ufunc::zeros<float>({1}).broadcast_to({3});
    CHECK_THROWS_AS(ufunc::add(a, a, {.out = {readonly}}), ufunc::overlap_error);
    CHECK_THROWS_AS(ufunc::add(a, a, {.out = {a, a}}), ufunc::value_error);
  }
  SUBCASE("out partially overlapping an input") {
    auto x = ufunc::arange<float>(10.0f);
    auto head = x[{ufunc::slice{0, 9}}], tail = x[{ufunc::slice{1, 10}}];
    try {
      ufunc::add(head, 1, {.out = {tail}});
      FAIL("expected overlap_error");
    } catch (const ufunc::overlap_error& e) {
      CHECK(contains(e.what(), "out[0] partially overlaps input 0"));
    }
    auto reversed = x[{ufunc::slice{std::nullopt, std::nullopt, -1}}];
    CHECK_THROWS_AS(ufunc::add(x, 1, {.out = {reversed}}), ufunc::overlap_error);
    ufunc::add(x, 1, {.out = {x}});  // exact aliasing is in-place operation
    CHECK(x.at<float>(9) == 10.0f);
  }
  SUBCASE("weak integer scalars out of the bounds of the array dtype") {
    auto u8 = ufunc::zeros<std::uint8_t>({2});
    try {
      (void)ufunc::add(u8, 300);
      FAIL("expected overflow_error");
    } catch (const ufunc::overflow_error& e) {
      CHECK(contains(e.what(), "300 out of bounds for uint8"));
    }
    CHECK_THROWS_AS(ufunc::add(u8, -1), ufunc::overflow_error);
    CHECK(ufunc::add(u8, 255).type() == ufunc::uint8);
  }
  SUBCASE("null arrays, non-bool masks, wrong arity") {
    CHECK_THROWS_AS(ufunc::add(ufunc::array{}, a), ufunc::value_error);
    CHECK_THROWS_AS(ufunc::add(a, a, {.where = ufunc::zeros<std::int32_t>({3})}), ufunc::dtype_error);
    const ufunc::operand one[] = {a};
    CHECK_THROWS_AS(ufunc::add.call(one), ufunc::value_error);
  }
#if !defined(UFUNC_HAS_CUDA)
  SUBCASE("targets that are not compiled in name the preset that has them") {
    try {
      (void)ufunc::add(a, a, {.target = ufunc::target_id::cuda});
      FAIL("expected target_error");
    } catch (const ufunc::target_error& e) {
      CHECK(contains(e.what(), "configure with the 'cuda' or 'all' preset"));
    }
    CHECK_THROWS_AS((void)ufunc::target_from_string("gpu"), ufunc::target_error);
  }
#endif
  SUBCASE("unknown target names") { CHECK_THROWS_AS((void)ufunc::target_from_string("gpu"), ufunc::target_error); }
  SUBCASE("every error derives from ufunc::error") {
    CHECK_THROWS_AS(ufunc::add(a, b), ufunc::error);
    CHECK_THROWS_AS(ufunc::add(ufunc::zeros<std::uint8_t>({1}), 256), ufunc::error);
  }
}

TEST_CASE("ufunc call: zero-size operands give empty results of the broadcast shape") {
  auto empty = ufunc::zeros<double>({0, 3});
  auto row = ufunc::arange<double>(3.0);
  auto r = ufunc::add(empty, row);
  CHECK(r.shape() == ufunc::dim_vector{0, 3});
  CHECK(r.size() == 0);
  CHECK(ufunc::sin(ufunc::zeros<float>({0})).size() == 0);
  CHECK_THROWS_AS(ufunc::add(ufunc::zeros<double>({0}), ufunc::zeros<double>({2})), ufunc::broadcast_error);
  CHECK(ufunc::add(ufunc::zeros<double>({0}), ufunc::zeros<double>({1})).shape() == ufunc::dim_vector{0});
}

TEST_CASE("ufunc call: more than 2^31 elements use 64-bit indexing") {
  // One int8 input broadcast over 2^31 + 37 elements: the output is the only memory.
  const std::int64_t n = (std::int64_t{1} << 31) + 37;
#if defined(UFUNC_HAS_TBB)
  // Keep the piece count sane when the suite runs with a tiny grain.
  const auto saved_grain = ufunc::backends::parallel::grain();
  ufunc::backends::parallel::set_grain(std::max<std::int64_t>(saved_grain, 1 << 20));
  struct restore {
    std::int64_t g;
    ~restore() { ufunc::backends::parallel::set_grain(g); }
  } restore_grain{saved_grain};
#endif
  auto one = ufunc::scalar<std::int8_t>(3).broadcast_to({n});
  auto out = ufunc::array_t<std::int8_t>(ufunc::array::empty({n}, ufunc::int8));
  ufunc::add(one, 4, {.out = {out}});
  for (std::int64_t i : {std::int64_t{0}, std::int64_t{1} << 31, n - 1}) CHECK(out.at(i) == 7);
  // Compared a MiB at a time: under ThreadSanitizer a byte loop over the 2 GiB (std::count)
  // took 228 s, most of the suite's run there; memcmp is checked once per call.
  const std::vector<std::int8_t> sevens(std::size_t{1} << 20, 7);
  std::int64_t wrong_chunks = 0;
  for (std::int64_t at = 0; at < n; at += std::int64_t(sevens.size())) {
    const auto len = std::size_t(std::min<std::int64_t>(std::int64_t(sevens.size()), n - at));
    wrong_chunks += std::memcmp(out.data() + at, sevens.data(), len) != 0;
  }
  CHECK(wrong_chunks == 0);
}

TEST_CASE("ufunc call: many threads calling at once get correct results") {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t, &failures] {
      for (int k = 0; k < 200; ++k) {
        auto x = ufunc::full<double>({static_cast<std::int64_t>(17 + k % 50)}, static_cast<double>(t));
        auto r = ufunc::add(x, k);
        for (auto v : r.to_vector<double>())
          if (v != t + k) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
}

namespace {

// A binary loop that computes `op` of two T, for the resolution-cache tests.
template <class T, class Op>
ufunc::loop_entry binary_loop(Op op) {
  return ufunc::backends::cpu::make_loop<T(T, T)>(op);
}

}  // namespace

TEST_CASE("ufunc call: loops registered, replaced or refused after calls are used by the next call") {
  // Each thread remembers the loops it resolved; every change to the loop table must
  // be seen by the next call, never a loop from before it.
  ufunc::function f("cache_probe", 2, 1);
  f.add_loop(binary_loop<float>([](float a, float b) { return a + b; }));
  const auto x32 = ufunc::asarray<float>({1, 2, 3});
  const auto y32 = ufunc::asarray<float>({10, 20, 30});
  const auto x64 = ufunc::asarray<double>({1, 2, 3});
  const auto x16 = ufunc::asarray<std::int16_t>({1, 2, 3});
  for (int k = 0; k < 3; ++k) CHECK(ufunc::array_t<float>(f(x32, y32)).at(2) == 33.0f);
  CHECK_THROWS_AS(f(x64, x64), ufunc::no_loop_error);  // float64 does not cast safely to float32
  // int16 casts safely to float32: the search finds ff->f, and remembers it.
  for (int k = 0; k < 3; ++k) CHECK(f(x16, x16).type() == ufunc::float32);

  f.add_loop(binary_loop<double>([](double a, double b) { return a * b; }));
  CHECK(ufunc::array_t<double>(f(x64, x64)).at(2) == 9.0);
  f.add_loop(
      binary_loop<std::int16_t>([](std::int16_t a, std::int16_t b) { return static_cast<std::int16_t>(a - b); }));
  CHECK(f(x16, x16).type() == ufunc::int16);  // the exact loop now, not the cached cast to float32

  // A replaced loop: the new code runs.
  f.add_loop(binary_loop<float>([](float a, float b) { return a - b; }));
  CHECK(ufunc::array_t<float>(f(x32, y32)).at(2) == -27.0f);
  CHECK(f.resolve(std::vector<ufunc::dtype>{ufunc::float32, ufunc::float32}).str() == "ff->f");

  // Refused inputs, a type resolver, and dtype= / casting= each resolve on their own.
  f.reject_inputs({ufunc::float32, ufunc::float32}, "refused for the test");
  CHECK_THROWS_AS(f(x32, y32), ufunc::no_loop_error);
  CHECK(f(x32, y32, {.dtype = ufunc::float32}).type() == ufunc::float32);  // dtype= bypasses the refusal
  CHECK(f(x16, x16, {.dtype = ufunc::float64}).type() == ufunc::float64);
  CHECK(f(x16, x16).type() == ufunc::int16);
  f.set_type_resolver([](std::span<const ufunc::dtype>) -> std::optional<ufunc::type_signature> {
    return ufunc::type_signature({ufunc::float64, ufunc::float64}, {ufunc::float64});
  });
  CHECK(f(x16, x16).type() == ufunc::float64);

  // The same from another thread that called before the changes: it sees them too.
  ufunc::function g("cache_probe_threads", 2, 1);
  g.add_loop(binary_loop<float>([](float a, float b) { return a + b; }));
  std::atomic<int> phase{0};
  ufunc::dtype seen[2];
  std::thread worker([&] {
    seen[0] = g(x16, x16).type();  // float32, through the cast
    phase = 1;
    while (phase.load() != 2) std::this_thread::yield();
    seen[1] = g(x16, x16).type();
  });
  while (phase.load() != 1) std::this_thread::yield();
  g.add_loop(
      binary_loop<std::int16_t>([](std::int16_t a, std::int16_t b) { return static_cast<std::int16_t>(a + b); }));
  phase = 2;
  worker.join();
  CHECK(seen[0] == ufunc::float32);
  CHECK(seen[1] == ufunc::int16);
}

TEST_CASE("ufunc call: a ufunc without outputs runs its loop for its effects, as np.frompyfunc(f, 1, 0)") {
  // Its loop sums what it sees into a side buffer: every broadcast element once, where= too.
  ufunc::function f("sum_into", 2, 0);
  CHECK(f.nout() == 0);
  static double total = 0;
  ufunc::loop_entry e;
  e.types = ufunc::type_signature({ufunc::float64, ufunc::float64}, {});
  e.host = [](char* const* args, std::int64_t n, const std::int64_t* steps, const void*) {
    for (std::int64_t k = 0; k < n; ++k)
      total += *reinterpret_cast<const double*>(args[0] + k * steps[0]) *
               *reinterpret_cast<const double*>(args[1] + k * steps[1]);
  };
  f.add_loop(e);
  CHECK(f.types() == std::vector<std::string>{"dd->"});
  const auto a = ufunc::asarray<double>({1, 2, 3});
  const auto b = ufunc::asarray<double>({10, 100}).reshape({2, 1});
  const ufunc::operand in[] = {a, b};
  CHECK(f.call(in).empty());
  CHECK(total == 6 * 10 + 6 * 100);
  total = 0;
  const auto mask = ufunc::asarray<bool>({true, false, true});
  CHECK(f.call(in, {.where = mask}).empty());
  CHECK(total == 4 * 10 + 4 * 100);
  // Integers cast to the loop's float64; a scalar broadcasts.
  total = 0;
  const ufunc::operand mixed[] = {ufunc::asarray<int>({1, 2}), 0.5};
  (void)f.call(mixed);
  CHECK(total == 1.5);
  CHECK_THROWS_WITH_AS((void)f(a, b), doctest::Contains("has 0 outputs; use call()"), ufunc::value_error);
  CHECK_THROWS_WITH_AS((void)f.call(in, {.out = {a}}), doctest::Contains("has 0 outputs, but out= names 1"),
                       ufunc::value_error);
  CHECK_THROWS_AS((void)f.call(in, {.signature = "dd->d"}), ufunc::value_error);
  CHECK_THROWS_AS((void)ufunc::function("no_inputs", 0, 1), ufunc::value_error);
}

TEST_CASE("ufunc call: calls that differ only in a Python scalar's value or kind resolve as before") {
  // The cache keys on each scalar's kind and on the dtype it promotes to; a value that
  // does not fit the arrays' dtype is resolved every time (NumPy 2's value-based cases).
  const auto u8 = ufunc::asarray<std::uint8_t>({0, 1, 255});
  for (int k = 0; k < 2; ++k) {
    CAPTURE(k);
    CHECK(ufunc::add(u8, 3).type() == ufunc::uint8);
    CHECK_THROWS_AS(ufunc::add(u8, 300), ufunc::overflow_error);
    CHECK_THROWS_AS(ufunc::add(u8, -1), ufunc::overflow_error);
    CHECK(ufunc::add(u8, true).type() == ufunc::uint8);
    CHECK(ufunc::add(u8, 2.5).type() == ufunc::float64);
    CHECK(ufunc::add(u8, std::complex<double>(1, 1)).type() == ufunc::complex128);
    // Comparisons take any Python int at its value (NumPy 2): no overflow error.
    CHECK(ufunc::array_t<bool>(ufunc::equal(u8, -1)).to_vector() == std::vector<bool>{false, false, false});
    CHECK(ufunc::array_t<bool>(ufunc::equal(u8, 255)).to_vector() == std::vector<bool>{false, false, true});
    CHECK(ufunc::array_t<bool>(ufunc::less(u8, 256)).to_vector() == std::vector<bool>{true, true, true});
    CHECK(ufunc::array_t<bool>(ufunc::less(u8, 1)).to_vector() == std::vector<bool>{true, false, false});
  }
  const auto f32 = ufunc::asarray<float>({1, 2});
  for (int k = 0; k < 2; ++k) {
    CAPTURE(k);
    CHECK(ufunc::add(f32, 2).type() == ufunc::float32);
    CHECK(ufunc::add(f32, 2.5).type() == ufunc::float32);
    CHECK(ufunc::add(f32, std::complex<double>(0, 1)).type() == ufunc::complex64);
    CHECK(ufunc::add(f32, std::int64_t{1} << 40).type() == ufunc::float32);
  }
  // Only scalars: each takes its default dtype, which for a Python int depends on its
  // value (uint64 from 2^63 up).
  const ufunc::dtype big = ufunc::add(std::uint64_t{1} << 63, 1).type();
  CHECK(big != ufunc::int64);
  for (int k = 0; k < 2; ++k) {
    CAPTURE(k);
    CHECK(ufunc::add(2, 1).type() == ufunc::int64);
    CHECK(ufunc::add(std::uint64_t{1} << 63, 1).type() == big);
    CHECK(ufunc::add(2, 1.5).type() == ufunc::float64);
  }
}

TEST_CASE("ufunc call: dtype= searches (None.., X) by safe casts, then the homogeneous (X.., X) (NumPy)") {
  // NumPy's type_tuple_type_resolver: dtype=X is the signature (None, ..., X); the
  // first loop with that output whose other inputs cast safely wins; failing that, the
  // inputs take X too and the first (X, ..., X) loop is chosen whatever the inputs are,
  // so the cast check names the input; failing that, "No loop matching".
  using ufunc::casting;
  auto c128 = ufunc::full<std::complex<double>>({2}, {3.0, 4.0});
  auto c64 = ufunc::full<std::complex<float>>({2}, {3.0f, 4.0f});
  auto f64 = ufunc::full<double>({2}, 2.25);
  auto f32 = ufunc::full<float>({2}, 2.25f);
  auto i64 = ufunc::full<std::int64_t>({2}, 4);
  // np.absolute(complex128, dtype='float32'): f->f, not F->f (differential r29574).
  try {
    (void)ufunc::absolute(c128, {.dtype = ufunc::float32});
    FAIL("expected casting_error");
  } catch (const ufunc::casting_error& e) {
    CHECK(contains(e.what(), "input 0 from complex128 to float32 with casting rule 'same_kind'"));
  }
  auto unsafe = ufunc::absolute(c128, {.dtype = ufunc::float32, .casting = casting::unsafe});
  CHECK(unsafe.type() == ufunc::float32);
  CHECK(unsafe.at<float>(0) == 3.0f);  // |real part|: the f->f loop, not |3+4j|
  CHECK_THROWS_AS(ufunc::absolute(c128, {.dtype = ufunc::float32, .casting = casting::no}), ufunc::casting_error);
  CHECK(ufunc::absolute(c128, {.dtype = ufunc::float64}).at<double>(0) == 5.0);  // D->d: exact input
  CHECK(ufunc::absolute(c128, {.dtype = ufunc::float64, .casting = casting::no}).at<double>(0) == 5.0);
  CHECK(ufunc::absolute(c64, {.dtype = ufunc::float64}).at<double>(0) == 5.0);  // F casts safely to D
  CHECK(ufunc::absolute(c64, {.dtype = ufunc::float32}).at<float>(0) == 5.0f);
  CHECK_THROWS_AS(ufunc::absolute(c128, {.dtype = ufunc::complex64}), ufunc::no_loop_error);
  CHECK_THROWS_AS(ufunc::absolute(f64, {.dtype = ufunc::int64}), ufunc::casting_error);
  CHECK(ufunc::absolute(f64, {.dtype = ufunc::int64, .casting = casting::unsafe}).at<std::int64_t>(0) == 2);
  CHECK(ufunc::absolute(i64, {.dtype = ufunc::float32}).type() == ufunc::float32);
  CHECK_THROWS_AS(ufunc::sqrt(c128, {.dtype = ufunc::float64}), ufunc::casting_error);
  CHECK(ufunc::sqrt(c128, {.dtype = ufunc::float64, .casting = casting::unsafe}).at<double>(0) ==
        doctest::Approx(1.7320508075688772));
  CHECK_THROWS_AS(ufunc::add(c128, c128, {.dtype = ufunc::float32}), ufunc::casting_error);
  CHECK(ufunc::add(c128, c128, {.dtype = ufunc::float32, .casting = casting::unsafe}).at<float>(0) == 6.0f);
  try {
    (void)ufunc::add(i64, f64, {.dtype = ufunc::int64});
    FAIL("expected casting_error");
  } catch (const ufunc::casting_error& e) {
    CHECK(contains(e.what(), "input 1 from float64 to int64 with casting rule 'same_kind'"));
  }
  // Comparisons and logical ufuncs: only bool outputs; dtype=float64 has no (d, d, d).
  CHECK(ufunc::greater(f32, f32, {.dtype = ufunc::bool_}).type() == ufunc::bool_);
  CHECK(ufunc::greater(c128, c128, {.dtype = ufunc::bool_}).type() == ufunc::bool_);
  CHECK_THROWS_AS(ufunc::greater(f32, f32, {.dtype = ufunc::float64}), ufunc::no_loop_error);
  CHECK(ufunc::logical_and(c128, f64, {.dtype = ufunc::bool_}).type() == ufunc::bool_);
  CHECK_THROWS_AS(ufunc::logical_and(f64, f64, {.dtype = ufunc::float64}), ufunc::no_loop_error);
  CHECK(ufunc::isnan(c128, {.dtype = ufunc::bool_}).type() == ufunc::bool_);
  CHECK_THROWS_AS(ufunc::isnan(c128, {.dtype = ufunc::float32}), ufunc::no_loop_error);
  CHECK(ufunc::absolute(c128, {.signature = "D->d"}).at<double>(0) == 5.0);
}
