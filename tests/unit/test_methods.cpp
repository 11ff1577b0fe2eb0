// NumPy's ufunc methods: reduce, accumulate, reduceat, outer, at. The tables in
// data/methods_tables.inc hold NumPy 2's answers (tests/generate_methods_tables.py)
// over ufuncs, dtypes, shapes, layouts and options, errors included; the tests below
// them check what tables cannot: user functors, summation accuracy, determinism on the
// parallel target, ufunc.at, and the messages.
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

namespace {

struct reduce_case {
  const char* ufunc;
  const char* dtype;
  const char* shape;
  const char* transform;
  int axis_kind;  // 0: one int, 1: a list, 2: every axis
  const char* axes;
  bool keepdims;
  bool has_initial;
  std::int64_t initial;
  bool where;
  const char* dtype_arg;
  const char* out_dtype;
  const char* error;
  const char* result_dtype;
  const char* result_shape;
  const char* expected;
};
struct accumulate_case {
  const char* ufunc;
  const char* dtype;
  const char* shape;
  const char* transform;
  int axis;
  const char* dtype_arg;
  const char* out_dtype;
  const char* error;
  const char* result_dtype;
  const char* result_shape;
  const char* expected;
};
struct reduceat_case {
  const char* ufunc;
  const char* dtype;
  const char* shape;
  const char* transform;
  int axis;
  const char* indices;
  const char* error;
  const char* result_dtype;
  const char* result_shape;
  const char* expected;
};
struct outer_case {
  const char* ufunc;
  const char* a_dtype;
  const char* a_shape;
  const char* b_dtype;
  const char* b_shape;
  const char* error;
  const char* result_dtype;
  const char* result_shape;
  const char* expected;
};

#include "data/methods_tables.inc"

std::vector<double> parse_doubles(const char* s) {
  std::vector<double> v;
  const char* p = s;
  char* end = nullptr;
  for (;;) {
    const double x = std::strtod(p, &end);
    if (end == p) break;
    v.push_back(x);
    p = end;
  }
  return v;
}

ufunc::dim_vector parse_shape(const char* s) {
  ufunc::dim_vector d;
  for (double x : parse_doubles(s)) d.push_back(static_cast<std::int64_t>(x));
  return d;
}

// The generator's value formula (value_at in generate_methods_tables.py).
double value_at(std::int64_t i, ufunc::dtype t) {
  static constexpr double signed_values[] = {-2, -1, 1, 2, 3, -3, 1};
  static constexpr double unsigned_values[] = {1, 2, 3, 1, 2, 1, 4};
  static constexpr double float_values[] = {-2.0, -1.0, -0.5, 0.25, 0.5, 1.0, 2.0};
  const auto k = static_cast<std::size_t>((i * 5 + 3) % 7);
  if (t == ufunc::bool_) return k % 3 != 0 ? 1 : 0;
  if (t.kind() == ufunc::dtype_kind::signed_int) return signed_values[k];
  if (t.kind() == ufunc::dtype_kind::unsigned_int) return unsigned_values[k];
  return float_values[k];
}

ufunc::array make_input(const char* shape_text, ufunc::dtype t, const std::string& transform) {
  const auto shape = parse_shape(shape_text);
  auto values = ufunc::empty<double>(shape);
  for (std::int64_t i = 0; i < values.size(); ++i) values.data()[i] = value_at(i, t);
  const ufunc::array base = values.astype(t);
  using ufunc::slice;
  if (transform == "T") return base.transpose();
  if (transform == "rev0") return base[{slice{std::nullopt, std::nullopt, -1}}];
  if (transform == "step") {
    REQUIRE(base.ndim() == 2);
    return base[{slice{}, slice{0, std::nullopt, 2}}];
  }
  return base;
}

ufunc::array where_mask(const ufunc::dim_vector& shape) {
  auto m = ufunc::empty<bool>(shape);
  for (std::int64_t i = 0; i < m.size(); ++i) m.data()[i] = i % 3 != 1;
  return m;
}

const ufunc::function& builtin(const char* name) {
  const ufunc::function* f = ufunc::find_builtin(name);
  REQUIRE_MESSAGE(f != nullptr, "no built-in ufunc " << name);
  return *f;
}

bool same_value(double got, double want) { return (std::isnan(got) && std::isnan(want)) || got == want; }

void check_result(const ufunc::array& r, const char* dtype, const char* shape, const char* expected) {
  REQUIRE(r.valid());
  CHECK(r.type().name() == std::string_view(dtype));
  REQUIRE(r.shape() == parse_shape(shape));
  const auto got = r.to_vector<double>();
  const auto want = parse_doubles(expected);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK_MESSAGE(same_value(got[i], want[i]), got[i] << " != " << want[i]);
  }
}

// Runs `fn` and checks that it throws the error class NumPy's error maps to.
template <class Fn>
void check_error(const char* error, Fn&& fn) {
  const std::string e = error;
  try {
    fn();
    FAIL("expected " << e);
  } catch (const ufunc::index_error&) {
    CHECK(e == "index_error");
  } catch (const ufunc::overflow_error&) {
    CHECK(e == "overflow_error");
  } catch (const ufunc::no_loop_error&) {
    CHECK(e == "no_loop_error");
  } catch (const ufunc::value_error&) {
    CHECK(e == "value_error");
  } catch (const ufunc::error& other) {
    FAIL("expected " << e << ", got " << other.what());
  }
}

ufunc::axes axes_of(int kind, const char* text) {
  std::vector<int> list;
  for (double x : parse_doubles(text)) list.push_back(static_cast<int>(x));
  if (kind == 2) return ufunc::all_axes;
  if (kind == 0) return list.at(0);
  return list;
}

#if defined(UFUNC_HAS_TBB)
namespace par = ufunc::backends::parallel;
struct threads_guard {
  int saved = par::max_threads();
  explicit threads_guard(int n) { par::set_max_threads(n); }
  ~threads_guard() { par::set_max_threads(saved); }
};
#endif

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

template <class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const ufunc::error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("methods: reduce equals NumPy over ufuncs, dtypes, layouts, axes and options") {
#if defined(UFUNC_HAS_TBB)
  const ufunc_test::parallel_split guard(7);  // the parallel target splits even these small arrays
#endif
  for (const std::optional<ufunc::target_id> target : ufunc_test::host_targets()) {
    for (const auto& c : reduce_cases) {
      const std::string cap_ufunc = c.ufunc;
      CAPTURE(cap_ufunc);
      const std::string cap_dtype = c.dtype;
      CAPTURE(cap_dtype);
      const std::string cap_shape = c.shape;
      CAPTURE(cap_shape);
      const std::string cap_transform = c.transform;
      CAPTURE(cap_transform);
      const std::string cap_axes = c.axes;
      CAPTURE(cap_axes);
      CAPTURE(c.axis_kind);
      CAPTURE(c.keepdims);
      CAPTURE(c.has_initial);
      CAPTURE(c.where);
      const std::string cap_dtype_arg = c.dtype_arg ? c.dtype_arg : "-", cap_out = c.out_dtype ? c.out_dtype : "-";
      CAPTURE(cap_dtype_arg);
      CAPTURE(cap_out);
      const auto t = ufunc::dtype::from_string(c.dtype);
      const ufunc::array x = make_input(c.shape, t, c.transform);
      ufunc::reduce_options o;
      o.axis = axes_of(c.axis_kind, c.axes);
      o.keepdims = c.keepdims;
      if (c.has_initial) o.initial = c.initial;
      if (c.where) o.where = where_mask(x.shape());
      if (c.dtype_arg) o.dtype = ufunc::dtype::from_string(c.dtype_arg);
      o.target = target;
      ufunc::array out;
      if (c.out_dtype && !c.error) {
        out = ufunc::array::zeros(parse_shape(c.result_shape), ufunc::dtype::from_string(c.out_dtype));
        o.out = out;
      } else if (c.out_dtype) {
        continue;  // NumPy's error came from the reduction itself; covered without out=
      }
      const auto& f = builtin(c.ufunc);
      // NumPy lets maximum and minimum reduce several axes although they have no
      // identity ("reorderable"): here that is the loop's reorderable flag, set with
      // the built-in reduce loops.
      const bool several_axes = c.axis_kind == 2 ? x.ndim() > 1 : c.axis_kind == 1 && parse_doubles(c.axes).size() > 1;
      const std::string name = c.ufunc;
      if (several_axes && (name == "maximum" || name == "minimum")) {
        const ufunc::dtype in[2] = {x.type(), x.type()};
        if (!f.resolve_loop(in).reorderable) {
          MESSAGE("skipped until the built-in " << name << " loops are marked reorderable");
          continue;
        }
      }
      if (c.error) {
        check_error(c.error, [&] { (void)f.reduce(x, o); });
        continue;
      }
      const ufunc::array r = f.reduce(x, o);
      check_result(r, c.result_dtype, c.result_shape, c.expected);
      if (out.valid()) CHECK(r.data() == out.data());
    }
  }
}

