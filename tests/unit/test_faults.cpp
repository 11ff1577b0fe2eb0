// Fault injection: host allocations that fail (through the library's test hook,
// detail::inject_host_allocation_failures), std::bad_alloc and other exceptions
// thrown by user functors, on the calling thread and on TBB workers. Each fault must
// surface as an exception from the call that hit it, leak nothing (the asan preset
// runs this under LeakSanitizer), and leave the library ready for the next call.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"

#include <ufunc/core/detail/memory.hpp>
#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

namespace {

using i64 = std::int64_t;
using ufunc::array;

// Disarms the hook however the test case ends, so that no later test inherits a failure.
struct injection_guard {
  injection_guard() = default;
  injection_guard(const injection_guard&) = delete;
  injection_guard& operator=(const injection_guard&) = delete;
  ~injection_guard() { ufunc::detail::inject_host_allocation_failures(0); }
};

// Fails the 1st, 2nd, ... host allocation of `op` in turn. Each failure must be a
// memory_error from op itself; once op makes fewer allocations than the one that
// would fail, it must give the same result as without faults. Returns how many
// allocations op made.
int sweep_allocations(const std::function<std::vector<double>()>& op) {
  const injection_guard guard;
  const std::vector<double> expected = op();
  for (int k = 0; k < 64; ++k) {
    CAPTURE(k);
    ufunc::detail::inject_host_allocation_failures(1, k);
    try {
      const std::vector<double> got = op();
      CHECK(ufunc::detail::pending_host_allocation_failures() == 1);  // op allocated at most k times
      ufunc::detail::inject_host_allocation_failures(0);
      CHECK(got == expected);
      return k;
    } catch (const ufunc::memory_error& e) {
      CHECK(ufunc::detail::pending_host_allocation_failures() == 0);
      CHECK(std::string(e.what()).find("unable to allocate") != std::string::npos);
    }
  }
  FAIL("the operation still allocates after 64 injected failures");
  return -1;
}

std::vector<double> values(const array& a) { return a.to_vector<double>(); }

}  // namespace

TEST_CASE("faults: a failed host allocation is a memory_error at that call; the next call succeeds") {
  const injection_guard guard;
  ufunc::detail::inject_host_allocation_failures(1);
  CHECK(ufunc::detail::pending_host_allocation_failures() == 1);
  try {
    (void)array::empty({100}, ufunc::float32);
    FAIL("no exception");
  } catch (const ufunc::memory_error& e) {
    CHECK(std::string(e.what()) == "unable to allocate 400 bytes of host memory");
  }
  CHECK(ufunc::detail::pending_host_allocation_failures() == 0);
  CHECK(array::empty({100}, ufunc::float32).size() == 100);

  // Skip one allocation, fail the next two.
  ufunc::detail::inject_host_allocation_failures(2, 1);
  CHECK_NOTHROW((void)ufunc::zeros<double>({3}));
  CHECK_THROWS_AS((void)ufunc::zeros<double>({3}), ufunc::memory_error);
  CHECK_THROWS_AS((void)ufunc::zeros<double>({3}), ufunc::memory_error);
  CHECK(ufunc::zeros<double>({3}).to_vector() == std::vector<double>{0, 0, 0});

  // memory_error is a ufunc::error (and a std::runtime_error).
  const auto four = ufunc::arange<float>(4.0f);
  ufunc::detail::inject_host_allocation_failures(1);
  CHECK_THROWS_AS((void)ufunc::add(four, 1), ufunc::error);

  // A call with out= allocates nothing: an armed failure stays pending.
  const auto x = ufunc::arange<double>(10.0);
  auto out = ufunc::empty<double>({10});
  ufunc::detail::inject_host_allocation_failures(1);
  ufunc::add(x, x, {.out = {out}});
  CHECK(ufunc::detail::pending_host_allocation_failures() == 1);
  CHECK(out.at(9) == 18.0);
  ufunc::detail::inject_host_allocation_failures(0);
  CHECK(ufunc::detail::pending_host_allocation_failures() == 0);
}

TEST_CASE("faults: the second output of a two-output call fails to allocate; the first is released") {
  const injection_guard guard;
  const auto x = ufunc::arange<double>(-5.0, 5.0);
  ufunc::detail::inject_host_allocation_failures(1, 1);
  CHECK_THROWS_AS((void)ufunc::divmod.call(std::vector<ufunc::operand>{x, 3.0}), ufunc::memory_error);
  const auto r = ufunc::divmod.call(std::vector<ufunc::operand>{x, 3.0});
  REQUIRE(r.size() == 2);
  CHECK(r[0].at<double>(0) == -2.0);
  CHECK(r[1].at<double>(0) == 1.0);
}

