// NaN through the ordered comparisons and the operations built on them, with the
// floating-point flags NumPy 2 reports (2.4.6, x86-64): none for the real comparisons,
// maximum/minimum/fmax/fmin, the rounding functions, exp and the other quiet
// operations (np.less(np.array([np.nan] * 20, np.float32), 1.0) is silent under
// np.errstate(all='raise')); `invalid` where NumPy's complex comparisons meet a NaN
// (its CLT & co. use C's signaling operators) and for logaddexp. Every instruction set
// (the suite runs once per UFUNC_SIMD_ARCH), every host target, lengths that end in
// SIMD bodies and tails, strided and broadcast operands, and the methods.
#include <cmath>
#include <complex>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <ufunc/ufuncs/ops/common.hpp>

#include "test_support.hpp"

namespace {

using ufunc::fp_policy;
constexpr unsigned invalid = static_cast<unsigned>(ufunc::fp_flag::invalid);

// What a run of calls raised, through the call policy for every kind.
template <class Fn>
unsigned flags_of(Fn&& run) {
  unsigned flags = 0;
  ufunc::errstate guard({.all = fp_policy::call}, [&](std::string_view, unsigned f) { flags |= f; });
  run();
  return flags;
}

// Whether a run of calls throws under errstate all='raise'.
template <class Fn>
bool raises(Fn&& run) {
  ufunc::errstate guard({.all = fp_policy::raise});
  try {
    run();
  } catch (const ufunc::floating_point_error&) {
    return true;
  }
  return false;
}

template <class T>
T qnan(bool negative = false) {
  const T x = std::numeric_limits<T>::quiet_NaN();
  return negative ? -x : x;
}

// n numbers with a NaN (either sign) at every period-th position from phase; the others
// ordinary, equal values and signed zeros included.
template <class T>
std::vector<T> with_nans(std::int64_t n, std::int64_t phase, std::int64_t period, bool zeros = true) {
  static const double some[] = {1.5, -2.25, 0.5, 3.0, -0.75, 2.0, 1.0, -0.0, 0.0, 1.0};
  static const double nonzero[] = {1.5, -2.25, 0.5, 3.0, -0.75, 2.0};
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = i % period == phase ? qnan<T>(i % 2 == 1)
                                     : zeros             ? T(some[(i * 7) % 10])
                                                         : T(nonzero[(i * 5) % 6]);
  return v;
}

// An array whose elements are v in one of three layouts: contiguous, every third element
// of a larger buffer, or that backwards (both strided ones take the gathering SIMD path).
template <class T>
ufunc::array laid_out(const std::vector<T>& v, int layout) {
  const auto n = static_cast<std::int64_t>(v.size());
  if (layout == 0) return ufunc::asarray<T>(std::span<const T>(v));
  auto buf = ufunc::full<T>({3 * n}, T(7));
  for (std::int64_t i = 0; i < n; ++i)
    buf.data()[layout == 1 ? 3 * i : 3 * n - 1 - 3 * i] = v[static_cast<std::size_t>(i)];
  return buf[{ufunc::slice{std::nullopt, std::nullopt, layout == 1 ? 3 : -3}}];
}

// Two operands and the elements they stand for (broadcast ones repeated).
template <class T>
struct operands {
  std::string what;
  ufunc::operand x, y;
  std::vector<T> xv, yv;
};

template <class T>
std::vector<operands<T>> operand_layouts(std::int64_t n) {
  const auto a = with_nans<T>(n, 0, 5), b = with_nans<T>(n, 3, 7);
  const std::vector<T> ones(a.size(), T(1)), nans(a.size(), qnan<T>());
  const auto nan1 = ufunc::asarray<T>({qnan<T>()});
  return {
      {"contiguous", laid_out(a, 0), laid_out(b, 0), a, b},
      {"strided, reversed", laid_out(a, 1), laid_out(b, 2), a, b},
      {"reversed, contiguous", laid_out(a, 2), laid_out(b, 0), a, b},
      {"array, scalar 1", laid_out(a, 0), T(1), a, ones},
      {"scalar 1, strided", T(1), laid_out(b, 1), ones, b},
      {"array, broadcast NaN", laid_out(a, 0), nan1, a, nans},
      {"broadcast NaN, reversed", nan1, laid_out(b, 2), nans, b},
  };
}

struct ordered {
  const char* name;
  const ufunc::lazy_function* f;
  bool (*expect)(double, double);  // IEEE's quiet predicate
};
const ordered ordered_comparisons[] = {
    {"less", &ufunc::less, [](double a, double b) { return std::isless(a, b); }},
    {"less_equal", &ufunc::less_equal, [](double a, double b) { return std::islessequal(a, b); }},
    {"greater", &ufunc::greater, [](double a, double b) { return std::isgreater(a, b); }},
    {"greater_equal", &ufunc::greater_equal, [](double a, double b) { return std::isgreaterequal(a, b); }},
};

// Bitwise equal, any NaN equal to any NaN.
template <class T>
bool same(T a, T b) {
  if constexpr (ufunc::ops::complex_number<T>) {
    return same(a.real(), b.real()) && same(a.imag(), b.imag());
  } else {
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
  }
}

// Collects failures and reports a few, so that a broken loop does not print thousands of checks.
struct failures {
  std::vector<std::string> seen;
  void add(const std::string& s) { seen.push_back(s); }
  ~failures() {
    for (std::size_t i = 0; i < seen.size() && i < 10; ++i) MESSAGE(seen[i]);
    CHECK_MESSAGE(seen.empty(), seen.size() << " failures");
  }
};

std::string where(ufunc::target_id t, std::int64_t n, const std::string& what, const char* op) {
  std::ostringstream s;
  s << ufunc::to_string(t) << " " << ufunc::simd_arch() << " n=" << n << " " << what << " " << op;
  return s.str();
}

}  // namespace

