// ufunc_differential: replays the cases written by tests/differential/generate_cases.py
// (NumPy 2 as the oracle) on every target of this build and compares the outcomes.
//
//   ufunc_differential [options] CASES.bin...
//     --targets cpu,parallel,cuda   targets to run (default: every one compiled in, cuda
//                                   only with a usable GPU)
//     --grain N                     the parallel target's grain (default 3: pieces edges everywhere)
//     --max-print N                 print at most N failures in full (default 40)
//     --only ID                     run only case ID (e12, r5); repeatable
//     --exclude ID                  do not run case ID (one that crashes); repeatable
//     --skip-method M               do not run the cases of method M (call, reduce, accumulate,
//                                   reduceat, outer, at); repeatable
//     --verbose                     print every case
//     --list                        print the ufuncs this build has (name nin nout types...)
//     --self-check                  check the comparison's condition-aware bound on synthetic cases
//                                   and that a difference in floating-point flags fails
//     --skip-reason TEXT            print TEXT and exit 77 (ctest's SKIP_RETURN_CODE): the
//                                   oracle is missing; under CI (CI=true) print it and exit 1
//
// Exit status: 0 when every case agrees, 1 on any mismatch.
//
// Comparison rules (docs/testing.md): integers and booleans exact; floats within the
// per-ufunc ulp bound of ulp_bound() (0 = bit for bit, up to the sign of zero); NaN
// where NumPy has NaN; infinities exact; complex numbers part by part. Exceptions must
// be the library class the generator mapped NumPy's exception to. The floating-point
// flags of the call must be NumPy's in the kinds the case compares (compared_flags()),
// and the raise and warn policies must act on exactly those.
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <ufunc/core/errstate.hpp>
#include <ufunc/ufunc.hpp>
#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/execute.hpp>
#endif

// ---------------------------------------------------------------------------------
// The registry of built-in ufuncs. <ufunc/ufuncs/builtins.hpp> is to declare
// ufunc::find_builtin(std::string_view) and ufunc::builtin_ufuncs(); until it does,
// these templates stand in for them over the five original handles. Overload
// resolution prefers the library's (non-template) functions as soon as they exist,
// so nothing here has to change when they land.
// ---------------------------------------------------------------------------------
namespace diff_shim {
struct shim_ptr {
  const ufunc::function* p;
  operator const ufunc::function*() const { return p; }  // NOLINT(google-explicit-constructor)
};
template <class = void>
shim_ptr find_builtin(std::string_view name) {
  if (name == "add") return {&ufunc::add.get()};
  if (name == "subtract") return {&ufunc::subtract.get()};
  if (name == "multiply") return {&ufunc::multiply.get()};
  if (name == "square") return {&ufunc::square.get()};
  if (name == "sin") return {&ufunc::sin.get()};
  return {nullptr};
}
template <class = void>
std::span<const ufunc::lazy_function> builtin_ufuncs() {
  static constexpr ufunc::lazy_function list[] = {ufunc::add, ufunc::subtract, ufunc::multiply, ufunc::square,
                                                  ufunc::sin};
  return list;
}
}  // namespace diff_shim

namespace diff_registry {
using namespace ufunc;      // NOLINT(google-build-using-namespace): the library's find_builtin, if declared
using namespace diff_shim;  // NOLINT(google-build-using-namespace): else the stand-in
inline const ufunc::function* lookup(std::string_view name) { return find_builtin(name); }
inline constexpr bool from_library = !std::is_same_v<decltype(find_builtin(std::string_view{})), diff_shim::shim_ptr>;
inline std::vector<const ufunc::function*> all() {
  std::vector<const ufunc::function*> out;
  for (const auto& h : builtin_ufuncs()) {
    const ufunc::function& f = h;
    out.push_back(&f);
  }
  return out;
}
}  // namespace diff_registry

namespace {

using ufunc::array;
using ufunc::dtype;

// ---------------------------------------------------------------------------------
// User-defined ufuncs (vectorize); generate_cases.py computes the same with NumPy.
// In CUDA builds tests/differential/CMakeLists.txt compiles this file as CUDA: the
// functors are then __host__ __device__ (UFUNC_HOST_DEVICE) and the ufuncs are made
// for target::cuda, which gives them device loops besides the host loops every
// vectorize'd ufunc has (the runner names the target of each call). Elsewhere
// UFUNC_HOST_DEVICE is empty and they are target::cpu ufuncs, as before.
// ---------------------------------------------------------------------------------
#if defined(UFUNC_HAS_CUDA) && defined(__CUDACC__)
using user_target = ufunc::target::cuda;
constexpr bool user_device_loops = true;
#else
using user_target = ufunc::target::cpu;
constexpr bool user_device_loops = false;
#endif

struct fma_fn {  // a * b + c, two roundings (NumPy: add(multiply(a, b), c))
  template <class T>
  UFUNC_HOST_DEVICE T operator()(T a, T b, T c) const {
    return a * b + c;  // CUDA builds compile this file with --fmad=false: no contraction to an FMA
  }
};
// clang-format 14 would join the requires-clauses onto the declarations.
// clang-format off
struct relu_fn {  // x > 0 ? x * s : 0, a branch: scalar loop only
  template <class T>
    requires std::is_arithmetic_v<T>
  UFUNC_HOST_DEVICE T operator()(T x, T s) const {
    return x > T(0) ? static_cast<T>(x * s) : T(0);
  }
};
struct split_fn {  // (fractional part, integral part), as np.modf: two outputs
  template <class T>
    requires std::is_floating_point_v<T>
  UFUNC_HOST_DEVICE std::tuple<T, T> operator()(T x) const {
    T whole;
#if defined(__CUDACC__)
    // CUDA's math library declares modff/modf for host and device; std::modf is host only.
    T frac;
    if constexpr (std::is_same_v<T, float>)
      frac = ::modff(x, &whole);
    else
      frac = ::modf(x, &whole);
#else
    const T frac = std::modf(x, &whole);
#endif
    return {frac, whole};
  }
};
// clang-format on

const ufunc::function* user_ufunc(std::string_view name) {
  static const auto fma =
      ufunc::vectorize<ufunc::signatures<float(float, float, float), double(double, double, double)>, user_target>(
          fma_fn{}, "diff_fma");
  static const auto relu =
      ufunc::vectorize<ufunc::signatures<std::int32_t(std::int32_t, std::int32_t), double(double, double)>,
                       user_target>(ufunc::scalar_only{relu_fn{}}, "diff_relu");
  static const auto split =
      ufunc::vectorize<ufunc::signatures<std::tuple<float, float>(float), std::tuple<double, double>(double)>,
                       user_target>(split_fn{}, "diff_split");
  if (name == "diff_fma") return &fma.ufunc();
  if (name == "diff_relu") return &relu.ufunc();
  if (name == "diff_split") return &split.ufunc();
  return nullptr;
}
constexpr std::string_view user_names[] = {"diff_fma", "diff_relu", "diff_split"};

// ---------------------------------------------------------------------------------
// Tolerances: ulps allowed for float results, per ufunc (canonical name).
// ---------------------------------------------------------------------------------
struct tolerance {
  int real_ulps;          // float32/float64 results of real inputs
  int complex_ulps;       // complex results (each part, in ulps of the larger part's magnitude),
                          // and float results of complex inputs (absolute)
  bool zero_sign = true;  // whether -0.0 and +0.0 differ
};

tolerance ulp_bound(std::string_view name) {
  // Exact: IEEE operations that are correctly rounded, and operations with no rounding.
  static const std::set<std::string_view> exact = {
      "add",           "subtract",    "multiply",   "negative",      "positive",    "absolute",   "fabs",
      "sign",          "square",      "conjugate",  "floor_divide",  "remainder",   "fmod",       "divmod",
      "maximum",       "minimum",     "fmax",       "fmin",          "copysign",    "nextafter",  "spacing",
      "ldexp",         "frexp",       "modf",       "floor",         "ceil",        "trunc",      "rint",
      "heaviside",     "isnan",       "isinf",      "isfinite",      "signbit",     "equal",      "not_equal",
      "less",          "less_equal",  "greater",    "greater_equal", "logical_and", "logical_or", "logical_xor",
      "logical_not",   "bitwise_and", "bitwise_or", "bitwise_xor",   "invert",      "left_shift", "right_shift",
      "bitwise_count", "gcd",         "lcm",        "divide",        "reciprocal",  "sqrt",       "diff_fma",
      "diff_relu",     "diff_split"};
  // Complex results of these go through several roundings (Smith's division, hypot, csqrt).
  static const std::set<std::string_view> complex_rounded = {"divide", "reciprocal", "sqrt", "absolute", "sign"};
  // a*b - c*d: NumPy's AVX2/AVX-512 complex loops contract it to an FMA, plain C does not.
  static const std::set<std::string_view> complex_products = {"multiply", "square"};
  // Which of two equal zeros comes back is unspecified (C fmax, NumPy's SIMD maximum).
  static const std::set<std::string_view> zero_sign_free = {"maximum", "minimum", "fmax", "fmin"};
  // One rounding of a product by a constant.
  static const std::set<std::string_view> one_ulp = {"deg2rad", "rad2deg", "radians", "degrees"};
  const bool zs = zero_sign_free.count(name) == 0;
  if (exact.count(name)) return {0, complex_rounded.count(name) ? 4 : complex_products.count(name) ? 2 : 0, zs};
  if (one_ulp.count(name)) return {1, 1, zs};
  return {4, 4, zs};  // transcendental functions (libm and SIMD approximations)
}

// Condition-aware bound, for the ufuncs whose result is ill-conditioned in its inputs:
// there NumPy's result and ours both carry rounding errors of intermediate values that
// the problem's condition amplifies, so a bound in ulps of the result is the wrong
// measure. An element also passes (besides ulp_bound()) when, in each part,
//   |ours - NumPy| <= condition_eps * eps(T) * scale                  (absolute)
//   |ours - NumPy| <= condition_eps * eps(T) * scale * |NumPy result| (relative)
// with `scale` computed per element from the case's inputs by condition_scales():
//  - logaddexp(a, b), logaddexp2(a, b): scale = max(|a|, |b|), absolute. The result
//    max + log1p(exp(-|a - b|)) cancels when max is about -log(2) ... 0; the errors of
//    max, of a - b and of the log1p term stay at the inputs' scale.
//  - power(z, w) and float_power(z, w) with complex results: scale = 1 + |w log z|,
//    relative to |NumPy's result|. z**w = exp(w log z): an error of eps |w log z| in the
//    exponent is a relative error of as much in the result, in both parts.
// NaN where NumPy has NaN and infinities stay exact (within_abs needs finite values),
// except where the result's direction is lost (exponent kind): when the angle
// Im(w log z) carries an error of pi or more (condition_eps eps scale >= pi), or w log z
// is not finite, the signs of the result's parts are noise in both implementations
// (cos and sin of an angle known to no digit), so infinite and zero parts compare by
// magnitude. Finite nonzero parts need no such rule: the relative bound covers them.
// Only for call and outer (the methods that map each result element to one element of
// each input), on every target: the host loops and the device's compute the same
// ill-conditioned quantity. condition_eps = 4: two independent implementations
// (NumPy's npy_cpow / logaddexp against exp(w*log z) / max + log1p(exp(-d))) differ by
// at most 1.04 (power) and 1.7 (logaddexp*) such eps units in 10^5-10^6 random inputs
// per type (docs/testing.md).
constexpr int condition_eps = 4;
enum class condition_kind { none, input_scale, exponent };

condition_kind condition_of(std::string_view name, dtype result) {
  if (name == "logaddexp" || name == "logaddexp2") return condition_kind::input_scale;
  if ((name == "power" || name == "float_power") && result.is_complex()) return condition_kind::exponent;
  return condition_kind::none;
}

struct condition_bound {
  std::vector<double> scale;  // per element of result 0; < 0: no condition bound there; inf: w log z not finite
  bool relative = false;      // in units of |NumPy's result| (complex: its modulus)
};

// Whether an element's direction is lost (see the comment above): an exponent-kind
// bound whose angle error reaches pi.
template <class F>
bool direction_lost(double scale, bool relative) {
  return relative && scale >= 0 &&
         (std::isinf(scale) ||
          condition_eps * static_cast<double>(std::numeric_limits<F>::epsilon()) * scale >= 3.14159);
}

// ---------------------------------------------------------------------------------
// The case file
// ---------------------------------------------------------------------------------
constexpr char codes[] = "?bBhHiIlLfdFD";

struct transform {
  int kind = 0;  // 1 slice, 2 transpose, 3 broadcast_to
  std::vector<ufunc::slice> slices;
  std::vector<std::int64_t> values;
};

struct array_spec {
  dtype type;
  ufunc::dim_vector shape;
  std::vector<transform> transforms;
  std::vector<std::byte> data;
};

struct scalar_spec {
  char kind = 'i';  // b i u f c
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double re = 0, im = 0;
  [[nodiscard]] ufunc::operand operand() const {
    switch (kind) {
      case 'b':
        return ufunc::operand(i != 0);
      case 'i':
        return ufunc::operand(static_cast<long long>(i));
      case 'u':
        return ufunc::operand(static_cast<unsigned long long>(u));
      case 'f':
        return ufunc::operand(re);
      default:
        return ufunc::operand(std::complex<double>(re, im));
    }
  }
  [[nodiscard]] std::string str() const {
    std::ostringstream s;
    s.precision(17);
    switch (kind) {
      case 'b':
        s << (i ? "True" : "False");
        break;
      case 'i':
        s << i;
        break;
      case 'u':
        s << u;
        break;
      case 'f':
        s << re;
        break;
      default:
        s << "(" << re << "+" << im << "j)";
        break;
    }
    return s.str();
  }
};

struct input_spec {
  bool is_scalar = false;
  array_spec arr;
  scalar_spec scalar;
};

struct out_spec {
  int alias = -1;  // index of the input it is, or -1 for its own array
  array_spec arr;
};

struct expected_result {
  dtype type;
  ufunc::dim_vector shape;
  std::vector<std::byte> data;
  std::vector<std::uint8_t> mask;  // empty: compare every element
};

struct test_case {
  char mode = 'r';
  std::uint64_t index = 0;
  std::string ufunc_name, canonical, method = "call", desc;
  std::vector<input_spec> inputs;
  std::vector<out_spec> outs;
  std::optional<array_spec> where, indices;
  std::optional<dtype> out_dtype;
  std::string signature;
  std::optional<ufunc::casting> casting;
  bool has_axis = false, axis_none = false, axis_scalar = false;
  std::vector<std::int64_t> axis;
  std::optional<bool> keepdims;
  std::optional<scalar_spec> initial;
  std::vector<expected_result> expected;
  bool expect_error = false;
  std::string np_error, our_error, np_message;
  int ulps_override = -1;       // reductions: ulps allowed instead of ulp_bound()'s
  std::vector<double> abs_tol;  // reductions by add: per element of result 0, absolute
  std::string loop;             // the loop NumPy ran ("ff->f"), where the generator knows it
  bool has_flags = false;       // the generator recorded NumPy's floating-point flags
  unsigned np_flags = 0;        // fp_flag bits NumPy raised
  unsigned flags_free = 0;      // fp_flag bits the comparison leaves out for this case (generate_cases.py)
  std::vector<int> unknown_tags;