TEST_CASE("methods: accumulate equals NumPy") {
#if defined(UFUNC_HAS_TBB)
  const ufunc_test::parallel_split guard(3);
#endif
  for (const std::optional<ufunc::target_id> target : ufunc_test::host_targets()) {
    for (const auto& c : accumulate_cases) {
      const std::string cap_ufunc = c.ufunc;
      CAPTURE(cap_ufunc);
      const std::string cap_dtype = c.dtype;
      CAPTURE(cap_dtype);
      const std::string cap_shape = c.shape;
      CAPTURE(cap_shape);
      const std::string cap_transform = c.transform;
      CAPTURE(cap_transform);
      CAPTURE(c.axis);
      const std::string cap_dtype_arg = c.dtype_arg ? c.dtype_arg : "-", cap_out = c.out_dtype ? c.out_dtype : "-";
      CAPTURE(cap_dtype_arg);
      CAPTURE(cap_out);
      const ufunc::array x = make_input(c.shape, ufunc::dtype::from_string(c.dtype), c.transform);
      ufunc::accumulate_options o;
      o.axis = c.axis;
      o.target = target;
      if (c.dtype_arg) o.dtype = ufunc::dtype::from_string(c.dtype_arg);
      if (c.out_dtype) o.out = ufunc::array::zeros(x.shape(), ufunc::dtype::from_string(c.out_dtype));
      const auto& f = builtin(c.ufunc);
      if (c.error) {
        check_error(c.error, [&] { (void)f.accumulate(x, o); });
        continue;
      }
      check_result(f.accumulate(x, o), c.result_dtype, c.result_shape, c.expected);
    }
  }
}

TEST_CASE("methods: reduceat equals NumPy") {
  for (const std::optional<ufunc::target_id> target : ufunc_test::host_targets()) {
    for (const auto& c : reduceat_cases) {
      const std::string cap_ufunc = c.ufunc;
      CAPTURE(cap_ufunc);
      const std::string cap_dtype = c.dtype;
      CAPTURE(cap_dtype);
      const std::string cap_shape = c.shape;
      CAPTURE(cap_shape);
      const std::string cap_transform = c.transform;
      CAPTURE(cap_transform);
      const std::string cap_indices = c.indices;
      CAPTURE(cap_indices);
      const ufunc::array x = make_input(c.shape, ufunc::dtype::from_string(c.dtype), c.transform);
      std::vector<std::int64_t> idx;
      for (double v : parse_doubles(c.indices)) idx.push_back(static_cast<std::int64_t>(v));
      const ufunc::array indices = ufunc::asarray<std::int64_t>(std::span<const std::int64_t>(idx));
      const auto& f = builtin(c.ufunc);
      const ufunc::accumulate_options o{.axis = c.axis, .target = target};
      if (c.error) {
        check_error(c.error, [&] { (void)f.reduceat(x, indices, o); });
        continue;
      }
      check_result(f.reduceat(x, indices, o), c.result_dtype, c.result_shape, c.expected);
    }
  }
}

TEST_CASE("methods: outer equals NumPy") {
  for (const auto& c : outer_cases) {
    const std::string cap_ufunc = c.ufunc;
    CAPTURE(cap_ufunc);
    const std::string cap_a_dtype = c.a_dtype;
    CAPTURE(cap_a_dtype);
    const std::string cap_a_shape = c.a_shape;
    CAPTURE(cap_a_shape);
    const std::string cap_b_dtype = c.b_dtype;
    CAPTURE(cap_b_dtype);
    const std::string cap_b_shape = c.b_shape;
    CAPTURE(cap_b_shape);
    const ufunc::array a = make_input(c.a_shape, ufunc::dtype::from_string(c.a_dtype), "none");
    ufunc::array b = make_input(c.b_shape, ufunc::dtype::from_string(c.b_dtype), "none");
    if (b.ndim() > 0 && b.shape()[0] > 0) b = b[{ufunc::slice{std::nullopt, std::nullopt, -1}}];
    const auto& f = builtin(c.ufunc);
    if (c.error) {
      check_error(c.error, [&] { (void)f.outer(a, b); });
      continue;
    }
    check_result(f.outer(a, b), c.result_dtype, c.result_shape, c.expected);
  }
}

TEST_CASE("methods: the dtype rule of add and multiply reductions (NumPy 2)") {
  // np.add.reduce / np.multiply.reduce / accumulate / reduceat: bool and integers
  // narrower than 64 bits accumulate in int64 (uint64 for unsigned); others keep theirs.
  const std::pair<ufunc::dtype, ufunc::dtype> rule[] = {
      {ufunc::bool_, ufunc::int64},     {ufunc::int8, ufunc::int64},      {ufunc::uint8, ufunc::uint64},
      {ufunc::int16, ufunc::int64},     {ufunc::uint16, ufunc::uint64},   {ufunc::int32, ufunc::int64},
      {ufunc::uint32, ufunc::uint64},   {ufunc::int64, ufunc::int64},     {ufunc::uint64, ufunc::uint64},
      {ufunc::float32, ufunc::float32}, {ufunc::float64, ufunc::float64}, {ufunc::complex64, ufunc::complex64}};
  for (const auto& [in, want] : rule) {
    const std::string cap_in(in.name());
    CAPTURE(cap_in);
    const auto x = ufunc::array::zeros({3}, in);
    CHECK(ufunc::add.reduce(x).type() == want);
    CHECK(ufunc::multiply.reduce(x).type() == want);
    CHECK(ufunc::add.accumulate(x).type() == want);
    CHECK(ufunc::add.reduceat(x, ufunc::asarray<std::int64_t>({0})).type() == want);
    if (in != ufunc::bool_) CHECK(ufunc::subtract.reduce(x).type() == in);
    CHECK(ufunc::maximum.reduce(x).type() == in);
  }
  // 300 + 100 in int8 wraps to -112, as np.add.reduce(..., dtype=np.int8)
  const auto big = ufunc::asarray<std::int8_t>({100, 100, 100, 100});
  CHECK(ufunc::add.reduce(big).item<std::int64_t>() == 400);
  CHECK(ufunc::add.reduce(big, {.dtype = ufunc::int8}).item<std::int8_t>() == -112);
  // out= takes part in the resolution instead: int16 + int8 runs the int16 loop.
  auto out16 = ufunc::zeros<std::int16_t>({});
  ufunc::add.reduce(big, {.out = out16});
  CHECK(out16.item() == 400);
}

TEST_CASE("methods: complex reductions") {
  const auto z = ufunc::asarray<std::complex<double>>({{1, 2}, {3, -1}, {0.5, 0.5}});
  CHECK(ufunc::add.reduce(z).item<std::complex<double>>() == std::complex<double>(4.5, 1.5));
  CHECK(ufunc::multiply.reduce(z).item<std::complex<double>>() ==
        std::complex<double>(1, 2) * std::complex<double>(3, -1) * std::complex<double>(0.5, 0.5));
  const auto acc = ufunc::add.accumulate(z).to_vector<std::complex<double>>();
  CHECK(acc[1] == std::complex<double>(4, 1));
}

// ---- user functors (vectorize) -------------------------------------------------

namespace {
struct twice_plus {  // f(a, b) = 2a + b: neither associative nor commutative
  template <class T>
  T operator()(T a, T b) const {
    return T(2) * a + b;
  }
};
struct plain_sum {  // reorderable by its member
  static constexpr bool reorderable = true;
  template <class T>
  T operator()(T a, T b) const {
    return a + b;
  }
};
struct counting_max : ufunc::reorderable {  // reorderable by its base; scalars only
  double operator()(double a, double b) const { return a < b ? b : a; }
};
}  // namespace

TEST_CASE("methods: a user functor that is not reorderable folds strictly in order") {
  static_assert(!ufunc::is_reorderable<twice_plus>);
  static_assert(ufunc::is_reorderable<plain_sum>);
  static_assert(ufunc::is_reorderable<counting_max>);
  static_assert(ufunc::is_reorderable<decltype(ufunc::reorderable_fn{[](auto a, auto b) { return a + b; }})>);
  auto f = ufunc::vectorize<ufunc::signatures<double(double, double), float(float, float)>, ufunc::target::cpu>(
      twice_plus{}, "twice_plus");
  // np.frompyfunc(lambda a, b: 2 * a + b, 2, 1).reduce(np.arange(20.).reshape(4, 5), axis=ax)
  const auto x = ufunc::arange<double>(20.0).reshape({4, 5});
  for (const std::optional<ufunc::target_id> target : ufunc_test::host_targets()) {
    CAPTURE(target.has_value());
#if defined(UFUNC_HAS_TBB)
    const ufunc_test::parallel_split guard(2);
#endif
    const std::vector<double> axis0 = {55, 70, 85, 100, 115};
    const std::vector<double> axis1 = {26, 181, 336, 491};
    CHECK(f.reduce(x, {.axis = 0, .target = target}).to_vector<double>() == axis0);
    CHECK(f.reduce(x, {.axis = 1, .target = target}).to_vector<double>() == axis1);
    // Reversed and transposed views: still in index order.
    const ufunc::array rev = x[{ufunc::slice{std::nullopt, std::nullopt, -1}}];  // rows 3, 2, 1, 0
    CHECK(f.reduce(rev, {.axis = 0, .target = target}).to_vector<double>() ==
          std::vector<double>{170, 185, 200, 215, 230});
    CHECK(f.reduce(x.transpose(), {.axis = 1, .target = target}).to_vector<double>() == axis0);
    CHECK(f.reduce(x.transpose(), {.axis = 0, .target = target}).to_vector<double>() == axis1);
    // A long run: the sequential fold, not a pairwise one (exact small integers).
    auto ones = ufunc::full<double>({40}, 0.0);
    ones.at(39) = 1.0;
    CHECK(f.reduce(ones, {.target = target}).item<double>() == 1.0);
    ones.at(0) = 1.0;
    CHECK(f.reduce(ones, {.target = target}).item<double>() == std::ldexp(1.0, 39) + 1.0);
    // accumulate and reduceat too.
    CHECK(f.accumulate(ufunc::arange<double>(5.0), {.target = target}).to_vector<double>() ==
          std::vector<double>{0, 1, 4, 11, 26});
    CHECK(f.reduceat(ufunc::arange<double>(6.0), ufunc::asarray<std::int64_t>({0, 3}), {.target = target})
              .to_vector<double>() == std::vector<double>{4, 25});
  }
  // Several axes need an identity or a reorderable functor.
  CHECK_THROWS_AS((void)f.reduce(x, {.axis = {0, 1}}), ufunc::value_error);
  CHECK_THROWS_AS((void)f.reduce(x, {.axis = ufunc::all_axes}), ufunc::value_error);
  // Empty reductions and where= need an identity or initial.
  CHECK_THROWS_AS((void)f.reduce(ufunc::zeros<double>({0})), ufunc::value_error);
  CHECK(f.reduce(ufunc::zeros<double>({0}), {.initial = 7}).item<double>() == 7);
  CHECK(f.reduce(ufunc::arange<double>(3.0), {.initial = 1.0}).item<double>() == 12);  // ((2*1+0)*2+1)*2+2
}