TEST_CASE("faults: every host allocation of calls and methods fails in turn, on cpu and parallel") {
  // Enough elements that parallel calls and reductions split into pieces.
  const ufunc_test::parallel_split split(64, 256);
  const auto x = ufunc_test::sample_array<double>(3000, 1);
  const auto y = ufunc_test::sample_array<double>(3000, 2);
  const auto m = x.reshape({60, 50});
  const auto row = y[{ufunc::slice{0, 50}}];
  const auto xi = ufunc_test::sample_array<std::int32_t>(3000, 3);
  auto mask = ufunc::empty<bool>({60, 50});
  for (i64 i = 0; i < mask.size(); ++i) mask.data()[i] = i % 3 != 0;
  const auto idx = ufunc::asarray<i64>({0, 7, 7, 2999, -1});
  const auto starts = ufunc::asarray<i64>({0, 10, 5, 49});
  auto relu = ufunc::vectorize<double(double, double)>([](double a, double b) { return a > 0 ? a * b : 0.0; }, "relu");

  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    const ufunc::call_options on{.target = target};
    int most = 0;
    auto run = [&](const char* what, const std::function<std::vector<double>()>& op) {
      CAPTURE(what);
      most = std::max(most, sweep_allocations(op));
    };
    run("add contiguous", [&] { return values(ufunc::add(x, y, on)); });
    run("add broadcast", [&] { return values(ufunc::add(m, row, on)); });
    run("add where", [&] { return values(ufunc::add(m, row, {.where = mask, .target = target})); });
    run("add with a cast", [&] { return values(ufunc::add(xi, y, on)); });
    run("sin strided", [&] { return values(ufunc::sin(x[{ufunc::slice{std::nullopt, std::nullopt, -3}}], on)); });
    run("divmod", [&] {
      const auto r = ufunc::divmod.call(std::vector<ufunc::operand>{x, 0.75}, on);
      auto v = values(r[0]), w = values(r[1]);
      v.insert(v.end(), w.begin(), w.end());
      return v;
    });
    run("vectorize typed", [&] { return relu(x, y, on).to_vector(); });
    run("vectorize run-time", [&] { return values(relu(array(x), array(y), on)); });
    run("reduce axis 0", [&] { return values(ufunc::add.reduce(m, {.axis = 0, .target = target})); });
    run("reduce all, keepdims", [&] {
      return values(ufunc::maximum.reduce(m, {.axis = ufunc::all_axes, .keepdims = true, .target = target}));
    });
    run("reduce where", [&] { return values(ufunc::add.reduce(m, {.axis = 1, .where = mask, .target = target})); });
    run("reduce with a dtype",
        [&] { return values(ufunc::add.reduce(xi, {.dtype = ufunc::float64, .target = target})); });
    run("vectorize reduce", [&] { return values(relu.reduce(m, {.axis = 1, .target = target})); });
    run("accumulate", [&] { return values(ufunc::add.accumulate(m, {.axis = 1, .target = target})); });
    run("reduceat", [&] { return values(ufunc::add.reduceat(m, starts, {.axis = 1, .target = target})); });
    run("outer", [&] { return values(ufunc::multiply.outer(row, row, on)); });
    run("at", [&] {
      auto a = x.copy();
      ufunc::add.at(a, idx, 1.5, on);
      return values(a);
    });
    run("astype, copy, reshape of a transpose", [&] {
      auto v = values(x.astype(ufunc::float32));
      const auto t = values(m.transpose().reshape({-1}));
      v.insert(v.end(), t.begin(), t.end());
      return v;
    });
    // The sweep reached allocations beyond the first: results, casts, temporaries.
    CHECK(most >= 2);
  }
}

TEST_CASE("faults: std::bad_alloc from a user functor reaches the caller unchanged; the next call succeeds") {
  const ufunc_test::parallel_split split(16, 64);
  auto hungry = ufunc::vectorize<double(double)>(
      [](double v) {
        if (v == 1234.0) throw std::bad_alloc();
        return v + 1;
      },
      "hungry");
  const auto x = ufunc::arange<double>(5000.0);
  const auto small = ufunc::arange<double>(1000.0);
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    CHECK_THROWS_AS((void)hungry(x, {.target = target}), std::bad_alloc);
    CHECK_THROWS_AS((void)hungry(array(x), {.target = target}), std::bad_alloc);
    // Not translated: memory_error is what the library raises for its own allocations.
    try {
      (void)hungry(x, {.target = target});
    } catch (const ufunc::error&) {
      FAIL("a user's std::bad_alloc became a ufunc::error");
    } catch (const std::bad_alloc&) {
    }
    CHECK(hungry(small, {.target = target}).at(999) == 1000.0);
  }
}

