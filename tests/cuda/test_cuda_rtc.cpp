// Run-time kernels on the GPU (backends/cuda/rtc): elementwise_kernel bodies that mirror
// built-in ufuncs give the built-in device loop's bits for every dtype (the complex product
// within rounding: libcu++'s operator*, not NumPy's); broadcasting,
// strides, out=, where=, many dimensions; compile errors name the body's line; the disk
// cache serves a second cache object without compiling. Compiled by the host compiler
// alone, as a g++-only program would be.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>

#include <ufunc/backends/cuda/rtc/elementwise_kernel.hpp>
#include <ufunc/backends/cuda/rtc/kernel_cache.hpp>
#include <ufunc/backends/cuda/rtc/module.hpp>
#include <ufunc/backends/cuda/rtc/reduction_kernel.hpp>

#include "../rtc_test_sources.hpp"
#include "../test_support.hpp"

namespace {

constexpr auto cuda = ufunc::target_id::cuda;

void check_bits(const ufunc::array& got, const ufunc::array& want) {
  REQUIRE(got.type() == want.type());
  REQUIRE(got.shape() == want.shape());
  // C-ordered host copies, compared as bytes (NaN payloads and signed zeros included).
  const auto g = ufunc::to_host(got).copy(), w = ufunc::to_host(want).copy();
  CHECK(std::equal(g.data(), g.data() + g.nbytes(), w.data()));
}

template <class T>
struct is_std_complex : std::false_type {};
template <class R>
struct is_std_complex<std::complex<R>> : std::true_type {};

// Within `ulps` of each other, element by element (real floating types). A body such as
// sqrt(x * x + y * y) is compiled as one expression, so NVRTC contracts x * x + y * y into an
// fma (nvcc's default, --fmad=true, which CuPy's kernels get too): one rounding fewer than
// the chain of built-in calls it is compared with.
template <class T>
void check_ulps(const ufunc::array& got, const ufunc::array& want, double ulps) {
  REQUIRE(got.shape() == want.shape());
  const auto g = ufunc::to_host(got).copy().to_vector<T>(), w = ufunc::to_host(want).copy().to_vector<T>();
  double worst = 0;
  for (std::size_t k = 0; k < g.size(); ++k) worst = std::max(worst, ufunc_test::ulp_distance(g[k], w[k]));
  CHECK(worst <= ulps);
}

// The complex product of a body (cuda::std::complex's operator*, its parts contracted by NVRTC
// as it chooses) against the built-in multiply (NumPy's product, with fma): each part within
// 4 epsilon of |a||b| (finite samples).
template <class C>
void check_complex_product(const ufunc::array& got, const ufunc::array& want, const ufunc::array& a,
                           const ufunc::array& b) {
  using R = typename C::value_type;
  const auto g = ufunc::to_host(got).to_vector<C>(), w = ufunc::to_host(want).to_vector<C>();
  const auto x = ufunc::to_host(a).to_vector<C>(), y = ufunc::to_host(b).to_vector<C>();
  int bad = 0;
  for (std::size_t k = 0; k < g.size(); ++k) {
    const double bound = 4.0 * std::numeric_limits<R>::epsilon() * std::abs(x[k]) * std::abs(y[k]);
    bad += std::abs(double(g[k].real()) - double(w[k].real())) > bound ||
           std::abs(double(g[k].imag()) - double(w[k].imag())) > bound;
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("rtc: z = x + y and z = x * y equal the built-in add and multiply", T, UFUNC_TEST_ALL_TYPES) {
  ufunc::cuda::elementwise_kernel add("T x, T y", "T z", "z = x + y;", "rtc_add");
  ufunc::cuda::elementwise_kernel mul("T x, T y", "T z", "z = x * y;", "rtc_mul");
  for (std::int64_t n : {1, 7, 1000, 100003}) {
    CAPTURE(n);
    const auto a = ufunc::to_device(ufunc_test::sample_array<T>(std::size_t(n), 1));
    const auto b = ufunc::to_device(ufunc_test::sample_array<T>(std::size_t(n), 2));
    if constexpr (!std::is_same_v<T, bool>) {
      check_bits(add(a, b), ufunc::add(a, b, {.target = cuda}));
      if constexpr (is_std_complex<T>::value)
        check_complex_product<T>(mul(a, b), ufunc::multiply(a, b, {.target = cuda}), a, b);
      else
        check_bits(mul(a, b), ufunc::multiply(a, b, {.target = cuda}));
    }
  }
}

TEST_CASE("rtc: float16 and bfloat16 bodies compute in float and round once, as the built-in loops") {
  // Inputs are floats in the body, T names float, an output (and a raw element) rounds each
  // value assigned to it once: the built-in loops' arithmetic (float, then one rounding).
  ufunc::cuda::elementwise_kernel add("T x, T y", "T z", "z = x + y;", "rtc_half_add");
  ufunc::cuda::elementwise_kernel third("T x", "T z", "T t = x;\nz = t / 3;", "rtc_half_third");
  ufunc::cuda::elementwise_kernel raw_mul("T x, raw T y", "T z", "z = x * y[i];", "rtc_half_raw_mul");
  ufunc::cuda::elementwise_kernel accumulate("T x", "T z", "z += x;", "rtc_half_accumulate");
  ufunc::cuda::elementwise_kernel twice("T x", "T z", "z = x * 2;", "rtc_half_twice");
  for (const auto type : {ufunc::float16, ufunc::bfloat16}) {
    CAPTURE(type.name());
    const auto a = ufunc::to_device(ufunc_test::sample_array<float>(100003, 1).astype(type));
    const auto b = ufunc::to_device(ufunc_test::sample_array<float>(100003, 2).astype(type));
    const auto sum = add(a, b);
    CHECK(sum.type() == type);
    check_bits(sum, ufunc::add(a, b, {.target = cuda}));
    check_bits(third(a), ufunc::divide(a, 3, {.target = cuda}));
    check_bits(raw_mul(a, b), ufunc::multiply(a, b, {.target = cuda}));
    auto out = ufunc::to_device(ufunc::to_host(b).copy());
    accumulate(a, {.out = {out}});
    check_bits(out, ufunc::add(b, a, {.target = cuda}));
    // The rounding into the element overflows: the generic rule of user functors reports it.
    const auto large =
        ufunc::to_device(ufunc::full<float>({1000}, type == ufunc::float16 ? 60000.0f : 3e38f).astype(type));
    const ufunc::errstate guard({.over = ufunc::fp_policy::raise});
    CHECK_THROWS_AS((void)twice(large), ufunc::floating_point_error);
  }
}

TEST_CASE("rtc: hyp with broadcasting, strides, out=, where= and 5 dimensions") {
  ufunc::cuda::elementwise_kernel hyp("T x, T y", "T z", "z = sqrt(x * x + y * y);", "hyp");
  const auto x = ufunc_test::sample_array<float>(64 * 100, 4).reshape({64, 100});
  const auto y = ufunc_test::sample_array<float>(100, 5).reshape({1, 100});
  const auto dx = ufunc::to_device(x), dy = ufunc::to_device(y);
  const auto expected = ufunc::sqrt(ufunc::add(ufunc::multiply(dx, dx, {.target = cuda}),
                                               ufunc::multiply(dy, dy, {.target = cuda}), {.target = cuda}),
                                    {.target = cuda});
  check_ulps<float>(hyp(dx, dy), expected, 1);
  // Transposed and reversed operands.
  check_ulps<float>(
      hyp(dx.transpose(), dy.transpose()),
      ufunc::sqrt(ufunc::add(ufunc::multiply(dx.transpose(), dx.transpose(), {.target = cuda}),
                             ufunc::multiply(dy.transpose(), dy.transpose(), {.target = cuda}), {.target = cuda}),
                  {.target = cuda}),
      1);
  // out= and where=.
  auto out = ufunc::to_device(ufunc::zeros<float>({64, 100}));
  const auto mask = ufunc::to_device(ufunc::greater(x, 0.5f));
  hyp(dx, dy, {.out = {out}, .where = mask});
  const auto host_out = ufunc::to_host(out).to_vector<float>();
  const auto host_expected = ufunc::to_host(expected).to_vector<float>();
  const auto host_x = x.to_vector<float>();
  int bad = 0;
  for (std::size_t k = 0; k < host_out.size(); ++k)
    bad += host_x[k] > 0.5f ? ufunc_test::ulp_distance(host_out[k], host_expected[k]) > 1 : host_out[k] != 0.0f;
  CHECK(bad == 0);
  // Five dimensions (the 64-dimension instantiation).
  const auto x5 = ufunc::to_device(ufunc_test::sample_array<double>(2 * 3 * 4 * 5 * 6, 6).reshape({2, 3, 4, 5, 6}));
  const auto y5 = ufunc::to_device(ufunc_test::sample_array<double>(6, 7));
  check_ulps<double>(hyp(x5.transpose(), y5.reshape({6, 1, 1, 1, 1})),
                     ufunc::sqrt(ufunc::add(ufunc::multiply(x5.transpose(), x5.transpose(), {.target = cuda}),
                                            ufunc::multiply(y5.reshape({6, 1, 1, 1, 1}), y5.reshape({6, 1, 1, 1, 1}),
                                                            {.target = cuda}),
                                            {.target = cuda}),
                                 {.target = cuda}),
                     1);
  // Host operands are copied to the device and the result back, as for built-in ufuncs.
  CHECK(hyp(x, y).device().is_host());
}

TEST_CASE("rtc: errstate applies to a kernel's results by the rule of every user functor on cuda") {
  ufunc::cuda::elementwise_kernel mul("T x, T y", "T z", "z = x * y;", "rtc_errstate_mul");
  ufunc::cuda::elementwise_kernel root("T x", "T z", "z = sqrt(x);", "rtc_errstate_sqrt");
  const auto big = ufunc::to_device(ufunc::full<float>({1000}, 1e30f));
  const auto negative = ufunc::to_device(ufunc::full<double>({3}, -1.0));
  const auto mask = ufunc::to_device(ufunc::array::zeros({1000}, ufunc::bool_));
  auto out = ufunc::to_device(ufunc::array::zeros({1000}, ufunc::float32));
  {
    ufunc::errstate guard({.over = ufunc::fp_policy::raise, .invalid = ufunc::fp_policy::raise});
    try {
      (void)mul(big, big);
      FAIL("1e30f * 1e30f under overflow='raise' did not throw");
    } catch (const ufunc::floating_point_error& e) {
      CHECK(e.flag() == static_cast<unsigned>(ufunc::fp_flag::overflow));
    }
    try {
      (void)root(negative);
      FAIL("sqrt(-1) under invalid='raise' did not throw");
    } catch (const ufunc::floating_point_error& e) {
      CHECK(e.flag() == static_cast<unsigned>(ufunc::fp_flag::invalid));
    }
    // A body that returns early on half of its elements: the other half still reports.
    ufunc::cuda::elementwise_kernel half("T x, T y", "T z", "if (i % 2) return; z = x * y;", "rtc_errstate_half");
    CHECK_THROWS_AS((void)half(big, big), ufunc::floating_point_error);
    // Masked-out elements raise nothing; infinite inputs excuse an infinite result.
    CHECK_NOTHROW(mul(big, big, {.out = {out}, .where = mask}));
    const auto inf = ufunc::to_device(ufunc::full<float>({4}, std::numeric_limits<float>::infinity()));
    CHECK_NOTHROW(mul(inf, inf));
    CHECK_NOTHROW(mul(big, ufunc::to_device(ufunc::full<float>({1000}, 2.0f))));
  }
  {
    ufunc::errstate guard({.all = ufunc::fp_policy::ignore});
    CHECK(std::isinf(ufunc::to_host(mul(big, big)).to_vector<float>()[999]));
  }
}

TEST_CASE("rtc: raw inputs are indexed by the body with a flat C-order index") {
  ufunc::cuda::elementwise_kernel lookup("T x, raw U table", "T z", "z = x + (T)table[i % table.size()];", "lookup");
  const auto x = ufunc_test::sample_array<float>(1000, 8);
  // A transposed raw table: its flat index walks it in C order of its own shape.
  const auto table_host = ufunc_test::sample_array<double>(12, 9).reshape({3, 4});
  const auto table = ufunc::to_device(table_host).transpose();
  const auto z = ufunc::to_host(lookup(ufunc::to_device(x), table)).to_vector<float>();
  const auto xs = x.to_vector<float>();
  const auto flat = table_host.transpose().copy().to_vector<double>();
  for (std::size_t k = 0; k < xs.size(); ++k) CHECK(z[k] == xs[k] + static_cast<float>(flat[k % 12]));
  // A raw array on the host is refused: raw arrays are not copied.
  CHECK_THROWS_WITH_AS((void)lookup(ufunc::to_device(x), table_host), doctest::Contains("a raw array is on cpu"),
                       ufunc::target_error);
}

TEST_CASE("rtc: raw outputs are written where the body chooses (scatters, histograms, half elements)") {
  // Every output raw: the call's shape is the broadcast inputs'; the result is the caller's array.
  ufunc::cuda::elementwise_kernel reverse("T x", "raw T y", "y[y.size() - 1 - i] = x;", "reverse_into");
  const auto x = ufunc_test::sample_array<float>(1000, 5);
  const auto y = ufunc::to_device(ufunc::zeros<float>({1000}));
  const auto results = reverse.call(std::vector<ufunc::operand>{ufunc::to_device(x)}, {.out = {y}});
  REQUIRE(results.size() == 1);
  CHECK(results[0].data() == y.data());
  auto xs = x.to_vector<float>();
  std::reverse(xs.begin(), xs.end());
  CHECK(ufunc::to_host(y).to_vector<float>() == xs);

  // where= leaves the bodies of unselected elements unrun.
  const auto mask = ufunc::to_device(ufunc::asarray<bool>({true, false, true, false}));
  const auto y4 = ufunc::to_device(ufunc::zeros<float>({4}));
  (void)reverse(ufunc::to_device(ufunc::asarray<float>({1, 2, 3, 4})), {.out = {y4}, .where = mask});
  CHECK(ufunc::to_host(y4).to_vector<float>() == std::vector<float>{0, 3, 0, 1});

  // A histogram: atomics into a raw int32 output over a broadcast (2-d) input.
  ufunc::cuda::elementwise_kernel histogram("T x", "raw int32 bins", "atomicAdd(&bins[(int)x % bins.size()], 1);",
                                            "histogram");
  const auto values = ufunc::asarray<std::int64_t>({0, 1, 1, 2, 2, 2, 7}).reshape({7, 1});
  const auto bins = ufunc::to_device(ufunc::zeros<std::int32_t>({8}));
  (void)histogram(ufunc::to_device(values).broadcast_to({7, 3}), {.out = {bins}});
  CHECK(ufunc::to_host(bins).to_vector<std::int32_t>() == std::vector<std::int32_t>{3, 6, 9, 0, 0, 0, 0, 3});

  // A raw output beside a broadcast one: both come back, in the parameters' order.
  ufunc::cuda::elementwise_kernel both("T x", "T z, raw T total", "z = 2 * x; atomicAdd(&total[0], x);", "both");
  const auto ints = ufunc::asarray<std::int32_t>({1, 2, 3, 4, 5});
  const auto z = ufunc::to_device(ufunc::zeros<std::int32_t>({5})),
             total = ufunc::to_device(ufunc::zeros<std::int32_t>({1}));
  const auto out = both.call(std::vector<ufunc::operand>{ufunc::to_device(ints)}, {.out = {z, total}});
  REQUIRE(out.size() == 2);
  CHECK(ufunc::to_host(out[0]).to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 4, 6, 8, 10});
  CHECK(ufunc::to_host(out[1]).to_vector<std::int32_t>() == std::vector<std::int32_t>{15});

  // float16 and bfloat16 elements of a raw output round once from the float the body assigns.
  ufunc::cuda::elementwise_kernel triple("T x", "raw T y", "y[i] = x * 3;", "triple_into");
  for (const auto type : {ufunc::float16, ufunc::bfloat16}) {
    const auto h = ufunc_test::sample_array<float>(777, 3).astype(type);
    const auto dest = ufunc::to_device(ufunc::zeros<float>({777}).astype(type));
    (void)triple(ufunc::to_device(h), {.out = {dest}});
    check_bits(dest, ufunc::multiply(h, 3, {.target = cuda}));
  }

  // A raw output on the host is refused: raw arrays are not copied.
  CHECK_THROWS_WITH_AS((void)reverse(ufunc::to_device(x), {.out = {ufunc::zeros<float>({1000})}}),
                       doctest::Contains("a raw array is on cpu"), ufunc::target_error);
}

TEST_CASE("rtc: a typo in the body is a compile_error that names the body's line") {
  ufunc::cuda::elementwise_kernel typo("T x", "T z", "z = x;\nz = x +* 2;", "typo");
  const auto x = ufunc::to_device(ufunc_test::sample_array<float>(10, 1));
  CHECK_THROWS_WITH_AS((void)typo(x), doctest::Contains("typo(2): error"), ufunc::compile_error);
}

TEST_CASE("rtc: the disk cache serves a new cache object without compiling") {
  const auto folder = std::filesystem::temp_directory_path() / ("ufunc-rtc-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  int compiles = 0;
  {
    ufunc::cuda::rtc::kernel_cache first(folder);
    (void)first.get("key", [&] {
      ++compiles;
      return std::string("binary");
    });
  }
  ufunc::cuda::rtc::kernel_cache second(folder);
  CHECK(*second.get("key", [&] {
    ++compiles;
    return std::string("other");
  }) == "binary");
  CHECK(compiles == 1);
  CHECK(second.stats().disk_hits == 1);
  std::filesystem::remove_all(folder);
}

TEST_CASE("rtc module: PyCUDA's doublify and a template kernel launched by name, arguments checked") {
  ufunc::cuda::module m(ufunc_test::doublify_and_scale, {.name_expressions = {"scale<double>"}, .name = "kernels"});
  const auto host = ufunc_test::sample_array<float>(1000, 3);
  const auto a = ufunc::to_device(host);
  m.function("doublify").launch({4}, {256}, {a, 1000});
  CHECK(ufunc::to_host(a).to_vector<float>() == ufunc::multiply(host, 2.0f).to_vector<float>());
  const auto hd = ufunc_test::sample_array<double>(300, 4);
  const auto d = ufunc::to_device(hd);
  m.function("scale<double>").launch({2}, {256}, {d, 0.5, 300});
  CHECK(ufunc::to_host(d).to_vector<double>() == ufunc::multiply(hd, 0.5).to_vector<double>());
  // Checked before the launch: the count and sizes of the arguments, the arrays' device, the name.
  CHECK_THROWS_WITH_AS(m.function("doublify").launch({1}, {32}, {a}), doctest::Contains("takes 2 parameters, not 1"),
                       ufunc::value_error);
  CHECK_THROWS_WITH_AS(m.function("doublify").launch({1}, {32}, {a, 1.0}),
                       doctest::Contains("argument 1 is a scalar of 8 bytes, parameter 1 takes 4 bytes"),
                       ufunc::value_error);
  CHECK_THROWS_WITH_AS(m.function("doublify").launch({1}, {32}, {host, 1000}),
                       doctest::Contains("argument 0 is on cpu"), ufunc::target_error);
  CHECK_THROWS_WITH_AS(m.function("triple").launch({1}, {32}, {a, 1000}),
                       doctest::Contains("has no kernel of that name"), ufunc::value_error);
  CHECK(ufunc::to_host(a).to_vector<float>() == ufunc::multiply(host, 2.0f).to_vector<float>());  // untouched
}

// Generated kernels, and module kernels launched with programmatic_dependent_launch, may be
// scheduled while the stream's previous kernel runs (sm_90 and later): each must wait for it
// before it reads. Chains where every call reads what the one before wrote (in place, across
// blocks, a sum after each step) would lose steps if a kernel started reading early.
TEST_CASE("rtc: dependent launches keep the stream's order (in-place chains, module kernels, sums between)") {
  const std::int64_t n = std::int64_t{1} << 20;
  ufunc::cuda::elementwise_kernel increment("T x", "T y", "y = x + 1", "increment");
  ufunc::cuda::reduction_kernel sum("T x", "T y", "x", "a + b", "y = a", "0", "sum_all");
  auto a = ufunc::to_device(ufunc::zeros<float>({n}));
  for (int k = 1; k <= 24; ++k) {
    increment(a, {.out = {a}});
    increment(a, {.out = {a}});
    CHECK(ufunc::to_host(sum(a)).item<float>() == static_cast<float>(2 * k * n));
  }
  const auto host = ufunc::to_host(a).to_vector<float>();
  CHECK(std::all_of(host.begin(), host.end(), [](float v) { return v == 48.0f; }));
  ufunc::cuda::module m(R"(
    extern "C" __global__ void mirror_step(float* out, const float* in, int n) {
      asm volatile("griddepcontrol.wait;" ::: "memory");
      asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
      const int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = in[n - 1 - i] + 1;  // another block's element
    })",
                        {.name = "dependent"});
  auto b = ufunc::to_device(ufunc::zeros<float>({n}));
  auto c = ufunc::to_device(ufunc::zeros<float>({n}));
  const auto step = m.function("mirror_step");
  const unsigned blocks = static_cast<unsigned>(n / 256);
  for (int k = 0; k < 32; ++k) {
    step.launch({blocks}, {256}, {c, b, static_cast<int>(n)}, {.programmatic_dependent_launch = true});
    step.launch({blocks}, {256}, {b, c, static_cast<int>(n)}, {.programmatic_dependent_launch = true});
  }
  const auto stepped = ufunc::to_host(b).to_vector<float>();
  CHECK(std::all_of(stepped.begin(), stepped.end(), [](float v) { return v == 64.0f; }));
}

TEST_CASE("rtc reduction_kernel: CuPy's l2norm over every axis and per row, a dot product, an empty reduction") {
  ufunc::cuda::reduction_kernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  const auto host = ufunc_test::sample_array<double>(300 * 7, 5).reshape({300, 7});
  const auto x = ufunc::to_device(host);
  const auto v = host.to_vector<double>();
  double total = 0;
  for (double e : v) total += e * e;
  const auto all = ufunc::to_host(l2norm(x));
  CHECK(all.ndim() == 0);
  CHECK(all.item<double>() == doctest::Approx(std::sqrt(total)).epsilon(1e-13));
  const auto rows = ufunc::to_host(l2norm(x, {.axis = {1}, .keepdims = true}));
  REQUIRE(rows.shape() == ufunc::dim_vector{300, 1});
  const auto rv = rows.to_vector<double>();
  for (std::size_t i = 0; i < 300; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < 7; ++j) s += v[i * 7 + j] * v[i * 7 + j];
    CHECK(rv[i] == doctest::Approx(std::sqrt(s)).epsilon(1e-13));
  }
  // A large reduction spread over many blocks: 2^22 float32 ones.
  const auto ones = ufunc::to_device(ufunc::full<float>({1 << 22}, 1.0f));
  ufunc::cuda::reduction_kernel count("T x", "T y", "x", "a + b", "y = a", "0", "count");
  CHECK(ufunc::to_host(count(ones)).item<float>() == static_cast<float>(1 << 22));
  // Each path of the partial kernel on sums that are exact in any order: contiguous and
  // aligned (vector loads), one axis not 16-byte aligned (unrolled scalar loads), per row
  // with many parts (a block per output to combine them), axes that do not merge (transposed).
  const ufunc::slice from_one{1, std::nullopt};
  CHECK(ufunc::to_host(count(ones[{from_one}])).item<float>() == static_cast<float>((1 << 22) - 1));
  const auto wide = ufunc::to_device(ufunc::full<float>({3, (1 << 20) + 3}, 1.0f));
  CHECK(ufunc::to_host(count(wide, {.axis = {1}})).to_vector<float>() ==
        std::vector<float>(3, static_cast<float>((1 << 20) + 3)));
  const auto square = ufunc::to_device(ufunc::full<float>({1024, 2048}, 1.0f));
  CHECK(ufunc::to_host(count(square.transpose())).item<float>() == static_cast<float>(1 << 21));
  // The vector path's parts take tiles (4096 int32 elements) in turn, and one part the partial
  // tile and the elements after the last whole vector: exact int32 sums of sizes around a
  // tile, over every axis and per row (rows of whole vectors, many parts each).
  ufunc::cuda::reduction_kernel isum("T x", "T y", "x", "a + b", "y = a", "0", "isum");
  const auto small_ints = [](std::int64_t n) {
    auto a = ufunc::empty<std::int32_t>({n});
    for (std::int64_t k = 0; k < n; ++k) a.data()[k] = static_cast<std::int32_t>((k * 7919) % 2001 - 1000);
    return a;
  };
  for (const std::int64_t n : {1, 3, 4095, 4096, 4100, 4096 * 9 + 1003, (1 << 21) + 4097}) {
    CAPTURE(n);
    const auto h = small_ints(n);
    const auto hv = h.to_vector<std::int32_t>();
    std::int64_t want = 0;
    for (const auto e : hv) want += e;
    CHECK(ufunc::to_host(isum(ufunc::to_device(h))).item<std::int32_t>() == want);
  }
  const std::int64_t row = 4096 * 40 + 12;
  const auto table = small_ints(5 * row).reshape({5, row});
  const auto tv = table.to_vector<std::int32_t>();
  const auto per_row = ufunc::to_host(isum(ufunc::to_device(table), {.axis = {1}})).to_vector<std::int32_t>();
  REQUIRE(per_row.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) {
    std::int64_t want = 0;
    for (std::int64_t j = 0; j < row; ++j) want += tv[i * std::size_t(row) + std::size_t(j)];
    CHECK(per_row[i] == want);
  }
  CHECK(ufunc::to_host(count(square.transpose(), {.axis = {1}})).to_vector<float>() ==
        std::vector<float>(2048, 1024.0f));
  // Two inputs broadcast together: a dot product per column.
  ufunc::cuda::reduction_kernel dot("T x, T y", "T z", "x * y", "a + b", "z = a", "0", "dot");
  const auto w = ufunc_test::sample_array<double>(300, 6).reshape({300, 1});
  const auto cols = ufunc::to_host(dot(x, ufunc::to_device(w), {.axis = {0}})).to_vector<double>();
  const auto wv = w.to_vector<double>();
  for (std::size_t j = 0; j < 7; ++j) {
    double s = 0;
    for (std::size_t i = 0; i < 300; ++i) s += v[i * 7 + j] * wv[i];
    CHECK(cols[j] == doctest::Approx(s).epsilon(1e-12));
  }
  // Nothing to reduce: the identity, post-mapped.
  const auto empty = ufunc::to_device(ufunc::empty<double>({4, 0}));
  CHECK(ufunc::to_host(l2norm(empty, {.axis = {1}})).to_vector<double>() == std::vector<double>{0, 0, 0, 0});
  CHECK_THROWS_AS((void)l2norm(x, {.axis = {2}}), ufunc::index_error);
}