TEST_CASE("methods: reorderable user functors; identity from vectorize") {
  auto sum = ufunc::vectorize<
      ufunc::signatures<float(float, float), double(double, double), std::int32_t(std::int32_t, std::int32_t)>,
      ufunc::target::cpu>(plain_sum{}, "plain_sum", 0);
  auto mx = ufunc::vectorize<double(double, double), ufunc::target::cpu>(counting_max{}, "counting_max");
  auto lam = ufunc::vectorize<double(double, double), ufunc::target::cpu>(
      ufunc::reorderable_fn{[](auto a, auto b) { return a + b; }}, "lambda_sum");
  CHECK(sum.ufunc().identity().has_value());
  const auto x = ufunc::arange<double>(24.0).reshape({2, 3, 4});
  CHECK(sum.reduce(x, {.axis = {0, 2}}).to_vector<double>() == std::vector<double>{60, 92, 124});
  CHECK(sum.reduce(x, {.axis = ufunc::all_axes}).item<double>() == 276);
  CHECK(sum.reduce(ufunc::zeros<double>({0, 2}), {.axis = 0}).to_vector<double>() == std::vector<double>{0, 0});
  CHECK(mx.reduce(x, {.axis = ufunc::all_axes}).item<double>() == 23);
  CHECK(mx.reduce(x, {.axis = {2, 0}, .keepdims = true}).shape() == ufunc::dim_vector{1, 3, 1});
  CHECK_THROWS_AS((void)mx.reduce(ufunc::zeros<double>({0})), ufunc::value_error);
  CHECK(mx.reduce(ufunc::zeros<double>({0}), {.initial = -1.5}).item<double>() == -1.5);
  CHECK(lam.reduce(x, {.axis = ufunc::all_axes}).item<double>() == 276);
  // The int32 loop of a user ufunc does not get NumPy's add/multiply upcast.
  CHECK(sum.reduce(ufunc::arange<std::int32_t>(10)).type() == ufunc::int32);
  // A long float sum through the SIMD pairwise loop equals the exact result here.
  const auto big = ufunc::full<float>({100003}, 0.5f);
  CHECK(sum.reduce(big).item<float>() == 50001.5f);
}

TEST_CASE("methods: float sums are pairwise (accuracy comparable to np.sum)") {
  // The data: an LCG, the same in NumPy (see the numbers below).
  //   x: float32 in [0, 1); exact sum (math.fsum) 500035.82490974665; np.add.reduce gives
  //   500035.8125. y = x - 0.5: exact 34.32490974664688, np.add.reduce 34.324951171875.
  const std::int64_t n = 1000003;
  auto x = ufunc::empty<float>({n});
  std::uint64_t s = 12345;
  for (std::int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x.data()[i] = static_cast<float>(static_cast<double>(s >> 40) / 16777216.0);
  }
  CHECK(x.at(0) == doctest::Approx(0.10957855));
  auto y = ufunc::empty<float>({n});
  for (std::int64_t i = 0; i < n; ++i) y.data()[i] = x.data()[i] - 0.5f;
  // The built-in add once its loops carry the pairwise reduce fn (backends/cpu/methods.hpp), and a
  // user functor marked reorderable, which always does.
  auto user_sum = ufunc::vectorize<float(float, float), ufunc::target::cpu>(plain_sum{}, "user_sum", 0);
  const ufunc::dtype f32[2] = {ufunc::float32, ufunc::float32};
  const bool builtin_pairwise = ufunc::add->resolve_loop(f32).reduce != nullptr;
  if (!builtin_pairwise) MESSAGE("the built-in add has no reduce fn yet: only the user functor is checked");
  for (const std::optional<ufunc::target_id> target : ufunc_test::host_targets()) {
    for (const ufunc::function* f : {&ufunc::add.get(), &user_sum.ufunc()}) {
      if (f == &ufunc::add.get() && !builtin_pairwise) continue;
      CAPTURE(f->name());
      const float sx = f->reduce(x, {.target = target}).item<float>();
      const float sy = f->reduce(y, {.target = target}).item<float>();
      CHECK(std::abs(static_cast<double>(sx) - 500035.82490974665) <= 2 * 0.03125);  // 2 ulp
      CHECK(std::abs(static_cast<double>(sy) - 34.32490974664688) <= 10 * 4.1e-5);
      // Strided and reversed: the same accuracy.
      const ufunc::array rev = x[{ufunc::slice{std::nullopt, std::nullopt, -1}}];
      CHECK(std::abs(static_cast<double>(f->reduce(rev, {.target = target}).item<float>()) - 500035.82490974665) <=
            2 * 0.03125);
      const ufunc::array strided = y[{ufunc::slice{0, std::nullopt, 3}}];
      double exact = 0;
      for (std::int64_t i = 0; i < n; i += 3) exact += static_cast<double>(y.data()[i]);
      CHECK(std::abs(static_cast<double>(f->reduce(strided, {.target = target}).item<float>()) - exact) <= 4e-4);
    }
  }
  // A naive float32 loop is far off, so the bounds above mean something.
  float naive = 0;
  for (std::int64_t i = 0; i < n; ++i) naive += y.data()[i];
  CHECK(std::abs(static_cast<double>(naive) - 34.32490974664688) > 10 * 4.1e-5);
}

#if defined(UFUNC_HAS_TBB)
TEST_CASE("methods: parallel reductions give the same bits for every thread count and grain, as cpu") {
  const std::int64_t n = 300007;
  auto x = ufunc::empty<float>({n});
  std::uint64_t s = 99;
  for (std::int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x.data()[i] = static_cast<float>(static_cast<double>(s >> 40) / 16777216.0) - 0.3f;
  }
  const ufunc::array m = x[{ufunc::slice{0, 300000}}].reshape({600, 500});
  auto bits = [](const ufunc::array& a) {
    const auto v = a.to_vector<float>();
    std::vector<std::uint32_t> b(v.size());
    std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
    return b;
  };
  auto all_results = [&](std::optional<ufunc::target_id> t) {
    std::vector<std::vector<std::uint32_t>> r;
    r.push_back(bits(ufunc::add.reduce(x, {.target = t})));
    r.push_back(bits(ufunc::add.reduce(m, {.axis = 0, .target = t})));
    r.push_back(bits(ufunc::add.reduce(m, {.axis = 1, .target = t})));
    r.push_back(bits(ufunc::add.reduce(m, {.axis = ufunc::all_axes, .target = t})));
    r.push_back(bits(ufunc::add.reduce(m.transpose(), {.axis = 1, .target = t})));
    r.push_back(bits(ufunc::add.reduce(m[{ufunc::slice{}, ufunc::slice{0, 3}}], {.axis = 0, .target = t})));
    r.push_back(bits(ufunc::multiply.reduce(m[{ufunc::slice{0, 40}}], {.axis = 0, .target = t})));
    r.push_back(bits(ufunc::add.accumulate(m, {.axis = 0, .target = t})));
    r.push_back(bits(ufunc::add.reduce(m, {.axis = 1, .where = where_mask(m.shape()), .target = t})));
    return r;
  };
  const auto expected = all_results(ufunc::target_id::cpu);
  for (std::int64_t grain : {1, 5, 1000, 1 << 20}) {
    for (int threads : {1, 2, 3, 8}) {
      CAPTURE(grain);
      CAPTURE(threads);
      const ufunc_test::parallel_split g(grain);
      threads_guard t(threads);
      const auto got = all_results(ufunc::target_id::parallel);
      for (std::size_t k = 0; k < got.size(); ++k) {
        CAPTURE(k);
        CHECK(got[k] == expected[k]);
      }
    }
  }
}