  [[nodiscard]] std::string id() const { return std::string(1, mode) + std::to_string(index); }
};

class reader {
 public:
  reader(const std::byte* p, std::size_t n) : p_(p), end_(p + n) {}
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  std::string str(std::size_t n) {
    need(n);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  std::vector<std::byte> bytes(std::size_t n) {
    need(n);
    std::vector<std::byte> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  [[nodiscard]] bool done() const { return p_ == end_; }
  [[nodiscard]] std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }

 private:
  void need(std::size_t n) const {
    if (static_cast<std::size_t>(end_ - p_) < n) throw std::runtime_error("truncated case file");
  }
  const std::byte* p_;
  const std::byte* end_;
};

dtype dtype_at(std::uint8_t i) {
  if (i >= ufunc::dtype::count) throw std::runtime_error("bad dtype index in case file");
  return dtype::from_char(codes[i]);
}

array_spec read_array(reader& r) {
  array_spec a;
  a.type = dtype_at(r.get<std::uint8_t>());
  const int ndim = r.get<std::uint8_t>();
  for (int i = 0; i < ndim; ++i) a.shape.push_back(r.get<std::int64_t>());
  const int nt = r.get<std::uint8_t>();
  for (int t = 0; t < nt; ++t) {
    transform tr;
    tr.kind = r.get<std::uint8_t>();
    const int n = r.get<std::uint8_t>();
    for (int i = 0; i < n; ++i) {
      if (tr.kind == 1) {
        const auto flags = r.get<std::uint8_t>();
        const auto start = r.get<std::int64_t>(), stop = r.get<std::int64_t>(), step = r.get<std::int64_t>();
        ufunc::slice s;
        if (flags & 1) s.start = start;
        if (flags & 2) s.stop = stop;
        s.step = step;
        tr.slices.push_back(s);
      } else {
        tr.values.push_back(r.get<std::int64_t>());
      }
    }
    a.transforms.push_back(std::move(tr));
  }
  a.data = r.bytes(r.get<std::uint64_t>());
  return a;
}

scalar_spec read_scalar(reader& r) {
  scalar_spec s;
  s.kind = r.get<char>();
  switch (s.kind) {
    case 'b':
      s.i = r.get<std::uint8_t>();
      break;
    case 'i':
      s.i = r.get<std::int64_t>();
      break;
    case 'u':
      s.u = r.get<std::uint64_t>();
      break;
    case 'f':
      s.re = r.get<double>();
      break;
    case 'c':
      s.re = r.get<double>();
      s.im = r.get<double>();
      break;
    default:
      throw std::runtime_error("bad scalar kind in case file");
  }
  return s;
}

test_case read_case(reader& r) {
  test_case c;
  while (!r.done()) {
    const int tag = r.get<std::uint8_t>();
    const auto len = r.get<std::uint32_t>();
    const auto payload = r.bytes(len);
    reader f(payload.data(), payload.size());
    switch (tag) {
      case 1:
        c.mode = f.get<char>();
        c.index = f.get<std::uint64_t>();
        break;
      case 2:
        c.ufunc_name = f.str(len);
        break;
      case 3:
        c.method = f.str(len);
        break;
      case 4:
        c.inputs.push_back({false, read_array(f), {}});
        break;
      case 5:
        c.inputs.push_back({true, {}, read_scalar(f)});
        break;
      case 6:
        c.outs.push_back({-1, read_array(f)});
        break;
      case 7:
        c.outs.push_back({f.get<std::uint8_t>(), {}});
        break;
      case 8:
        c.where = read_array(f);
        break;
      case 9:
        c.out_dtype = dtype_at(f.get<std::uint8_t>());
        break;
      case 10:
        c.signature = f.str(len);
        break;
      case 11:
        c.casting = ufunc::casting_from_string(f.str(len));
        break;
      case 12: {
        c.has_axis = true;
        const int n = f.get<std::uint8_t>();
        if (n == 255) {
          c.axis_none = true;
        } else {
          c.axis_scalar = f.get<std::uint8_t>() != 0;
          for (int i = 0; i < n; ++i) c.axis.push_back(f.get<std::int64_t>());
        }
        break;
      }
      case 13:
        c.keepdims = f.get<std::uint8_t>() != 0;
        break;
      case 14:
        c.initial = read_scalar(f);
        break;
      case 15:
        c.indices = read_array(f);
        break;
      case 16: {
        expected_result e;
        e.type = dtype_at(f.get<std::uint8_t>());
        const int ndim = f.get<std::uint8_t>();
        for (int i = 0; i < ndim; ++i) e.shape.push_back(f.get<std::int64_t>());
        e.data = f.bytes(f.get<std::uint64_t>());
        if (f.get<std::uint8_t>()) {
          const auto m = f.bytes(e.data.size() / e.type.itemsize());
          e.mask.assign(reinterpret_cast<const std::uint8_t*>(m.data()),
                        reinterpret_cast<const std::uint8_t*>(m.data()) + m.size());
        }
        c.expected.push_back(std::move(e));
        break;
      }
      case 17: {
        c.expect_error = true;
        const std::string all = f.str(len);
        const auto a = all.find('\0'), b = all.find('\0', a + 1);
        c.np_error = all.substr(0, a);
        c.our_error = all.substr(a + 1, b - a - 1);
        c.np_message = all.substr(b + 1);
        break;
      }
      case 18:
        c.desc = f.str(len);
        break;
      case 19:
        c.canonical = f.str(len);
        break;
      case 20: {
        c.ulps_override = f.get<std::int32_t>();
        const auto n = f.get<std::uint64_t>();
        for (std::uint64_t i = 0; i < n; ++i) c.abs_tol.push_back(f.get<double>());
        break;
      }
      case 21:
        c.loop = f.str(len);
        break;
      case 22:
        c.has_flags = true;
        c.np_flags = f.get<std::uint8_t>();
        c.flags_free = f.get<std::uint8_t>();
        break;
      default:
        c.unknown_tags.push_back(tag);
        break;  // a newer generator: the case is skipped
    }
  }
  return c;
}

struct case_file {
  std::string path, numpy_version, seed;
  std::vector<std::string> repro;  // generator command line, without --index
  std::vector<test_case> cases;
};

case_file read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<char> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  reader r(reinterpret_cast<const std::byte*>(buf.data()), buf.size());
  if (r.str(8) != "UFDIFF02") throw std::runtime_error(path + " is not a case file of this version (UFDIFF02)");
  case_file cf;
  cf.path = path;
  std::istringstream header(r.str(r.get<std::uint32_t>()));
  for (std::string line; std::getline(header, line);) {
    const auto eq = line.find('=');
    const auto key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "numpy") cf.numpy_version = value;
    if (key == "seed") cf.seed = value;
    if (key == "repro") {
      std::string item;
      for (char ch : value) {
        if (ch == '\x1f') {
          cf.repro.push_back(item);
          item.clear();
        } else {
          item += ch;
        }
      }
      cf.repro.push_back(item);
    }
  }
  const auto n = r.get<std::uint32_t>();
  cf.cases.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto len = r.get<std::uint32_t>();
    const auto body = r.bytes(len);
    reader cr(body.data(), body.size());
    cf.cases.push_back(read_case(cr));
  }
  return cf;
}

