// float16 and bfloat16 on the cuda target: the device loops against the cpu target's (the
// exhaustive value check against NumPy and ml_dtypes is tests/half, which runs cuda too where a
// GPU is present), the reductions (float16 sums near NumPy's float sums, bfloat16 folded in order
// as ml_dtypes'), errstate on device (the float computation's flags and float16's rounding), the
// device casts' flags, and the fused chains that refuse the 16-bit types by name.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <ufunc/core/transfer.hpp>
#include <ufunc/fuse.hpp>
#include <ufunc/ufunc.hpp>

#include "../test_support.hpp"

namespace {

constexpr auto on_cpu = ufunc::target_id::cpu;
constexpr auto on_gpu = ufunc::target_id::cuda;

// n values of the 16-bit type T: random in [-r, r] with every special value at the front.
template <class T>
ufunc::array sample(std::int64_t n, float r, unsigned seed) {
  auto a = ufunc::array::empty({n}, ufunc::dtype_of<T>);
  auto* p = reinterpret_cast<T*>(a.data());
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-r, r);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-7f, -3e-6f, 65504.0f, 3.0e38f, 1.0f};
  for (std::int64_t i = 0; i < n; ++i) p[i] = i < 10 ? T(specials[i]) : T(u(gen));
  return a;
}

template <class T>
std::vector<std::uint16_t> bits_of(const ufunc::array& host) {
  std::vector<std::uint16_t> b(static_cast<std::size_t>(host.size()));
  const auto* p = reinterpret_cast<const T*>(host.data());
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = p[i].bits();
  return b;
}

// Distance in units in the last place of the 16-bit format (NaNs equal to NaNs).
template <class T>
int ulps(T a, T b) {
  const float fa = static_cast<float>(a), fb = static_cast<float>(b);
  if (fa != fa || fb != fb) return (fa != fa) == (fb != fb) ? 0 : 1 << 20;
  auto image = [](T x) {
    const int m = x.bits() & 0x7fff;
    return (x.bits() & 0x8000) ? -m : m;
  };
  return std::abs(image(a) - image(b));
}