TEST_CASE("methods: an exception thrown by a user functor during a parallel reduction reaches the caller") {
  const ufunc_test::parallel_split g(16);
  auto picky = ufunc::vectorize<double(double, double), ufunc::target::parallel>(
      [](double a, double b) {
        if (b == 777.0) throw std::domain_error("777");
        return a + b;
      },
      "picky");
  CHECK_THROWS_AS((void)picky.reduce(ufunc::arange<double>(2000.0)), std::domain_error);
  CHECK(picky.reduce(ufunc::arange<double>(100.0)).item<double>() == 4950);
}
#endif

TEST_CASE("methods: casts to the loop's dtype through buffers, long and strided") {
  // int8 adds in int64 (NumPy's rule) over 2 blocks and many cast buffers.
  const std::int64_t n = 70001;
  auto x = ufunc::empty<std::int8_t>({n});
  std::int64_t want = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    x.data()[i] = static_cast<std::int8_t>(i % 251 - 125);
    want += x.data()[i];
  }
  for (const std::optional<ufunc::target_id> target : ufunc_test::host_targets()) {
    CHECK(ufunc::add.reduce(x, {.target = target}).item<std::int64_t>() == want);
    const ufunc::array rev = x[{ufunc::slice{std::nullopt, std::nullopt, -3}}];
    std::int64_t want_rev = 0;
    for (std::int64_t i = n - 1; i >= 0; i -= 3) want_rev += x.data()[i];
    CHECK(ufunc::add.reduce(rev, {.target = target}).item<std::int64_t>() == want_rev);
    // Masked, cast and blocked at once.
    auto mask = ufunc::empty<bool>({n});
    std::int64_t want_masked = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      mask.data()[i] = (i / 7) % 3 == 0;
      if (mask.data()[i]) want_masked += x.data()[i];
    }
    CHECK(ufunc::add.reduce(x, {.where = mask, .target = target}).item<std::int64_t>() == want_masked);
    // float64 from int16 (dtype=) along axis 0 of a (700, 100) view.
    const ufunc::array m = x[{ufunc::slice{0, 70000}}].reshape({700, 100});
    const auto col = ufunc::add.reduce(m, {.axis = 0, .dtype = ufunc::float64, .target = target}).to_vector<double>();
    double c0 = 0;
    for (std::int64_t i = 0; i < 700; ++i) c0 += x.data()[i * 100];
    CHECK(col[0] == c0);
  }
}

TEST_CASE("methods: out= is written in place, cast, and may be any view") {
  const auto x = ufunc::arange<double>(12.0).reshape({3, 4});
  auto out = ufunc::zeros<double>({8});
  const ufunc::array every_other = out[{ufunc::slice{0, std::nullopt, 2}}];  // shape (4,)
  const ufunc::array r = ufunc::add.reduce(x, {.out = every_other});
  CHECK(r.data() == every_other.data());
  CHECK(out.to_vector() == std::vector<double>{12, 0, 15, 0, 18, 0, 21, 0});
  // Reversed out, and out of another dtype (unsafe cast: float to int16).
  auto out16 = ufunc::zeros<std::int16_t>({4});
  ufunc::add.reduce(ufunc::asarray<double>({0.5, 0.75, 1.5, 2.25, 1.0, 1.0, 1.0, 1.0}).reshape({2, 4}),
                    {.out = out16[{ufunc::slice{std::nullopt, std::nullopt, -1}}]});
  CHECK(out16.to_vector() == std::vector<std::int16_t>{3, 2, 1, 1});
  // out overlapping the input: the input is read before out is written.
  auto y = ufunc::arange<double>(6.0);
  ufunc::add.reduce(y.reshape({2, 3}), {.out = y[{ufunc::slice{0, 3}}]});
  CHECK(y.to_vector() == std::vector<double>{3, 5, 7, 3, 4, 5});
  // Shape and dtype checks.
  CHECK_THROWS_AS((void)ufunc::add.reduce(x, {.out = ufunc::zeros<double>({3})}), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)ufunc::add.reduce(x, {.out = ufunc::zeros<double>({1, 4})}), ufunc::value_error);
  CHECK_NOTHROW((void)ufunc::add.reduce(x, {.out = ufunc::zeros<double>({1, 4}), .keepdims = true}));
  CHECK_THROWS_AS((void)ufunc::add.reduce(x, {.out = ufunc::zeros<double>({4}).as_readonly()}), ufunc::overlap_error);
}

TEST_CASE("methods: messages name the ufunc, the axis and the shapes") {
  const auto x = ufunc::arange<double>(6.0).reshape({2, 3});
  CHECK(contains(message_of([&] { (void)ufunc::sin.reduce(x); }), "reduce only supported for binary functions"));
  CHECK(contains(message_of([&] { (void)ufunc::sin.reduce(x); }), "'sin'"));
  CHECK(contains(message_of([&] { (void)ufunc::divmod.reduce(x); }), "single value"));
  CHECK(contains(message_of([&] { (void)ufunc::add.reduce(x, {.axis = 2}); }),
                 "axis 2 is out of bounds for array of dimension 2"));
  CHECK(contains(message_of([&] { (void)ufunc::add.reduce(x, {.axis = {1, -1}}); }), "duplicate value in 'axis'"));
  CHECK(contains(message_of([&] { (void)ufunc::subtract.reduce(x, {.axis = ufunc::all_axes}); }),
                 "'subtract' is not reorderable"));
  CHECK(contains(message_of([&] {
                   (void)ufunc::subtract.reduce(ufunc::zeros<double>({0, 3}));
                 }),
                 "zero-size array to reduction operation subtract which has no identity"));
  CHECK(contains(message_of([&] {
                   (void)ufunc::subtract.reduce(x, {.where = where_mask({2, 3})});
                 }),
                 "to use a where mask one has to specify 'initial'"));
  CHECK(contains(message_of([&] { (void)ufunc::add.reduce(ufunc::arange<std::uint8_t>(3), {.initial = -1}); }),
                 "Python integer -1 out of bounds for uint64"));
  CHECK_THROWS_AS((void)ufunc::add.reduce(ufunc::arange<float>(3.0f), {.initial = std::complex<double>(1, 2)}),
                  ufunc::casting_error);
  CHECK_THROWS_AS((void)ufunc::add.reduce(x, {.where = ufunc::zeros<std::int32_t>({3})}), ufunc::dtype_error);
  CHECK(contains(message_of([&] { (void)ufunc::add.reduce(x, {.where = where_mask({2, 2, 3})}); }), "(2, 3)"));
  CHECK(contains(message_of([&] { (void)ufunc::add.reduce(x, {.out = ufunc::zeros<double>({2})}); }), "(3,)"));
  CHECK(contains(message_of([&] { (void)ufunc::add.accumulate(ufunc::scalar(1.0)); }), "scalar"));
  CHECK(contains(message_of([&] { (void)ufunc::add.accumulate(x, {.axis = -3}); }), "axis -3"));
  CHECK(contains(message_of([&] { (void)ufunc::add.accumulate(x, {.out = ufunc::zeros<double>({3, 2})}); }), "(3, 2)"));
  CHECK(contains(message_of([&] {
                   (void)ufunc::add.reduceat(ufunc::arange<double>(8.0), ufunc::asarray<std::int64_t>({0, 8}));
                 }),
                 "index 8 out-of-bounds in add.reduceat [0, 8)"));
  CHECK_THROWS_AS((void)ufunc::add.reduceat(x, ufunc::asarray<double>({0.0})), ufunc::casting_error);
  CHECK_THROWS_AS((void)ufunc::add.reduceat(x, ufunc::zeros<std::int64_t>({1, 1})), ufunc::value_error);
  CHECK(contains(message_of([&] { (void)ufunc::sin.outer(x, x); }), "outer product only supported for binary"));
  // Bool indices for reduceat count as 0 and 1, as NumPy.
  CHECK(ufunc::add.reduceat(ufunc::arange<double>(8.0), ufunc::asarray<bool>({true, false})).to_vector<double>() ==
        std::vector<double>{1, 28});
}

TEST_CASE("methods: axis forms, 0-d inputs, keepdims") {
  const auto x = ufunc::arange<double>(24.0).reshape({2, 3, 4});
  CHECK(ufunc::add.reduce(x, {.axis = ufunc::axes::none()}).shape() == x.shape());
  CHECK(ufunc::add.reduce(x, {.axis = {}}).shape() == ufunc::dim_vector{3, 4});  // default: axis 0
  CHECK(ufunc::add.reduce(x, {.axis = ufunc::all_axes, .keepdims = true}).shape() == ufunc::dim_vector{1, 1, 1});
  CHECK(ufunc::add.reduce(x, {.axis = -1, .keepdims = true}).shape() == ufunc::dim_vector{2, 3, 1});
  // 0-d: axis=0 and -1 as integers are accepted, as tuples they are not.
  const auto s = ufunc::scalar(-0.0);
  CHECK(ufunc::add.reduce(s).ndim() == 0);
  CHECK(!std::signbit(ufunc::add.reduce(s).item<double>()));  // 0 (identity) + -0.0
  CHECK(std::signbit(ufunc::multiply.reduce(s).item<double>()));
  CHECK_THROWS_AS((void)ufunc::add.reduce(s, {.axis = {0}}), ufunc::index_error);
  CHECK_THROWS_AS((void)ufunc::add.reduce(s, {.axis = 1}), ufunc::index_error);
  CHECK(ufunc::subtract.reduce(ufunc::scalar(5.0), {.axis = ufunc::all_axes}).item<double>() == 5.0);
}