// ---------------------------------------------------------------------------------
// Building operands
// ---------------------------------------------------------------------------------
struct built_array {
  array base;                       // where the data lives (host or device)
  array view;                       // the operand
  std::vector<std::byte> original;  // the base's bytes before the call
};

array apply_transforms(array v, const std::vector<transform>& ts) {
  for (const auto& t : ts) {
    if (t.kind == 1) {
      // operator[] takes an initializer_list: index one axis at a time with ':' elsewhere.
      for (std::size_t axis = 0; axis < t.slices.size(); ++axis) {
        const std::int64_t nd = static_cast<std::int64_t>(v.ndim());
        std::vector<std::int64_t> perm;
        // Move `axis` to the front, slice it, move it back.
        perm.push_back(static_cast<std::int64_t>(axis));
        for (std::int64_t i = 0; i < nd; ++i)
          if (i != static_cast<std::int64_t>(axis)) perm.push_back(i);
        array front = v.transpose(perm);
        front = front[{t.slices[axis]}];
        std::vector<std::int64_t> inverse(perm.size());
        for (std::size_t i = 0; i < perm.size(); ++i)
          inverse[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
        v = front.transpose(inverse);
      }
    } else if (t.kind == 2) {
      v = v.transpose(t.values);
    } else if (t.kind == 3) {
      v = v.broadcast_to(ufunc::dim_vector(t.values.begin(), t.values.end()));
    } else {
      throw std::runtime_error("unknown view transform in case file");
    }
  }
  return v;
}

built_array build(const array_spec& s, bool on_device) {
  built_array b;
  array host = array::empty(s.shape, s.type);
  if (static_cast<std::size_t>(host.nbytes()) != s.data.size())
    throw std::runtime_error("case file: data size does not match the shape");
  if (!s.data.empty()) std::memcpy(host.data(), s.data.data(), s.data.size());
  b.original = s.data;
  b.base = on_device ? ufunc::to_device(host) : host;
  b.view = apply_transforms(b.base, s.transforms);
  return b;
}

// The bytes of `a` in C order, on the host.
std::vector<std::byte> host_bytes(const array& a) {
  const array h = a.device().is_host() ? a.copy() : ufunc::to_host(a);
  const auto* p = h.data();
  return {p, p + h.nbytes()};
}

// Byte offsets (from the base's start) of every element of `view`, a view of `base`.
std::vector<std::int64_t> element_offsets(const array& base, const array& view) {
  std::vector<std::int64_t> out;
  const auto& shape = view.shape();
  const auto& strides = view.strides();
  const std::int64_t start = view.data() - base.data();
  if (view.size() == 0) return out;
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (;;) {
    std::int64_t off = start;
    for (std::size_t i = 0; i < shape.size(); ++i) off += idx[i] * strides[i];
    out.push_back(off);
    std::size_t d = shape.size();
    while (d > 0) {
      --d;
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
      if (d == 0) return out;
    }
    if (shape.empty()) return out;
  }
}

// ---------------------------------------------------------------------------------
// Values and comparison
// ---------------------------------------------------------------------------------
template <class F>
std::int64_t ordered(F x) {  // monotonic integer image of a float; +0 and -0 both 0
  using I = std::conditional_t<sizeof(F) == 4, std::int32_t, std::int64_t>;
  I i;
  std::memcpy(&i, &x, sizeof(F));
  return i < 0 ? -static_cast<std::int64_t>(i & std::numeric_limits<I>::max()) : static_cast<std::int64_t>(i);
}

template <class F>
std::string fmt(F x) {
  std::ostringstream s;
  s.precision(std::is_same_v<F, float> ? 9 : 17);
  s << x;
  return s.str();
}

// Whether `ours` is acceptable for NumPy's `np` with `ulps` allowed; `scale` is the
// magnitude ulps are measured at (|np| for reals; the larger part for complex).
template <class F>
bool float_ok(F ours, F np, int ulps, F scale, bool zero_sign = true) {
  if (std::isnan(np)) return std::isnan(ours);
  if (std::isnan(ours) || std::isinf(np) || std::isinf(ours)) return ours == np;
  if (np == 0 && ours == 0) return !zero_sign || std::signbit(np) == std::signbit(ours);
  if (ulps == 0) return ours == np;
  if (std::abs(scale) > std::abs(np) && std::isfinite(scale)) {
    // ulps of the larger part: |ours - np| <= ulps * ulp(scale)
    const F ulp = std::nextafter(std::abs(scale), std::numeric_limits<F>::infinity()) - std::abs(scale);
    return std::abs(static_cast<double>(ours) - static_cast<double>(np)) <= ulps * static_cast<double>(ulp);
  }
  const auto d = ordered(ours) - ordered(np);
  return (d < 0 ? -d : d) <= ulps;
}

struct element_check {
  bool ok = true;
  std::string ours, np;
};

// Within an absolute tolerance (reductions, whose summation order differs from NumPy's pairwise sums).
template <class F>
bool within_abs(F ours, F np, double tol) {
  return std::isfinite(ours) && std::isfinite(np) &&
         std::abs(static_cast<double>(ours) - static_cast<double>(np)) <= tol;
}

// Within the generator's absolute tolerance of a reduction element (< 0 or NaN: none).
// An infinite one (a power chain whose direction is lost, generate_cases.py's
// POWER_CHAINS) also accepts an infinite or zero part of either sign.
template <class F>
bool within_tolerance(F ours, F np, double abs_tol) {
  if (std::isinf(abs_tol) && (std::isinf(np) || np == 0) && std::abs(ours) == std::abs(np)) return true;
  return abs_tol >= 0 && within_abs(ours, np, abs_tol);
}

// Within the condition-aware bound (see condition_bound); `magnitude` is |NumPy's
// result| for a relative bound, 1 for an absolute one.
template <class F>
bool within_condition(F ours, F np, double scale, double magnitude, bool relative) {
  if (direction_lost<F>(scale, relative) && (std::isinf(np) || np == 0) && std::abs(ours) == std::abs(np)) return true;
  if (!(scale >= 0) || !std::isfinite(scale) || !std::isfinite(magnitude)) return false;
  return within_abs(ours, np,
                    condition_eps * static_cast<double>(std::numeric_limits<F>::epsilon()) * scale * magnitude);
}

element_check compare_element(dtype t, const std::byte* ours, const std::byte* np, tolerance tol, bool complex_inputs,
                              double abs_tol = -1, double cond_scale = -1, bool cond_relative = false) {
  element_check r;
  ufunc::visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    T a, b;
    std::memcpy(&a, ours, sizeof(T));
    std::memcpy(&b, np, sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      r.ok = std::memcmp(ours, np, 1) == 0;
      r.ours = std::to_string(static_cast<int>(*reinterpret_cast<const std::uint8_t*>(ours)));
      r.np = std::to_string(static_cast<int>(*reinterpret_cast<const std::uint8_t*>(np)));
    } else if constexpr (std::is_integral_v<T>) {
      r.ok = a == b;
      r.ours = std::to_string(a);
      r.np = std::to_string(b);
    } else if constexpr (std::is_floating_point_v<T>) {
      r.ok = float_ok(a, b, complex_inputs ? tol.complex_ulps : tol.real_ulps, b, tol.zero_sign) ||
             within_tolerance(a, b, abs_tol) ||
             within_condition(a, b, cond_scale, cond_relative ? std::abs(static_cast<double>(b)) : 1.0, cond_relative);
      r.ours = fmt(a);
      r.np = fmt(b);
    } else {
      using F = typename T::value_type;
      const F scale = std::max(std::abs(b.real()), std::abs(b.imag()));
      const double magnitude =
          cond_relative ? std::hypot(static_cast<double>(b.real()), static_cast<double>(b.imag())) : 1.0;
      r.ok = (float_ok(a.real(), b.real(), tol.complex_ulps, scale, tol.zero_sign) ||
              within_tolerance(a.real(), b.real(), abs_tol) ||
              within_condition(a.real(), b.real(), cond_scale, magnitude, cond_relative)) &&
             (float_ok(a.imag(), b.imag(), tol.complex_ulps, scale, tol.zero_sign) ||
              within_tolerance(a.imag(), b.imag(), abs_tol) ||
              within_condition(a.imag(), b.imag(), cond_scale, magnitude, cond_relative));
      r.ours = "(" + fmt(a.real()) + (std::signbit(a.imag()) ? "" : "+") + fmt(a.imag()) + "j)";
      r.np = "(" + fmt(b.real()) + (std::signbit(b.imag()) ? "" : "+") + fmt(b.imag()) + "j)";
    }
  });
  return r;
}

std::string index_string(std::int64_t flat, const ufunc::dim_vector& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (std::size_t i = 0; i < idx.size(); ++i) s += (i ? "," : "") + std::to_string(idx[i]);
  return s + "]";
}

