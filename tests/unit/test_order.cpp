// Output memory order (NumPy's order=): the strides of every array that calls,
// methods, astype, copy and the factories allocate, against NumPy 2's own
// (data/order_tables.inc, written by tests/generate_order_tables.py), on every host
// target, and the values, which no layout may change.
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using ufunc::array;
using ufunc::dim_vector;

// The operand expressions of order_tables.inc (generate_order_tables.py renders them
// as NumPy code too). seq holds 1, 2, 3, ... in C order: no zero divides.
array seq(const dim_vector& shape, ufunc::dtype t) {
  const auto n = static_cast<double>(ufunc::shape_size(shape));
  return ufunc::arange<double>(1.0, n + 1.0).reshape(shape).astype(t, ufunc::order::C);
}
array mask(const dim_vector& shape) {
  auto m = ufunc::array::empty(shape, ufunc::bool_);
  for (std::int64_t i = 0; i < m.size(); ++i) m.data_as<bool>()[i] = i % 3 != 1;
  return m;
}
array T(const array& a) { return a.transpose(); }
array P(const array& a, std::initializer_list<std::int64_t> axes) { return a.transpose(axes); }
array S(const array& a, std::initializer_list<std::int64_t> steps) {  // a[::s0, ::s1, ...]
  auto step = [&](std::size_t d) { return ufunc::slice{std::nullopt, std::nullopt, steps.begin()[d]}; };
  switch (steps.size()) {
    case 1:
      return a[{step(0)}];
    case 2:
      return a[{step(0), step(1)}];
    case 3:
      return a[{step(0), step(1), step(2)}];
    case 4:
      return a[{step(0), step(1), step(2), step(3)}];
    default:
      FAIL("S() takes 1 to 4 steps");
      return a;
  }
}

std::string str(std::span<const std::int64_t> v) { return array::shape_string(v); }

std::vector<double> values(const array& a) { return a.to_vector<double>(); }

void check_values_and_strides(const array& got, const array& reference, const dim_vector& expected) {
  CHECK(str(got.strides()) == str(expected));
  CHECK(got.shape() == reference.shape());
  CHECK(values(got) == values(reference));
}

// A ufunc call: the strides of each output, and its values against the same call
// with C-ordered outputs.
void check_call(int line, const char* name, std::initializer_list<ufunc::operand> inputs, ufunc::order order,
                const array& where, std::initializer_list<dim_vector> expected) {
  INFO("order_tables.inc line " << line);
  const ufunc::function* f = ufunc::find_builtin(name);
  REQUIRE(f != nullptr);
  const std::span<const ufunc::operand> in(inputs.begin(), inputs.size());
  const auto reference = f->call(in, {.where = where, .order = ufunc::order::C, .target = ufunc::target_id::cpu});
  for (const auto t : ufunc_test::host_targets()) {
    INFO("target " << ufunc::to_string(t));
    const auto got = f->call(in, {.where = where, .order = order, .target = t});
    REQUIRE(got.size() == expected.size());
    for (std::size_t o = 0; o < got.size(); ++o) check_values_and_strides(got[o], reference[o], expected.begin()[o]);
  }
}

void check_reduce(int line, const array& a, const ufunc::axes& axes, bool keepdims, const array& where,
                  const dim_vector& expected) {
  INFO("order_tables.inc line " << line);
  const auto reference = ufunc::add.reduce(a.copy(), {.axis = axes, .keepdims = keepdims, .where = where});
  for (const auto t : ufunc_test::host_targets()) {
    INFO("target " << ufunc::to_string(t));
    check_values_and_strides(ufunc::add.reduce(a, {.axis = axes, .keepdims = keepdims, .where = where, .target = t}),
                             reference, expected);
  }
}

void check_accumulate(int line, const array& a, int axis, const dim_vector& expected) {
  INFO("order_tables.inc line " << line);
  const auto reference = ufunc::add.accumulate(a.copy(), {.axis = axis});
  for (const auto t : ufunc_test::host_targets()) {
    INFO("target " << ufunc::to_string(t));
    check_values_and_strides(ufunc::add.accumulate(a, {.axis = axis, .target = t}), reference, expected);
  }
}

void check_reduceat(int line, const array& a, std::initializer_list<std::int64_t> indices, int axis,
                    const dim_vector& expected) {
  INFO("order_tables.inc line " << line);
  const auto idx = ufunc::asarray<std::int64_t>(indices);
  const auto reference = ufunc::add.reduceat(a.copy(), idx, {.axis = axis});
  for (const auto t : ufunc_test::host_targets()) {
    INFO("target " << ufunc::to_string(t));
    check_values_and_strides(ufunc::add.reduceat(a, idx, {.axis = axis, .target = t}), reference, expected);
  }
}

void check_outer(int line, const array& a, const array& b, const dim_vector& expected) {
  INFO("order_tables.inc line " << line);
  const auto reference = ufunc::add.outer(a, b, {.order = ufunc::order::C});
  for (const auto t : ufunc_test::host_targets()) {
    INFO("target " << ufunc::to_string(t));
    check_values_and_strides(ufunc::add.outer(a, b, {.target = t}), reference, expected);
  }
}

