// vectorize on every target of the shared list (UFUNC_TEST_TARGETS, tests/test_support.hpp):
// written once, compiled by the host compiler into the unit suite (cpu, parallel) and by
// nvcc into the CUDA test executable (tests/cuda/test_targets.cu: target::cuda, host
// arrays in and out). The functors are therefore __host__ __device__ where nvcc compiles
// them, and generic ones are functors with a template call operator (nvcc has no generic
// extended lambdas).
#include <string>
#include <tuple>

#include "test_support.hpp"

namespace {

struct plus {
  template <class T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return a + b;
  }
};

// Called with float for the 16-bit signatures, which have no arithmetic of their own.
struct square_plus_one {
  template <class T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return a * b + T(1);
  }
};

// Takes the 16-bit type itself: its loop runs it as it is.
struct half_negate {
  UFUNC_HOST_DEVICE ufunc::float16_t operator()(ufunc::float16_t a) const {
    return ufunc::float16_t::from_bits(static_cast<std::uint16_t>(a.bits() ^ 0x8000u));
  }
};

// Two outputs, as NumPy's divmod on integers (floor semantics for negative operands).
struct floor_divmod {
  UFUNC_HOST_DEVICE std::tuple<std::int32_t, std::int32_t> operator()(std::int32_t a, std::int32_t b) const {
    std::int32_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) {
      q -= 1;
      r += b;
    }
    return {q, r};
  }
};

}  // namespace

TEST_CASE_TEMPLATE("targets: vectorize's typed path calls the loop of the matching signature", Target,
                   UFUNC_TEST_TARGETS) {
  auto add = ufunc::vectorize<ufunc::signatures<float(float, float), double(double, double)>, Target>(plus{}, "add");
  CHECK(add.name() == "add");
  CHECK(add.types() == std::vector<std::string>{"ff->f", "dd->d"});
  CHECK(add.nin == 2);
  CHECK(add.nout == 1);

  auto x = ufunc::arange<float>(100.0f), y = ufunc::full<float>({100}, 0.25f);
  ufunc::array_t<float> z = add(x, y);  // the result type is known at compile time
  for (int i = 0; i < 100; ++i) CHECK(z.at(i) == static_cast<float>(i) + 0.25f);

  auto xd = ufunc::arange<double>(10.0);
  ufunc::array_t<double> zd = add(xd, xd);
  CHECK(zd.at(9) == 18.0);

  // Weak scalars fit the float loop, as Python scalars do.
  ufunc::array_t<float> w = add(x, 2);
  CHECK(w.at(3) == 5.0f);
  ufunc::array_t<float> v = add(1.5, x);
  CHECK(v.at(3) == 4.5f);

  // std::vector and std::span operands are borrowed, not copied.
  std::vector<float> a(33, 1.0f), b(33, 2.0f);
  ufunc::array_t<float> s = add(a, std::span<const float>(b));
  CHECK(s.size() == 33);
  CHECK(s.at(32) == 3.0f);

  // Options on the typed path.
  auto out = ufunc::zeros<float>({100});
  add(x, y, {.out = {out}});
  CHECK(out.at(99) == 99.25f);
}

TEST_CASE_TEMPLATE("targets: vectorize's float16 and bfloat16 signatures compute in float and round once", Target,
                   UFUNC_TEST_TARGETS) {
  using ufunc::bfloat16_t;
  using ufunc::float16_t;
  // A generic functor is called with float (the 16-bit types have no arithmetic), its result rounded back.
  auto fma_like =
      ufunc::vectorize<ufunc::signatures<float16_t(float16_t, float16_t), bfloat16_t(bfloat16_t, bfloat16_t)>, Target>(
          square_plus_one{}, "fma_like");
  CHECK(fma_like.types() == std::vector<std::string>{"ee->e", "EE->E"});
  const std::int64_t n = 1000;
  auto x = ufunc::array::empty({n}, ufunc::float16), y = ufunc::array::empty({n}, ufunc::bfloat16);
  auto* xp = reinterpret_cast<float16_t*>(x.data());
  auto* yp = reinterpret_cast<bfloat16_t*>(y.data());
  for (std::int64_t i = 0; i < n; ++i) {
    xp[i] = float16_t(static_cast<float>(i) * 0.37f - 150.0f);
    yp[i] = bfloat16_t(static_cast<float>(i) * 1.3e3f - 2.0e5f);
  }
  const auto rx = fma_like(x, x), ry = fma_like(y, y);
  REQUIRE(rx.type() == ufunc::float16);
  REQUIRE(ry.type() == ufunc::bfloat16);
  for (std::int64_t i = 0; i < n; ++i) {
    const float fx = static_cast<float>(xp[i]), fy = static_cast<float>(yp[i]);
    CHECK(reinterpret_cast<const float16_t*>(rx.data())[i].bits() == float16_t(fx * fx + 1.0f).bits());
    CHECK(reinterpret_cast<const bfloat16_t*>(ry.data())[i].bits() == bfloat16_t(fy * fy + 1.0f).bits());
  }
  // A functor taking the 16-bit type is called with it.
  auto neg = ufunc::vectorize<float16_t(float16_t), Target>(half_negate{}, "neg");
  const auto r = neg(x);
  for (std::int64_t i = 0; i < n; ++i)
    CHECK(reinterpret_cast<const float16_t*>(r.data())[i].bits() == (xp[i].bits() ^ 0x8000u));
}