// "" when `got` (C-ordered bytes of dtype `type`, shape `shape`) matches; otherwise what differs.
std::string compare_result(const expected_result& e, dtype type, const ufunc::dim_vector& shape,
                           const std::vector<std::byte>& got, tolerance tol, bool complex_inputs,
                           const std::vector<double>& abs_tol, const std::string& what,
                           const condition_bound* cond = nullptr) {
  if (type != e.type) return what + " dtype " + std::string(type.name()) + ", NumPy " + std::string(e.type.name());
  if (shape != e.shape)
    return what + " shape " + array::shape_string(shape) + ", NumPy " + array::shape_string(e.shape);
  const std::size_t item = type.itemsize();
  const std::size_t n = e.data.size() / item;
  std::int64_t first = -1, bad = 0;
  element_check first_check;
  for (std::size_t i = 0; i < n; ++i) {
    if (!e.mask.empty() && !e.mask[i]) continue;
    const auto c = compare_element(type, got.data() + i * item, e.data.data() + i * item, tol, complex_inputs,
                                   i < abs_tol.size() ? abs_tol[i] : -1.0,
                                   cond && i < cond->scale.size() ? cond->scale[i] : -1.0, cond && cond->relative);
    if (!c.ok) {
      if (first < 0) {
        first = static_cast<std::int64_t>(i);
        first_check = c;
      }
      ++bad;
    }
  }
  if (bad == 0) return {};
  return what + " " + std::string(type.name()) + array::shape_string(shape) + ": " + std::to_string(bad) + " of " +
         std::to_string(n) + " elements differ; first at " + index_string(first, shape) + ": ours " + first_check.ours +
         ", NumPy " + first_check.np;
}

// A float32 (complex64) loop writing into a float64 (complex128) out= array: the loop's
// result is only accurate to float32's ulps, so both sides are compared as float32
// (complex64) with the bound in those ulps. Only where every element of ours that
// differs from NumPy's is a float32 value: a result computed in float64 instead stays
// a mismatch. Replaces
// `got` by the narrowed bytes and returns the narrowed expectation, or nothing.
std::optional<expected_result> at_loop_precision(const std::string& loop, std::size_t output, const expected_result& e,
                                                 dtype got_type, std::vector<std::byte>& got) {
  const auto arrow = loop.find("->");
  if (arrow == std::string::npos || arrow + 2 + output >= loop.size() || got_type != e.type) return std::nullopt;
  const char code = loop[arrow + 2 + output];
  const bool real = code == 'f' && e.type == ufunc::dtype_of<double>;
  const bool cplx = (code == 'f' || code == 'F') && e.type == ufunc::dtype_of<std::complex<double>>;
  if (!real && !cplx) return std::nullopt;
  // Elements where ours equals NumPy's are narrowed whatever they hold (out= elements
  // that where= left alone keep their float64 values on both sides).
  const std::size_t n = e.data.size() / sizeof(double);
  if (got.size() != e.data.size()) return std::nullopt;
  std::vector<std::byte> ours(n * sizeof(float)), theirs(n * sizeof(float));
  for (std::size_t i = 0; i < n; ++i) {
    double o, t;
    std::memcpy(&o, got.data() + i * sizeof(double), sizeof o);
    std::memcpy(&t, e.data.data() + i * sizeof(double), sizeof t);
    const auto fo = static_cast<float>(o), ft = static_cast<float>(t);
    const bool same = std::memcmp(&o, &t, sizeof o) == 0;
    if (!same && !(static_cast<double>(fo) == o || std::isnan(o))) return std::nullopt;
    std::memcpy(ours.data() + i * sizeof(float), &fo, sizeof fo);
    std::memcpy(theirs.data() + i * sizeof(float), &ft, sizeof ft);
  }
  expected_result narrowed = e;
  narrowed.type = real ? ufunc::dtype_of<float> : ufunc::dtype_of<std::complex<float>>;
  narrowed.data = std::move(theirs);
  got = std::move(ours);
  return narrowed;
}

std::string class_of(const std::exception& e) {
  if (dynamic_cast<const ufunc::broadcast_error*>(&e)) return "broadcast_error";
  if (dynamic_cast<const ufunc::no_loop_error*>(&e)) return "no_loop_error";
  if (dynamic_cast<const ufunc::casting_error*>(&e)) return "casting_error";
  if (dynamic_cast<const ufunc::dtype_error*>(&e)) return "dtype_error";
  if (dynamic_cast<const ufunc::overlap_error*>(&e)) return "overlap_error";
  if (dynamic_cast<const ufunc::index_error*>(&e)) return "index_error";
  if (dynamic_cast<const ufunc::overflow_error*>(&e)) return "overflow_error";
  if (dynamic_cast<const ufunc::value_error*>(&e)) return "value_error";
  if (dynamic_cast<const ufunc::target_error*>(&e)) return "target_error";
  if (dynamic_cast<const ufunc::memory_error*>(&e)) return "memory_error";
  if (dynamic_cast<const ufunc::error*>(&e)) return "ufunc::error";
  return "std::exception";
}

// ---------------------------------------------------------------------------------
// Running one case on one target
// ---------------------------------------------------------------------------------
struct run_result {
  enum class kind { pass, fail, skip } k = kind::pass;
  std::string detail;  // failure description or skip reason
  unsigned flags = 0;  // fp_flag bits our call raised (fp_mode::call)
};

run_result skip(std::string why) { return {run_result::kind::skip, std::move(why)}; }
run_result fail(std::string why) { return {run_result::kind::fail, std::move(why)}; }

// What a replay produced: the arrays to compare with NumPy's results, in order, and
// every operand's base with the view of it that the call may write (none: untouched).
struct replay {
  std::vector<array> got;
  std::vector<std::pair<const built_array*, std::optional<array>>> bases;
};

ufunc::weak_scalar weak(const scalar_spec& s) {
  switch (s.kind) {
    case 'b':
      return ufunc::weak_scalar(s.i != 0);
    case 'i':
      return ufunc::weak_scalar(static_cast<long long>(s.i));
    case 'u':
      return ufunc::weak_scalar(static_cast<unsigned long long>(s.u));
    case 'f':
      return ufunc::weak_scalar(s.re);
    default:
      return ufunc::weak_scalar(std::complex<double>(s.re, s.im));
  }
}

// The methods (function::reduce, accumulate, reduceat, outer, at; core/methods.hpp).
// Each is compiled only when the library has it with the options used here, so that
// a change there makes the runner skip those cases (and say so) rather than break the build.
template <class F = ufunc::function>
std::optional<run_result> run_method(const test_case& c, const F& f, ufunc::target_id target,
                                     std::vector<built_array>& ins, built_array& out, built_array& where,
                                     built_array& indices, replay& rp) {
  const bool device = target == ufunc::target_id::cuda;
  const auto& m = c.method;
  auto axes_of = [&](auto& o) {
    if (!c.has_axis) return;
    if (c.axis_none)
      o.axis = ufunc::all_axes;
    else if (c.axis_scalar)
      o.axis = static_cast<int>(c.axis[0]);
    else
      o.axis = std::vector<int>(c.axis.begin(), c.axis.end());
  };
  if (!c.outs.empty()) out = build(c.outs[0].arr, device);
  if (c.where) where = build(*c.where, device);
  if (c.indices) indices = build(*c.indices, device);
  const array& a = ins[0].view;
  if (m == "reduce") {
    if constexpr (requires(const F& g, ufunc::reduce_options o) {
                    g.reduce(a, o);
                    o.axis = ufunc::all_axes;
                    o.axis = 1;
                    o.axis = std::vector<int>{};
                    o.keepdims = true;
                    o.initial = ufunc::weak_scalar(1);
                    o.where = a;
                    o.out = a;
                    o.dtype = ufunc::float64;
                    o.target = target;
                  }) {
      ufunc::reduce_options o;
      axes_of(o);
      if (c.keepdims) o.keepdims = *c.keepdims;
      if (c.initial) o.initial = weak(*c.initial);
      if (c.where) o.where = where.view;
      if (!c.outs.empty()) o.out = out.view;
      o.dtype = c.out_dtype;
      o.target = target;
      rp.got.push_back(f.reduce(a, o));
    } else {
      return skip("method reduce: function::reduce or reduce_options differ from what the runner expects");
    }
  } else if (m == "accumulate" || m == "reduceat") {
    if constexpr (requires(const F& g, ufunc::accumulate_options o) {
                    g.accumulate(a, o);
                    g.reduceat(a, a, o);
                    o.axis = 1;
                    o.out = a;
                    o.dtype = ufunc::float64;
                    o.target = target;
                  }) {
      ufunc::accumulate_options o;
      if (c.has_axis) {
        if (c.axis_none || !c.axis_scalar) return skip("method " + m + ": axis other than one integer");
        o.axis = static_cast<int>(c.axis[0]);
      }
      if (!c.outs.empty()) o.out = out.view;
      o.dtype = c.out_dtype;
      o.target = target;
      rp.got.push_back(m == "accumulate" ? f.accumulate(a, o) : f.reduceat(a, indices.view, o));
    } else {
      return skip("method " + m + ": function::" + m + " or accumulate_options differ from what the runner expects");
    }
  } else if (m == "outer") {
    if constexpr (requires(const F& g, ufunc::call_options o) { g.outer(a, a, o); }) {
      ufunc::call_options o;
      if (c.where) o.where = where.view;
      if (!c.outs.empty()) o.out = {out.view};
      o.dtype = c.out_dtype;
      o.target = target;
      if constexpr (requires(const F& g, ufunc::call_options o) { g.outer_all(a, a, o); }) {
        for (auto& r : f.outer_all(ins[0].view, ins[1].view, o)) rp.got.push_back(std::move(r));
      } else {
        rp.got.push_back(f.outer(ins[0].view, ins[1].view, o));
      }
    } else {
      return skip("method outer: function::outer differs from what the runner expects");
    }
  } else if (m == "at") {
    if constexpr (requires(const F& g, ufunc::call_options o) {
                    g.at(a, a, a, o);
                    g.at(a, a, o);
                  }) {
      ufunc::call_options o;
      o.target = target;
      if (c.inputs.size() > 1) {
        const ufunc::operand b = c.inputs[1].is_scalar ? c.inputs[1].scalar.operand() : ufunc::operand(ins[1].view);
        f.at(a, indices.view, b, o);
      } else {
        f.at(a, indices.view, o);
      }
      rp.got.push_back(a);
    } else {
      return skip("method at: function::at differs from what the runner expects");
    }
  } else {
    return skip("method " + m + ": unknown to the runner");
  }
  if (!c.outs.empty() && rp.got[0].data() != out.view.data())
    return fail("result: the returned array is not the out= array");
  if (!c.outs.empty()) rp.got[0] = out.view;
  return std::nullopt;
}