TEST_CASE_TEMPLATE("quiet NaN: ordered comparisons of floats raise no flag, bodies, tails, strides, broadcasts", T,
                   float, double) {
#if defined(__x86_64__)
  // They run on batches (predicates with quiet compares), not through a scalar loop that a compiler might
  // vectorize with signaling ones.
  const ufunc::dtype types[] = {ufunc::dtype_of<T>, ufunc::dtype_of<T>};
  for (const auto& op : ordered_comparisons) CHECK(op.f->get().resolve_loop(types).vectorized);
#endif
  const ufunc_test::parallel_split split(5);  // pieces of 5 on target parallel: a tail in every piece
  failures fail;
  for (const auto target : ufunc_test::host_targets()) {
    const ufunc::call_options on{.target = target};
    for (std::int64_t n = 1; n <= 67; ++n) {
      for (const auto& c : operand_layouts<T>(n)) {
        for (const auto& op : ordered_comparisons) {
          const auto at = where(target, n, c.what, op.name);
          ufunc::array r;
          const unsigned flags = flags_of([&] { r = (*op.f)(c.x, c.y, on); });
          if (flags != 0) fail.add(at + ": flags " + std::to_string(flags));
          if (raises([&] { (void)(*op.f)(c.x, c.y, on); })) fail.add(at + ": raised under errstate all='raise'");
          REQUIRE(r.type() == ufunc::bool_);
          const auto got = r.to_vector<bool>();
          for (std::size_t i = 0; i < got.size(); ++i)
            if (got[i] != op.expect(c.xv[i], c.yv[i])) {
              fail.add(at + ": wrong result at " + std::to_string(i));
              break;
            }
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("quiet NaN: complex comparisons raise invalid exactly where NumPy's do", T, std::complex<float>,
                   std::complex<double>) {
  using R = typename T::value_type;
  const R nan = qnan<R>();
  // NumPy's CLT(x, y): (xr < yr && yi == yi && xi == xi) || (xr == yr && xi < yi), with C's signaling
  // operators: invalid for a NaN real part, or for a NaN imaginary part where the real parts are equal.
  // (np.less(np.array([1 + 0j]), np.array([1 + np.nan * 1j])) warns; np.less(nan * 1j, 1 + 0j) does not.)
  const std::vector<T> values = {{1, 0}, {nan, 0}, {0, nan}, {1, nan}, {nan, nan}, {1, 1}, {2, 0}, {-0.0f, 0}, {1, -1}};
  const auto numpy_raises = [](T x, T y) {
    return std::isnan(x.real()) || std::isnan(y.real()) ||
           (x.real() == y.real() && (std::isnan(x.imag()) || std::isnan(y.imag())));
  };
  // The order itself, as NumPy's CGT/CGE/CLT/CLE.
  const auto order = [](T x, T y, bool strict, bool less) {
    const auto lt = [&](R a, R b) { return less ? std::isless(a, b) : std::isgreater(a, b); };
    const auto le = [&](R a, R b) { return less ? std::islessequal(a, b) : std::isgreaterequal(a, b); };
    const bool no_nan_imag = !std::isnan(x.imag()) && !std::isnan(y.imag());
    return (lt(x.real(), y.real()) && no_nan_imag) ||
           (x.real() == y.real() && (strict ? lt(x.imag(), y.imag()) : le(x.imag(), y.imag())));
  };
  struct cmp {
    const ufunc::lazy_function* f;
    bool strict, less;
  };
  const cmp comparisons[] = {{&ufunc::less, true, true},
                             {&ufunc::less_equal, false, true},
                             {&ufunc::greater, true, false},
                             {&ufunc::greater_equal, false, false}};
  failures fail;
  for (const auto target : ufunc_test::host_targets()) {
    const ufunc::call_options on{.target = target};
    for (const auto& c : comparisons) {
      for (const T x : values) {
        for (const T y : values) {
          std::ostringstream at;
          at << ufunc::to_string(target) << " " << c.f->get().name() << " " << x << " " << y;
          // One element; and 37 (a tail on every instruction set), strided against broadcast.
          for (const std::int64_t n : {std::int64_t{1}, std::int64_t{37}}) {
            const auto xs = laid_out(std::vector<T>(static_cast<std::size_t>(n), x), n == 1 ? 0 : 1);
            const auto ys = ufunc::asarray<T>({y});
            ufunc::array r;
            const unsigned flags = flags_of([&] { r = (*c.f)(xs, ys, on); });
            if (flags != (numpy_raises(x, y) ? invalid : 0u))
              fail.add(at.str() + " n=" + std::to_string(n) + ": flags " + std::to_string(flags));
            for (const bool b : r.to_vector<bool>())
              if (b != order(x, y, c.strict, c.less)) fail.add(at.str() + ": wrong result");
          }
        }
      }
    }
    // equal and not_equal compare both parts quietly, as NumPy's.
    for (const T x : values)
      for (const T y : values) {
        const auto xs = ufunc::asarray<T>({x}), ys = ufunc::asarray<T>({y});
        if (flags_of([&] { (void)ufunc::equal(xs, ys, on), (void)ufunc::not_equal(xs, ys, on); }) != 0)
          fail.add("equal/not_equal raised");
      }
  }
}

TEST_CASE_TEMPLATE("quiet NaN: maximum, minimum, fmax, fmin raise no flag and keep NumPy's NaN rules", T, float, double,
                   std::complex<float>, std::complex<double>) {
  constexpr bool is_complex = ufunc::ops::complex_number<T>;
  using R = ufunc::ops::real_type_t<T>;
  const auto isnan_ = [](T v) {
    if constexpr (is_complex)
      return std::isnan(v.real()) || std::isnan(v.imag());
    else
      return std::isnan(v);
  };
  // NumPy: maximum keeps a NaN (the first), fmax drops it; ties go to b (real maximum/minimum) or a.
  const auto ge = [](T a, T b, bool strict) {
    if constexpr (is_complex) {
      const bool no_nan_imag = !std::isnan(a.imag()) && !std::isnan(b.imag());
      return (std::isgreater(a.real(), b.real()) && no_nan_imag) ||
             (a.real() == b.real() &&
              (strict ? std::isgreater(a.imag(), b.imag()) : std::isgreaterequal(a.imag(), b.imag())));
    } else {
      return strict ? std::isgreater(a, b) : std::isgreaterequal(a, b);
    }
  };
  struct extremum {
    const ufunc::lazy_function* f;
    bool propagate, max;
  };
  const extremum ops[] = {{&ufunc::maximum, true, true},
                          {&ufunc::minimum, true, false},
                          {&ufunc::fmax, false, true},
                          {&ufunc::fmin, false, false}};
  const auto expect = [&](const extremum& e, T a, T b) {
    const bool keep_a = e.propagate ? isnan_(a) : isnan_(b);
    // Real maximum/minimum: strictly greater (ties to b); complex ones and fmax/fmin: or equal.
    const bool strict = e.propagate && !is_complex;
    const bool wins = e.max ? ge(a, b, strict) : ge(b, a, strict);
    return keep_a || wins ? a : b;
  };
  const auto value = [](R re, R im) {
    if constexpr (is_complex)
      return T(re, im);
    else
      return T(re + im);
  };
  failures fail;
  for (const auto target : ufunc_test::host_targets()) {
    const ufunc_test::parallel_split split(5);
    const ufunc::call_options on{.target = target};
    for (std::int64_t n = 1; n <= 67; ++n) {
      std::vector<T> a(static_cast<std::size_t>(n)), b(a.size());
      const auto ra = with_nans<R>(n, 0, 4), rb = with_nans<R>(n, 2, 5);
      for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = value(ra[i], is_complex && i % 3 == 1 ? qnan<R>() : R(0));
        b[i] = value(rb[i], R(0));
      }
      for (const auto& e : ops) {
        for (int layout = 0; layout < 3; ++layout) {
          const auto at = where(target, n, "layout " + std::to_string(layout), e.f->get().name().c_str());
          ufunc::array r;
          const unsigned flags = flags_of([&] { r = (*e.f)(laid_out(a, layout), laid_out(b, 2 - layout), on); });
          if (flags != 0) fail.add(at + ": flags " + std::to_string(flags));
          const auto got = r.to_vector<T>();
          for (std::size_t i = 0; i < got.size(); ++i)
            if (!same(got[i], expect(e, a[i], b[i]))) {
              fail.add(at + ": wrong result at " + std::to_string(i));
              break;
            }
        }
        // Against a NaN broadcast from a scalar array, both ways.
        const auto nan1 = ufunc::asarray<T>({value(qnan<R>(), R(0))});
        if (flags_of([&] { (void)(*e.f)(laid_out(a, 0), nan1, on), (void)(*e.f)(nan1, laid_out(b, 1), on); }) != 0)
          fail.add(where(target, n, "broadcast NaN", e.f->get().name().c_str()));
      }
    }
  }
}

TEST_CASE_TEMPLATE("quiet NaN: the other operations NumPy keeps quiet for NaN; logaddexp warns as NumPy's", T, float,
                   double) {
  // np.errstate(all='raise') and these inputs (NaN among numbers with no flag of their own): NumPy 2.4.6 is
  // silent for all but logaddexp and logaddexp2, whose `>` meets the NaN.
  const char* unary[] = {"exp",      "exp2",       "expm1",   "floor",   "ceil",     "trunc", "rint",     "sign",
                         "isfinite", "isinf",      "isnan",   "signbit", "absolute", "fabs",  "negative", "positive",
                         "square",   "sin",        "cos",     "tan",     "arctan",   "sinh",  "tanh",     "cbrt",
                         "spacing",  "reciprocal", "deg2rad", "modf",    "frexp"};
  const char* binary[] = {"maximum",   "minimum",    "fmax",      "fmin",         "heaviside", "copysign",
                          "nextafter", "add",        "subtract",  "multiply",     "divide",    "hypot",
                          "arctan2",   "fmod",       "remainder", "floor_divide", "equal",     "not_equal",
                          "less",      "less_equal", "greater",   "greater_equal"};
  const char* warning[] = {"logaddexp", "logaddexp2"};
  failures fail;
  for (const auto target : ufunc_test::host_targets()) {
    const ufunc_test::parallel_split split(5);
    const ufunc::call_options on{.target = target};
    for (std::int64_t n = 1; n <= 67; n += (n < 20 ? 1 : 7)) {
      const auto a = with_nans<T>(n, 0, 3, false), b = with_nans<T>(n, 1, 4, false);
      for (int layout = 0; layout < 3; ++layout) {
        const auto x = laid_out(a, layout), y = laid_out(b, 2 - layout);
        for (const char* name : unary) {
          const ufunc::function* f = ufunc::find_builtin(name);
          REQUIRE(f != nullptr);
          const ufunc::operand in[] = {x};
          if (const unsigned flags = flags_of([&] { (void)f->call(in, on); }))
            fail.add(where(target, n, "layout " + std::to_string(layout), name) + ": flags " + std::to_string(flags));
        }
        for (const char* name : binary) {
          const ufunc::function* f = ufunc::find_builtin(name);
          REQUIRE(f != nullptr);
          if (const unsigned flags = flags_of([&] { (void)(*f)(x, y, on), (void)(*f)(x, T(2), on); }))
            fail.add(where(target, n, "layout " + std::to_string(layout), name) + ": flags " + std::to_string(flags));
        }
        for (const char* name : warning) {
          const ufunc::function* f = ufunc::find_builtin(name);
          REQUIRE(f != nullptr);
          if (flags_of([&] { (void)(*f)(x, T(2), on); }) != invalid)
            fail.add(where(target, n, "layout " + std::to_string(layout), name) + ": no invalid");
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("quiet NaN: the methods of the comparisons and of maximum/minimum/fmax/fmin raise no flag", T, float,
                   double) {
  const T nan = qnan<T>();
  failures fail;
  for (const auto target : ufunc_test::host_targets()) {
    const ufunc_test::parallel_split split(5);
    const ufunc::call_options on{.target = target};
    for (std::int64_t n = 1; n <= 67; ++n) {
      const auto a = with_nans<T>(n, 1, 6), b = with_nans<T>(n, 0, 4);
      const auto x = laid_out(a, 0), xs = laid_out(a, 2);
      const auto tag = [&](const char* what) { return where(target, n, "", what); };
      // outer: an element-wise call over broadcast views.
      for (const auto& op : ordered_comparisons) {
        ufunc::array r;
        if (const unsigned f = flags_of([&] { r = op.f->outer(xs, laid_out(b, 1), on); }))
          fail.add(tag(op.name) + " outer: flags " + std::to_string(f));
        const auto got = r.to_vector<bool>();
        for (std::size_t i = 0; i < a.size(); ++i)
          for (std::size_t j = 0; j < b.size(); ++j)
            if (got[i * b.size() + j] != op.expect(a[i], b[j])) fail.add(tag(op.name) + " outer: wrong result");
      }
      // reduce (contiguous: pairwise SIMD folds; strided: the scalar ones), accumulate, reduceat, outer, at.
      struct fold {
        const ufunc::lazy_function* f;
        bool propagate;
      };
      for (const fold& e : {fold{&ufunc::maximum, true}, fold{&ufunc::minimum, true}, fold{&ufunc::fmax, false},
                            fold{&ufunc::fmin, false}}) {
        const char* name = e.f->get().name().c_str();
        bool any_nan = false, all_nan = true;
        for (const T v : a) {
          any_nan |= std::isnan(v);
          all_nan &= std::isnan(v);
        }
        ufunc::array r1, r2;
        const unsigned flags = flags_of([&] {
          r1 = e.f->reduce(x, {.target = target});
          r2 = e.f->reduce(xs, {.target = target});
          (void)e.f->accumulate(xs, {.target = target});
          (void)e.f->reduceat(x, ufunc::asarray<std::int64_t>({0, n / 2, n - 1}), {.target = target});
          (void)e.f->outer(x, laid_out(b, 2), on);
          auto y = x.copy();
          e.f->at(y, ufunc::asarray<std::int64_t>({0, n - 1, 0, n / 2}), ufunc::asarray<T>({nan, T(1), T(2), nan}), on);
          // 2-d, both axes: folds across outputs (element-wise loops) and along runs.
          const auto m = laid_out(with_nans<T>(6 * n, 2, 9), 0).reshape({6, n});
          (void)e.f->reduce(m, {.axis = 0, .target = target});
          (void)e.f->reduce(m, {.axis = 1, .target = target});
        });
        if (flags != 0) fail.add(tag(name) + " methods: flags " + std::to_string(flags));
        const T got1 = r1.item<T>(), got2 = r2.item<T>();
        if (!same(got1, got2)) fail.add(tag(name) + " reduce: contiguous and strided differ");
        if (e.propagate && any_nan != std::isnan(got1)) fail.add(tag(name) + " reduce: NaN not propagated");
        if (!e.propagate && all_nan != std::isnan(got1)) fail.add(tag(name) + " reduce: NaN not dropped");
      }
      // Comparisons after a cast to bool (NaN is true); at with a comparison loop on float data.
      const unsigned flags = flags_of([&] {
        (void)ufunc::greater.reduce(x, {.dtype = ufunc::bool_, .target = target});
        (void)ufunc::less.accumulate(xs, {.dtype = ufunc::bool_, .target = target});
        auto y = x.copy();
        ufunc::less.at(y, ufunc::asarray<std::int64_t>({0, n - 1, n / 2}), T(1), on);
        ufunc::greater_equal.at(y, ufunc::asarray<std::int64_t>({0}), nan, on);
      });
      if (flags != 0) fail.add(tag("comparisons") + " reduce/accumulate/at: flags " + std::to_string(flags));
    }
  }
  // at with a comparison writes its bool results back into the float array, one application at a time.
  auto y = ufunc::asarray<T>({nan, T(0.5), T(2)});
  ufunc::less.at(y, ufunc::asarray<std::int64_t>({0, 1, 2, 1}), T(1));
  CHECK(y.to_vector() == std::vector<T>{T(0), T(0), T(0)});  // nan < 1, then 0.5 < 1 = 1, then 1 < 1
}

TEST_CASE("quiet NaN: complex comparisons through outer and at raise invalid as NumPy's, complex max/min do not") {
  using C = std::complex<double>;
  const double nan = qnan<double>();
  const auto a = ufunc::asarray<C>({{1, 0}, {2, nan}, {3, 1}});
  const auto real_nan = ufunc::asarray<C>({{nan, 0}, {2, 0}});
  for (const auto target : ufunc_test::host_targets()) {
    const ufunc::call_options on{.target = target};
    // Distinct real parts: NumPy never compares the NaN imaginary parts.
    CHECK(flags_of([&] { (void)ufunc::less.outer(a, ufunc::asarray<C>({{5, 0}, {-1, 0}}), on); }) == 0);
    CHECK(flags_of([&] { (void)ufunc::less.outer(a, real_nan, on); }) == invalid);
    CHECK(flags_of([&] { (void)ufunc::greater.outer(a, a, on); }) == invalid);  // 2 == 2, NaN imaginary parts
    CHECK(flags_of([&] { (void)ufunc::maximum.outer(a, real_nan, on); }) == 0);
    CHECK(flags_of([&] {
            (void)ufunc::fmin.reduce(ufunc::asarray<C>({{nan, 0}, {1, nan}, {1, 0}}), {.target = target});
          }) == 0);
    CHECK(flags_of([&] {
            auto y = a.copy();
            ufunc::maximum.at(y, ufunc::asarray<std::int64_t>({0, 1, 1}), real_nan[{0}], on);
          }) == 0);
  }
}