// ---- outer -----------------------------------------------------------------------

TEST_CASE("methods: outer takes every call option and C++ scalars as NumPy's asarray") {
  const auto a = ufunc::arange<float>(3.0f), b = ufunc::arange<float>(4.0f);
  auto out = ufunc::zeros<double>({3, 4});
  ufunc::multiply.outer(a, b, {.out = {out}});
  CHECK(out.at(2, 3) == 6.0);
  const ufunc::array masked = ufunc::add.outer(a, b, {.where = ufunc::asarray<bool>({true, false, true, false})});
  CHECK(masked.at<float>(1, 1) == 0.0f);
  CHECK(masked.at<float>(1, 2) == 3.0f);
  CHECK(ufunc::add.outer(a, b, {.dtype = ufunc::float64}).type() == ufunc::float64);
  // np.add.outer(np.arange(3, dtype=float32), 2.5) is float64: outer converts scalars to arrays.
  CHECK(ufunc::add.outer(a, 2.5).type() == ufunc::float64);
  CHECK(ufunc::add.outer(2, b).shape() == ufunc::dim_vector{4});
  // Strided and transposed operands.
  const auto m = ufunc::arange<double>(6.0).reshape({2, 3});
  const ufunc::array r = ufunc::subtract.outer(m.transpose(), m[{0, ufunc::slice{std::nullopt, std::nullopt, -1}}]);
  CHECK(r.shape() == ufunc::dim_vector{3, 2, 3});
  CHECK(r.at<double>(2, 1, 0) == 5.0 - 2.0);
}

// ---- at ------------------------------------------------------------------------------

TEST_CASE("methods: at is unbuffered: repeated indices apply repeatedly, in order") {
  // np.add.at(a, [0, 0, 2], 1) -> [2, 0, 1]
  auto a = ufunc::zeros<double>({3});
  ufunc::add.at(a, ufunc::asarray<std::int64_t>({0, 0, 2}), 1);
  CHECK(a.to_vector() == std::vector<double>{2, 0, 1});
  // np.subtract.at(a, [0, 0, 2], [1., 2., 3.]) -> [-3, 0, -3]
  auto s = ufunc::zeros<double>({3});
  ufunc::subtract.at(s, ufunc::asarray<std::int32_t>({0, 0, 2}), ufunc::asarray<double>({1, 2, 3}));
  CHECK(s.to_vector() == std::vector<double>{-3, 0, -3});
  // A non-commutative user functor sees the updates in index order: 2 * (2 * 1 + 5) + 7.
  auto f = ufunc::vectorize<double(double, double), ufunc::target::cpu>(twice_plus{}, "twice_plus");
  auto t = ufunc::full<double>({2}, 1.0);
  f.at(t, ufunc::asarray<std::int64_t>({1, 1}), ufunc::asarray<double>({5, 7}));
  CHECK(t.to_vector() == std::vector<double>{1, 21});
  // Negative indices; uint8 and bool indices.
  auto n = ufunc::zeros<double>({3});
  ufunc::add.at(n, ufunc::asarray<std::int64_t>({-1}), 1);
  ufunc::add.at(n, ufunc::asarray<std::uint8_t>({0}), 1);
  ufunc::add.at(n, ufunc::asarray<bool>({true, false, true}), 10);
  CHECK(n.to_vector() == std::vector<double>{11, 0, 11});
  // Unary: np.negative.at(np.arange(3.), [0, 0]) leaves a[0] == 0 (negated twice), [1, 2] too.
  auto u = ufunc::arange<double>(1.0, 4.0);
  ufunc::negative.at(u, ufunc::asarray<std::int64_t>({0, 0, 2}));
  CHECK(u.to_vector() == std::vector<double>{1, 2, -3});
}

TEST_CASE("methods: at with several index arrays, trailing axes and broadcasting b") {
  // np.add.at(zeros((2, 3)), [0, 0], [1., 2., 3.]) -> [[2, 4, 6], [0, 0, 0]]
  auto a = ufunc::zeros<double>({2, 3});
  ufunc::add.at(a, ufunc::asarray<std::int64_t>({0, 0}), ufunc::asarray<double>({1, 2, 3}));
  CHECK(a.to_vector() == std::vector<double>{2, 4, 6, 0, 0, 0});
  // np.add.at(zeros((2, 3)), ([0, 1], [[2], [1]]), [[1], [10]]) -> [[0, 10, 1], [0, 10, 1]]
  auto b = ufunc::zeros<double>({2, 3});
  ufunc::add.at(b, {ufunc::asarray<std::int64_t>({0, 1}), ufunc::asarray<std::int64_t>({2, 1}, {2, 1})},
                ufunc::asarray<double>({1, 10}, {2, 1}));
  CHECK(b.to_vector() == std::vector<double>{0, 10, 1, 0, 10, 1});
  // Strided and transposed a.
  auto big = ufunc::zeros<double>({4, 6});
  const ufunc::array view = big[{ufunc::slice{std::nullopt, std::nullopt, -2}, ufunc::slice{0, std::nullopt, 2}}];
  ufunc::add.at(view.transpose(), ufunc::asarray<std::int64_t>({2, 2}), ufunc::asarray<double>({1, 2}));
  // view = big[3::-2, ::2] (rows 3, 1; columns 0, 2, 4); view.T[2] is column 4 of rows 3 and 1.
  CHECK(big.at<double>(3, 4) == 2.0);
  CHECK(big.at<double>(1, 4) == 4.0);
  // Casts: int64 a with a float b (float64 loop, cast back unsafely: 1.5 -> 1); int8 a with 300 (int64 loop, wraps).
  auto i = ufunc::zeros<std::int64_t>({3});
  // (target cpu: on cuda, a must have the loop's dtype; see tests/cuda)
  constexpr auto on_cpu = ufunc::target_id::cpu;
  ufunc::add.at(i, ufunc::asarray<std::int64_t>({0}), 1.5, {.target = on_cpu});
  CHECK(i.at(0) == 1);
  auto i8 = ufunc::zeros<std::int8_t>({3});
  ufunc::add.at(i8, ufunc::asarray<std::int64_t>({0}), 300, {.target = on_cpu});
  CHECK(i8.at(0) == 44);
  auto f32 = ufunc::zeros<float>({3});
  ufunc::add.at(f32, ufunc::asarray<std::int64_t>({1, 1}), ufunc::asarray<double>({0.25, 0.5}), {.target = on_cpu});
  CHECK(f32.at(1) == 0.75f);
}

TEST_CASE("methods: at checks every index before writing anything") {
  auto a = ufunc::arange<double>(3.0);
  const auto before = a.to_vector();
  CHECK(contains(message_of([&] {
                   ufunc::add.at(a, ufunc::asarray<std::int64_t>({0, 3}), 1);
                 }),
                 "index 3 is out of bounds for axis 0 with size 3"));
  CHECK_THROWS_AS(ufunc::add.at(a, ufunc::asarray<std::int64_t>({1, -4}), 1), ufunc::index_error);
  CHECK(a.to_vector() == before);  // nothing corrupted
  CHECK_THROWS_AS(ufunc::add.at(a, ufunc::asarray<double>({0.0}), 1), ufunc::index_error);
  CHECK_THROWS_AS(ufunc::add.at(a, {ufunc::asarray<std::int64_t>({0}), ufunc::asarray<std::int64_t>({0})}, 1),
                  ufunc::index_error);
  CHECK_THROWS_AS(ufunc::add.at(a, ufunc::asarray<bool>({true, false}), 1), ufunc::index_error);
  CHECK_THROWS_AS(ufunc::add.at(a, ufunc::asarray<std::int64_t>({0, 1}), ufunc::asarray<double>({1, 2, 3})),
                  ufunc::broadcast_error);  // NumPy: ValueError "array is not broadcastable"
  CHECK(contains(message_of([&] { ufunc::add.at(a, ufunc::asarray<std::int64_t>({0})); }), "second operand needed"));
  CHECK(contains(message_of([&] { ufunc::negative.at(a, ufunc::asarray<std::int64_t>({0}), 1); }),
                 "second operand provided when ufunc is unary"));
  CHECK_THROWS_AS(ufunc::divmod.at(a, ufunc::asarray<std::int64_t>({0}), 1), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::add.at(a.as_readonly(), ufunc::asarray<std::int64_t>({0}), 1), ufunc::overlap_error);
  CHECK(a.to_vector() == before);
  // Index broadcasting errors are IndexError in NumPy.
  auto m = ufunc::zeros<double>({2, 3});
  CHECK_THROWS_AS(ufunc::add.at(m, {ufunc::asarray<std::int64_t>({0, 1}), ufunc::asarray<std::int64_t>({0, 1, 2})}, 1),
                  ufunc::index_error);
  // Empty index: nothing happens.
  ufunc::add.at(a, ufunc::zeros<std::int64_t>({0}), 1);
  CHECK(a.to_vector() == before);
}

