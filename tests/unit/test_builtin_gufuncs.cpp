// NumPy's built-in gufuncs (ufunc::matmul, vecdot, matvec, vecmat) against NumPy on every dtype
// the library has: tests/data/numpy_builtin_gufuncs.inc holds NumPy's results (or errors) for
// random shapes, with operands from a formula repeated here. Integers wrap around, booleans
// OR their ANDs, complex vecdot and vecmat conjugate; results compared exactly (the operands'
// products and their sums are exact in every dtype).
#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <ufunc/ufunc.hpp>

#include "test_support.hpp"

namespace {

struct numpy_case {
  const char* name;
  char code;
  std::vector<std::int64_t> a_shape, b_shape;
  const char* error;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};

const numpy_case numpy_cases[] = {
#include "../data/numpy_builtin_gufuncs.inc"
};

// generate_builtin_gufuncs.py's formula for an operand of dtype `code`.
ufunc::array formula(const std::vector<std::int64_t>& shape, std::int64_t salt, char code) {
  const ufunc::dim_vector dims{std::span<const std::int64_t>(shape)};
  const ufunc::dtype type = ufunc::dtype::from_char(code);
  auto re = ufunc::array::empty(dims, ufunc::float64), im = ufunc::array::empty(dims, ufunc::float64);
  auto* r = reinterpret_cast<double*>(re.data());
  auto* m = reinterpret_cast<double*>(im.data());
  for (std::int64_t i = 0; i < re.size(); ++i) {
    const std::int64_t base = (i * 37 + salt) % 19 - 9;
    r[i] = type.is_complex() || type.kind() == ufunc::dtype_kind::floating ? static_cast<double>(base) / 4.0
           : type == ufunc::bool_                                          ? static_cast<double>(base % 2 != 0)
                                                                           : static_cast<double>(base * 29);
    m[i] = static_cast<double>((i * 37 + salt + 3) % 19 - 9) / 4.0;
  }
  if (!type.is_complex()) {
    // Integers: int64 first, then wrapped to the dtype (as NumPy's astype).
    if (type != ufunc::bool_ && type.kind() != ufunc::dtype_kind::floating) return re.astype(ufunc::int64).astype(type);
    return re.astype(type);
  }
  auto z = ufunc::array::empty(dims, ufunc::complex128);
  auto* p = reinterpret_cast<std::complex<double>*>(z.data());
  for (std::int64_t i = 0; i < z.size(); ++i) p[i] = {r[i], m[i]};
  return z.astype(type);
}

const ufunc::lazy_gufunc& by_name(const std::string& name) {
  static const ufunc::lazy_gufunc* table[] = {&ufunc::matmul, &ufunc::vecdot, &ufunc::matvec, &ufunc::vecmat};
  for (const auto* g : table)
    if (g->get().name() == name) return *g;
  FAIL("no gufunc " << name);
  return *table[0];
}

}  // namespace

TEST_CASE("built-in gufuncs: matmul, vecdot, matvec, vecmat equal NumPy's on every dtype and shape of the table") {
  int results = 0, errors = 0;
  for (const auto& c : numpy_cases) {
    const std::string name = c.name, error = c.error;
    CAPTURE(name);
    CAPTURE(c.code);
    CAPTURE(ufunc::array::shape_string(c.a_shape));
    CAPTURE(ufunc::array::shape_string(c.b_shape));
    const auto& g = by_name(name);
    const auto a = formula(c.a_shape, 1, c.code), b = formula(c.b_shape, 5, c.code);
    if (error.starts_with("operands could not be broadcast")) {
      CHECK_THROWS_AS((void)g(a, b), ufunc::broadcast_error);
      ++errors;
      continue;
    }
    if (!error.empty()) {
      CHECK_THROWS_WITH_AS((void)g(a, b), error.c_str(), ufunc::value_error);
      ++errors;
      continue;
    }
    const auto r = g(a, b);
    CHECK(r.type() == ufunc::dtype::from_char(c.code));
    REQUIRE(r.shape() == ufunc::dim_vector(std::span<const std::int64_t>(c.shape)));
    std::vector<double> got;
    if (r.type().is_complex()) {
      for (const auto& z : r.to_vector<std::complex<double>>()) got.insert(got.end(), {z.real(), z.imag()});
    } else {
      got = r.to_vector<double>();
    }
    CHECK(got == c.values);
    ++results;
  }
  MESSAGE(results << " results and " << errors << " errors as NumPy's");
  CHECK(results >= 200);
}

