// Streaming (non-temporal) stores for large outputs, and the parallel target's
// inline threshold and measured split: none may change a single bit of any result.
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <ufunc/core/detail/streaming.hpp>

#include "test_support.hpp"

#if defined(UFUNC_HAS_TBB)
#include <tbb/task_arena.h>

#include <ufunc/backends/parallel/elementwise.hpp>
#endif

namespace {

struct streaming_guard {
  std::int64_t saved = ufunc::detail::streaming_threshold();
  explicit streaming_guard(std::int64_t bytes) { ufunc::detail::set_streaming_threshold(bytes); }
  ~streaming_guard() { ufunc::detail::set_streaming_threshold(saved); }
};

struct fma_like {
  template <class T>
  T operator()(T a, T b) const {
    return a * b + a;
  }
};
struct sine_poly {
  template <class T>
  T operator()(T x) const {
    using std::sin;
    return sin(x) * x + T(0.25);
  }
};

template <class T>
bool same_bits(const ufunc::array& a, const ufunc::array& b) {
  const auto x = a.to_vector<T>(), y = b.to_vector<T>();
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

}  // namespace

TEST_CASE("streaming: the threshold setting") {
  streaming_guard guard(ufunc::detail::streaming_threshold());
  CHECK(ufunc::detail::streaming_threshold() >= 0);
  ufunc::detail::set_streaming_threshold(1000);
  CHECK(ufunc::detail::streams(1000));
  CHECK_FALSE(ufunc::detail::streams(999));
  ufunc::detail::set_streaming_threshold(0);
  CHECK_FALSE(ufunc::detail::streams(std::int64_t{1} << 40));
  CHECK_THROWS_AS(ufunc::detail::set_streaming_threshold(-1), ufunc::value_error);
}

TEST_CASE_TEMPLATE("streaming: same bits as ordinary stores, any length, alignment, split, operand kind", T, float,
                   double, std::int32_t, std::int8_t, std::uint16_t, std::int64_t) {
  auto f = ufunc::vectorize<T(T, T)>(fma_like{}, "f");
  const std::int64_t total = 400;
  const auto x = ufunc_test::sample_array<T>(total, 1), y = ufunc_test::sample_array<T>(total, 2);
  const ufunc_test::parallel_split split(37);  // pieces start at every alignment
  for (const auto target : ufunc_test::host_targets()) {
    for (std::int64_t n : {1, 7, 16, 63, 64, 65, 129, 300}) {
      for (std::int64_t offset : {0, 1, 3, 5}) {  // the output starts `offset` elements into a 64-byte aligned buffer
        CAPTURE(n);
        CAPTURE(offset);
        const auto xs = x[{ufunc::slice{0, n}}], ys = y[{ufunc::slice{offset, offset + n}}];
        ufunc::array expected[3], got[3];
        for (int pass = 0; pass < 2; ++pass) {
          streaming_guard guard(pass == 0 ? 0 : 1);  // off, then every call streams
          auto& r = pass == 0 ? expected : got;
          auto buf = ufunc::zeros<T>({total + 8});
          ufunc::array out = buf[{ufunc::slice{offset, offset + n}}];
          f.ufunc()(xs, ys, {.out = {out}, .target = target});
          r[0] = out.copy();
          r[1] = f.ufunc()(xs, T(3), {.target = target});  // a broadcast scalar
          ufunc::array inplace = ys.copy();
          f.ufunc()(inplace, xs, {.out = {inplace}, .target = target});
          r[2] = inplace;
        }
        for (int i = 0; i < 3; ++i) CHECK(same_bits<T>(got[i], expected[i]));
      }
    }
  }
}

TEST_CASE("streaming: built-in loops and SIMD math give the same bits") {
  auto poly = ufunc::vectorize<float(float)>(sine_poly{}, "poly");
  const auto x = ufunc_test::sample_array<float>(100003, 4), y = ufunc_test::sample_array<float>(100003, 5);
  for (const auto target : ufunc_test::host_targets()) {
    ufunc::array a[3], b[3];
    {
      streaming_guard off(0);
      a[0] = ufunc::add(x, y, {.target = target});
      a[1] = ufunc::sin(x, {.target = target});
      a[2] = poly.ufunc()(x, {.target = target});
    }
    {
      streaming_guard on(1);
      b[0] = ufunc::add(x, y, {.target = target});
      b[1] = ufunc::sin(x, {.target = target});
      b[2] = poly.ufunc()(x, {.target = target});
    }
    for (int i = 0; i < 3; ++i) CHECK(same_bits<float>(a[i], b[i]));
  }
}

TEST_CASE("streaming: only calls whose outputs reach the threshold stream") {
  // A scalar functor that reports what the loop it runs in is told.
  static std::atomic<int> streamed{0}, plain{0};
  auto probe = ufunc::vectorize<float(float)>(ufunc::scalar_only{[](float v) {
                                                (ufunc::detail::stream_stores ? streamed : plain)++;
                                                return v;
                                              }},
                                              "probe");
  streaming_guard guard(4000);  // bytes: 1000 float32
  for (const auto target : ufunc_test::host_targets()) {
    streamed = plain = 0;
    (void)probe.ufunc()(ufunc::zeros<float>({999}), {.target = target});
    CHECK(streamed.load() == 0);
    CHECK(plain.load() == 999);
    streamed = plain = 0;
    (void)probe.ufunc()(ufunc::zeros<float>({1000}), {.target = target});
    CHECK(streamed.load() == 1000);
    CHECK(plain.load() == 0);
    streamed = plain = 0;  // the general path (a strided input)
    (void)probe.ufunc()(ufunc::zeros<float>({2000})[{ufunc::slice{std::nullopt, std::nullopt, 2}}], {.target = target});
    CHECK(streamed.load() == 1000);
    // Outputs that go through a cast buffer never stream.
    streamed = plain = 0;
    auto out = ufunc::zeros<double>({2000});
    (void)probe.ufunc()(ufunc::zeros<float>({2000}),
                        {.out = {out}, .casting = ufunc::casting::unsafe, .target = target});
    CHECK(streamed.load() == 0);
  }
  CHECK_FALSE(ufunc::detail::stream_stores);  // restored on the calling thread
}

#if defined(UFUNC_HAS_TBB)

namespace par = ufunc::backends::parallel;

TEST_CASE("parallel: a fixed threshold keeps calls up to it on the calling thread and splits larger ones") {
  const ufunc_test::parallel_split restore(par::grain(), par::threshold());
  par::set_threshold(5000);
  CHECK(par::threshold() == 5000);
  CHECK_THROWS_AS(par::set_threshold(-1), ufunc::value_error);
  par::set_threshold(0);
  CHECK(par::threshold() == 0);  // split by measured cost

  par::set_grain(100);
  par::set_threshold(5000);
  static std::mutex mutex;
  static std::set<std::thread::id> ids;
  auto who = ufunc::vectorize<float(float), ufunc::target::parallel>(ufunc::scalar_only{[](float v) {
                                                                       std::lock_guard lock(mutex);
                                                                       ids.insert(std::this_thread::get_id());
                                                                       return v + 1.0f;
                                                                     }},
                                                                     "who");
  for (std::int64_t n : {100, 101, 4999, 5000}) {
    CAPTURE(n);
    ids.clear();
    const auto r = who(ufunc::zeros<float>({n}));
    CHECK(r.at(n - 1) == 1.0f);
    CHECK(ids == std::set<std::thread::id>{std::this_thread::get_id()});
  }
  // Above it the call is split; results do not depend on the threshold.
  auto f = ufunc::vectorize<double(double, double), ufunc::target::parallel>(fma_like{}, "f");
  const auto x = ufunc_test::sample_array<double>(20011, 1), y = ufunc_test::sample_array<double>(20011, 2);
  par::set_threshold(1 << 30);
  const auto serial = f(x, y).to_vector();
  for (std::int64_t t : {1, 100, 150, 20010}) {
    par::set_threshold(t);
    CHECK(f(x, y).to_vector() == serial);
  }
  par::set_threshold(0);  // and by measured cost
  CHECK(f(x, y).to_vector() == serial);
}

TEST_CASE("parallel: split_pays weighs the time saved against the wake cost") {
  // 1000 elements took 10 us: 9000 more take 90 us serially, 45 us saved on 2 threads.
  CHECK(par::split_pays(10'000, 1000, 9000, 2, 22'000));
  CHECK_FALSE(par::split_pays(10'000, 1000, 9000, 2, 23'000));
  CHECK(par::split_pays(10'000, 1000, 9000, 16, 42'000));  // 84.4 us saved on 16
  CHECK_FALSE(par::split_pays(10'000, 1000, 9000, 16, 43'000));
  CHECK_FALSE(par::split_pays(10'000'000, 1000, 9000, 1, 0));  // one thread: never
  CHECK_FALSE(par::split_pays(10'000, 1000, 0, 8, 0));         // nothing left
  CHECK_FALSE(par::split_pays(10'000, 0, 9000, 8, 0));
  CHECK(par::wake_cost_ns() >= 0);
  CHECK(par::wake_cost_ns() <= 1'000'000);  // a thread that does not come costs the limit
  CHECK(par::probe_size(32768) == 2048);
  CHECK(par::probe_size(100) == 6);
  CHECK(par::probe_size(5) == 1);
}

TEST_CASE("parallel: by measured cost, one-grain calls stay on the calling thread and costly ones split") {
  const ufunc_test::parallel_split restore(par::grain(), par::threshold());
  par::set_grain(100);
  par::set_threshold(0);
  static std::mutex mutex;
  static std::set<std::thread::id> ids;
  auto spin = ufunc::vectorize<double(double), ufunc::target::parallel>(
      ufunc::scalar_only{[](double v) {
        {
          std::lock_guard lock(mutex);
          ids.insert(std::this_thread::get_id());
        }
        // 20 us an element: a 400-element call's last 300 take 6 ms serially, far
        // above any wake cost, so the split pays wherever there are two threads.
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
        while (std::chrono::steady_clock::now() < until) {
        }
        return v * 2.0;
      }},
      "spin");
  ids.clear();
  auto splits = par::split_calls();
  auto r = spin(ufunc::full<double>({100}, 1.5));  // one grain: no split to weigh
  CHECK(ids == std::set<std::thread::id>{std::this_thread::get_id()});
  CHECK(par::split_calls() == splits);
  CHECK(r.at(99) == 3.0);
  // Which threads take the pieces of a split call is the scheduler's business (on a
  // busy machine the caller may run them all): the decision is what is checked.
  r = spin(ufunc::arange<double>(400));
  for (std::int64_t i = 0; i < 400; ++i) REQUIRE(r.at(i) == 2.0 * static_cast<double>(i));
  if (tbb::this_task_arena::max_concurrency() >= 2) CHECK(par::split_calls() == splits + 1);
}

#endif