TEST_CASE("methods: at resolves the loop before it looks at the indices and b, as NumPy") {
  // np.ldexp.at(complex64 (0, 3), [], int32 (4, 3)): no loop, although b does not broadcast.
  auto z = ufunc::zeros<std::complex<float>>({0, 3});
  CHECK_THROWS_AS(ufunc::ldexp.at(z, ufunc::zeros<std::int64_t>({0}), ufunc::zeros<std::int32_t>({4, 3})),
                  ufunc::no_loop_error);
  auto z3 = ufunc::zeros<std::complex<float>>({3});
  CHECK_THROWS_AS(ufunc::ldexp.at(z3, ufunc::asarray<std::int64_t>({5}), ufunc::zeros<std::int32_t>({1})),
                  ufunc::no_loop_error);
  auto f3 = ufunc::zeros<float>({3});
  CHECK_THROWS_AS(ufunc::bitwise_and.at(f3, ufunc::asarray<std::int64_t>({5}), ufunc::zeros<float>({3})),
                  ufunc::no_loop_error);
  // With a loop, the index and then b's shape are checked.
  CHECK_THROWS_AS(ufunc::ldexp.at(f3, ufunc::asarray<std::int64_t>({5}), ufunc::zeros<std::int32_t>({1})),
                  ufunc::index_error);
  CHECK_THROWS_AS(ufunc::ldexp.at(f3, ufunc::asarray<std::int64_t>({0, 1}), ufunc::zeros<std::int32_t>({3})),
                  ufunc::broadcast_error);
}

TEST_CASE("methods: complex maximum and minimum reductions return the first NaN, as NumPy's in-order fold") {
  std::vector<std::complex<double>> v(100, {1.0, 0.0});
  const double nan = std::nan("");
  v[13] = {nan, nan};  // the first: NumPy's answer
  v[14] = {9.8, nan};
  v[52] = {-0.98, nan};
  v[62] = {nan, 0.99};
  const auto a = ufunc::asarray<std::complex<double>>(std::span<const std::complex<double>>(v));
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  for (const auto& target : ufunc_test::host_targets()) {
    for (const ufunc::dim_vector& shape : {ufunc::dim_vector{100}, ufunc::dim_vector{5, 5, 1, 4}}) {
      for (const auto* f : {&ufunc::maximum, &ufunc::minimum}) {
        CAPTURE(shape.size());
        const auto r = f->reduce(a.reshape(shape), {.axis = ufunc::all_axes, .target = target});
        const auto z = r.item<std::complex<double>>();
        CHECK(std::isnan(z.real()));
        CHECK(std::isnan(z.imag()));
      }
    }
  }
}

#if !defined(UFUNC_HAS_CUDA)
TEST_CASE("methods: target cuda is refused in a build without it") {
  CHECK_THROWS_AS((void)ufunc::add.reduce(ufunc::arange<double>(3.0), {.target = ufunc::target_id::cuda}),
                  ufunc::target_error);
  CHECK_THROWS_AS((void)ufunc::add.accumulate(ufunc::arange<double>(3.0), {.target = ufunc::target_id::cuda}),
                  ufunc::target_error);
}
#endif

TEST_CASE("methods: outer_all returns every output of a two-output ufunc (np.divmod.outer)") {
  const auto a = ufunc::asarray<std::int64_t>({7, -7, 9});
  const auto b = ufunc::asarray<std::int64_t>({2, -3});
  const auto both = ufunc::divmod.outer_all(a, b);
  REQUIRE(both.size() == 2);
  // NumPy: np.divmod.outer([7, -7, 9], [2, -3]) = ([[3, -3], [-4, 2], [4, -3]], [[1, -2], [1, -1], [1, 0]])
  const std::vector<std::int64_t> q = {3, -3, -4, 2, 4, -3}, r = {1, -2, 1, -1, 1, 0};
  CHECK(both[0].shape() == ufunc::dim_vector{3, 2});
  CHECK(both[0].to_vector<std::int64_t>() == q);
  CHECK(both[1].to_vector<std::int64_t>() == r);
  // outer() names the method that returns them all.
  CHECK_THROWS_WITH_AS((void)ufunc::divmod.outer(a, b), doctest::Contains("outer_all()"), ufunc::value_error);
  // Single-output ufuncs give the same result both ways.
  CHECK(ufunc::add.outer_all(a, b).at(0).to_vector<std::int64_t>() == ufunc::add.outer(a, b).to_vector<std::int64_t>());
}

// ---- empty reductions -----------------------------------------------------------------

namespace {

struct empty_case {
  ufunc::dim_vector shape;
  ufunc::axes axis;
  int naxes;
  bool refused;  // without a start value (NumPy: an empty reduced axis)
  ufunc::dim_vector result, result_keepdims;
};

// NumPy 2.4.6: a reduced axis of length 0 needs a start value even where the result is empty
// (np.fmin.reduce(np.empty((0, 0)), axis=-2) raises); an empty array reduced along axes of
// nonzero length does not (np.fmin.reduce(np.empty((0, 3)), axis=1) has shape (0,)).
std::vector<empty_case> empty_cases() {
  return {
      {{0}, 0, 1, true, {}, {1}},
      {{0, 0}, -2, 1, true, {0}, {1, 0}},
      {{0, 0}, -1, 1, true, {0}, {0, 1}},
      {{0, 0}, ufunc::all_axes, 2, true, {}, {1, 1}},
      {{0, 3}, 0, 1, true, {3}, {1, 3}},
      {{0, 3}, 1, 1, false, {0}, {0, 1}},
      {{3, 0}, 1, 1, true, {3}, {3, 1}},
      {{3, 0}, 0, 1, false, {0}, {1, 0}},
      {{3, 0}, ufunc::all_axes, 2, true, {}, {1, 1}},
      {{2, 0, 3}, {1}, 1, true, {2, 3}, {2, 1, 3}},
      {{2, 0, 3}, {0, 2}, 2, false, {0}, {1, 0, 1}},
      {{2, 3, 0}, {0, 1}, 2, false, {0}, {1, 1, 0}},
      {{0, 3}, ufunc::axes::none(), 0, false, {0, 3}, {0, 3}},
  };
}

std::string shape_text(const ufunc::dim_vector& s) { return ufunc::array::shape_string(s); }

}  // namespace

TEST_CASE("methods: reductions without an identity refuse every empty reduced axis, as NumPy") {
  for (const char* name : {"fmin", "fmax", "minimum", "maximum", "nextafter", "subtract", "arctan2", "floor_divide"}) {
    const ufunc::function& f = builtin(name);
    const bool reorderable = f.resolve_loop(std::vector<ufunc::dtype>{ufunc::float64, ufunc::float64}).reorderable;
    const std::string no_identity =
        std::string("zero-size array to reduction operation ") + name + " which has no identity";
    for (const auto& c : empty_cases()) {
      for (const bool keepdims : {false, true}) {
        for (const auto target : ufunc_test::host_targets()) {
          CAPTURE(name);
          CAPTURE(shape_text(c.shape));
          CAPTURE(c.naxes);
          CAPTURE(keepdims);
          const auto x = ufunc::array::zeros(c.shape, ufunc::float64);
          const ufunc::dim_vector& expected = keepdims ? c.result_keepdims : c.result;
          const auto reduce = [&](std::optional<ufunc::weak_scalar> initial, ufunc::array where) {
            return f.reduce(
                x, {.axis = c.axis, .keepdims = keepdims, .initial = initial, .where = where, .target = target});
          };
          if (c.naxes > 1 && !reorderable) {  // NumPy says so first
            CHECK(contains(message_of([&] { (void)reduce({}, {}); }), "is not reorderable"));
            continue;
          }
          if (c.refused) {
            CHECK_THROWS_AS((void)reduce({}, {}), ufunc::value_error);
            CHECK(contains(message_of([&] { (void)reduce({}, {}); }), no_identity));
          } else {
            const auto r = reduce({}, {});
            CHECK(r.shape() == expected);
            CHECK(r.size() == 0);
          }
          // initial= makes every one of them a reduction, filled with it.
          const auto r = reduce(5.0, {});
          CHECK(r.shape() == expected);
          for (const double v : r.to_vector<double>()) CHECK(v == 5.0);
          // where= needs initial= without an identity, empty or not.
          const auto mask = ufunc::array::zeros(c.shape, ufunc::bool_);
          CHECK(contains(message_of([&] { (void)reduce({}, mask); }),
                         "to use a where mask one has to specify 'initial'"));
          CHECK(reduce(5.0, mask).shape() == expected);
        }
      }
    }
  }
}

TEST_CASE("methods: empty reductions with an identity give the identity, where= or not") {
  struct with_identity {
    const char* name;
    ufunc::dtype type;
    double identity;
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& u :
       {with_identity{"add", ufunc::float64, 0.0}, with_identity{"multiply", ufunc::int32, 1.0},
        with_identity{"logaddexp", ufunc::float32, -inf}, with_identity{"logical_and", ufunc::bool_, 1.0},
        with_identity{"bitwise_or", ufunc::uint8, 0.0}}) {
    const ufunc::function& f = builtin(u.name);
    for (const auto& c : empty_cases()) {
      for (const bool keepdims : {false, true}) {
        for (const auto target : ufunc_test::host_targets()) {
          CAPTURE(u.name);
          CAPTURE(shape_text(c.shape));
          CAPTURE(keepdims);
          const auto x = ufunc::array::zeros(c.shape, u.type);
          for (const bool masked : {false, true}) {
            const auto r = f.reduce(x, {.axis = c.axis,
                                        .keepdims = keepdims,
                                        .where = masked ? ufunc::array::zeros(c.shape, ufunc::bool_) : ufunc::array(),
                                        .target = target});
            CHECK(r.shape() == (keepdims ? c.result_keepdims : c.result));
            for (const double v : r.astype(ufunc::float64).to_vector<double>()) CHECK(v == u.identity);
          }
        }
      }
    }
  }
}