TEST_CASE("built-in gufuncs: signatures, loops and the host targets") {
  CHECK(ufunc::matmul->signature_text() == "(n?,k),(k,m?)->(n?,m?)");
  CHECK(ufunc::vecdot->signature_text() == "(n),(n)->()");
  CHECK(ufunc::matvec->signature_text() == "(m,n),(n)->(m)");
  CHECK(ufunc::vecmat->signature_text() == "(n),(n,m)->(m)");
  CHECK(ufunc::matmul->types() == std::vector<std::string>{"\?\?->?", "bb->b", "BB->B", "hh->h", "HH->H", "ii->i",
                                                           "II->I", "ll->l", "LL->L", "ee->e", "ff->f", "dd->d",
                                                           "FF->F", "DD->D"});
  // float16: products and sums in float32, one rounding (NumPy's HALF_dot): 2048 products of float16(0.1) and 3
  // sum to 614.25 exactly in float32, rounded once to float16; summed in float16 steps they would drift.
  const auto h = ufunc::full<ufunc::float16_t>({2048}, ufunc::float16_t(0.1f));
  const auto three = ufunc::full<ufunc::float16_t>({2048}, ufunc::float16_t(3.0f));
  const auto dot = ufunc::vecdot(h, three);
  CHECK(dot.type() == ufunc::float16);
  CHECK(static_cast<float>(dot.item<ufunc::float16_t>()) ==
        static_cast<float>(ufunc::float16_t(2048.0f * (static_cast<float>(ufunc::float16_t(0.1f)) * 3.0f))));
  // NumPy's promotion: int8 @ float32 runs the float32 loop; a Python float with int64 the float64 one.
  const auto i8 = ufunc::full<std::int8_t>({2, 2}, 3);
  CHECK(ufunc::matmul(i8, ufunc::full<float>({2, 2}, 0.5f)).type() == ufunc::float32);
  CHECK(ufunc::vecdot(ufunc::full<std::int64_t>({3}, 2), ufunc::full<double>({3}, 0.5)).item<double>() == 3.0);
  for (auto t : ufunc_test::host_targets())
    CHECK(ufunc::matmul(i8, i8, {.target = t}).to_vector<std::int8_t>() == std::vector<std::int8_t>{18, 18, 18, 18});
}

namespace {

struct axes_case {
  const char* name;
  std::vector<std::int64_t> a_shape, b_shape;
  bool has_axes;
  std::vector<std::vector<int>> axes;
  bool has_axis;
  int axis;
  bool keepdims;
  const char* error_class;
  const char* message;
  std::vector<std::int64_t> shape, strides;
  std::vector<double> values;
};

const axes_case axes_cases[] = {
#include "../data/numpy_gufunc_axes.inc"
};

}  // namespace

TEST_CASE("built-in gufuncs: axes=, axis= and keepdims= as NumPy's (results, the layout of new outputs, errors)") {
  for (const auto& c : axes_cases) {
    const std::string name = c.name, error_class = c.error_class, message = c.message;
    CAPTURE(name);
    CAPTURE(ufunc::array::shape_string(c.a_shape));
    CAPTURE(ufunc::array::shape_string(c.b_shape));
    CAPTURE(message);
    const auto& g = by_name(name);
    const auto a = formula(c.a_shape, 1, 'd'), b = formula(c.b_shape, 5, 'd');
    ufunc::gufunc::core_axes where;
    if (c.has_axes) where.axes = c.axes;
    if (c.has_axis) where.axis = c.axis;
    where.keepdims = c.keepdims;
    if (message.starts_with("operands could not be broadcast")) {
      CHECK_THROWS_AS((void)g(a, b, {}, where), ufunc::broadcast_error);
    } else if (error_class == "index_error") {
      CHECK_THROWS_WITH_AS((void)g(a, b, {}, where), message.c_str(), ufunc::index_error);
    } else if (error_class == "value_error") {
      CHECK_THROWS_WITH_AS((void)g(a, b, {}, where), message.c_str(), ufunc::value_error);
    } else {
      const auto r = g(a, b, {}, where);
      CHECK(r.shape() == ufunc::dim_vector(std::span<const std::int64_t>(c.shape)));
      CHECK(r.strides() == ufunc::dim_vector(std::span<const std::int64_t>(c.strides)));
      CHECK(r.to_vector<double>() == c.values);
    }
  }
  // out= with the core axes where axes= says, and with keepdims.
  const auto a = formula({2, 3, 4}, 1, 'd');
  auto out = ufunc::array::empty({2, 1, 4}, ufunc::float64);
  (void)ufunc::vecdot(a, a, {.out = {out}}, {.axis = 1, .keepdims = true});
  CHECK(out.to_vector<double>() == ufunc::vecdot(a, a, {}, {.axis = 1}).to_vector<double>());
  CHECK_THROWS_WITH_AS((void)ufunc::vecdot(a, a, {}, {.axes = {{1}, {1}}, .axis = 1}),
                       "vecdot: cannot specify both axis= and axes=", ufunc::value_error);
}

TEST_CASE("built-in gufuncs: small square matmul (2x2 to 4x4, unrolled) gives the general loop's sums, bit for bit") {
  // The sums of each element in k order from zero, as the general loop and NumPy's own loop add them.
  const auto check = [](auto zero, std::int64_t s, bool transposed) {
    using T = decltype(zero);
    CAPTURE(s);
    CAPTURE(transposed);
    const ufunc::array a = ufunc_test::sample_array<T>(std::size_t(7 * s * s), 3).reshape({7, s, s});
    ufunc::array b = ufunc_test::sample_array<T>(std::size_t(7 * s * s), 4).reshape({7, s, s});
    if (transposed) b = b.transpose({0, 2, 1});  // strided cores
    const ufunc::array c = ufunc::matmul(a, b);
    for (std::int64_t e = 0; e < 7; ++e)
      for (std::int64_t i = 0; i < s; ++i)
        for (std::int64_t j = 0; j < s; ++j) {
          T sum = 0;
          for (std::int64_t k = 0; k < s; ++k) sum += a.template at<T>(e, i, k) * b.template at<T>(e, k, j);
          CHECK(c.template at<T>(e, i, j) == sum);
        }
  };
  for (std::int64_t s = 1; s <= 5; ++s)
    for (const bool transposed : {false, true}) {
      check(float{}, s, transposed);
      check(double{}, s, transposed);
    }
}
