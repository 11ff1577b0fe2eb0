// Concurrency under load: 16 host threads call built-in and vectorize'd ufuncs and
// reductions at once, on the cpu and parallel targets, with random shapes (up to 4-d,
// broadcast, transposed, reversed), random dtypes, out= and per-thread errstate
// policies. Every result must equal the one computed beforehand on one thread with
// target cpu, bit for bit (the parallel target splits at fixed places, so its results
// are the cpu target's). Meant to run under ThreadSanitizer too (preset tsan).
//
// UFUNC_STRESS_CALLS sets the number of calls (default 20,000; 1,500 under a
// sanitizer); UFUNC_STRESS_SEED the seed. docs/testing.md has the long-run command.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UFUNC_STRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UFUNC_STRESS_SANITIZED 1
#endif
#endif
#if !defined(UFUNC_STRESS_SANITIZED)
#define UFUNC_STRESS_SANITIZED 0
#endif

namespace {

using i64 = std::int64_t;
using ufunc::array;
using ufunc::dim_vector;

enum class op_kind { add, multiply, maximum, sin, reduce, fused, divide, divide_by_zero };
constexpr op_kind all_ops[] = {op_kind::add,    op_kind::multiply, op_kind::maximum, op_kind::sin,
                               op_kind::reduce, op_kind::fused,    op_kind::divide,  op_kind::divide_by_zero};

const char* op_name(op_kind k) {
  switch (k) {
    case op_kind::add:
      return "add";
    case op_kind::multiply:
      return "multiply";
    case op_kind::maximum:
      return "maximum";
    case op_kind::sin:
      return "sin";
    case op_kind::reduce:
      return "add.reduce";
    case op_kind::fused:
      return "fused (vectorize)";
    case op_kind::divide:
      return "divide";
    case op_kind::divide_by_zero:
      return "divide by zero";
  }
  return "?";
}

i64 env_int(const char* name, i64 fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  return (end != v && *end == '\0' && n > 0) ? n : fallback;
}

// The vectorize'd ufunc every thread shares: SIMD batches, two loops.
const auto& fused() {
  static const auto f = ufunc::vectorize<ufunc::signatures<float(float, float), double(double, double)>>(
      [](auto a, auto b) { return a * b + a; }, "fused");
  return f;
}

// A random operand of `shape` and `type` with a random layout: C order, a transposed
// base, or axis 0 walked backwards. Values are small integers (exact in every dtype);
// `nonzero` keeps zero out.
array random_operand(const dim_vector& shape, ufunc::dtype type, std::mt19937& gen, bool nonzero) {
  const std::size_t nd = shape.size();
  const int layout = nd == 0 ? 0 : static_cast<int>(gen() % 3);
  dim_vector base_shape = shape;
  if (layout == 1) std::reverse(base_shape.begin(), base_shape.end());
  const array base = array::empty(base_shape, type);
  const i64 n = base.size();
  for (i64 i = 0; i < n; ++i) {
    int v = static_cast<int>(gen() % 41) - 20;
    if (nonzero && v == 0) v = 7;
    std::byte* p = base.data() + i * static_cast<i64>(type.itemsize());
    if (type == ufunc::float64) {
      const double d = v;
      std::memcpy(p, &d, sizeof d);
    } else if (type == ufunc::float32) {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, sizeof f);
    } else {
      const std::int32_t k = v;
      std::memcpy(p, &k, sizeof k);
    }
  }
  if (layout == 1) return base.transpose();
  if (layout == 2 && shape[0] > 1) {
    dim_vector strides = base.strides();
    std::byte* data = base.data() + (shape[0] - 1) * strides[0];
    strides[0] = -strides[0];
    return array(data, type, shape, strides, base.owner());
  }
  return base;
}

struct stress_case {
  op_kind op;
  std::vector<array> inputs;
  int axis = 0;  // reduce: -1 for every axis
  std::string describe;
  // Computed on this thread, target cpu: the result as float64, its shape and dtype;
  // for divide_by_zero with the policy raise, the call throws instead.
  std::vector<double> expected;
  dim_vector shape;
  ufunc::dtype type;
};

array run_case(const stress_case& c, ufunc::target_id target, const std::vector<array>& out) {
  const ufunc::call_options options{.out = out, .target = target};
  switch (c.op) {
    case op_kind::add:
      return ufunc::add(c.inputs[0], c.inputs[1], options);
    case op_kind::multiply:
      return ufunc::multiply(c.inputs[0], c.inputs[1], options);
    case op_kind::maximum:
      return ufunc::maximum(c.inputs[0], c.inputs[1], options);
    case op_kind::sin:
      return ufunc::sin(c.inputs[0], options);
    case op_kind::fused:
      return fused()(c.inputs[0], c.inputs[1], options);
    case op_kind::divide:
    case op_kind::divide_by_zero:
      return ufunc::divide(c.inputs[0], c.inputs[1], options);
    case op_kind::reduce: {
      const ufunc::axes axis = c.axis < 0 ? ufunc::axes(ufunc::all_axes) : ufunc::axes(c.axis);
      return ufunc::add.reduce(c.inputs[0], {.axis = axis, .target = target});
    }
  }
  return {};
}