// The value of one element of dtype `t` as a complex number (reals: imaginary part 0).
std::complex<double> value_at(dtype t, const std::byte* p) {
  std::complex<double> v;
  ufunc::visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    T x;
    std::memcpy(&x, p, sizeof(T));
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      v = {static_cast<double>(x.real()), static_cast<double>(x.imag())};
    else
      v = static_cast<double>(x);
  });
  return v;
}

// Each input's values, one per element of the result (C order): broadcast to `shape`
// for call; for outer, a's over the leading axes and b's over the trailing ones.
std::vector<std::vector<std::complex<double>>> inputs_per_element(const test_case& c, const ufunc::dim_vector& shape,
                                                                  std::size_t n) {
  std::vector<std::vector<std::complex<double>>> out;
  std::vector<built_array> keep(c.inputs.size());
  std::vector<std::int64_t> sizes;
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    const auto& in = c.inputs[k];
    std::vector<std::complex<double>> v;
    if (in.is_scalar) {
      v.assign(n, {in.scalar.kind == 'u'                            ? static_cast<double>(in.scalar.u)
                   : in.scalar.kind == 'b' || in.scalar.kind == 'i' ? static_cast<double>(in.scalar.i)
                                                                    : in.scalar.re,
                   in.scalar.kind == 'c' ? in.scalar.im : 0.0});
      sizes.push_back(1);
    } else {
      keep[k] = build(in.arr, false);
      array view = keep[k].view;
      if (c.method == "call") view = view.broadcast_to(shape);
      for (auto off : element_offsets(view, view)) v.push_back(value_at(view.type(), view.data() + off));
      sizes.push_back(std::max<std::int64_t>(view.size(), 1));
    }
    out.push_back(std::move(v));
  }
  if (c.method == "outer" && out.size() == 2) {  // result [i, j] = f(a[i], b[j])
    std::vector<std::vector<std::complex<double>>> expanded(2);
    const auto nb = static_cast<std::size_t>(sizes[1]);
    for (std::size_t i = 0; i < n; ++i) {
      expanded[0].push_back(out[0][c.inputs[0].is_scalar ? i : i / nb]);
      expanded[1].push_back(out[1][c.inputs[1].is_scalar ? i : i % nb]);
    }
    return expanded;
  }
  return out;
}

// The condition_bound of result 0 of `c` (empty where none applies).
condition_bound condition_scales(const test_case& c, condition_kind kind) {
  condition_bound cb;
  if (kind == condition_kind::none || c.expected.size() != 1 || c.inputs.size() != 2) return cb;
  if (c.method != "call" && !(c.method == "outer" && !c.where)) return cb;
  const auto& e = c.expected[0];
  const std::size_t n = e.data.size() / e.type.itemsize();
  const auto in = inputs_per_element(c, e.shape, n);
  if (in[0].size() != n || in[1].size() != n) return cb;
  std::vector<char> written(n, 1);  // where=False elements keep the out= values: no condition bound there
  if (c.where && c.method == "call") {
    const auto w = build(*c.where, false);
    const array wv = w.view.broadcast_to(e.shape);
    std::size_t i = 0;
    for (auto off : element_offsets(wv, wv)) written[i++] = value_at(wv.type(), wv.data() + off) != 0.0;
  }
  cb.relative = kind == condition_kind::exponent;
  cb.scale.assign(n, -1.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!written[i]) continue;
    const auto a = in[0][i], b = in[1][i];
    double s;
    if (kind == condition_kind::input_scale) {
      s = std::max(std::abs(a.real()), std::abs(b.real()));
    } else {
      s = 1.0 + std::abs(b * std::log(a));                                 // 1 + |w log z|
      if (!std::isfinite(s)) s = std::numeric_limits<double>::infinity();  // w log z inf or NaN: no direction
    }
    if (!std::isnan(s)) cb.scale[i] = s;
  }
  return cb;
}

// ---------------------------------------------------------------------------------
// Floating-point flags (docs/testing.md, "Floating-point flags"): every case is
// replayed under the `call` policy, whose function records the flags our call
// raised, and they must be NumPy's in every kind the case compares (the generator
// leaves out, per case, the kinds whose NumPy flags are not a property of the
// operation: flags_free). Cases with flags, and every 8th, are replayed again under
// `raise` and `warn`, which must act on exactly NumPy's kinds.
// ---------------------------------------------------------------------------------
enum class fp_mode { call, raise, warn };
constexpr unsigned all_fp_flags = 15;

std::string flag_names(unsigned flags) {
  static constexpr std::pair<unsigned, const char*> names[] = {
      {1, "divide"}, {2, "overflow"}, {4, "underflow"}, {8, "invalid"}};
  std::string s;
  for (const auto& [bit, name] : names)
    if (flags & bit) s += (s.empty() ? "" : ",") + std::string(name);
  return "{" + s + "}";
}

// Whether the case runs a complex loop (the complex column of ulp_bound()).
bool complex_loop(const test_case& c) {
  if (!c.loop.empty()) return c.loop.substr(0, c.loop.find("->")).find_first_of("FD") != std::string::npos;
  bool cplx = c.out_dtype && c.out_dtype->is_complex();
  for (const auto& in : c.inputs) cplx |= in.is_scalar ? in.scalar.kind == 'c' : in.arr.type.is_complex();
  return cplx;
}

// The kinds compared for case `c` of ufunc `name`: all four, less those the generator leaves
// out for this case (flags_free), less underflow where the loop is not correctly rounded (its
// ulp bound is not 0): an approximation raises underflow in its intermediate steps, or not,
// as its polynomial goes (NumPy's own differ between its AVX-512 and baseline loops: float32
// cos of a tiny argument underflows in the former), and complex products and quotients
// underflow in parts the formula chooses.
unsigned compared_flags(const test_case& c, std::string_view name) {
  if (!c.has_flags) return 0;
  unsigned free = c.flags_free;
  const tolerance tol = ulp_bound(name);
  if ((complex_loop(c) ? tol.complex_ulps : tol.real_ulps) != 0)
    free |= static_cast<unsigned>(ufunc::fp_flag::underflow);
  return all_fp_flags & ~free;
}

// The kind a warning or floating_point_error message names (errstate.cpp's texts).
unsigned flag_of_message(std::string_view m) {
  if (m.starts_with("divide by zero")) return 1;
  if (m.starts_with("overflow")) return 2;
  if (m.starts_with("underflow")) return 4;
  if (m.starts_with("invalid value")) return 8;
  return 0;
}

// The policies of a replay, and what they saw. `call`: every kind calls the recording
// function (the kinds not compared too, so that a failure can show them); `raise` and
// `warn`: the compared kinds only, the others are ignored.
class fp_replay {
 public:
  fp_replay(fp_mode mode, unsigned compared)
      : guard_(changes(mode, compared), [this](std::string_view, unsigned flags) { flags_ |= flags; }) {
    if (mode == fp_mode::warn)
      saved_handler_ = ufunc::set_warning_handler([this](std::string_view m) { warned_ |= flag_of_message(m); });
    warn_ = mode == fp_mode::warn;
  }
  ~fp_replay() {
    if (warn_) ufunc::set_warning_handler(std::move(saved_handler_));
  }
  fp_replay(const fp_replay&) = delete;
  fp_replay& operator=(const fp_replay&) = delete;
  [[nodiscard]] unsigned flags() const { return flags_; }
  [[nodiscard]] unsigned warned() const { return warned_; }

 private:
  static ufunc::fp_error_changes changes(fp_mode mode, unsigned compared) {
    const ufunc::fp_policy p = mode == fp_mode::call    ? ufunc::fp_policy::call
                               : mode == fp_mode::raise ? ufunc::fp_policy::raise
                                                        : ufunc::fp_policy::warn;
    auto pick = [&](ufunc::fp_flag k) {
      return mode == fp_mode::call || (compared & static_cast<unsigned>(k)) ? p : ufunc::fp_policy::ignore;
    };
    ufunc::fp_error_changes ch;
    ch.divide = pick(ufunc::fp_flag::divide);
    ch.over = pick(ufunc::fp_flag::overflow);
    ch.under = pick(ufunc::fp_flag::underflow);
    ch.invalid = pick(ufunc::fp_flag::invalid);
    return ch;
  }
  unsigned flags_ = 0, warned_ = 0;
  bool warn_ = false;
  ufunc::warning_handler saved_handler_;
  ufunc::errstate guard_;
};