TEST_CASE_TEMPLATE("targets: vectorize with two outputs, broadcast, strides, out= and where=", Target,
                   UFUNC_TEST_TARGETS) {
  auto divmod = ufunc::vectorize<std::tuple<std::int32_t, std::int32_t>(std::int32_t, std::int32_t), Target>(
      floor_divmod{}, "divmod");
  CHECK(divmod.types() == std::vector<std::string>{"ii->ii"});
  auto a = ufunc::empty<std::int32_t>({7, 9});
  for (std::int64_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<std::int32_t>(i * 5 - 150);
  const auto b = ufunc::asarray<std::int32_t>({3, -4, 5, 7, -2, 9, 11, -13, 2});
  // Columns 8, 6, ..., 0 of a (negative stride) against b[::-2], broadcast over the rows.
  const auto a_view = a[{ufunc::slice{}, ufunc::slice{std::nullopt, std::nullopt, -2}}];
  const auto b_view = b[{ufunc::slice{std::nullopt, std::nullopt, -2}}];
  auto [q, r] = divmod(a_view, b_view);
  REQUIRE(q.shape() == ufunc::dim_vector{7, 5});
  for (std::int64_t i = 0; i < 7; ++i)
    for (std::int64_t j = 0; j < 5; ++j) {
      const std::int32_t x = a.at(i, 8 - 2 * j), d = b.at(8 - 2 * j);
      const auto [wq, wr] = floor_divmod{}(x, d);
      CHECK(q.at(i, j) == wq);
      CHECK(r.at(i, j) == wr);
      CHECK(wq * d + wr == x);
    }
  // out= for both outputs (the second one strided), under a mask.
  auto mask = ufunc::empty<bool>({9});
  for (int j = 0; j < 9; ++j) mask.data()[j] = j % 2 == 0;
  auto q_out = ufunc::full<std::int32_t>({7, 9}, -1);
  auto r_wide = ufunc::full<std::int32_t>({7, 18}, -1);
  auto r_out = r_wide[{ufunc::slice{}, ufunc::slice{0, std::nullopt, 2}}];
  divmod(ufunc::array(a), ufunc::array(b), {.out = {q_out, r_out}, .where = mask});
  for (std::int64_t i = 0; i < 7; ++i)
    for (std::int64_t j = 0; j < 9; ++j) {
      const auto [wq, wr] = floor_divmod{}(a.at(i, j), b.at(j));
      CHECK(q_out.at(i, j) == (j % 2 == 0 ? wq : -1));
      CHECK(r_wide.at(i, 2 * j) == (j % 2 == 0 ? wr : -1));
      CHECK(r_wide.at(i, 2 * j + 1) == -1);
    }
}

TEST_CASE_TEMPLATE("targets: a vectorized binary ufunc with an identity reduces and accumulates", Target,
                   UFUNC_TEST_TARGETS) {
  auto sum =
      ufunc::vectorize<ufunc::signatures<std::int64_t(std::int64_t, std::int64_t), double(double, double)>, Target>(
          plus{}, "sum", 0);
  auto x = ufunc::empty<std::int64_t>({40, 33});
  for (std::int64_t i = 0; i < x.size(); ++i) x.data()[i] = (i * 7919) % 1001 - 500;
  for (int axis : {0, 1}) {
    CAPTURE(axis);
    const ufunc::array got = sum.reduce(x, {.axis = axis});
    const ufunc::array want = ufunc::add.reduce(x, {.axis = axis, .target = ufunc::target_id::cpu});
    REQUIRE(got.device().is_host());
    CHECK(got.to_vector<std::int64_t>() == want.to_vector<std::int64_t>());
    const ufunc::array running = sum.accumulate(x, {.axis = axis});
    CHECK(running.to_vector<std::int64_t>() ==
          ufunc::add.accumulate(x, {.axis = axis, .target = ufunc::target_id::cpu}).to_vector<std::int64_t>());
  }
  // Small integral doubles: exact in any order of addition.
  const auto xd = x.astype(ufunc::float64);
  CHECK(sum.reduce(xd, {.axis = ufunc::all_axes}).template item<double>() ==
        static_cast<double>(ufunc::add.reduce(x, {.axis = ufunc::all_axes}).item<std::int64_t>()));
  CHECK(sum.reduce(ufunc::empty<double>({0}), {.axis = 0}).template item<double>() == 0.0);  // the identity
}