TEST_CASE("methods: accumulate and reduceat of empty arrays need no identity, as NumPy") {
  const auto e03 = ufunc::array::zeros({0, 3}, ufunc::float64), e30 = ufunc::array::zeros({3, 0}, ufunc::float64);
  const auto idx = [](std::initializer_list<std::int64_t> v) { return ufunc::asarray<std::int64_t>(v); };
  for (const auto target : ufunc_test::host_targets()) {
    for (const auto* f : {&ufunc::fmin, &ufunc::subtract, &ufunc::add}) {
      CAPTURE(f->get().name());
      // np.fmin.accumulate(np.empty((0, 3)), axis=0).shape == (0, 3), and so on.
      CHECK(f->accumulate(e03, {.axis = 0, .target = target}).shape() == ufunc::dim_vector{0, 3});
      CHECK(f->accumulate(e03, {.axis = 1, .target = target}).shape() == ufunc::dim_vector{0, 3});
      CHECK(f->accumulate(e30, {.axis = 1, .target = target}).shape() == ufunc::dim_vector{3, 0});
      CHECK(f->accumulate(ufunc::array::zeros({0}, ufunc::float64), {.target = target}).shape() ==
            ufunc::dim_vector{0});
      // np.fmin.reduceat(np.empty((3, 0)), [0, 0]).shape == (2, 0); (0, 3) along axis 1 with [0, 0]: (0, 2).
      CHECK(f->reduceat(e30, idx({0, 0}), {.axis = 0, .target = target}).shape() == ufunc::dim_vector{2, 0});
      CHECK(f->reduceat(e03, idx({0, 0}), {.axis = 1, .target = target}).shape() == ufunc::dim_vector{0, 2});
      CHECK(f->reduceat(e03, idx({}), {.axis = 0, .target = target}).shape() == ufunc::dim_vector{0, 3});
      // An index into an empty axis is out of bounds: "index 0 out-of-bounds in fmin.reduceat [0, 0)".
      CHECK_THROWS_AS((void)f->reduceat(e03, idx({0}), {.axis = 0, .target = target}), ufunc::index_error);
      CHECK(contains(message_of([&] { (void)f->reduceat(e30, idx({0}), {.axis = 1, .target = target}); }),
                     "index 0 out-of-bounds in " + f->get().name() + ".reduceat [0, 0)"));
    }
  }
}

TEST_CASE("methods: reduce runs a loop whose second input has another dtype (ldexp), as NumPy's reduce") {
  // NumPy 2 resolves reduce as a call on (x, x) (dtype= fixes the first input and the output; out= stands for
  // the first input) and requires only the first input and the output to agree: the start value is x's first
  // element cast to the output's dtype, the others are cast to the second input's. Hard-coded:
  //   np.ldexp.reduce(np.array([3, 1, 2]))                      24.0 (float64: the loop dl->d)
  //   np.ldexp.reduce(np.array([3, 2**32 + 1]))                 inf (int64 exponents: di->d would give 6.0)
  //   np.ldexp.reduce(np.array([3, 5], 'i2'))                   float32 96.0 (fi->f); 'i4': float64 96.0 (di->d)
  //   np.ldexp.reduce(np.array([3, 5], 'u4'))                   float64 96.0 (dl->d)
  //   np.ldexp.reduce(np.array([3, 5], 'u8')), of float64s      TypeError (no loop)
  //   np.ldexp.reduce(np.array([3, 2**32 + 1]), dtype='f')      float32 inf (fl->f, not fi->f)
  //   np.ldexp.reduce(np.array([3, 5], 'i2'), dtype='d')        float64 96.0 (di->d)
  //   np.ldexp.reduce(np.array([3, 5], 'u8'), dtype='d'), dtype='l'   TypeError
  //   np.ldexp.reduce(np.array([3, 1, 2]), out=np.empty((), 'l'))     24 (int64)
  //   np.ldexp.reduce(np.array([3, 1, 2]), initial=1)           64.0; with where=[True, False, True], initial=1.0: 32.0
  //   np.ldexp.reduce(np.array([[3, 1], [2, 2], [1, 0]]), axis=0)   [24., 4.]; axis=1: [6., 8., 1.]
  //   np.ldexp.reduce(np.ones((0, 3), 'l'), axis=0, initial=2.5)  [2.5, 2.5, 2.5]
  //   axis=None on a 2-d array: ValueError (not reorderable); np.ldexp.accumulate(np.array([3, 1, 2])) and
  //   np.ldexp.reduceat(...): TypeError "the resolved dtypes are not compatible with ldexp.accumulate".
  // (NumPy's AVX-512 loops fi->f and di->d get chains of three or more elements wrong, as its power and arctan2
  // loops: np.ldexp.reduce(np.array([3, 1, 2], 'i4')) is 12.0 there; the library folds left, 24.0.)
  using ufunc::ldexp;
  const auto i64 = [](std::initializer_list<std::int64_t> v) { return ufunc::asarray<std::int64_t>(v); };
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
    auto r = ldexp.reduce(i64({3, 1, 2}), {.target = target});
    CHECK(r.type() == ufunc::float64);
    CHECK(r.item<double>() == 24.0);
    CHECK(std::isinf(ldexp.reduce(i64({3, (std::int64_t{1} << 32) + 1}), {.target = target}).item<double>()));
    r = ldexp.reduce(ufunc::asarray<std::int16_t>({3, 5}), {.target = target});
    CHECK(r.type() == ufunc::float32);
    CHECK(r.item<float>() == 96.0f);
    r = ldexp.reduce(ufunc::asarray<std::int32_t>({3, 1, 2}), {.target = target});
    CHECK(r.type() == ufunc::float64);
    CHECK(r.item<double>() == 24.0);
    CHECK(ldexp.reduce(ufunc::asarray<std::uint32_t>({3, 5}), {.target = target}).item<double>() == 96.0);
    CHECK_THROWS_AS((void)ldexp.reduce(ufunc::asarray<std::uint64_t>({3, 5}), {.target = target}),
                    ufunc::no_loop_error);
    CHECK_THROWS_AS((void)ldexp.reduce(ufunc::asarray<double>({3, 5}), {.target = target}), ufunc::no_loop_error);
    r = ldexp.reduce(i64({3, (std::int64_t{1} << 32) + 1}), {.dtype = ufunc::float32, .target = target});
    CHECK(r.type() == ufunc::float32);
    CHECK(std::isinf(r.item<float>()));
    r = ldexp.reduce(ufunc::asarray<std::int16_t>({3, 5}), {.dtype = ufunc::float64, .target = target});
    CHECK(r.type() == ufunc::float64);
    CHECK(r.item<double>() == 96.0);
    CHECK_THROWS_AS((void)ldexp.reduce(ufunc::asarray<std::uint64_t>({3, 5}), {.dtype = ufunc::float64}),
                    ufunc::no_loop_error);
    CHECK_THROWS_AS((void)ldexp.reduce(i64({3, 5}), {.dtype = ufunc::int64}), ufunc::no_loop_error);
    auto out = ufunc::array::empty({}, ufunc::int64);
    (void)ldexp.reduce(i64({3, 1, 2}), {.out = out, .target = target});
    CHECK(out.item<std::int64_t>() == 24);
    CHECK(ldexp.reduce(i64({3, 1, 2}), {.initial = 1, .target = target}).item<double>() == 64.0);
    CHECK(ldexp
              .reduce(i64({3, 1, 2}),
                      {.initial = 1.0, .where = ufunc::asarray<bool>({true, false, true}), .target = target})
              .item<double>() == 32.0);
    const auto m = i64({3, 1, 2, 2, 1, 0}).reshape({3, 2});
    CHECK(ldexp.reduce(m, {.axis = 0, .target = target}).to_vector<double>() == std::vector<double>{24, 4});
    CHECK(ldexp.reduce(m, {.axis = 1, .target = target}).to_vector<double>() == std::vector<double>{6, 8, 1});
    CHECK(ldexp.reduce(m.transpose(), {.axis = 1, .target = target}).to_vector<double>() == std::vector<double>{24, 4});
    r = ldexp.reduce(m, {.axis = 1, .keepdims = true, .target = target});
    CHECK(r.shape() == ufunc::dim_vector{3, 1});
    CHECK(ldexp.reduce(ufunc::array::zeros({0, 3}, ufunc::int64), {.axis = 0, .initial = 2.5, .target = target})
              .to_vector<double>() == std::vector<double>{2.5, 2.5, 2.5});
    CHECK_THROWS_AS((void)ldexp.reduce(m, {.axis = ufunc::all_axes, .target = target}), ufunc::value_error);
    CHECK_THROWS_WITH_AS((void)ldexp.accumulate(i64({3, 1, 2}), {.target = target}),
                         doctest::Contains("the resolved dtypes are not compatible with ldexp.accumulate. Resolved "
                                           "(float64, int64, float64)"),
                         ufunc::no_loop_error);
    CHECK_THROWS_AS((void)ldexp.reduceat(i64({3, 1, 2}), i64({0, 2}), {.target = target}), ufunc::no_loop_error);
    // Long runs through the cast buffers (int8 exponents read as int32, fi->f), in both of the engine's modes:
    // folding along a long axis, and mapping across many outputs of a short one. The left fold's values.
    std::vector<std::int8_t> e(2601, 1);
    e[0] = 3;
    for (std::size_t i = 2; i < e.size(); i += 2) e[i] = -1;
    r = ldexp.reduce(ufunc::asarray<std::int8_t>(e), {.target = target});
    CHECK(r.type() == ufunc::float16);  // ei->e, NumPy's first loop that int8 casts to
    CHECK(static_cast<float>(r.item<ufunc::float16_t>()) == 3.0f);
    std::vector<std::int8_t> rows(300, 1);
    for (std::size_t i = 100; i < 200; ++i) rows[i] = 2;
    for (std::size_t i = 200; i < 300; ++i) rows[i] = -1;
    r = ldexp.reduce(ufunc::asarray<std::int8_t>(rows).reshape({3, 100}), {.axis = 0, .target = target});
    CHECK(r.to_vector<float>() == std::vector<float>(100, 2.0f));
    // Seed 7's r28102: 33 int16 (fi->f), through 2^40 and underflow to -0.0, where the chain stays; only
    // underflow. NumPy 2.4's AVX-512 fi->f keeps ldexp(acc, last) of each block of 16: ldexp(-25611, 31281)
    // overflows, and it returns -inf.
    const std::vector<std::int16_t> chain = {
        -25611, 40,    -4146, -28801, 33,  24871, -27369, -128, -4651, -1, 40,     5, 32, 64, 19299, -16,  31281,
        -15,    -5509, 1,     -12447, -20, -16,   -32114, -100, 30,    32, -30300, 8, 32, 7,  -3,    26576};
    unsigned seen = 0;
    {
      ufunc::errstate record({.all = ufunc::fp_policy::call}, [&](std::string_view, unsigned f) { seen |= f; });
      r = ldexp.reduce(ufunc::asarray<std::int16_t>(std::span<const std::int16_t>(chain)), {.target = target});
    }
    CHECK(r.type() == ufunc::float32);
    CHECK(r.item<float>() == 0.0f);
    CHECK(std::signbit(r.item<float>()));
    CHECK(seen == static_cast<unsigned>(ufunc::fp_flag::underflow));
  }
}