run_result run_case(const test_case& c, const ufunc::function& f, ufunc::target_id target, bool user,
                    fp_mode mode = fp_mode::call) {
  const bool device = target == ufunc::target_id::cuda;
  if (!c.unknown_tags.empty()) return skip("case fields this runner does not know (a newer generator)");
  // Device loops exist only where this file was compiled as CUDA (a CUDA build).
  if (device && user && !user_device_loops) return skip("the runner's vectorize'd ufuncs have host loops only");

  std::vector<built_array> ins(c.inputs.size());
  std::vector<ufunc::operand> operands;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (c.inputs[i].is_scalar) {
      operands.push_back(c.inputs[i].scalar.operand());
    } else {
      ins[i] = build(c.inputs[i].arr, device);
      operands.emplace_back(ins[i].view);
    }
  }
  std::vector<built_array> outs(c.outs.size());
  built_array where, indices, method_out;
  replay rp;
  std::string error_class, error_message;
  ufunc::call_options opt;
  const unsigned compared = compared_flags(c, c.canonical.empty() ? f.name() : c.canonical);
  std::optional<fp_replay> fp;
  fp.emplace(mode, compared);
  unsigned raised = 0;  // fp_mode::raise: the kind of the floating_point_error thrown
  try {
    if (c.method != "call") {
      if (auto r = run_method(c, f, target, ins, method_out, where, indices, rp)) return *r;
      if (c.method == "at")
        rp.bases.emplace_back(&ins[0], ins[0].view);
      else
        rp.bases.emplace_back(&ins[0], std::nullopt);
      if (ins.size() > 1) rp.bases.emplace_back(&ins[1], std::nullopt);
      if (!c.outs.empty()) rp.bases.emplace_back(&method_out, method_out.view);
    } else {
      for (std::size_t j = 0; j < c.outs.size(); ++j) {
        if (c.outs[j].alias >= 0) {
          opt.out.push_back(ins[static_cast<std::size_t>(c.outs[j].alias)].view);
        } else {
          outs[j] = build(c.outs[j].arr, device);
          opt.out.push_back(outs[j].view);
        }
      }
      if (c.where) {
        where = build(*c.where, device);
        opt.where = where.view;
      }
      opt.dtype = c.out_dtype;
      opt.signature = c.signature;
      if (c.casting) opt.casting = *c.casting;
      opt.target = target;
      rp.got = f.call(operands, opt);
      if (!c.outs.empty()) {
        for (std::size_t j = 0; j < rp.got.size() && j < opt.out.size(); ++j) {
          if (rp.got[j].data() != opt.out[j].data())
            return fail("output " + std::to_string(j) + ": the returned array is not the out= array");
          rp.got[j] = opt.out[j];
        }
      }
      for (std::size_t i = 0; i < ins.size(); ++i) {
        std::optional<array> written;
        for (std::size_t j = 0; j < c.outs.size(); ++j)
          if (c.outs[j].alias == static_cast<int>(i)) written = opt.out[j];
        rp.bases.emplace_back(&ins[i], written);
      }
      for (std::size_t j = 0; j < outs.size(); ++j)
        if (c.outs[j].alias < 0) rp.bases.emplace_back(&outs[j], opt.out[j]);
    }
    if (device && !rp.got.empty()) (void)ufunc::to_host(rp.got[0]);  // waits for the stream: errors surface here
  } catch (const ufunc::floating_point_error& e) {
    if (mode == fp_mode::raise) {
      raised = e.flag();
    } else {  // no policy raises: a library error like any other
      error_class = class_of(e);
    }
    error_message = e.what();
  } catch (const std::exception& e) {
    error_class = class_of(e);
    error_message = e.what();
  }
  const unsigned ours_flags = fp->flags(), warned = fp->warned();
  fp.reset();  // the comparison below computes with the library: under the runner's policies (ignore)
  if (error_class == "target_error" && device) return skip("cuda: " + error_message.substr(0, 120));
  if (mode == fp_mode::raise) {
    // NumPy's 'raise' throws FloatingPointError for the first kind it saw, in the order divide,
    // overflow, underflow, invalid (the library's order too): the lowest bit compared.
    const unsigned want = c.np_flags & compared, first = want & (~want + 1);
    if (raised != first)
      return fail("errstate raise: ours " +
                  (raised ? "throws floating_point_error for " + flag_names(raised) + " (" + error_message + ")"
                          : std::string("throws nothing")) +
                  ", NumPy raises " + (first ? "FloatingPointError for " + flag_names(first) : std::string("nothing")) +
                  " (compared: " + flag_names(compared) + ")");
    if (raised) return {};  // the outputs may be partly written, as in NumPy: nothing more to compare
  }
  if (mode == fp_mode::warn && !c.expect_error && error_class.empty() && warned != (c.np_flags & compared))
    return fail("errstate warn: ours warns " + flag_names(warned) + ", NumPy " + flag_names(c.np_flags & compared) +
                " (compared: " + flag_names(compared) + ")");
  if (c.expect_error) {
    if (error_class.empty())
      return fail("NumPy raises " + c.np_error + " (" + c.np_message + "), ours returns " +
                  (rp.got.empty() ? std::string("nothing")
                                  : std::string(rp.got[0].type().name()) + array::shape_string(rp.got[0].shape())));
    if (error_class != c.our_error)
      return fail("NumPy raises " + c.np_error + " (" + c.np_message + ") = " + c.our_error + ", ours " + error_class +
                  " (" + error_message + ")");
    return {};
  }
  if (!error_class.empty())
    return fail("ours raises " + error_class + " (" + error_message + "), NumPy returns " +
                (c.expected.empty()
                     ? std::string("?")
                     : std::string(c.expected[0].type.name()) + array::shape_string(c.expected[0].shape)));
  if (rp.got.size() != c.expected.size())
    return fail("ours returns " + std::to_string(rp.got.size()) + " outputs, NumPy " +
                std::to_string(c.expected.size()));

  bool device_operands = false;
  for (const auto& in : c.inputs) device_operands |= device && !in.is_scalar;
  device_operands |= device && (!c.outs.empty() || c.where.has_value());
  tolerance tol = ulp_bound(c.canonical.empty() ? f.name() : c.canonical);
  if (c.ulps_override >= 0) tol.real_ulps = tol.complex_ulps = c.ulps_override;
  bool complex_inputs = false;
  for (const auto& in : c.inputs) complex_inputs |= in.is_scalar ? in.scalar.kind == 'c' : in.arr.type.is_complex();
  condition_bound cond;  // ill-conditioned ufuncs: a bound from the case's inputs (see condition_bound)
  if (!c.expected.empty() && !c.expect_error)
    cond = condition_scales(c, condition_of(c.canonical.empty() ? f.name() : c.canonical, c.expected[0].type));
  for (std::size_t j = 0; j < c.expected.size(); ++j) {
    const std::string what = c.expected.size() > 1 ? "output " + std::to_string(j) : std::string("result");
    const array& got = rp.got[j];
    // Device operands give device results; a call on Python scalars alone stays on the host.
    if (got.device().is_host() == device_operands && got.size() > 0)
      return fail(what + " is on " + got.device().str() + ", the operands on " +
                  (device_operands ? "cuda" : "the host"));
    auto got_bytes = host_bytes(got);
    const auto* expected = &c.expected[j];
    const auto narrow = at_loop_precision(c.loop, j, *expected, got.type(), got_bytes);
    if (narrow) expected = &*narrow;
    const auto msg = compare_result(*expected, narrow ? expected->type : got.type(), got.shape(), got_bytes, tol,
                                    complex_inputs, c.abs_tol, what, j == 0 && !cond.scale.empty() ? &cond : nullptr);
    if (!msg.empty()) return fail(msg);
  }
  // Nothing outside the written views changed; inputs are untouched.
  for (std::size_t k = 0; k < rp.bases.size(); ++k) {
    const auto& [b, written] = rp.bases[k];
    if (!b->base.valid()) continue;
    const auto after = host_bytes(b->base);
    std::vector<char> inside(after.size(), 0);
    if (written) {
      const auto item = static_cast<std::int64_t>(written->itemsize());
      for (auto off : element_offsets(b->base, *written))
        for (std::int64_t i = 0; i < item; ++i) inside[static_cast<std::size_t>(off + i)] = 1;
    }
    for (std::size_t i = 0; i < after.size(); ++i)
      if (!inside[i] && after[i] != b->original[i])
        return fail(std::string(written ? "an output" : "an input") + ": byte " + std::to_string(i) +
                    " of its base array changed" + (written ? " outside the written view" : ""));
  }
  if (mode == fp_mode::call && (ours_flags ^ c.np_flags) & compared) {
    run_result r = fail(
        "floating-point flags: ours " + flag_names(ours_flags) + ", NumPy " + flag_names(c.np_flags) + " (differ in " +
        flag_names((ours_flags ^ c.np_flags) & compared) +
        (compared != all_fp_flags ? "; not compared: " + flag_names(all_fp_flags & ~compared) : std::string()) + ")");
    r.flags = ours_flags;
    return r;
  }
  run_result r;
  r.flags = ours_flags;
  return r;
}

// ---------------------------------------------------------------------------------
// --self-check: the comparison's condition-aware bound on synthetic cases (no NumPy)
// ---------------------------------------------------------------------------------
template <class T>
array_spec spec_of(const std::vector<T>& v) {
  array_spec a;
  a.type = ufunc::dtype_of<T>;
  a.shape = {static_cast<std::int64_t>(v.size())};
  const auto* p = reinterpret_cast<const std::byte*>(v.data());
  a.data.assign(p, p + v.size() * sizeof(T));
  return a;
}

// Whether `ours` passes against NumPy's `np` for the binary call `name`(x, y) as run_case compares it.
template <class T, class X, class Y>
bool passes(std::string_view name, X x, Y y, T np, T ours) {
  test_case c;
  c.canonical = std::string(name);
  c.inputs.push_back({false, spec_of(std::vector<X>{x}), {}});
  c.inputs.push_back({false, spec_of(std::vector<Y>{y}), {}});
  expected_result e;
  e.type = ufunc::dtype_of<T>;
  e.shape = {1};
  const auto* p = reinterpret_cast<const std::byte*>(&np);
  e.data.assign(p, p + sizeof(T));
  c.expected.push_back(e);
  const auto cond = condition_scales(c, condition_of(name, e.type));
  const auto* q = reinterpret_cast<const std::byte*>(&ours);
  const std::vector<std::byte> got(q, q + sizeof(T));
  bool cplx = false;
  if constexpr (!std::is_floating_point_v<X>) cplx = true;
  return compare_result(e, e.type, e.shape, got, ulp_bound(name), cplx, {}, "result",
                        cond.scale.empty() ? nullptr : &cond)
      .empty();
}