TEST_CASE("faults: an exception from a functor on TBB workers reaches the caller; no hang; the next call succeeds") {
#if defined(UFUNC_HAS_TBB)
  const ufunc_test::parallel_split split(8, 32);
  constexpr double sentinel = -1.0;
  std::atomic<int> calls{0};
  auto picky = ufunc::vectorize<double(double)>(
      [&calls](double v) {
        calls.fetch_add(1, std::memory_order_relaxed);
        if (v == 7777.0) throw std::domain_error("7777 is not allowed");
        return 2 * v;
      },
      "picky");
  const auto x = ufunc::arange<double>(20000.0);
  auto out = ufunc::full<double>({20000}, sentinel);
  for (int round = 0; round < 20; ++round) {
    CAPTURE(round);
    std::fill(out.data(), out.data() + out.size(), sentinel);
    CHECK_THROWS_WITH_AS(picky(x, {.out = {out}, .target = ufunc::target_id::parallel}), "7777 is not allowed",
                         std::domain_error);
    // Partly written: each element is either untouched or its result, never anything
    // else; how many were written depends on the scheduling (TBB cancels the pieces
    // that had not started).
    int wrong = 0;
    for (i64 i = 0; i < out.size(); ++i) {
      const double v = out.data()[i];
      wrong += v != sentinel && v != 2.0 * static_cast<double>(i);
    }
    CHECK(wrong == 0);
    CHECK(out.data()[7777] == sentinel);
    // The next call on the same output completes.
    picky(ufunc::arange<double>(7000.0), {.out = {out[{ufunc::slice{0, 7000}}]}, .target = ufunc::target_id::parallel});
    CHECK(out.at(6999) == 13998.0);
  }
  CHECK(calls.load() > 0);
#endif
}

TEST_CASE("faults: every piece throwing at once, exceptions of any type, cast buffers and thread limits") {
#if defined(UFUNC_HAS_TBB)
  namespace par = ufunc::backends::parallel;
  const ufunc_test::parallel_split split(4, 8);
  struct not_a_std_exception {
    int code;
  };
  auto always = ufunc::vectorize<double(double)>(
      [](double) -> double { throw std::runtime_error("every element throws"); }, "always");
  auto coded = ufunc::vectorize<double(double)>(
      [](double v) -> double {
        if (v > 100.0) throw not_a_std_exception{42};
        return v;
      },
      "coded");
  auto summing = ufunc::vectorize<double(double, double)>(
      [](double a, double b) -> double {
        if (b > 100.0) throw std::runtime_error("fold");
        return a + b;
      },
      "summing");
  const auto x = ufunc::arange<double>(4000.0);
  const auto xi = ufunc::arange<std::int32_t>(4000);  // through cast buffers to the double loop
  for (int threads : {0, 2, 1}) {
    CAPTURE(threads);
    par::set_max_threads(threads);
    for (int round = 0; round < 25; ++round) {
      CHECK_THROWS_WITH_AS((void)always(x, {.target = ufunc::target_id::parallel}), "every element throws",
                           std::runtime_error);
      CHECK_THROWS_AS((void)always(array(xi), {.target = ufunc::target_id::parallel}), std::runtime_error);
      try {
        (void)coded(array(xi), {.target = ufunc::target_id::parallel});
        FAIL("no exception");
      } catch (const not_a_std_exception& e) {
        CHECK(e.code == 42);
      }
      CHECK_THROWS_WITH_AS((void)summing.reduce(x, {.target = ufunc::target_id::parallel}), "fold", std::runtime_error);
    }
    CHECK(coded(ufunc::arange<double>(100.0), {.target = ufunc::target_id::parallel}).at(99) == 99.0);
    CHECK(summing.reduce(ufunc::arange<double>(100.0), {.target = ufunc::target_id::parallel}).item<double>() == 4950);
    CHECK(ufunc::add(x, 1, {.target = ufunc::target_id::parallel}).at<double>(3999) == 4000.0);
  }
  par::set_max_threads(0);
#endif
}

TEST_CASE("faults: floating-point flags of a call that threw do not leak into the next call") {
  // The aborted call divides by zero before it throws; with every policy raise, the
  // next, clean call must not report that division.
  const ufunc_test::parallel_split split(16, 64);
  auto divide_then_throw = ufunc::vectorize<double(double)>(
      [](double v) {
        const double r = 1.0 / (v - 500.0);
        if (v == 3000.0) throw std::out_of_range("3000");
        return r;
      },
      "divide_then_throw");
  const auto x = ufunc::arange<double>(4000.0);
  const auto clean = ufunc::arange<double>(600.0, 1600.0);
  const ufunc::errstate raise_all({.all = ufunc::fp_policy::raise});
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    CHECK_THROWS_AS((void)divide_then_throw(x, {.target = target}), std::out_of_range);
    CHECK_NOTHROW((void)divide_then_throw(clean, {.target = target}));
    CHECK_NOTHROW((void)ufunc::add(clean, 1.0, {.target = target}));
    // And a division by zero after it is still reported, as the policy says.
    CHECK_THROWS_AS((void)ufunc::divide(clean, 0.0, {.target = target}), ufunc::floating_point_error);
  }
}