template <class T>
void check_against_cpu(const ufunc::function& f, std::vector<ufunc::array> inputs, int max_ulps) {
  CAPTURE(f.name());
  std::vector<ufunc::operand> host, device;
  for (const auto& a : inputs) {
    host.emplace_back(a);
    device.emplace_back(ufunc::to_device(a));
  }
  const auto want = f.call(host, {.target = on_cpu});
  const auto got = f.call(device, {.target = on_gpu});
  REQUIRE(want.size() == got.size());
  for (std::size_t o = 0; o < want.size(); ++o) {
    const auto g = ufunc::to_host(got[o]);
    REQUIRE(g.type() == want[o].type());
    if (want[o].type() == ufunc::dtype_of<T>) {
      const auto* w = reinterpret_cast<const T*>(want[o].data());
      const auto* h = reinterpret_cast<const T*>(g.data());
      int worst = 0;
      for (std::int64_t i = 0; i < g.size(); ++i) worst = std::max(worst, ulps(w[i], h[i]));
      CHECK(worst <= max_ulps);
    } else {
      CHECK(g.to_vector<bool>() == want[o].to_vector<bool>());
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("cuda half: the device loops give the cpu target's values", T, ufunc::float16_t, ufunc::bfloat16_t) {
  const auto a = sample<T>(10007, 100.0f, 1), b = sample<T>(10007, 100.0f, 2);
  // Correctly rounded (one rounding of the float result) or exact: the same bits.
  for (const ufunc::function& f : {ufunc::add, ufunc::subtract, ufunc::multiply, ufunc::divide, ufunc::maximum,
                                   ufunc::fmin, ufunc::copysign, ufunc::nextafter})
    check_against_cpu<T>(f, {a, b}, 0);
  for (const ufunc::function& f : {ufunc::sqrt, ufunc::negative, ufunc::absolute, ufunc::floor, ufunc::rint,
                                   ufunc::spacing, ufunc::sign, ufunc::isnan, ufunc::signbit})
    check_against_cpu<T>(f, {a}, 0);
  for (const ufunc::function& f : {ufunc::less, ufunc::equal, ufunc::logical_and}) check_against_cpu<T>(f, {a, b}, 0);
  // The device's float math (sinf, expf ...) is within an ulp of the host's: after rounding to 16 bits, at most one.
  for (const ufunc::function& f : {ufunc::sin, ufunc::exp, ufunc::log, ufunc::tanh, ufunc::arctan})
    check_against_cpu<T>(f, {a}, 1);
  check_against_cpu<T>(ufunc::power, {a, sample<T>(10007, 3.0f, 3)}, 1);
}

TEST_CASE("cuda half: reductions sum float16 in float, fold bfloat16 in order, as NumPy and ml_dtypes") {
  auto ones16 = ufunc::array::empty({5000}, ufunc::float16);
  auto ones_bf = ufunc::array::empty({5000}, ufunc::bfloat16);
  for (std::int64_t i = 0; i < 5000; ++i) {
    reinterpret_cast<ufunc::float16_t*>(ones16.data())[i] = ufunc::float16_t(1.0f);
    reinterpret_cast<ufunc::bfloat16_t*>(ones_bf.data())[i] = ufunc::bfloat16_t(1.0f);
  }
  // np.add.reduce(np.ones(5000, np.float16)) == 5000 (a float16 fold would stop at 2048).
  const auto s16 = ufunc::to_host(ufunc::add.reduce(ufunc::to_device(ones16), {.target = on_gpu}));
  CHECK(static_cast<float>(s16.item<ufunc::float16_t>()) == 5000.0f);
  // ml_dtypes folds bfloat16 one element at a time: 256 + 1 rounds back to 256, on every target.
  CHECK(static_cast<float>(ufunc::add.reduce(ones_bf, {.target = on_cpu}).item<ufunc::bfloat16_t>()) == 256.0f);
  const auto sbf = ufunc::to_host(ufunc::add.reduce(ufunc::to_device(ones_bf), {.target = on_gpu}));
  CHECK(static_cast<float>(sbf.item<ufunc::bfloat16_t>()) == 256.0f);
  // Extrema: exact, any grouping.
  const auto x = sample<ufunc::float16_t>(100000, 1000.0f, 4)[{ufunc::slice{10, 100000}}];
  CHECK(
      ufunc::to_host(ufunc::maximum.reduce(ufunc::to_device(x), {.target = on_gpu})).item<ufunc::float16_t>().bits() ==
      ufunc::maximum.reduce(x, {.target = on_cpu}).item<ufunc::float16_t>().bits());
  // accumulate rounds every step, as NumPy's float16 and ml_dtypes' bfloat16 do.
  const auto acc = ufunc::to_host(ufunc::add.accumulate(ufunc::to_device(ones16), {.target = on_gpu}));
  CHECK(static_cast<float>(reinterpret_cast<const ufunc::float16_t*>(acc.data())[4999]) == 2048.0f);
}

TEST_CASE("cuda half: errstate sees the float computation's flags and float16's rounding") {
  auto big = ufunc::array::empty({1000}, ufunc::float16), tiny = ufunc::array::empty({1000}, ufunc::float16);
  for (std::int64_t i = 0; i < 1000; ++i) {
    reinterpret_cast<ufunc::float16_t*>(big.data())[i] = ufunc::float16_t(i == 500 ? 60000.0f : 1.0f);
    reinterpret_cast<ufunc::float16_t*>(tiny.data())[i] = ufunc::float16_t(1e-4f);
  }
  const auto dbig = ufunc::to_device(big), dtiny = ufunc::to_device(tiny);
  {
    // 60000 + 60000 is finite in float, infinite in float16: NumPy reports overflow.
    ufunc::errstate guard({.over = ufunc::fp_policy::raise});
    CHECK_THROWS_AS((void)ufunc::add(dbig, dbig, {.target = on_gpu}), ufunc::floating_point_error);
    CHECK_THROWS_AS((void)ufunc::add(big, big, {.target = on_cpu}), ufunc::floating_point_error);
    CHECK_NOTHROW((void)ufunc::add(dtiny, dtiny, {.target = on_gpu}));
  }
  {
    // 1e-4 * 1e-4 is a normal float but below float16's normal range, inexact: underflow.
    ufunc::errstate guard({.under = ufunc::fp_policy::raise});
    CHECK_THROWS_AS((void)ufunc::multiply(dtiny, dtiny, {.target = on_gpu}), ufunc::floating_point_error);
    CHECK_THROWS_AS((void)ufunc::multiply(tiny, tiny, {.target = on_cpu}), ufunc::floating_point_error);
  }
  {
    // A cast of float32 70000 to float16 overflows, on the device as on the host.
    ufunc::errstate guard({.over = ufunc::fp_policy::raise});
    auto f = ufunc::full<float>({64}, 70000.0f);
    CHECK_THROWS_AS((void)ufunc::to_device(f).astype(ufunc::float16), ufunc::floating_point_error);
    CHECK_THROWS_AS((void)f.astype(ufunc::float16), ufunc::floating_point_error);
    CHECK_NOTHROW((void)ufunc::to_device(f).astype(ufunc::bfloat16));  // bfloat16 has float's range
  }
}

TEST_CASE("cuda half: a fused chain of 16-bit values is one kernel with the bits of the unfused device calls") {
  // Each node rounds as its device loop does (float, then one rounding; --fmad=false across nodes).
  auto hyp = ufunc::fuse([](auto a, auto b) { return ufunc::sqrt(a * a + b * b); }, "hyp");
  const auto chain = [](const ufunc::array& x) {
    return ufunc::sqrt(ufunc::add(ufunc::multiply(x, x), ufunc::multiply(x, x)));
  };
  const auto bits = []<class H>(const ufunc::array& x, H) {
    std::vector<std::uint16_t> v;
    for (const H h : ufunc::to_host(x).to_vector<H>()) v.push_back(h.bits());
    return v;
  };
  const auto a = ufunc::to_device(sample<ufunc::float16_t>(1000, 10.0f, 5));
  const auto fused = hyp(a, a);
  CHECK(fused.type() == ufunc::float16);
  CHECK(fused.device() == a.device());
  CHECK(bits(fused, ufunc::float16_t{}) == bits(chain(a), ufunc::float16_t{}));
  const auto b = ufunc::to_device(sample<ufunc::float16_t>(1000, 10.0f, 6).astype(ufunc::bfloat16));
  CHECK(bits(hyp(b, b), ufunc::bfloat16_t{}) == bits(chain(b), ufunc::bfloat16_t{}));
}
