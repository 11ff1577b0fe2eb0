// The ufunc methods on the cuda target: reduce, accumulate, reduceat, outer and at
// with functors compiled by nvcc (vectorize<Sig, target::cuda>), and the built-in
// ufuncs where their loops carry device method code. The cpu target is the
// reference: equal bits where the order of operations is the same (loops that are
// not reorderable, integers, accumulate, at), a tolerance where a reorderable float
// reduction groups differently (block trees on the GPU, pairwise on the host).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include <ufunc/core/transfer.hpp>
#include <ufunc/ufunc.hpp>

namespace {

constexpr auto gpu = ufunc::target_id::cuda;
constexpr auto host = ufunc::target_id::cpu;

struct plus : ufunc::reorderable {
  template <class T>
  __host__ __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
// clang-format 14 would join the requires-clauses onto the declarations.
// clang-format off
struct biggest : ufunc::reorderable {  // scalars only: a branch on values
  template <class T>
    requires std::is_arithmetic_v<T>
  __host__ __device__ T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};
struct twice_plus {  // not reorderable: 2a + b
  template <class T>
  __host__ __device__ T operator()(T a, T b) const {
    return T(2) * a + b;
  }
};
struct negate {
  template <class T>
    requires std::is_arithmetic_v<T>
  __host__ __device__ T operator()(T a) const {
    return -a;
  }
};
// clang-format on

template <class T>
std::vector<T> host_values(const ufunc::array& a) {
  return ufunc::to_host(a).to_vector<T>();
}

template <class T>
void check_close(const ufunc::array& device_result, const ufunc::array& expected, double rel = 1e-5) {
  REQUIRE(device_result.shape() == expected.shape());
  REQUIRE(device_result.type() == expected.type());
  const auto got = host_values<T>(device_result), want = expected.to_vector<T>();
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    if constexpr (std::is_floating_point_v<T>)
      CHECK(std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <=
            rel * (1.0 + std::abs(static_cast<double>(want[i]))));
    else
      CHECK(got[i] == want[i]);
  }
}

ufunc::array_t<float> sample(std::int64_t n, unsigned seed) {
  auto a = ufunc::empty<float>({n});
  std::uint64_t s = seed;
  for (std::int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    a.data()[i] = static_cast<float>(static_cast<double>(s >> 40) / 16777216.0) - 0.5f;
  }
  return a;
}

using sigs = ufunc::signatures<float(float, float), double(double, double), std::int32_t(std::int32_t, std::int32_t),
                               std::int64_t(std::int64_t, std::int64_t)>;

}  // namespace

TEST_CASE("cuda methods: reduce of device arrays stays on the device and matches the cpu target") {
  auto sum = ufunc::vectorize<sigs, ufunc::target::cuda>(plus{}, "sum", 0);
  for (std::int64_t n : {1, 7, 1000, 4099, 100003, 10000019}) {
    CAPTURE(n);
    const auto x = sample(n, 3);
    const auto dx = ufunc::to_device(x);
    const ufunc::array r = sum.reduce(dx, {.target = gpu});
    CHECK(r.device() == ufunc::device::cuda(0));
    check_close<float>(r, sum.reduce(x, {.target = host}), 1e-4);
    // Integers: exact.
    const auto xi = ufunc::arange<std::int64_t>(n);
    check_close<std::int64_t>(sum.reduce(ufunc::to_device(xi), {.target = gpu}), sum.reduce(xi, {.target = host}));
  }
}

TEST_CASE("cuda methods: axes, keepdims, where, initial, out, dtype on the device") {
  auto sum = ufunc::vectorize<sigs, ufunc::target::cuda>(plus{}, "sum", 0);
  auto mx = ufunc::vectorize<sigs, ufunc::target::cuda>(biggest{}, "biggest");
  const auto x = sample(64 * 300, 5).reshape({64, 300});
  const auto dx = ufunc::to_device(x);
  for (const auto* f : {&sum.ufunc(), &mx.ufunc()}) {
    CAPTURE(f->name());
    check_close<float>(f->reduce(dx, {.axis = 0, .target = gpu}), f->reduce(x, {.axis = 0, .target = host}));
    check_close<float>(f->reduce(dx, {.axis = 1, .target = gpu}), f->reduce(x, {.axis = 1, .target = host}));
    check_close<float>(f->reduce(dx, {.axis = ufunc::all_axes, .keepdims = true, .target = gpu}),
                       f->reduce(x, {.axis = ufunc::all_axes, .keepdims = true, .target = host}), 1e-4);
    // Transposed, reversed and strided views.
    const ufunc::array xt = x.transpose(), dxt = dx.transpose();
    check_close<float>(f->reduce(dxt, {.axis = 1, .target = gpu}), f->reduce(xt, {.axis = 1, .target = host}));
    const auto view = [](const ufunc::array& a) {
      return a[{ufunc::slice{std::nullopt, std::nullopt, -1}, ufunc::slice{0, std::nullopt, 3}}];
    };
    check_close<float>(f->reduce(view(dx), {.axis = 1, .target = gpu}),
                       f->reduce(view(x), {.axis = 1, .target = host}));
    // where= with initial.
    auto mask = ufunc::empty<bool>({300});
    for (int i = 0; i < 300; ++i) mask.data()[i] = i % 3 != 1;
    const auto dmask = ufunc::to_device(mask);
    check_close<float>(f->reduce(dx, {.axis = 1, .initial = -100.0, .where = dmask, .target = gpu}),
                       f->reduce(x, {.axis = 1, .initial = -100.0, .where = mask, .target = host}));
    check_close<float>(f->reduce(dx, {.axis = 0, .initial = -100.0, .where = dmask, .target = gpu}),
                       f->reduce(x, {.axis = 0, .initial = -100.0, .where = mask, .target = host}));
  }
  // out= on the device, of another dtype; dtype=.
  auto out = ufunc::to_device(ufunc::zeros<double>({300}));
  const ufunc::array r = sum.reduce(dx, {.axis = 0, .out = out, .target = gpu});
  CHECK(r.data() == out.data());
  check_close<double>(out, sum.reduce(x, {.axis = 0, .out = ufunc::zeros<double>({300}), .target = host}));
  check_close<double>(sum.reduce(dx, {.axis = 1, .dtype = ufunc::float64, .target = gpu}),
                      sum.reduce(x, {.axis = 1, .dtype = ufunc::float64, .target = host}), 1e-9);
  // Empty reductions give the identity / initial; without either, NumPy's error.
  check_close<float>(sum.reduce(ufunc::to_device(ufunc::zeros<float>({0, 5})), {.target = gpu}),
                     ufunc::zeros<float>({5}));
  CHECK_THROWS_AS((void)mx.reduce(ufunc::to_device(ufunc::zeros<float>({0, 5})), {.target = gpu}), ufunc::value_error);
}