int self_check() {
  int failed = 0;
  auto expect = [&](bool got, bool want, const char* what) {
    if (got != want) {
      std::cout << "FAIL self-check: " << what << ": " << (got ? "accepted" : "rejected") << "\n";
      ++failed;
    }
  };
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  {  // logaddexp cancelling: logaddexp(-0.69, -0.70) = 0.0012...; scale 0.7
    const double x = -0.69, y = -0.70, r = std::max(x, y) + std::log1p(std::exp(-std::abs(x - y)));
    const double eps = std::numeric_limits<double>::epsilon();
    expect(passes<double>("logaddexp", x, y, r, r + 2 * eps * 0.7), true, "logaddexp, cancelling, 2 eps of |x|");
    expect(passes<double>("logaddexp", x, y, r, r + 3 * eps * 0.7), true, "logaddexp, cancelling, 3 eps of |x|");
    expect(passes<double>("logaddexp", x, y, r, r + 5 * eps * 0.7), false, "logaddexp, cancelling, 5 eps of |x|");
    expect(passes<double>("logaddexp", x, y, r, r * (1 + 1e-3)), false, "logaddexp, cancelling, 1e-3 relative");
    expect(passes<double>("logaddexp", x, y, r, nan), false, "logaddexp, NaN for a number");
    expect(passes<double>("logaddexp", x, y, nan, r), false, "logaddexp, a number for NaN");
    // The same absolute error on a well-conditioned (large) result is within ulps anyway; a
    // 1e-3 relative error is not.
    expect(passes<double>("logaddexp", 3.0, 2.0, std::log(std::exp(3.0) + std::exp(2.0)),
                          std::log(std::exp(3.0) + std::exp(2.0)) * (1 + 1e-3)),
           false, "logaddexp, well-conditioned, 1e-3 relative");
    expect(passes<double>("logaddexp", 1e300, 1.0, inf, 1e300), false, "logaddexp, finite for inf");
    // Other ufuncs keep their ulp bound: 5 eps of the inputs' scale fails for add.
    expect(passes<double>("add", x, y, x + y, (x + y) + 5 * eps * 0.7), false, "add, 5 eps of |x|");
  }
  {  // logaddexp2, float32
    const float x = -0.9f, y = -1.0f;
    const float r = static_cast<float>(std::log2(std::exp2(-0.9) + std::exp2(-1.0)));
    const float eps = std::numeric_limits<float>::epsilon();
    expect(passes<float>("logaddexp2", x, y, r, r + 3 * eps), true, "logaddexp2 float32, 3 eps of |y|");
    expect(passes<float>("logaddexp2", x, y, r, r + 5 * eps), false, "logaddexp2 float32, 5 eps of |y|");
    expect(passes<float>("logaddexp2", x, y, r, r * (1 + 1e-3f)), false, "logaddexp2 float32, 1e-3 relative");
  }
  {  // complex power: z**w with |w log z| about 30 (ill-conditioned) and about 1 (not)
    using C = std::complex<double>;
    const double eps = std::numeric_limits<double>::epsilon();
    for (const auto& [z, w, ill] :
         {std::tuple{C(2.0, 1.0), C(20.0, -3.0), true}, std::tuple{C(1.5, 0.5), C(1.0, 0.5), false}}) {
      const C r = std::exp(w * std::log(z));
      const double cond = 1 + std::abs(w * std::log(z));
      const double off = 3 * eps * cond * std::abs(r);  // in each part, within the bound
      expect(passes<C>("power", z, w, r, r + C(off, -off)), true, "complex power, 3 eps (1 + |w log z|) |r|");
      expect(passes<C>("float_power", z, w, r, r + C(0, off)), true, "complex float_power, 3 eps (1 + |w log z|) |r|");
      expect(passes<C>("power", z, w, r, r + C(5 * eps * cond * std::abs(r), 0)), false,
             "complex power, 5 eps (1 + |w log z|) |r|");
      expect(passes<C>("power", z, w, r, r * C(1 + 1e-3, 0)), false, "complex power, 1e-3 relative");
      expect(passes<C>("power", z, w, r, C(r.real(), nan)), false, "complex power, NaN part for a number");
      expect(passes<C>("power", z, w, C(inf, 0), C(1e308, 0)), false, "complex power, finite for inf");
      (void)ill;
    }
    // Direction lost: |w log z| about 1e130, so Im(w log z) is known to no digit and the
    // overflowed result's parts may carry any sign; a finite value for inf stays wrong,
    // and so does a sign flip where the angle is meaningful (|w log z| about 700).
    const C zh(0.26, 9.4), wh(6.2e129, 1.0);
    expect(passes<C>("float_power", zh, wh, C(-inf, inf), C(inf, inf)), true,
           "complex power, direction lost, inf signs");
    expect(passes<C>("float_power", zh, wh, C(-inf, inf), C(1e308, inf)), false,
           "complex power, direction lost, finite for inf");
    expect(passes<C>("power", C(10.0, -inf), C(-3e38, -1.5e22), C(0.0, -0.0), C(0.0, 0.0)), true,
           "complex power, w log z infinite, zero signs");
    expect(passes<C>("power", C(10.0, -inf), C(-3e38, -1.5e22), C(0.0, -0.0), C(1e-300, 0.0)), false,
           "complex power, w log z infinite, tiny for zero");
    const C zm(std::exp(1.0), 0.0), wm(710.0, 0.5);  // |r| overflows, angle 0.5: signs well defined
    expect(passes<C>("power", zm, wm, C(inf, inf), C(inf, -inf)), false, "complex power, meaningful angle, inf sign");
    // Real power keeps its ulp bound.
    const double r = std::pow(2.0, 30.5);
    expect(passes<double>("power", 2.0, 30.5, r, r * (1 + 8 * eps)), false, "real power, 8 eps relative");
  }
  {  // Floating-point flags: a real replay of diff_fma on the cpu target, against made-up NumPy flags.
    const auto* fma = user_ufunc("diff_fma");
    constexpr unsigned divide = 1, overflow = 2, underflow = 4, invalid = 8;
    // diff_fma(a, b, c) = a * b + c: 1e308 * 10 overflows (NumPy: {overflow}); 1 * 2 + 0 raises nothing.
    auto fma_case = [](double a, unsigned np_flags, unsigned free) {
      test_case c;
      c.ufunc_name = "diff_fma";
      for (double x : {a, 10.0, 0.0}) c.inputs.push_back({false, spec_of(std::vector<double>{x}), {}});
      expected_result e;
      e.type = ufunc::dtype_of<double>;
      e.shape = {1};
      const double r = a * 10.0;
      const auto* p = reinterpret_cast<const std::byte*>(&r);
      e.data.assign(p, p + sizeof r);
      c.expected.push_back(e);
      c.has_flags = true;
      c.np_flags = np_flags;
      c.flags_free = free;
      return c;
    };
    auto agrees = [&](const test_case& c, fp_mode mode) {
      return run_case(c, *fma, ufunc::target_id::cpu, true, mode).k == run_result::kind::pass;
    };
    expect(agrees(fma_case(1e308, overflow, 0), fp_mode::call), true, "flags: the same as NumPy's");
    expect(agrees(fma_case(1e308, 0, 0), fp_mode::call), false, "flags: ours {overflow}, NumPy {}");
    expect(agrees(fma_case(1e308, overflow | invalid, 0), fp_mode::call), false,
           "flags: ours {overflow}, NumPy {overflow,invalid}");
    expect(agrees(fma_case(1e308, overflow | invalid, invalid), fp_mode::call), true,
           "flags: invalid left out by the generator");
    expect(agrees(fma_case(0.1, divide, 0), fp_mode::call), false, "flags: ours {}, NumPy {divide}");
    expect(agrees(fma_case(0.1, underflow, 0), fp_mode::call), false,
           "flags: underflow compared for a correctly rounded loop");
    expect(agrees(fma_case(1e308, overflow, 0), fp_mode::raise), true, "raise: both raise overflow");
    expect(agrees(fma_case(1e308, 0, 0), fp_mode::raise), false, "raise: ours throws, NumPy does not");
    expect(agrees(fma_case(0.1, invalid, 0), fp_mode::raise), false, "raise: NumPy throws, ours does not");
    expect(agrees(fma_case(1e308, divide | overflow, 0), fp_mode::raise), false,
           "raise: NumPy throws for divide first");
    expect(agrees(fma_case(1e308, overflow, 0), fp_mode::warn), true, "warn: both warn overflow");
    expect(agrees(fma_case(1e308, overflow | invalid, 0), fp_mode::warn), false, "warn: NumPy warns invalid too");
    expect(agrees(fma_case(1e308, 0, overflow), fp_mode::warn), true, "warn: overflow left out");
  }
  std::cout << "ufunc_differential --self-check: " << (failed ? "FAILED" : "ok") << "\n";
  return failed ? 1 : 0;
}

// ---------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------
std::string describe_types(const ufunc::function& f) {
  std::string s;
  for (const auto& t : f.types()) s += " " + t;
  return s;
}