void check_astype(int line, const array& a, ufunc::dtype t, ufunc::order order, const dim_vector& expected) {
  INFO("order_tables.inc line " << line);
  check_values_and_strides(a.astype(t, order), a.astype(t, ufunc::order::C), expected);
}

void check_copy(int line, const array& a, ufunc::order order, const dim_vector& expected) {
  INFO("order_tables.inc line " << line);
  check_values_and_strides(a.copy(order), a, expected);
}

void check_empty(int line, const dim_vector& shape, ufunc::dtype t, ufunc::order order, const dim_vector& expected) {
  INFO("order_tables.inc line " << line);
  const auto e = array::empty(shape, t, order);
  CHECK(str(e.strides()) == str(expected));
  const auto z = array::zeros(shape, t, order);
  CHECK(str(z.strides()) == str(expected));
  CHECK(values(z) == std::vector<double>(static_cast<std::size_t>(z.size()), 0.0));
}

#include "data/order_tables.inc"

}  // namespace

TEST_CASE("order: result strides are NumPy's (calls, order=, methods, astype, copy, empty)") {
  ufunc_test::parallel_split split(3);  // the parallel target splits these small calls into pieces
  for (const auto checks : order_checks) checks();
}

TEST_CASE("order: add(a.T, b.T) is F-ordered and its single loop writes contiguously") {
  const auto a = ufunc::arange<float>(0.0f, 12.0f).reshape({3, 4});
  const auto b = ufunc::arange<float>(100.0f, 112.0f).reshape({3, 4});
  for (const auto t : ufunc_test::host_targets()) {
    const ufunc::array r = ufunc::add(a.transpose(), b.transpose(), {.target = t});
    CHECK(r.is_f_contiguous());
    CHECK_FALSE(r.is_c_contiguous());
    CHECK(r.transpose().to_vector<float>() == ufunc::add(a, b).to_vector<float>());
    // A given F-ordered out takes the same single loop; a C-ordered one the general path.
    const auto f_out = ufunc::array::empty({4, 3}, ufunc::float32, ufunc::order::F);
    const auto c_out = ufunc::array::empty({4, 3}, ufunc::float32);
    ufunc::add(a.transpose(), b.transpose(), {.out = {f_out}, .target = t});
    ufunc::add(a.transpose(), b.transpose(), {.out = {c_out}, .target = t});
    CHECK(f_out.to_vector<float>() == r.to_vector<float>());
    CHECK(c_out.to_vector<float>() == r.to_vector<float>());
  }
}

TEST_CASE("order: the typed path (vectorize) lays results out as the run-time path") {
  const auto vadd = ufunc::vectorize<float(float, float)>([](auto x, auto y) { return x + y; }, "order_add");
  const auto a = ufunc::arange<float>(0.0f, 24.0f).reshape({2, 3, 4});
  const auto at = ufunc::array_t<float>(a.transpose({2, 0, 1}));
  const ufunc::array_t<float> r = vadd(at, at);
  CHECK(str(r.strides()) == str(ufunc::add(ufunc::array(at), ufunc::array(at)).strides()));
  CHECK(str(r.strides()) == "(4, 48, 16)");  // np.add(x.transpose(2, 0, 1), ...) for x of shape (2, 3, 4)
  const ufunc::array_t<float> c = vadd(at, at, {.order = ufunc::order::C});
  CHECK(c.is_c_contiguous());
  CHECK(c.to_vector() == r.to_vector());
}

TEST_CASE("order: typed factories take C and F; K and A are refused, as np.empty") {
  const auto f = ufunc::full<double>({2, 3}, 1.5, ufunc::order::F);
  CHECK(str(f.strides()) == "(8, 16)");
  CHECK(f.to_vector() == std::vector<double>(6, 1.5));
  CHECK(str(ufunc::zeros<float>({2, 3}, ufunc::order::F).strides()) == "(4, 8)");
  CHECK(str(ufunc::empty<std::int16_t>({2, 3}).strides()) == "(6, 2)");
  CHECK_THROWS_WITH_AS((void)array::empty({2, 3}, ufunc::float32, ufunc::order::K),
                       "empty: only 'C' or 'F' order is permitted", ufunc::value_error);
  CHECK_THROWS_AS((void)ufunc::zeros<float>({2, 3}, ufunc::order::A), ufunc::value_error);
}

TEST_CASE("order: given outputs keep their layout, whatever order= says") {
  const auto a = ufunc::arange<double>(0.0, 6.0).reshape({2, 3});
  const auto out = ufunc::array::empty({2, 3}, ufunc::float64);
  for (const auto o : {ufunc::order::K, ufunc::order::A, ufunc::order::C, ufunc::order::F}) {
    const auto r = ufunc::add(a, 1.0, {.out = {out}, .order = o});
    CHECK(r.data() == out.data());
    CHECK(str(r.strides()) == "(24, 8)");
    CHECK(r.to_vector<double>() == std::vector<double>{1, 2, 3, 4, 5, 6});
  }
}
