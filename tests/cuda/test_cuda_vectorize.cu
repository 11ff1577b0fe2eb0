// vectorize with target::cuda: a __host__ __device__ functor compiled by nvcc,
// typed and run-time paths, several outputs, and every layout.
#include <doctest/doctest.h>

#include <ufunc/core/transfer.hpp>
#include <ufunc/ufunc.hpp>

namespace {
// nvcc rejects generic extended lambdas; a functor with a template call operator
// is the generic form.
struct plus {
  template <class T>
  __host__ __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};
// Called with float for the 16-bit signatures (which have no arithmetic of their own).
struct saxpy_generic {
  template <class T>
  __host__ __device__ T operator()(T x, T y) const {
    return T(3) * x + y;
  }
};
}  // namespace

TEST_CASE("cuda vectorize: a stateful functor on device arrays, typed path") {
  auto f = ufunc::vectorize<float(float, float), ufunc::target::cuda>(saxpy{3.0f}, "saxpy");
  auto x = ufunc::to_device(ufunc::arange<float>(1 << 20)), y = ufunc::to_device(ufunc::full<float>({1 << 20}, 1.0f));
  ufunc::array_t<float> r = f(ufunc::array_t<float>(x), ufunc::array_t<float>(y));
  CHECK(r.device() == ufunc::device::cuda(0));
  const auto h = ufunc::to_host(r);
  CHECK(h.at<float>(12345) == 3.0f * 12345 + 1.0f);
}

TEST_CASE("cuda vectorize: a generic functor, broadcast and strided, run-time path") {
  auto add = ufunc::vectorize<ufunc::signatures<float(float, float), double(double, double)>, ufunc::target::cuda>(
      plus{}, "add");
  auto row = ufunc::to_device(ufunc::arange<double>(300.0).reshape({1, 300}));
  auto col = ufunc::to_device(ufunc::arange<double>(200.0).reshape({200, 1}));
  const ufunc::array m = add(ufunc::array(row), ufunc::array(col));
  const auto h = ufunc::to_host(m);
  CHECK(h.shape() == ufunc::dim_vector{200, 300});
  CHECK(h.at<double>(199, 299) == 498.0);
  const ufunc::array s = add(ufunc::array(row)[{0, ufunc::slice{0, std::nullopt, 7}}], 0.25);
  CHECK(ufunc::to_host(s).at<double>(3) == 21.25);
  // The same ufunc runs on the cpu target too.
  CHECK(add(ufunc::arange<float>(4.0f), 1.0f, {.target = ufunc::target_id::cpu}).at(3) == 4.0f);
}

TEST_CASE("cuda vectorize: several outputs") {
  auto divmod = ufunc::vectorize<std::tuple<int, int>(int, int), ufunc::target::cuda>(
      [] __host__ __device__(int a, int b) {
        return std::tuple<int, int>{a / b, a % b};
      },
      "divmod");
  auto a = ufunc::to_device(ufunc::arange<int>(100)), b = ufunc::to_device(ufunc::full<int>({100}, 7));
  auto [q, r] = divmod(ufunc::array_t<int>(a), ufunc::array_t<int>(b));
  const auto hq = ufunc::to_host(q), hr = ufunc::to_host(r);
  CHECK(hq.at<int>(99) == 14);
  CHECK(hr.at<int>(99) == 1);
}

TEST_CASE("cuda vectorize: float16 and bfloat16 signatures compute in float on the GPU, as on the cpu target") {
  using ufunc::bfloat16_t;
  using ufunc::float16_t;
  auto add = ufunc::vectorize<ufunc::signatures<float16_t(float16_t, float16_t), bfloat16_t(bfloat16_t, bfloat16_t)>,
                              ufunc::target::cuda>(saxpy_generic{}, "saxpy16");
  for (const ufunc::dtype t : {ufunc::float16, ufunc::bfloat16}) {
    CAPTURE(t.name());
    const auto x = ufunc::arange<float>(4096.0f).astype(t), y = ufunc::full<float>({4096}, 0.1f).astype(t);
    const auto want = add(ufunc::array(x), ufunc::array(y), {.target = ufunc::target_id::cpu});
    const ufunc::array got = add(ufunc::array(ufunc::to_device(x)), ufunc::array(ufunc::to_device(y)));
    REQUIRE(got.type() == t);
    CHECK(ufunc::to_host(got).to_vector<double>() == want.to_vector<double>());
  }
}