TEST_CASE("cuda methods: a loop that is not reorderable folds in order, bit for bit as the cpu target") {
  auto f = ufunc::vectorize<ufunc::signatures<double(double, double)>, ufunc::target::cuda>(twice_plus{}, "twice_plus");
  auto x = ufunc::empty<double>({37, 41});
  for (std::int64_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<double>((i * 7) % 13) * 0.125 - 0.5;
  const auto dx = ufunc::to_device(x);
  for (int axis : {0, 1}) {
    CAPTURE(axis);
    CHECK(host_values<double>(f.reduce(dx, {.axis = axis, .target = gpu})) ==
          f.reduce(x, {.axis = axis, .target = host}).to_vector<double>());
    CHECK(host_values<double>(f.accumulate(dx, {.axis = axis, .target = gpu})) ==
          f.accumulate(x, {.axis = axis, .target = host}).to_vector<double>());
  }
  const auto idx = ufunc::asarray<std::int64_t>({0, 5, 5, 2, 30});
  CHECK(host_values<double>(f.reduceat(dx, idx, {.axis = 0, .target = gpu})) ==
        f.reduceat(x, idx, {.axis = 0, .target = host}).to_vector<double>());
  CHECK_THROWS_AS((void)f.reduce(dx, {.axis = ufunc::all_axes, .target = gpu}), ufunc::value_error);
}

TEST_CASE("cuda methods: results are the same from run to run") {
  auto sum = ufunc::vectorize<sigs, ufunc::target::cuda>(plus{}, "sum", 0);
  const auto dx = ufunc::to_device(sample(5000011, 9));
  const auto first = host_values<float>(sum.reduce(dx, {.target = gpu}));
  const auto m = dx[{ufunc::slice{0, 5000000}}].reshape({1000, 5000});
  const auto cols = host_values<float>(sum.reduce(m, {.axis = 0, .target = gpu}));
  const auto rows = host_values<float>(sum.reduce(m, {.axis = 1, .target = gpu}));
  for (int k = 0; k < 5; ++k) {
    const auto again = host_values<float>(sum.reduce(dx, {.target = gpu}));
    CHECK(std::memcmp(again.data(), first.data(), sizeof(float)) == 0);
    CHECK(host_values<float>(sum.reduce(m, {.axis = 0, .target = gpu})) == cols);
    CHECK(host_values<float>(sum.reduce(m, {.axis = 1, .target = gpu})) == rows);
  }
}

TEST_CASE("cuda methods: host arrays on target cuda go in and come back (host-in/host-out)") {
  auto sum = ufunc::vectorize<sigs, ufunc::target::cuda>(plus{}, "sum", 0);
  const auto x = ufunc::arange<std::int32_t>(1000).reshape({10, 100});
  const ufunc::array r = sum.reduce(x, {.axis = 1, .target = gpu});
  CHECK(r.device().is_host());
  CHECK(r.to_vector<std::int32_t>() == sum.reduce(x, {.axis = 1, .target = host}).to_vector<std::int32_t>());
  const ufunc::array c = sum.accumulate(x, {.axis = 1, .target = gpu});
  CHECK(c.device().is_host());
  CHECK(c.to_vector<std::int32_t>() == sum.accumulate(x, {.axis = 1, .target = host}).to_vector<std::int32_t>());
  // Data on the device with a host target named is an error; mixing too.
  const auto dx = ufunc::to_device(x);
  CHECK_THROWS_AS((void)sum.reduce(dx, {.target = host}), ufunc::target_error);
  CHECK_THROWS_AS((void)sum.reduce(dx, {.out = ufunc::zeros<std::int32_t>({100}), .target = gpu}), ufunc::target_error);
}

TEST_CASE("cuda methods: outer and at on the device") {
  auto sum = ufunc::vectorize<sigs, ufunc::target::cuda>(plus{}, "sum", 0);
  auto tp = ufunc::vectorize<ufunc::signatures<double(double, double)>, ufunc::target::cuda>(twice_plus{}, "tp");
  auto neg = ufunc::vectorize<ufunc::signatures<double(double)>, ufunc::target::cuda>(negate{}, "neg");
  const auto a = ufunc::arange<double>(4.0), b = ufunc::arange<double>(3.0);
  const ufunc::array o = sum.outer(ufunc::to_device(a), ufunc::to_device(b), {.target = gpu});
  CHECK(o.device() == ufunc::device::cuda(0));
  CHECK(host_values<double>(o) == sum.outer(a, b, {.target = host}).to_vector<double>());
  // Repeated indices apply in index order (2 * (2 * 1 + 5) + 7 = 21), any functor.
  auto t = ufunc::to_device(ufunc::full<double>({3}, 1.0));
  tp.at(t, ufunc::asarray<std::int64_t>({1, 1, -1}), ufunc::to_device(ufunc::asarray<double>({5, 7, 1})),
        {.target = gpu});
  CHECK(host_values<double>(t) == std::vector<double>{1, 21, 3});
  auto m = ufunc::to_device(ufunc::zeros<double>({2, 3}));
  sum.at(m, ufunc::asarray<std::int64_t>({0, 0, 1}), ufunc::to_device(ufunc::asarray<double>({1, 2, 3})),
         {.target = gpu});
  CHECK(host_values<double>(m) == std::vector<double>{2, 4, 6, 1, 2, 3});
  sum.at(m, ufunc::asarray<std::int64_t>({1}), 10.0, {.target = gpu});  // a C++ scalar b
  CHECK(host_values<double>(m) == std::vector<double>{2, 4, 6, 11, 12, 13});
  auto u = ufunc::to_device(ufunc::arange<double>(1.0, 4.0));
  neg.at(u, ufunc::asarray<std::int64_t>({0, 0, 2}), {.target = gpu});
  CHECK(host_values<double>(u) == std::vector<double>{1, 2, -3});
  // Index arrays are read on the host (they are checked first); b must be where a is.
  CHECK_THROWS_AS(sum.at(m, ufunc::asarray<std::int64_t>({0}), ufunc::asarray<double>({1, 2, 3}), {.target = gpu}),
                  ufunc::target_error);
  // Out of range: nothing written.
  CHECK_THROWS_AS(sum.at(m, ufunc::asarray<std::int64_t>({0, 2}), 1.0, {.target = gpu}), ufunc::index_error);
  CHECK(host_values<double>(m) == std::vector<double>{2, 4, 6, 11, 12, 13});
  // Many updates of one element, serialized: exact for integers.
  auto counts = ufunc::to_device(ufunc::zeros<std::int64_t>({4}));
  auto idx = ufunc::empty<std::int64_t>({100000});
  for (std::int64_t i = 0; i < 100000; ++i) idx.data()[i] = i % 4;
  sum.at(counts, idx, std::int64_t{1}, {.target = gpu});
  CHECK(host_values<std::int64_t>(counts) == std::vector<std::int64_t>{25000, 25000, 25000, 25000});
}

TEST_CASE("cuda methods: built-in ufuncs run their methods on the device once their loops carry the code") {
  const auto x = sample(100000, 11);
  const auto dx = ufunc::to_device(x);
  const ufunc::dtype f32[2] = {ufunc::float32, ufunc::float32};
  if (const auto* code = ufunc::add->resolve_loop(f32).devices.find(ufunc::target_id::cuda);
      code == nullptr || code->methods == nullptr) {
    MESSAGE("the built-in add has no device method code yet: checking the error");
    CHECK_THROWS_AS((void)ufunc::add.reduce(dx, {.target = gpu}), ufunc::target_error);
    return;
  }
  check_close<float>(ufunc::add.reduce(dx, {.target = gpu}), ufunc::add.reduce(x, {.target = host}), 1e-4);
  check_close<float>(ufunc::maximum.reduce(dx, {.target = gpu}), ufunc::maximum.reduce(x, {.target = host}));
  check_close<float>(ufunc::add.accumulate(dx, {.target = gpu}), ufunc::add.accumulate(x, {.target = host}), 1e-4);
  // int8 sums accumulate in int64 (NumPy's rule), cast on the device.
  const auto i8 = ufunc::full<std::int8_t>({1000}, 100);
  CHECK(ufunc::to_host(ufunc::add.reduce(ufunc::to_device(i8), {.target = gpu})).item<std::int64_t>() == 100000);
}

namespace {

// A deterministic array of `shape` from f(i) (i the C-order position).
template <class T, class G>
ufunc::array_t<T> pattern(const ufunc::dim_vector& shape, G g) {
  auto a = ufunc::empty<T>(shape);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<T>(g(i));
  return a;
}

}  // namespace

TEST_CASE("cuda methods: built-in loops that are not reorderable reduce and accumulate in order on the device") {
  // subtract: int32 exact (wrap-around included), float64 bit for bit (same order).
  const auto xi = pattern<std::int32_t>({23, 37}, [](std::int64_t i) { return (i * 7919) % 200003 - 100000; });
  const auto xd =
      pattern<double>({23, 37}, [](std::int64_t i) { return static_cast<double>((i * 37) % 101) * 0.37 - 17.0; });
  const auto dxi = ufunc::to_device(xi);
  const auto dxd = ufunc::to_device(xd);
  auto mask = ufunc::empty<bool>({37});
  for (int i = 0; i < 37; ++i) mask.data()[i] = i % 4 != 2;
  const auto dmask = ufunc::to_device(mask);
  for (int axis : {0, 1, -1}) {
    CAPTURE(axis);
    check_close<std::int32_t>(ufunc::subtract.reduce(dxi, {.axis = axis, .target = gpu}),
                              ufunc::subtract.reduce(xi, {.axis = axis, .target = host}));
    check_close<double>(ufunc::subtract.reduce(dxd, {.axis = axis, .target = gpu}),
                        ufunc::subtract.reduce(xd, {.axis = axis, .target = host}), 1e-14);
    check_close<std::int32_t>(ufunc::subtract.accumulate(dxi, {.axis = axis, .target = gpu}),
                              ufunc::subtract.accumulate(xi, {.axis = axis, .target = host}));
    check_close<double>(ufunc::subtract.accumulate(dxd, {.axis = axis, .target = gpu}),
                        ufunc::subtract.accumulate(xd, {.axis = axis, .target = host}), 1e-14);
    check_close<double>(ufunc::subtract.reduce(dxd, {.axis = axis, .keepdims = true, .initial = 0.5, .target = gpu}),
                        ufunc::subtract.reduce(xd, {.axis = axis, .keepdims = true, .initial = 0.5, .target = host}),
                        1e-14);
  }
  // where= (needs initial: subtract has no identity), on the last axis and the first.
  check_close<double>(ufunc::subtract.reduce(dxd, {.axis = 1, .initial = 3.0, .where = dmask, .target = gpu}),
                      ufunc::subtract.reduce(xd, {.axis = 1, .initial = 3.0, .where = mask, .target = host}), 1e-14);
  check_close<std::int32_t>(ufunc::subtract.reduce(dxi, {.axis = 0, .initial = 7.0, .where = dmask, .target = gpu}),
                            ufunc::subtract.reduce(xi, {.axis = 0, .initial = 7.0, .where = mask, .target = host}));
  // A host array on target cuda (host-in/host-out) and reduceat.
  check_close<std::int32_t>(ufunc::subtract.reduce(xi, {.axis = 0, .target = gpu}),
                            ufunc::subtract.reduce(xi, {.axis = 0, .target = host}));
  const auto idx = ufunc::asarray<std::int64_t>({0, 4, 4, 2, 30});
  check_close<double>(ufunc::subtract.reduceat(dxd, idx, {.axis = 1, .target = gpu}),
                      ufunc::subtract.reduceat(xd, idx, {.axis = 1, .target = host}), 1e-14);
}

TEST_CASE("cuda methods: built-in float products, power, arctan2, lcm and left_shift on the device") {
  // np.prod of floats: sequential, as NumPy.
  const auto pf =
      pattern<float>({31, 64}, [](std::int64_t i) { return 0.75 + static_cast<double>((i * 13) % 64) / 128.0; });
  const auto pd =
      pattern<double>({31, 64}, [](std::int64_t i) { return 0.75 + static_cast<double>((i * 13) % 64) / 128.0; });
  for (int axis : {0, 1}) {
    CAPTURE(axis);
    check_close<float>(ufunc::multiply.reduce(ufunc::to_device(pf), {.axis = axis, .target = gpu}),
                       ufunc::multiply.reduce(pf, {.axis = axis, .target = host}), 1e-6);
    check_close<double>(ufunc::multiply.reduce(ufunc::to_device(pd), {.axis = axis, .target = gpu}),
                        ufunc::multiply.reduce(pd, {.axis = axis, .target = host}), 1e-14);
    check_close<double>(ufunc::multiply.accumulate(ufunc::to_device(pd), {.axis = axis, .target = gpu}),
                        ufunc::multiply.accumulate(pd, {.axis = axis, .target = host}), 1e-14);
  }
  // power.accumulate float64: bases 1..5 in the first column, exponents 0..2 after.
  const auto pw = pattern<double>({5, 4}, [](std::int64_t i) { return i % 4 == 0 ? i / 4 + 1 : (i * 7) % 3; });
  check_close<double>(ufunc::power.accumulate(ufunc::to_device(pw), {.axis = 1, .target = gpu}),
                      ufunc::power.accumulate(pw, {.axis = 1, .target = host}), 1e-14);
  check_close<double>(ufunc::power.reduce(ufunc::to_device(pw), {.axis = 1, .target = gpu}),
                      ufunc::power.reduce(pw, {.axis = 1, .target = host}), 1e-14);
  // Integer power folds in order on the device too (its negative-exponent error:
  // test_cuda_errstate.cpp).
  const auto pih = pattern<std::int64_t>({5, 4}, [](std::int64_t i) { return i % 3; });
  const auto pi = ufunc::to_device(pih);
  CHECK(host_values<std::int64_t>(ufunc::power.reduce(pi, {.axis = 1, .target = gpu})) ==
        ufunc::power.reduce(pih, {.axis = 1, .target = host}).to_vector<std::int64_t>());
  CHECK(host_values<std::int64_t>(ufunc::power.accumulate(pi, {.axis = 1, .target = gpu})) ==
        ufunc::power.accumulate(pih, {.axis = 1, .target = host}).to_vector<std::int64_t>());
  // arctan2.reduce: the device's atan2 is within an ulp or two of the host's.
  const auto at2 =
      pattern<double>({9, 17}, [](std::int64_t i) { return static_cast<double>((i * 29) % 41) / 8.0 - 2.5; });
  for (int axis : {0, 1}) {
    CAPTURE(axis);
    check_close<double>(ufunc::arctan2.reduce(ufunc::to_device(at2), {.axis = axis, .target = gpu}),
                        ufunc::arctan2.reduce(at2, {.axis = axis, .target = host}), 1e-12);
  }
  // lcm.reduce: exact (1..12 along a row: 27720).
  const auto lc = pattern<std::int32_t>({6, 12}, [](std::int64_t i) { return i % 12 + 1 + (i / 12) % 2; });
  for (int axis : {0, 1}) {
    CAPTURE(axis);
    check_close<std::int32_t>(ufunc::lcm.reduce(ufunc::to_device(lc), {.axis = axis, .target = gpu}),
                              ufunc::lcm.reduce(lc, {.axis = axis, .target = host}));
  }
  // left_shift.accumulate: exact.
  const auto ls = pattern<std::int64_t>({4, 6}, [](std::int64_t i) { return i % 6 == 0 ? i / 6 + 1 : i % 4; });
  for (int axis : {0, 1}) {
    CAPTURE(axis);
    check_close<std::int64_t>(ufunc::left_shift.accumulate(ufunc::to_device(ls), {.axis = axis, .target = gpu}),
                              ufunc::left_shift.accumulate(ls, {.axis = axis, .target = host}));
  }
}

TEST_CASE("cuda methods: built-in at with unary and non-reorderable loops, repeated indices") {
  const auto idx = ufunc::asarray<std::int64_t>({0, 0, 2, 5, 5, 5, -1});
  {  // negative.at: float64 and int32
    const auto hd = ufunc::arange<double>(1.0, 7.0);
    auto dd = ufunc::to_device(hd);
    ufunc::negative->at(dd, idx, {.target = gpu});
    ufunc::negative->at(hd, idx, {.target = host});
    CHECK(host_values<double>(dd) == hd.to_vector<double>());
    const auto hi = ufunc::arange<std::int32_t>(6);
    auto di = ufunc::to_device(hi);
    ufunc::negative->at(di, idx, {.target = gpu});
    ufunc::negative->at(hi, idx, {.target = host});
    CHECK(host_values<std::int32_t>(di) == hi.to_vector<std::int32_t>());
  }
  {  // sqrt.at: sqrt(sqrt(x)) at repeated positions, correctly rounded on both
    const auto hd = ufunc::arange<double>(2.0, 8.0);
    auto dd = ufunc::to_device(hd);
    ufunc::sqrt->at(dd, idx, {.target = gpu});
    ufunc::sqrt->at(hd, idx, {.target = host});
    check_close<double>(dd, hd, 1e-15);
  }
  {  // subtract.at (a binary loop that is not reorderable), over rows of a 2-d array
    const auto h = pattern<double>({4, 3}, [](std::int64_t i) { return static_cast<double>(i) * 1.5; });
    auto d = ufunc::to_device(h);
    const auto rows = ufunc::asarray<std::int64_t>({1, 3, 1, 1});
    const auto b = pattern<double>({4, 3}, [](std::int64_t i) { return static_cast<double>(i % 5) - 2.25; });
    ufunc::subtract->at(d, rows, ufunc::to_device(b), {.target = gpu});
    ufunc::subtract->at(h, rows, b, {.target = host});
    CHECK(host_values<double>(d) == h.to_vector<double>());
  }
}

TEST_CASE("cuda methods: at with a of another dtype than the loop casts back after every application") {
  // np.add.at(int16 zeros, [0, 0], 1.5) == [2]: 0 + 1.5 -> 1, 1 + 1.5 -> 2.
  {
    auto d = ufunc::to_device(ufunc::zeros<std::int16_t>({3}));
    ufunc::add->at(d, ufunc::asarray<std::int64_t>({0, 0}), 1.5, {.target = gpu});
    CHECK(host_values<std::int16_t>(d) == std::vector<std::int16_t>{2, 0, 0});
  }
  // Against the host target: int16 a, a float64 loop, repeated indices, untouched
  // elements left alone.
  const auto h0 = pattern<std::int16_t>({8}, [](std::int64_t i) { return 3 * i - 7; });
  const auto idx = ufunc::asarray<std::int64_t>({0, 0, 3, 0, 7, 3, 3, 3, 5});
  const auto b = pattern<double>({9}, [](std::int64_t i) { return static_cast<double>(i) * 0.7 - 1.3; });
  for (const auto* f : {&ufunc::add.get(), &ufunc::subtract.get(), &ufunc::multiply.get()}) {
    CAPTURE(f->name());
    auto h = h0.copy();
    auto d = ufunc::to_device(h0);
    f->at(d, idx, ufunc::to_device(b), {.target = gpu});
    f->at(h, idx, b, {.target = host});
    CHECK(host_values<std::int16_t>(d) == h.to_vector<std::int16_t>());
    // A host a on target cuda (host-in/host-out).
    auto hh = h0.copy();
    f->at(hh, idx, b, {.target = gpu});
    CHECK(hh.to_vector<std::int16_t>() == h.to_vector<std::int16_t>());
  }
  // A unary loop in another dtype: sqrt of int16 computes in float32.
  {
    const auto h1 = pattern<std::int16_t>({5}, [](std::int64_t i) { return (i + 1) * (i + 1) * 16; });
    auto h = h1.copy();
    auto d = ufunc::to_device(h1);
    const auto i2 = ufunc::asarray<std::int64_t>({4, 4, 1, 4});
    ufunc::sqrt->at(d, i2, {.target = gpu});
    ufunc::sqrt->at(h, i2, {.target = host});
    CHECK(host_values<std::int16_t>(d) == h.to_vector<std::int16_t>());
  }
  // float32 a with a float64 b: a float64 loop, rounded to float32 after every step.
  {
    const auto h1 = pattern<float>({2, 3}, [](std::int64_t i) { return static_cast<double>(i) / 3.0; });
    auto h = h1.copy();
    auto d = ufunc::to_device(h1);
    const auto rows = ufunc::asarray<std::int64_t>({1, 1, 0, 1});
    const auto bb = pattern<double>({4, 3}, [](std::int64_t i) { return 1.0 / static_cast<double>(i + 3); });
    ufunc::add->at(d, rows, ufunc::to_device(bb), {.target = gpu});
    ufunc::add->at(h, rows, bb, {.target = host});
    CHECK(host_values<float>(d) == h.to_vector<float>());
  }
}

namespace {

// clang-format 14 would join the requires-clauses onto the declarations.
// clang-format off
struct below {  // bool(double, double): not a fold, so no device method code
  template <class T>
    requires std::is_arithmetic_v<T>
  __host__ __device__ bool operator()(T a, T b) const {
    return a < b;
  }
};
struct truncated_sum {  // int(float, float)
  template <class T>
    requires std::is_arithmetic_v<T>
  __host__ __device__ std::int32_t operator()(T a, T b) const {
    return static_cast<std::int32_t>(a + b);
  }
};
// clang-format on

}  // namespace

TEST_CASE("cuda methods: at of loops whose output differs from their first input (comparisons, signbit)") {
  // np.equal.at(a, [0, 0, 2, 0], [5, 1, 6, 1]) on int64 [5, 3, 7, 1]: 5 == 5 -> 1,
  // 1 == 1 -> 1, 7 == 6 -> 0, 1 == 1 -> 1. Reading the original a at every repeat
  // would give a[0] = (5 == 1) = 0.
  {
    const auto h0 = ufunc::asarray<std::int64_t>({5, 3, 7, 1});
    const auto idx = ufunc::asarray<std::int64_t>({0, 0, 2, 0});
    const auto b = ufunc::asarray<std::int64_t>({5, 1, 6, 1});
    auto d = ufunc::to_device(h0);
    ufunc::equal->at(d, idx, ufunc::to_device(b), {.target = gpu});
    CHECK(host_values<std::int64_t>(d) == std::vector<std::int64_t>{1, 3, 0, 1});
    auto h = h0.copy();
    ufunc::equal->at(h, idx, b, {.target = host});
    CHECK(host_values<std::int64_t>(d) == h.to_vector<std::int64_t>());
  }
  // np.signbit.at(a, [0, 2, 2]) on float64 [-1.5, 2, -0.0, 3]: [1, 2, 0, 3] (the
  // second application at 2 sees signbit(-0.0) = 1.0).
  {
    auto d = ufunc::to_device(ufunc::asarray<double>({-1.5, 2.0, -0.0, 3.0}));
    ufunc::signbit->at(d, ufunc::asarray<std::int64_t>({0, 2, 2}), {.target = gpu});
    CHECK(host_values<double>(d) == std::vector<double>{1.0, 2.0, 0.0, 3.0});
  }
  // np.greater.at(a, [1, 1, 0], [2, 1.5, 0]) on float64 [1, 5, 3]: 5 > 2 -> 1, 1 > 1.5
  // -> 0, 1 > 0 -> 1.
  {
    auto d = ufunc::to_device(ufunc::asarray<double>({1.0, 5.0, 3.0}));
    ufunc::greater->at(d, ufunc::asarray<std::int64_t>({1, 1, 0}),
                       ufunc::to_device(ufunc::asarray<double>({2.0, 1.5, 0.0})), {.target = gpu});
    CHECK(host_values<double>(d) == std::vector<double>{1.0, 0.0, 3.0});
    // int32 a with an int64 b: the ll->? loop, cast back to int32, against the host.
    const auto hi = pattern<std::int32_t>({6}, [](std::int64_t i) { return (i * 5) % 7 - 3; });
    const auto idx = ufunc::asarray<std::int64_t>({2, 2, 5, 0, 2, 5});
    const auto bi = pattern<std::int64_t>({6}, [](std::int64_t i) { return i % 3 - 1; });
    auto di = ufunc::to_device(hi);
    auto h = hi.copy();
    ufunc::greater->at(di, idx, ufunc::to_device(bi), {.target = gpu});
    ufunc::greater->at(h, idx, bi, {.target = host});
    CHECK(host_values<std::int32_t>(di) == h.to_vector<std::int32_t>());
  }
}

TEST_CASE("cuda methods: integer power.at, and a negative exponent raises value_error") {
  // np.power.at(int64 [2, 3, 1, 5], [0, 0, 1], [2, 3, 4]) == [64, 81, 1, 5].
  auto d = ufunc::to_device(ufunc::asarray<std::int64_t>({2, 3, 1, 5}));
  ufunc::power->at(d, ufunc::asarray<std::int64_t>({0, 0, 1}),
                   ufunc::to_device(ufunc::asarray<std::int64_t>({2, 3, 4})), {.target = gpu});
  CHECK(host_values<std::int64_t>(d) == std::vector<std::int64_t>{64, 81, 1, 5});
  // As NumPy: the element with a negative exponent stays as it was, the others are
  // applied, then the error (np.power.at([64, 81, 1, 5], [1, 2], [2, -1]) leaves
  // [64, 6561, 1, 5]).
  CHECK_THROWS_AS(ufunc::power->at(d, ufunc::asarray<std::int64_t>({1, 2}),
                                   ufunc::to_device(ufunc::asarray<std::int64_t>({2, -1})), {.target = gpu}),
                  ufunc::value_error);
  CHECK(host_values<std::int64_t>(d) == std::vector<std::int64_t>{64, 6561, 1, 5});
  // The exponent -1 at a repeated index: 3 ** 2 = 9 applied, the -1 not.
  auto e = ufunc::to_device(ufunc::asarray<std::int64_t>({3, 4}));
  CHECK_THROWS_AS(ufunc::power->at(e, ufunc::asarray<std::int64_t>({0, 0}),
                                   ufunc::to_device(ufunc::asarray<std::int64_t>({2, -1})), {.target = gpu}),
                  ufunc::value_error);
  CHECK(host_values<std::int64_t>(e) == std::vector<std::int64_t>{9, 4});
  // The same on a host a (host-in/host-out): the applied rounds come back.
  auto h = ufunc::asarray<std::int64_t>({3, 4});
  CHECK_THROWS_AS(
      ufunc::power->at(h, ufunc::asarray<std::int64_t>({0, 0}), ufunc::asarray<std::int64_t>({2, -1}), {.target = gpu}),
      ufunc::value_error);
  CHECK(h.to_vector<std::int64_t>() == std::vector<std::int64_t>{9, 4});
}

TEST_CASE("cuda methods: add.at of int32 a and float64 b casts at every application, many repeats") {
  const auto h0 = pattern<std::int32_t>({50}, [](std::int64_t i) { return 7 * i - 100; });
  auto idx = ufunc::empty<std::int64_t>({2000});
  for (std::int64_t i = 0; i < idx.size(); ++i)
    idx.data()[i] = (i * i) % 37 - (i % 2 ? 50 : 0);  // 0..36, some negative
  const auto b = pattern<double>({2000}, [](std::int64_t i) { return static_cast<double>(i % 11) * 0.35 - 1.2; });
  auto h = h0.copy();
  ufunc::add->at(h, idx, b, {.target = host});
  auto d = ufunc::to_device(h0);
  ufunc::add->at(d, idx, ufunc::to_device(b), {.target = gpu});
  CHECK(host_values<std::int32_t>(d) == h.to_vector<std::int32_t>());
  // Elements 37..49 are never indexed.
  for (std::int64_t i = 37; i < 50; ++i) CHECK(h.data()[i] == h0.data()[i]);
  auto hh = h0.copy();  // host-in/host-out
  ufunc::add->at(hh, idx, b, {.target = gpu});
  CHECK(hh.to_vector<std::int32_t>() == h.to_vector<std::int32_t>());
  // A scalar b: np.add.at(int32 [0, 0], [0, 0, 0], 0.75) == [0, 0] (0.75 truncates each time).
  auto z = ufunc::to_device(ufunc::zeros<std::int32_t>({2}));
  ufunc::add->at(z, ufunc::asarray<std::int64_t>({0, 0, 0}), 0.75, {.target = gpu});
  CHECK(host_values<std::int32_t>(z) == std::vector<std::int32_t>{0, 0});
}

TEST_CASE("cuda methods: at of vectorize'd loops without device method code (bool(d, d), int(f, f))") {
  auto lt = ufunc::vectorize<ufunc::signatures<bool(double, double)>, ufunc::target::cuda>(below{}, "below");
  // a[0]: 0.5 < 1 -> 1, then 1 < 0.7 -> 0; a[2]: 2 < 1 -> 0.
  auto d = ufunc::to_device(ufunc::asarray<double>({0.5, 3.0, 2.0}));
  lt.at(d, ufunc::asarray<std::int64_t>({0, 0, 2}), ufunc::to_device(ufunc::asarray<double>({1.0, 0.7, 1.0})),
        {.target = gpu});
  CHECK(host_values<double>(d) == std::vector<double>{0.0, 3.0, 0.0});
  auto ts = ufunc::vectorize<ufunc::signatures<std::int32_t(float, float)>, ufunc::target::cuda>(truncated_sum{}, "ts");
  const auto h0 = pattern<float>({7}, [](std::int64_t i) { return static_cast<double>(i) * 1.25 - 3.0; });
  const auto idx = ufunc::asarray<std::int64_t>({6, 1, 6, 6, 3, 1});
  const auto b = pattern<float>({6}, [](std::int64_t i) { return static_cast<double>(i) * 0.6 + 0.3; });
  auto h = h0.copy();
  ts.at(h, idx, b, {.target = host});
  auto df = ufunc::to_device(h0);
  ts.at(df, idx, ufunc::to_device(b), {.target = gpu});
  CHECK(host_values<float>(df) == h.to_vector<float>());
}

TEST_CASE("cuda methods: at over a trailing subspace, strided a and b, untouched elements") {
  // a (5, 3) int32, rows [1, 4, 1, 1], a float64 loop (casts): b (4, 3), b (3,) broadcast
  // over the positions, b (4, 1) broadcast along the rows, and a scalar.
  const auto h0 = pattern<std::int32_t>({5, 3}, [](std::int64_t i) { return 11 * i - 60; });
  const auto rows = ufunc::asarray<std::int64_t>({1, 4, 1, 1});
  const ufunc::array bs[] = {
      pattern<double>({4, 3}, [](std::int64_t i) { return static_cast<double>(i) * 0.45 - 2.0; }),
      pattern<double>({3}, [](std::int64_t i) { return static_cast<double>(i) * 1.7 - 1.1; }),
      pattern<double>({4, 1}, [](std::int64_t i) { return static_cast<double>(i) * 2.3 - 3.4; }),
      ufunc::full<double>(ufunc::dim_vector{}, 2.6)};
  for (const auto& b : bs) {
    CAPTURE(b.ndim());
    for (const auto* f : {&ufunc::add.get(), &ufunc::multiply.get(), &ufunc::less.get()}) {
      CAPTURE(f->name());
      auto h = h0.copy();
      f->at(h, rows, b, {.target = host});
      auto d = ufunc::to_device(h0);
      f->at(d, rows, ufunc::to_device(b), {.target = gpu});
      CHECK(host_values<std::int32_t>(d) == h.to_vector<std::int32_t>());
      // Rows 0, 2 and 3 are never indexed.
      for (std::int64_t r : {0, 2, 3})
        for (std::int64_t c = 0; c < 3; ++c) CHECK(h.data()[r * 3 + c] == h0.data()[r * 3 + c]);
    }
  }
  // a as a transposed (strided) view of a device array, b a transposed view too; the
  // whole base array is compared, so a write outside the indexed elements fails.
  const auto base0 = pattern<float>({3, 6}, [](std::int64_t i) { return static_cast<double>(i) * 0.5 - 4.0; });
  const auto bt = pattern<double>({3, 4}, [](std::int64_t i) { return static_cast<double>(i % 7) - 2.5; });
  const auto idx = ufunc::asarray<std::int64_t>({5, 0, 5, 2});
  auto hbase = base0.copy();
  ufunc::subtract->at(hbase.transpose(), idx, bt.transpose(), {.target = host});
  auto dbase = ufunc::to_device(base0);
  ufunc::subtract->at(dbase.transpose(), idx, ufunc::to_device(bt).transpose(), {.target = gpu});
  CHECK(host_values<float>(dbase) == hbase.to_vector<float>());
  // The same with a subspace: a[idx, :] over rows of the transposed view (columns of base).
  auto hbase2 = base0.copy();
  const auto cols = ufunc::asarray<std::int64_t>({1, 1, 4});
  const auto bc = pattern<double>({3, 3}, [](std::int64_t i) { return static_cast<double>(i) * 0.3 + 0.1; });
  ufunc::add->at(hbase2.transpose(), cols, bc, {.target = host});
  auto dbase2 = ufunc::to_device(base0);
  ufunc::add->at(dbase2.transpose(), cols, ufunc::to_device(bc), {.target = gpu});
  CHECK(host_values<float>(dbase2) == hbase2.to_vector<float>());
}

TEST_CASE("cuda methods: at that casts reports floating-point errors as the call does") {
  // float32 a, float64 b: the dd->d loop through the call, which raises under 'raise'.
  // NumPy applies every position, then raises: a is [0.5, 2, inf] either way, and a
  // repeated index (two rounds) applies both of its occurrences.
  for (const auto policy : {ufunc::fp_policy::raise, ufunc::fp_policy::ignore}) {
    CAPTURE(static_cast<int>(policy));
    auto d = ufunc::to_device(ufunc::asarray<float>({1.0f, 2.0f, 3.0f}));
    ufunc::errstate guard({.divide = policy});
    const auto run = [&] {
      ufunc::divide->at(d, ufunc::asarray<std::int64_t>({0, 2, 0}),
                        ufunc::to_device(ufunc::asarray<double>({2.0, 0.0, 4.0})), {.target = gpu});
    };
    if (policy == ufunc::fp_policy::raise)
      CHECK_THROWS_AS(run(), ufunc::floating_point_error);
    else
      run();
    const auto got = host_values<float>(d);
    CHECK(got[0] == 0.125f);
    CHECK(got[1] == 2.0f);
    CHECK(std::isinf(got[2]));
  }
}

TEST_CASE("cuda methods: an empty reduced axis needs an identity or initial=, on device arrays as on the host") {
  // NumPy 2: np.fmin.reduce(np.empty((0, 0)), axis=-2) raises ValueError even though the result is empty.
  const auto e00 = ufunc::to_device(ufunc::array::zeros({0, 0}, ufunc::float64));
  const auto e30 = ufunc::to_device(ufunc::array::zeros({3, 0}, ufunc::float32));
  const auto e03 = ufunc::to_device(ufunc::array::zeros({0, 3}, ufunc::float64));
  for (const auto* f : {&ufunc::fmin, &ufunc::maximum, &ufunc::nextafter}) {
    const std::string message = "zero-size array to reduction operation " + f->get().name() + " which has no identity";
    CAPTURE(message);
    CHECK_THROWS_WITH_AS((void)f->reduce(e00, {.axis = -2, .target = gpu}), doctest::Contains(message.c_str()),
                         ufunc::value_error);
    CHECK_THROWS_WITH_AS((void)f->reduce(e00, {.axis = -1, .keepdims = true, .target = gpu}),
                         doctest::Contains(message.c_str()), ufunc::value_error);
    CHECK_THROWS_WITH_AS((void)f->reduce(e30, {.axis = 1, .target = gpu}), doctest::Contains(message.c_str()),
                         ufunc::value_error);
    // Reduced axes of nonzero length: an empty result. initial=: filled with it.
    const ufunc::array r = f->reduce(e03, {.axis = 1, .target = gpu});
    CHECK(r.shape() == ufunc::dim_vector{0});
    CHECK(f->reduce(e00, {.axis = -2, .initial = 5.0, .target = gpu}).shape() == ufunc::dim_vector{0});
    const ufunc::array filled = f->reduce(e30, {.axis = 1, .initial = 5.0, .target = gpu});
    CHECK(filled.device() == ufunc::device::cuda(0));
    CHECK(host_values<float>(filled) == std::vector<float>{5, 5, 5});
  }
  // With an identity: the identity, on the device.
  CHECK(host_values<float>(ufunc::add.reduce(e30, {.axis = 1, .target = gpu})) == std::vector<float>{0, 0, 0});
  CHECK(host_values<double>(ufunc::multiply.reduce(e03, {.axis = 0, .target = gpu})) == std::vector<double>{1, 1, 1});
}