namespace {

// Both parts equal, any NaN matching any NaN (NumPy's NaN signs vary by loop).
bool same_parts(std::complex<double> got, std::complex<double> want) {
  const auto eq = [](double g, double w) { return std::isnan(w) ? std::isnan(g) : g == w; };
  return eq(got.real(), want.real()) && eq(got.imag(), want.imag());
}

}  // namespace

TEST_CASE("complex multiply and square with infinities: NumPy's SIMD or scalar formula per method") {
  // NumPy's SIMD loops form (ac - bd) + (ad + bc)j with fmas (fmaddsub); on in-place or
  // overlapping operands and zero strides they run the scalar loop, every product
  // rounded: ufunc.at (the indexed loop; square in place), accumulate over more than two
  // steps (out[i-1] overlaps out[i] along the axis). Where a product overflows the two
  // differ: (1e200+1j) * (inf-1e200j) is inf+infj with fmas and inf+nanj without.
  using C = std::complex<double>;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const C p{1e200, 1}, q{inf, -1e200};
  const C fused{inf, inf}, scalar{inf, nan};
  ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});

  // np.multiply(np.full(8, p), np.full(8, q)): inf+infj
  const auto el = ufunc::multiply(ufunc::full<C>({8}, p), ufunc::full<C>({8}, q)).to_vector<C>();
  for (const C& v : el) CHECK(same_parts(v, fused));

  // a = np.full(4, p); np.multiply.at(a, [1], q): a[1] is inf+nanj
  auto a = ufunc::full<C>({4}, p);
  ufunc::multiply.at(a, ufunc::asarray<std::int64_t>({1}), ufunc::asarray<C>({q}));
  CHECK(same_parts(a.to_vector<C>()[1], scalar));
  CHECK(same_parts(a.to_vector<C>()[0], p));
  // 2-d a, one index: every element of the row by the scalar loop
  auto a2 = ufunc::full<C>({3, 4}, p);
  ufunc::multiply.at(a2, ufunc::asarray<std::int64_t>({1}), ufunc::full<C>({4}, q));
  for (int j = 0; j < 4; ++j) CHECK(same_parts(a2.to_vector<C>()[4 + j], scalar));

  // np.multiply.accumulate([p, q]): one step, the SIMD loop: [p, inf+infj]
  CHECK(same_parts(ufunc::multiply.accumulate(ufunc::asarray<C>({p, q})).to_vector<C>()[1], fused));
  // np.multiply.accumulate([p, q, q]): [p, inf+nanj, nan+nanj]
  const auto acc3 = ufunc::multiply.accumulate(ufunc::asarray<C>({p, q, q})).to_vector<C>();
  CHECK(same_parts(acc3[1], scalar));
  CHECK(same_parts(acc3[2], C{nan, nan}));
  // x = np.full((5, 2, 3, 4), q); x[:, :, 0] = p; np.multiply.accumulate(x, axis=-2)[..., 1, :]: inf+nanj
  {
    std::vector<C> v(5 * 2 * 3 * 4, q);
    for (std::size_t i = 0; i < v.size(); ++i)
      if ((i / 4) % 3 == 0) v[i] = p;
    const auto x = ufunc::asarray<C>(std::span<const C>(v)).reshape({5, 2, 3, 4});
    const auto r = ufunc::multiply.accumulate(x, {.axis = -2}).to_vector<C>();
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::size_t k = (i / 4) % 3;
      CHECK(same_parts(r[i], k == 0 ? p : k == 1 ? scalar : C{nan, nan}));
    }
  }
  // x = np.full((2, 4), q); x[0] = p; np.multiply.accumulate(x, axis=0)[1]: inf+infj (one step)
  {
    std::vector<C> v(8, q);
    for (int j = 0; j < 4; ++j) v[static_cast<std::size_t>(j)] = p;
    const auto r = ufunc::multiply.accumulate(ufunc::asarray<C>(std::span<const C>(v)).reshape({2, 4}), {.axis = 0})
                       .to_vector<C>();
    for (int j = 4; j < 8; ++j) CHECK(same_parts(r[static_cast<std::size_t>(j)], fused));
  }

  // np.multiply.reduce([p, q]): inf+nanj; np.multiply.reduce(x (2, 4), axis=0): inf+infj
  CHECK(same_parts(ufunc::multiply.reduce(ufunc::asarray<C>({p, q})).to_vector<C>()[0], scalar));
  {
    std::vector<C> v(8, q);
    for (int j = 0; j < 4; ++j) v[static_cast<std::size_t>(j)] = p;
    const auto r =
        ufunc::multiply.reduce(ufunc::asarray<C>(std::span<const C>(v)).reshape({2, 4}), {.axis = 0}).to_vector<C>();
    for (const C& x : r) CHECK(same_parts(x, fused));
  }

  // NumPy's product starts from the identity 1: np.multiply.reduce([inf+1j]) is inf+nanj (0 * inf),
  // np.multiply.reduce([inf+1j, 2]) nan+nanj
  CHECK(same_parts(ufunc::multiply.reduce(ufunc::asarray<C>({C{inf, 1}})).to_vector<C>()[0], C{inf, nan}));
  CHECK(same_parts(ufunc::multiply.reduce(ufunc::asarray<C>({C{inf, 1}, C{2, 0}})).to_vector<C>()[0], C{nan, nan}));

  // np.multiply.reduceat([p, q, q, p, q], [0, 3]): [nan+nanj, inf+nanj]
  const auto ra =
      ufunc::multiply.reduceat(ufunc::asarray<C>({p, q, q, p, q}), ufunc::asarray<std::int64_t>({0, 3})).to_vector<C>();
  CHECK(same_parts(ra[0], C{nan, nan}));
  CHECK(same_parts(ra[1], scalar));

  // square(1e200+1e200j): -inf+infj elementwise (fma(a, a, -b*b)), nan+infj by square.at
  const C z{1e200, 1e200};
  for (const C& v : ufunc::square(ufunc::full<C>({16}, z)).to_vector<C>()) CHECK(same_parts(v, C{-inf, inf}));
  auto s = ufunc::full<C>({16}, z);
  ufunc::square.at(s, ufunc::asarray<std::int64_t>({3}));
  CHECK(same_parts(s.to_vector<C>()[3], C{nan, inf}));
  CHECK(same_parts(s.to_vector<C>()[2], z));
  // np.square.at(x (1, 16), idx [0]): the whole row by the scalar loop
  auto s2 = ufunc::full<C>({1, 16}, z);
  ufunc::square.at(s2, ufunc::asarray<std::int64_t>({0}));
  for (const C& v : s2.to_vector<C>()) CHECK(same_parts(v, C{nan, inf}));
}