int list_ufuncs() {
  std::cout << "# ufunc_differential --list: name nin nout loops ("
            << (diff_registry::from_library ? "ufunc::builtin_ufuncs()" : "stand-in for ufunc::builtin_ufuncs()")
            << ", then the runner's vectorize'd ufuncs)\n";
  for (const auto* f : diff_registry::all())
    std::cout << f->name() << " " << f->nin() << " " << f->nout() << describe_types(*f) << "\n";
  for (auto n : user_names) {
    const auto* f = user_ufunc(n);
    std::cout << f->name() << " " << f->nin() << " " << f->nout() << describe_types(*f) << "\n";
  }
  return 0;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string self_path;

std::string reproducer(const case_file& cf, const test_case& c, std::string_view target) {
  std::string s = "python3";
  for (const auto& a : cf.repro) s += " " + shell_quote(a);
  const std::string file = "/tmp/ufunc_case_" + c.id() + ".bin";
  s += " --index " + c.id() + " --out " + file + " && " + shell_quote(self_path) + " --targets " + std::string(target) +
       " " + file;
  return s;
}

// A crash inside the library: the handler names the case, then runs the runner
// again (execv is async-signal-safe) with `--crashed ID@target` added, which reports
// that case as a failure and goes on with the others. At most max_crashes times.
const char* volatile crash_note = nullptr;
std::string crash_text;
char crash_arg[128];
std::vector<char*> exec_argv;  // argv, then room for "--crashed", crash_arg, nullptr
bool may_reexec = false;
constexpr int max_crashes = 10;
constexpr int max_method_crashes = 3;  // then a method's (reduce, accumulate...) other cases are skipped
char crashed_flag[] = "--crashed";
extern "C" void on_fatal_signal(int sig) {
  if (crash_note) {
    const char head[] = "\nufunc_differential: fatal signal while running ";
    (void)!write(2, head, sizeof(head) - 1);
    (void)!write(2, crash_note, std::strlen(crash_note));
    (void)!write(2, "\n", 1);
    if (may_reexec) {
      const char again[] = "ufunc_differential: running the other cases again without it\n";
      (void)!write(2, again, sizeof(again) - 1);
      exec_argv[exec_argv.size() - 3] = crashed_flag;
      exec_argv[exec_argv.size() - 2] = crash_arg;
      execv("/proc/self/exe", exec_argv.data());
    } else {
      const char stop[] = "ufunc_differential: too many cases crashed; giving up\n";
      (void)!write(2, stop, sizeof(stop) - 1);
    }
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int usage() {
  std::cerr << "usage: ufunc_differential [--targets cpu,parallel,cuda] [--grain N] [--max-print N] [--only ID]... "
               "[--exclude ID]... [--skip-method M]... [--verbose] CASES.bin...\n       ufunc_differential --list\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  {
    char buf[4096];
    const auto n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    self_path = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string(argv[0]);
  }
  std::vector<std::string> files, only, exclude, skip_methods;
  std::map<std::string, std::string> crashed;  // case id -> target it crashed on
  std::map<std::string, int> crashes_per_method;
  std::map<std::string, std::string> known;  // "ID@target" -> reason
  {
    sigset_t all;  // a re-run started from the signal handler inherits its blocked signals
    sigfillset(&all);
    sigprocmask(SIG_UNBLOCK, &all, nullptr);
    for (int i = 0; i < argc; ++i) exec_argv.push_back(argv[i]);
    exec_argv.insert(exec_argv.end(), {nullptr, nullptr, nullptr});
  }
  std::string targets_arg;
  std::int64_t grain = 3;
  int max_print = 40;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--list") return list_ufuncs();
    if (a == "--self-check") return self_check();
    if (a == "--skip-reason") {
      // Under CI a check that did not run is a failure, not a skip.
      const char* ci = std::getenv("CI");
      if (ci && std::string_view(ci) == "true") {
        std::cout << "FAILED: " << value() << " (CI=true: the oracle must run in CI)\n";
        return 1;
      }
      std::cout << "SKIPPED: " << value() << "\n";
      return 77;
    }
    if (a == "--targets")
      targets_arg = value();
    else if (a == "--grain")
      grain = std::stoll(value());
    else if (a == "--max-print")
      max_print = std::stoi(value());
    else if (a == "--only")
      only.push_back(value());
    else if (a == "--exclude")
      exclude.push_back(value());
    else if (a == "--skip-method")
      skip_methods.push_back(value());
    else if (a == "--crashed") {  // ID@target@method, added by the crash handler
      const auto v = value();
      const auto at1 = v.find('@'), at2 = v.find('@', at1 + 1);
      crashed[v.substr(0, at1)] = v.substr(at1 + 1, at2 - at1 - 1);
      ++crashes_per_method[v.substr(at2 + 1)];
    } else if (a == "--known") {  // tracked mismatches: "ID TARGET reason" per line, '#' comments
      std::ifstream in(value());
      for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::string id, target;
        words >> id >> target;
        std::string reason;
        std::getline(words, reason);
        known[id + "@" + target] = reason;
      }
    } else if (a == "--verbose")
      verbose = true;
    else if (a == "-h" || a == "--help")
      return usage() == 2 ? 0 : 0;
    else if (!a.empty() && a[0] == '-')
      return usage();
    else
      files.push_back(a);
  }
  if (files.empty()) return usage();
  if (const char* want = std::getenv("UFUNC_SIMD_ARCH"); want && *want && ufunc::simd_arch() != want) {
    std::cout << "SKIPPED: UFUNC_SIMD_ARCH=" << want << " requested, but the built-in loops run '" << ufunc::simd_arch()
              << "' at best here (CPU or build)\n";
    return 77;
  }

  // Targets.
  std::vector<ufunc::target_id> targets;
  std::map<std::string, std::string> target_skips;
  auto want = [&](std::string_view t) { return targets_arg.empty() || targets_arg.find(t) != std::string::npos; };
  if (want("cpu")) targets.push_back(ufunc::target_id::cpu);
  if (want("parallel")) {
    if (ufunc::target_available(ufunc::target_id::parallel)) {
      targets.push_back(ufunc::target_id::parallel);
#if defined(UFUNC_HAS_TBB)
      ufunc::backends::parallel::set_grain(grain);
      ufunc::backends::parallel::set_threshold(4 * grain);  // split test-sized calls, whatever they cost
#endif
    } else {
      target_skips["parallel"] = "not compiled in (preset tbb or all)";
    }
  }
  if (want("cuda")) {
    if (!ufunc::target_available(ufunc::target_id::cuda))
      target_skips["cuda"] = "not compiled in (preset cuda or all)";
    else if (!ufunc::cuda_available())
      target_skips["cuda"] = "no usable GPU";
    else
      targets.push_back(ufunc::target_id::cuda);
  }

  // Cases.
  std::vector<case_file> cfs;
  for (const auto& path : files) {
    try {
      cfs.push_back(read_file(path));
    } catch (const std::exception& e) {
      std::cerr << "ufunc_differential: " << e.what() << "\n";
      return 2;
    }
  }

  // Outside a case's replay (which sets its own policies: run_case) nothing the runner
  // computes may warn.
  ufunc::seterr(
      {ufunc::fp_policy::ignore, ufunc::fp_policy::ignore, ufunc::fp_policy::ignore, ufunc::fp_policy::ignore});
  may_reexec = crashed.size() < static_cast<std::size_t>(max_crashes);
  std::signal(SIGSEGV, on_fatal_signal);
  std::signal(SIGBUS, on_fatal_signal);
  std::signal(SIGFPE, on_fatal_signal);
  std::signal(SIGABRT, on_fatal_signal);

  const auto t0 = std::chrono::steady_clock::now();
  std::size_t ncases = 0, printed = 0;
  std::ostringstream now_agree;              // tracked mismatches that agree now
  std::ostringstream failures;               // printed at the end: a re-run after a crash prints everything once
  std::map<std::string, std::size_t> skips;  // reason -> count (per case and target)
  struct target_stats {
    std::size_t run = 0, pass = 0, fail = 0, skip = 0;
    std::size_t known = 0;
  };
  std::map<std::string, target_stats> stats;
  std::map<std::string, std::size_t> fail_by_ufunc;
  std::string numpy_version;
  for (const auto& cf : cfs) {
    numpy_version = cf.numpy_version;
    for (const auto& c : cf.cases) {
      if (!only.empty() && std::find(only.begin(), only.end(), c.id()) == only.end()) continue;
      if (std::find(exclude.begin(), exclude.end(), c.id()) != exclude.end()) continue;
      if (std::find(skip_methods.begin(), skip_methods.end(), c.method) != skip_methods.end()) continue;
      ++ncases;
      const ufunc::function* f = user_ufunc(c.ufunc_name);
      const bool user = f != nullptr;
      if (!f) f = diff_registry::lookup(c.ufunc_name);
      std::vector<std::pair<std::string, std::string>> case_failures;  // (targets, detail), merged
      for (auto t : targets) {
        const std::string tname(ufunc::to_string(t));
        auto& st = stats[tname];
        run_result r;
        crash_text = c.id() + " on " + tname + ": " + c.desc + "\n  repro: " + reproducer(cf, c, tname);
        std::snprintf(crash_arg, sizeof(crash_arg), "%s@%s@%s", c.id().c_str(), tname.c_str(), c.method.c_str());
        crash_note = crash_text.c_str();
        if (const auto it = crashed.find(c.id()); it != crashed.end()) {
          r = it->second == tname ? fail("crashed (fatal signal) in the library")
                                  : skip("crashed on another target; not run again");
        } else if (c.method != "call" && crashes_per_method[c.method] >= max_method_crashes) {
          r = skip("method " + c.method + ": " + std::to_string(max_method_crashes) +
                   " of its cases crashed; the others are not run");
        } else if (!f && !c.canonical.empty() && diff_registry::lookup(c.canonical)) {
          r = fail("find_builtin(\"" + c.ufunc_name + "\") is null, but NumPy's " + c.ufunc_name + " is " +
                   c.canonical + ", which the library has");
        } else if (!f) {
          r = skip("ufunc '" + c.ufunc_name + "' is not in this library");
        } else {
          try {
            r = run_case(c, *f, t, user);
            // The other policies act on the same flags: checked where there are flags (ours or
            // NumPy's) and on every 8th case, where neither may raise or warn.
            const unsigned compared = compared_flags(c, c.canonical.empty() ? f->name() : c.canonical);
            if (r.k == run_result::kind::pass && compared && !c.expect_error &&
                (((r.flags | c.np_flags) & compared) || c.index % 8 == 0)) {
              for (auto mode : {fp_mode::raise, fp_mode::warn}) {
                if (r.k != run_result::kind::pass) break;
                r = run_case(c, *f, t, user, mode);
              }
            }
          } catch (const std::exception& e) {
            r = fail(std::string("the runner could not build the case: ") + e.what());
          }
        }
        crash_note = nullptr;
        if (r.k == run_result::kind::skip) {
          ++st.skip;
          ++skips[r.detail];
          if (verbose) std::cout << "skip " << c.id() << " [" << tname << "]: " << r.detail << "\n";
          continue;
        }
        ++st.run;
        const auto known_it = known.find(c.id() + "@" + tname);
        if (known_it != known.end()) {
          // A tracked mismatch: reported, not failed; once it agrees, the list must shrink.
          // Not a failure when it agrees: some entries differ by instruction set.
          if (r.k == run_result::kind::pass) {
            ++st.pass;
            now_agree << "note: known mismatch " << c.id() << " [" << tname << "] agrees in this run\n";
          } else {
            ++st.known;
          }
          continue;
        }
        if (r.k == run_result::kind::pass) {
          ++st.pass;
          if (verbose) std::cout << "ok   " << c.id() << " [" << tname << "]: " << c.desc << "\n";
          continue;
        }
        ++st.fail;
        ++fail_by_ufunc[c.ufunc_name + (c.method == "call" ? "" : "." + c.method) +
                        (r.detail.starts_with("floating-point flags") ? "[flags]"
                         : r.detail.starts_with("errstate")           ? "[errstate]"
                                                                      : "")];
        bool merged = false;
        for (auto& [ts, detail] : case_failures)
          if (detail == r.detail) {
            ts += "," + tname;
            merged = true;
          }
        if (!merged) case_failures.emplace_back(tname, r.detail);
      }
      for (const auto& [ts, detail] : case_failures) {
        if (printed++ < static_cast<std::size_t>(max_print))
          failures << "FAIL " << c.id() << " [" << ts << "] " << c.desc << "\n  " << detail
                   << "\n  repro: " << reproducer(cf, c, ts.substr(0, ts.find(','))) << "\n";
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::size_t total_fail = 0;
  std::cout << failures.str() << now_agree.str();
  std::cout << "\nufunc_differential: " << ncases << " cases against NumPy " << numpy_version << " ("
            << (diff_registry::from_library ? "library registry" : "stand-in registry of 5 ufuncs") << ", simd "
            << ufunc::simd_arch() << "), " << secs << " s\n";
  for (const auto& [t, s] : stats) {
    std::cout << "  target " << t << ": " << s.run << " run, " << s.pass << " agree, " << s.fail << " mismatch, "
              << s.known << " known mismatches (tracked in the --known list), " << s.skip << " skipped\n";
    total_fail += s.fail;
  }
  for (const auto& [t, why] : target_skips) std::cout << "  target " << t << ": skipped, " << why << "\n";
  if (!skips.empty()) {
    std::cout << "  skipped (case x target):\n";
    for (const auto& [why, n] : skips) std::cout << "    " << n << "  " << why << "\n";
  }
  if (!fail_by_ufunc.empty()) {
    std::cout << "  mismatches by ufunc:";
    for (const auto& [u, n] : fail_by_ufunc) std::cout << " " << u << "=" << n;
    std::cout << "\n";
    if (printed > static_cast<std::size_t>(max_print))
      std::cout << "  (" << printed - static_cast<std::size_t>(max_print)
                << " more failures not printed; --max-print N shows more)\n";
  }
  if (ncases == 0) {
    std::cout << "SKIPPED: no cases to run\n";
    return 77;
  }
  return total_fail ? 1 : 0;
}
