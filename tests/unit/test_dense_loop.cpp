// function::find_dense_loop and detail::run_dense_loop (core/detail/dense_loop.hpp): the loop of a
// small call on dense operands, found as a call finds it, and run as a call runs it.
#include <cmath>
#include <complex>
#include <cstdint>

#include <ufunc/ufunc.hpp>

#include <doctest/doctest.h>

namespace {

using ufunc::target_id;
using ufunc::detail::dense_input;

char* bytes(const ufunc::array& a) { return reinterpret_cast<char*>(a.data()); }

// doctest cannot print a function pointer: `fn` tested as a bool.
bool found(const ufunc::detail::dense_loop& loop) { return loop.fn != nullptr; }

bool same_floats(const ufunc::array& a, const ufunc::array& b) { return a.to_vector<float>() == b.to_vector<float>(); }

}  // namespace

TEST_CASE("dense loop: found where a call takes its arrays without a cast, run as a call") {
  const auto x = ufunc::arange<float>(0.0f, 100.0f), y = ufunc::arange<float>(1.0f, 101.0f);
  const dense_input in[] = {{ufunc::float32}, {ufunc::float32}};
  const auto loop = ufunc::add.get().find_dense_loop(in, 100, target_id::cpu);
  REQUIRE(found(loop));
  CHECK(loop.types.str() == "ff->f");
  auto out = ufunc::array::empty({100}, ufunc::float32);
  char* args[] = {bytes(x), bytes(y), bytes(out)};
  ufunc::detail::run_dense_loop(loop, "add", in, args, 100);
  CHECK(same_floats(out, ufunc::add(x, y)));

  // A weak float beside an array is converted into the array's dtype.
  const ufunc::weak_scalar half(0.5);
  const dense_input with_scalar[] = {{ufunc::float32}, {ufunc::dtype{}, &half}};
  const auto scaled = ufunc::multiply.get().find_dense_loop(with_scalar, 100, target_id::cpu);
  REQUIRE(found(scaled));
  CHECK(scaled.types.str() == "ff->f");
  char* scaled_args[] = {bytes(x), nullptr, bytes(out)};
  ufunc::detail::run_dense_loop(scaled, "multiply", with_scalar, scaled_args, 100);
  CHECK(same_floats(out, ufunc::multiply(x, 0.5)));
}

TEST_CASE("dense loop: none where the call needs more than one inner-loop call of its own dtypes") {
  const auto& add = ufunc::add.get();
  const dense_input mixed[] = {{ufunc::int32}, {ufunc::float32}};  // both cast to float64
  CHECK_FALSE(found(add.find_dense_loop(mixed, 10, target_id::cpu)));
  const ufunc::weak_scalar two(std::int64_t{2}), cplx(std::complex<double>(1, 1)), tiny(1e-3);
  const dense_input with_int[] = {{ufunc::float32}, {ufunc::dtype{}, &two}};  // integers: the general path
  CHECK_FALSE(found(add.find_dense_loop(with_int, 10, target_id::cpu)));
  const dense_input with_complex[] = {{ufunc::float32}, {ufunc::dtype{}, &cplx}};
  CHECK_FALSE(found(add.find_dense_loop(with_complex, 10, target_id::cpu)));
  const dense_input into_int[] = {{ufunc::int16}, {ufunc::dtype{}, &tiny}};  // promotes to float64: a cast
  CHECK_FALSE(found(add.find_dense_loop(into_int, 10, target_id::cpu)));
  const dense_input one_scalar[] = {{ufunc::dtype{}, &tiny}};  // alone, cast as an array
  CHECK_FALSE(found(ufunc::sin.get().find_dense_loop(one_scalar, 1, target_id::cpu)));
  const dense_input bools[] = {{ufunc::bool_}, {ufunc::bool_}};
  CHECK(found(ufunc::logical_and.get().find_dense_loop(bools, 10, target_id::cpu)));
  const dense_input floats[] = {{ufunc::float32}, {ufunc::float32}};  // NumPy's ff->? loop
  CHECK(found(ufunc::logical_and.get().find_dense_loop(floats, 10, target_id::cpu)));
  const dense_input promoted[] = {{ufunc::int8}, {ufunc::float32}};  // int8 cast to float32 first
  CHECK_FALSE(found(ufunc::logical_and.get().find_dense_loop(promoted, 10, target_id::cpu)));
  const dense_input one[] = {{ufunc::float32}};
  CHECK_FALSE(found(add.find_dense_loop(one, 10, target_id::cpu)));
  const dense_input in[] = {{ufunc::float32}, {ufunc::float32}};
  CHECK_FALSE(found(add.find_dense_loop(in, std::int64_t{1} << 40, target_id::parallel)));  // split over threads
  // On cuda: a device backend's call, or (not compiled) the general call's target_error.
  CHECK_FALSE(found(add.find_dense_loop(in, 10, target_id::cuda)));
}

TEST_CASE("dense loop: errstate's policies and a scalar's cast overflow, as in a call") {
  const auto x = ufunc::full<float>({4}, 1.0f), zero = ufunc::full<float>({4}, 0.0f);
  auto out = ufunc::array::empty({4}, ufunc::float32);
  const dense_input in[] = {{ufunc::float32}, {ufunc::float32}};
  const auto divide = ufunc::divide.get().find_dense_loop(in, 4, target_id::cpu);
  REQUIRE(found(divide));
  char* args[] = {bytes(x), bytes(zero), bytes(out)};
  {
    ufunc::errstate guard({.divide = ufunc::fp_policy::raise});
    CHECK_THROWS_WITH_AS(ufunc::detail::run_dense_loop(divide, "divide", in, args, 4),
                         "divide by zero encountered in divide", ufunc::floating_point_error);
  }
  const ufunc::weak_scalar huge(1e300);
  const dense_input with_huge[] = {{ufunc::float32}, {ufunc::dtype{}, &huge}};
  const auto add = ufunc::add.get().find_dense_loop(with_huge, 4, target_id::cpu);
  REQUIRE(found(add));
  char* add_args[] = {bytes(x), nullptr, bytes(out)};
  {
    ufunc::errstate guard({.over = ufunc::fp_policy::raise});
    CHECK_THROWS_WITH_AS(ufunc::detail::run_dense_loop(add, "add", with_huge, add_args, 4),
                         "overflow encountered in cast", ufunc::floating_point_error);
    CHECK_THROWS_WITH_AS((void)ufunc::add(x, 1e300), "overflow encountered in cast", ufunc::floating_point_error);
  }
  const ufunc::errstate quiet({.over = ufunc::fp_policy::ignore});
  ufunc::detail::run_dense_loop(add, "add", with_huge, add_args, 4);
  CHECK(std::isinf(out.to_vector<float>()[0]));
}