// `count` cases drawn from `seed`, results computed here on target cpu.
std::vector<stress_case> make_cases(int count, unsigned seed) {
  std::mt19937 gen(seed);
  const ufunc::dtype types[] = {ufunc::float64, ufunc::float32, ufunc::int32};
  std::vector<stress_case> cases;
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  for (int k = 0; k < count; ++k) {
    stress_case c;
    c.op = all_ops[gen() % std::size(all_ops)];
    const ufunc::dtype type = types[gen() % 3];
    // Up to 4 axes of 1 to 6 elements, one of them sometimes long enough that the
    // parallel target splits it (the tests run with small pieces).
    const std::size_t nd = gen() % 5;
    dim_vector shape(nd);
    for (auto& e : shape) e = 1 + static_cast<i64>(gen() % 6);
    if (nd > 0 && gen() % 3 == 0) shape[gen() % nd] = 40 + static_cast<i64>(gen() % 100);
    c.inputs.push_back(random_operand(shape, type, gen, false));
    const bool binary = c.op != op_kind::sin && c.op != op_kind::reduce;
    if (binary) {
      // The second operand broadcasts: fewer leading axes, some extents 1.
      const std::size_t bnd = nd == 0 ? 0 : gen() % (nd + 1);
      dim_vector bshape(bnd);
      for (std::size_t d = 0; d < bnd; ++d) bshape[d] = gen() % 3 == 0 ? 1 : shape[nd - bnd + d];
      const ufunc::dtype btype = gen() % 4 == 0 ? types[gen() % 3] : type;
      array b = random_operand(bshape, btype, gen, c.op == op_kind::divide);
      if (c.op == op_kind::divide_by_zero) {
        b = array::zeros(bshape, btype);
      }
      // Sometimes the broadcast operand goes first.
      if (gen() % 4 == 0 && c.op != op_kind::divide && c.op != op_kind::divide_by_zero)
        c.inputs.insert(c.inputs.begin(), b);
      else
        c.inputs.push_back(b);
    }
    if (c.op == op_kind::reduce) c.axis = nd == 0 || gen() % 3 == 0 ? -1 : static_cast<int>(gen() % nd);
    const array r = run_case(c, ufunc::target_id::cpu, {});
    c.expected = r.to_vector<double>();
    c.shape = r.shape();
    c.type = r.type();
    c.describe = std::string(op_name(c.op)) + " of";
    for (const auto& in : c.inputs) c.describe += " " + in.describe();
    if (c.op == op_kind::reduce) c.describe += " axis " + std::to_string(c.axis);
    cases.push_back(std::move(c));
  }
  return cases;
}

