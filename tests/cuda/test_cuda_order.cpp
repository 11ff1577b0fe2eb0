// Output memory order on the cuda target: results, on the device or back on the host
// (host-in/host-out), have the strides and values of the cpu target's, which
// tests/unit/test_order.cpp checks against NumPy's (order='K' by default, order=,
// methods).
#include <functional>
#include <string>
#include <vector>

#include "../test_support.hpp"

namespace {

using ufunc::array;
using ufunc::dim_vector;
constexpr auto cpu = ufunc::target_id::cpu;
constexpr auto cuda = ufunc::target_id::cuda;

std::string str(std::span<const std::int64_t> v) { return array::shape_string(v); }

// New C-ordered operands (1, 2, 3, ... and a bool pattern), on the device or on the
// host; the views of each case are taken from them where they live.
struct operands {
  bool device;
  array place(const array& host) const { return device ? ufunc::to_device(host) : host; }
  array seq(const dim_vector& shape, ufunc::dtype t = ufunc::float32) const {
    const auto n = static_cast<double>(ufunc::shape_size(shape));
    return place(ufunc::arange<double>(1.0, n + 1.0).reshape(shape).astype(t, ufunc::order::C));
  }
  array mask(const dim_vector& shape) const {
    auto m = array::empty(shape, ufunc::bool_);
    for (std::int64_t i = 0; i < m.size(); ++i) m.data_as<bool>()[i] = i % 3 != 1;
    return place(m);
  }
};

array rev(const array& a) {  // a[::-1, ::-2]
  return a[{ufunc::slice{std::nullopt, std::nullopt, -1}, ufunc::slice{std::nullopt, std::nullopt, -2}}];
}

using case_fn = std::function<std::vector<array>(ufunc::target_id, const operands&)>;

// Runs `run` on the cpu target with host operands, then on the cuda target with
// device operands and with host ones (host-in/host-out).
void check_like_cpu(const char* what, const case_fn& run) {
  INFO(what);
  const auto want = run(cpu, operands{false});
  for (const bool device : {true, false}) {
    INFO((device ? "device operands" : "host operands (host-in/host-out)"));
    const auto got = run(cuda, operands{device});
    REQUIRE(got.size() == want.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      CHECK(got[k].device().is_host() == !device);
      CHECK(str(got[k].strides()) == str(want[k].strides()));
      CHECK(ufunc::to_host(got[k]).to_vector<double>() == want[k].to_vector<double>());
    }
  }
}

std::vector<array> one(const array& a) { return {a}; }

}  // namespace

TEST_CASE("cuda order: calls lay their outputs out as the cpu target (order='K' and order=)") {
  check_like_cpu("add(a.T, b.T): F-ordered", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add(o.seq({3, 4}).transpose(), o.seq({3, 4}).transpose(), {.target = t}));
  });
  check_like_cpu("add of a 3-d permutation and a scalar", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add(o.seq({2, 3, 4}).transpose({1, 2, 0}), 1.0f, {.target = t}));
  });
  check_like_cpu("broadcast column", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add(o.seq({3, 4}).transpose(), o.seq({4, 1}), {.target = t}));
  });
  check_like_cpu("negative steps", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add(rev(o.seq({5, 6})).transpose(), 1.0f, {.target = t}));
  });
  check_like_cpu("where= takes part", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add(o.seq({3, 4}).transpose(), o.seq({3, 4}).transpose(),
                          {.where = o.mask({3, 4}).transpose(), .target = t}));
  });
  check_like_cpu("an int16 input cast to float32 on the device", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add(o.seq({3, 4}, ufunc::int16).transpose(), o.seq({3, 4}).transpose(), {.target = t}));
  });
  check_like_cpu("divmod: two outputs", [](ufunc::target_id t, const operands& o) {
    return ufunc::divmod->call(
        std::vector<ufunc::operand>{o.seq({2, 3, 4}).transpose({2, 0, 1}), o.seq({2, 3, 4}).transpose({2, 0, 1})},
        {.target = t});
  });
  for (const auto order : {ufunc::order::C, ufunc::order::F, ufunc::order::A}) {
    check_like_cpu("order= C, F, A", [order](ufunc::target_id t, const operands& o) {
      return one(ufunc::add(o.seq({3, 4}).transpose(), o.seq({3, 4}).transpose(), {.order = order, .target = t}));
    });
  }
}

TEST_CASE("cuda order: the single-loop device path writes F-ordered results for F-ordered inputs") {
  const auto a = ufunc::to_device(ufunc::arange<float>(0.0f, 12.0f).reshape({3, 4}));
  const ufunc::array r = ufunc::add(a.transpose(), a.transpose(), {.target = cuda});
  CHECK(r.is_f_contiguous());
  CHECK_FALSE(r.is_c_contiguous());
  CHECK(ufunc::to_host(r).to_vector<float>() ==
        ufunc::add(ufunc::to_host(a).transpose(), ufunc::to_host(a).transpose()).to_vector<float>());
  CHECK(ufunc::add(a.transpose(), a.transpose(), {.order = ufunc::order::C, .target = cuda}).is_c_contiguous());
}

TEST_CASE("cuda order: reduce, accumulate, reduceat and outer results as the cpu target") {
  check_like_cpu("reduce along a middle axis", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add.reduce(o.seq({2, 3, 4}).transpose(), {.axis = 1, .target = t}));
  });
  check_like_cpu("reduce, keepdims and where", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add.reduce(o.seq({2, 3, 4}).transpose(),
                                 {.axis = {0, 2}, .keepdims = true, .where = o.mask({4, 3, 2}), .target = t}));
  });
  check_like_cpu("accumulate", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add.accumulate(o.seq({2, 3, 4}).transpose(), {.axis = 1, .target = t}));
  });
  check_like_cpu("reduceat", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add.reduceat(o.seq({2, 3, 4}).transpose(), ufunc::asarray<std::int64_t>({0, 1}),
                                   {.axis = 1, .target = t}));
  });
  check_like_cpu("outer", [](ufunc::target_id t, const operands& o) {
    return one(ufunc::add.outer(o.seq({3, 4}).transpose(), o.seq({2}), {.target = t}));
  });
}