// The pool's results against a computation that does not use the library, where one
// is exact: add, multiply, maximum and divide of small integers.
int check_against_scalar_code(const std::vector<stress_case>& cases) {
  int bad = 0;
  for (const auto& c : cases) {
    if (c.op != op_kind::add && c.op != op_kind::multiply && c.op != op_kind::maximum) continue;
    const std::size_t nd = c.shape.size();
    std::vector<i64> idx(nd, 0);
    auto element = [&](const array& a) {
      i64 off = 0;
      for (std::size_t d = 0; d < a.ndim(); ++d)
        if (a.shape()[d] != 1) off += idx[nd - a.ndim() + d] * a.strides()[d];
      const std::byte* p = a.data() + off;
      if (a.type() == ufunc::float64) return *reinterpret_cast<const double*>(p);
      if (a.type() == ufunc::float32) return static_cast<double>(*reinterpret_cast<const float*>(p));
      return static_cast<double>(*reinterpret_cast<const std::int32_t*>(p));
    };
    for (double want : c.expected) {
      const double x = element(c.inputs[0]), y = element(c.inputs[1]);
      const double got = c.op == op_kind::add ? x + y : c.op == op_kind::multiply ? x * y : std::max(x, y);
      bad += got != want;
      for (std::size_t d = nd; d-- > 0;) {
        if (++idx[d] < c.shape[d]) break;
        idx[d] = 0;
      }
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("concurrency: 16 threads, random calls on mixed targets, every result as computed on one thread") {
  const i64 calls = env_int("UFUNC_STRESS_CALLS", UFUNC_STRESS_SANITIZED ? 1500 : 20000);
  const auto seed = static_cast<unsigned>(env_int("UFUNC_STRESS_SEED", 20250101));
  constexpr int threads = 16;
#if defined(UFUNC_HAS_TBB)
  // Pieces of 16 elements: calls of more than 48 elements split across workers.
  const ufunc_test::parallel_split split(16, 48);
  const std::vector<ufunc::target_id> targets = {ufunc::target_id::cpu, ufunc::target_id::parallel};
#else
  const std::vector<ufunc::target_id> targets = {ufunc::target_id::cpu};
#endif
  const auto cases = make_cases(400, seed);
  REQUIRE(check_against_scalar_code(cases) == 0);

  std::atomic<i64> done{0}, failures{0}, raised{0}, split_calls{0};
  std::mutex first_failure_mutex;
  std::string first_failure;
  auto fail = [&](const std::string& what) {
    if (failures.fetch_add(1) == 0) {
      const std::lock_guard lock(first_failure_mutex);
      first_failure = what;
    }
  };
  auto worker = [&](int t) {
    std::mt19937 gen(seed + 1000u * static_cast<unsigned>(t + 1));
    // NumPy's defaults would warn on stderr; each call below sets its own policy.
    ufunc::seterr({.divide = ufunc::fp_policy::ignore,
                   .over = ufunc::fp_policy::ignore,
                   .under = ufunc::fp_policy::ignore,
                   .invalid = ufunc::fp_policy::ignore});
    const i64 mine = calls / threads + (t < calls % threads ? 1 : 0);
    for (i64 k = 0; k < mine; ++k) {
      const auto& c = cases[gen() % cases.size()];
      const auto target = targets[gen() % targets.size()];
      if (target != ufunc::target_id::cpu && ufunc::shape_size(c.shape) > 48) split_calls.fetch_add(1);
      const std::string where = c.describe + " on " + std::string(ufunc::to_string(target));
      // Per-thread policies: raise on every error. The clean divisions must not see
      // the flags of another thread's division by zero on the same TBB worker.
      const bool raise = gen() % 2 == 0;
      const ufunc::errstate policy({.all = raise ? ufunc::fp_policy::raise : ufunc::fp_policy::ignore});
      const bool use_out = c.op != op_kind::reduce && gen() % 3 == 0;
      try {
        // out= float64 of the result's shape: outputs written through cast buffers.
        std::vector<array> out;
        if (use_out) out.push_back(array::empty(c.shape, ufunc::float64));
        const array r = run_case(c, target, out);
        if (c.op == op_kind::divide_by_zero && raise && ufunc::shape_size(c.shape) > 0) {
          fail("no floating_point_error: " + where);
          continue;
        }
        if (!(r.shape() == c.shape) || r.type() != (use_out ? ufunc::float64 : c.type)) {
          fail("shape or dtype: " + r.describe() + ": " + where);
          continue;
        }
        // Bit for bit: the sign of zero and NaN bits (0 / 0) too.
        const auto got = r.to_vector<double>();
        if (got.size() != c.expected.size() ||
            std::memcmp(got.data(), c.expected.data(), got.size() * sizeof(double)) != 0)
          fail("values: " + where);
      } catch (const ufunc::floating_point_error& e) {
        raised.fetch_add(1);
        if (!(c.op == op_kind::divide_by_zero && raise)) fail(std::string("unexpected '") + e.what() + "': " + where);
      } catch (const std::exception& e) {
        fail(std::string("exception '") + e.what() + "': " + where);
      }
      done.fetch_add(1);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (auto& th : pool) th.join();

  INFO("first failure: " << first_failure);
  CHECK(failures.load() == 0);
  CHECK(done.load() + failures.load() >= calls);
  CHECK(raised.load() > 0);  // the raise policy did fire, on the threads that set it
#if defined(UFUNC_HAS_TBB)
  CHECK(split_calls.load() > 0);
#endif
  std::printf("concurrency: %lld calls on %d threads, %lld raised floating_point_error as their policy said\n",
              static_cast<long long>(done.load()), threads, static_cast<long long>(raised.load()));
}

TEST_CASE("concurrency: loops replaced and added while other threads call the ufunc") {
  // Calls find their loop in a per-thread cache and run it without a lock: a loop
  // replaced meanwhile must stay alive (its functor is not freed under a running call;
  // ASan and TSan runs check this) and the next calls must see the change.
  struct offset_add {
    std::vector<double> offset = std::vector<double>(64, 0.0);  // heap state, freed with the functor
    double operator()(double a, double b) const { return a + b + offset[7]; }
  };
  ufunc::function f("replaced_while_called", 2, 1);
  f.add_loop(ufunc::backends::cpu::make_loop<double(double, double)>(offset_add{}));
  const auto x = ufunc::asarray<double>({1, 2, 3, 4});
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::atomic<long> calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      while (!stop.load()) {
        const ufunc::array_t<double> r(f(x, x));
        if (r.at(3) != 8.0) ++wrong;
        calls.fetch_add(1);
      }
    });
  const int replacements = UFUNC_STRESS_SANITIZED ? 50 : 500;
  for (int k = 0; k < replacements; ++k) {
    f.add_loop(ufunc::backends::cpu::make_loop<double(double, double)>(offset_add{}));
    if (k == replacements / 2)  // a new signature too, after the threads' calls
      f.add_loop(ufunc::backends::cpu::make_loop<float(float, float)>([](float a, float b) { return a + b; }));
    const long before = calls.load();
    while (calls.load() < before + 2) std::this_thread::yield();
  }
  stop = true;
  for (auto& th : threads) th.join();
  CHECK(wrong.load() == 0);
  CHECK(f.ntypes() == 2);
  CHECK(f(ufunc::asarray<float>({1, 2}), ufunc::asarray<float>({1, 2})).type() == ufunc::float32);
}
