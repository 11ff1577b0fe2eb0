// The size sweep of bench/run_all_cpu.sh, C++ side: ufunc's cpu and parallel targets, a plain C++ loop and a
// multi-threaded copy (the memory-bandwidth bound) on every case of sweep_common.hpp, float32 and float64,
// 2^10..2^26 elements in steps of x4. numpy_sweep.py measures NumPy and Numba, xtensor_bench.cpp xtensor, on
// the same data; bench/perfcsv.py merges them into one CSV.
//
//   ufunc_sweep_bench [--min-log2 K] [--max-log2 K] [--min-time S] [--cases add,sin,...] [--dtypes f32,f64] ...
//
// Impl names: ufunc_cpu, ufunc_parallel (every core; only in a build with UFUNC_ENABLE_TBB), plain_loop,
// copy_bound (case "copy"). Output format: sweep_common.hpp.
//
// Two library features are looked for at compile time (sweep_probe.hpp), so that this file builds against a
// library with or without them: a built-in ufunc::exp (without it, exp is ufunc::vectorize over xsimd's exp, and
// a "# note" says so) and ufunc::add.reduce(a) (without it the sum case has no ufunc rows, and a "# skip" says
// so).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>

#include <ufunc/ufunc.hpp>
#include <ufunc/vectorize.hpp>

#if defined(UFUNC_HAS_TBB)
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/version.h>
#endif

#include "sweep_common.hpp"
#include "sweep_probe.hpp"

namespace sweep {

/// The scalar a reduction returned, whatever it returns (a C++ scalar or a 0-d array).
template <class T, class R>
T scalar_of(const R& r) {
  if constexpr (std::is_arithmetic_v<R>) {
    return static_cast<T>(r);
  } else {
    return *static_cast<const T*>(static_cast<const void*>(r.data()));
  }
}

namespace plain {
template <class T>
void add(const T*, const T*, T*, std::int64_t);
template <class T>
void square(const T*, T*, std::int64_t);
template <class T>
void sin(const T*, T*, std::int64_t);
template <class T>
void exp(const T*, T*, std::int64_t);
template <class T>
void bcast(const T*, const T*, T*, std::int64_t);
template <class T>
void strided(const T*, const T*, T*, std::int64_t);
template <class T>
T sum(const T*, std::int64_t);
template <class T>
T* add_new(const T*, const T*, std::int64_t);
}  // namespace plain

namespace {

// ---------------------------------------------------------------------------------------------------------------
// The bandwidth bound: memcpy in 1 MiB pieces over every thread (TBB's default arena); a copy of at most one piece
// stays on the calling thread. Fixed pieces keep glibc's choice of copy routine the same at every size (one huge
// memcpy per thread would switch to non-temporal stores, which no ufunc loop uses).
constexpr std::size_t copy_piece_bytes = std::size_t{1} << 20;

void parallel_copy(const void* src, void* dst, std::size_t bytes) {
#if defined(UFUNC_HAS_TBB)
  const std::size_t pieces = (bytes + copy_piece_bytes - 1) / copy_piece_bytes;
  if (pieces <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pieces), [&](const tbb::blocked_range<std::size_t>& r) {
    for (auto k = r.begin(); k != r.end(); ++k) {
      const std::size_t first = k * copy_piece_bytes, len = std::min(copy_piece_bytes, bytes - first);
      std::memcpy(static_cast<char*>(dst) + first, static_cast<const char*>(src) + first, len);
    }
  });
#else
  std::memcpy(dst, src, bytes);
#endif
}

int copy_threads() {
#if defined(UFUNC_HAS_TBB)
  return tbb::this_task_arena::max_concurrency();
#else
  return 1;
#endif
}

template <class T>
constexpr const char* dtype_name() {
  return sizeof(T) == 4 ? "f32" : "f64";
}

// The arrays of one (dtype, size): a is the first n elements of a2 (2n elements, read with step 2 by the strided
// case), b and c have n; ref holds the plain loop's result, the reference of the checks.
template <class T>
struct data {
  std::int64_t n = 0, r = 0;
  ufunc::array_t<T> a2, a, b, c, ref, col, row, c2d;
  explicit data(std::int64_t n_) : n(n_), r(static_cast<std::int64_t>(std::llround(std::sqrt(double(n_))))) {
    a2 = ufunc::empty<T>({2 * n});
    b = ufunc::empty<T>({n});
    c = ufunc::zeros<T>({n});  // touched: no timed call pays for first page faults
    ref = ufunc::zeros<T>({n});
    for (std::int64_t i = 0; i < 2 * n; ++i) a2.data()[i] = value_a<T>(i);
    for (std::int64_t i = 0; i < n; ++i) b.data()[i] = value_b<T>(i);
    a = a2[{ufunc::slice{0, n}}];
    col = a.reshape({n})[{ufunc::slice{0, r}}].reshape({r, 1});
    row = b[{ufunc::slice{0, r}}].reshape({1, r});
    c2d = c.reshape({r, r});
  }
  void poison() { std::fill(c.data(), c.data() + n, std::numeric_limits<T>::quiet_NaN()); }
};

struct impl_target {
  const char* name;
  ufunc::target_id target;
};

std::vector<impl_target> ufunc_targets() {
  std::vector<impl_target> t = {{"ufunc_cpu", ufunc::target_id::cpu}};
#if defined(UFUNC_HAS_TBB)
  t.push_back({"ufunc_parallel", ufunc::target_id::parallel});
#endif
  return t;
}

// exp for the ufunc rows: the built-in when the library has one, else a vectorize ufunc over xsimd's exp.
template <class T>
auto make_exp() {
  if constexpr (!is_absent<decltype(ufunc::exp)>) {
    return [](const ufunc::array_t<T>& a, const ufunc::call_options& o) { return ufunc::exp(a, o); };
  } else {
    auto f = ufunc::vectorize<T(T), ufunc::target::cpu>(
        [](auto x) {
          using std::exp;
          return exp(x);
        },
        "sweep_exp");
    return [f](const ufunc::array_t<T>& a, const ufunc::call_options& o) { return f(a, o); };
  }
}

template <class T>
class runner {
 public:
  runner(const options& o, data<T>& d, slow_guard& guard) : o_(o), d_(d), guard_(guard) {}

  /// Times f (one call writes the case's result into d.c), checks the result, emits the row.
  template <class F>
  void measure(const std::string& c, const std::string& impl, F&& f) {
    const auto n = c == "call1024" ? std::int64_t{1024} : d_.n;
    if (guard_.skip(c, dtype_name<T>(), impl)) return;
    try {
      d_.poison();
      const double s = seconds_per_call(o_, f);
      emit(c, dtype_name<T>(), n, impl, s, bytes_moved(c, n, sizeof(T)));
      guard_.record(c, dtype_name<T>(), impl, n, s);
      if (c != "call1024")
        check(c + " " + dtype_name<T>() + " n=" + std::to_string(n) + " " + impl, d_.c.data(), d_.ref.data(), n,
              tolerance<T>(c));
    } catch (const std::exception& e) {
      note("error", c + " " + dtype_name<T>() + " n=" + std::to_string(n) + " " + impl + ": " + e.what());
      ++g_check_failures;
    }
  }

  /// The same for the sum: f returns the sum.
  template <class F>
  void measure_sum(const std::string& impl, F&& f) {
    if (guard_.skip("sum", dtype_name<T>(), impl)) return;
    try {
      T got{};
      const double s = seconds_per_call(o_, [&] {
        got = f();
        keep(got);
      });
      emit("sum", dtype_name<T>(), d_.n, impl, s, bytes_moved("sum", d_.n, sizeof(T)));
      guard_.record("sum", dtype_name<T>(), impl, d_.n, s);
      check_sum(impl, got);
    } catch (const ufunc::target_error& e) {  // a target the library's reduce does not run on: not a failure
      note("skip", std::string("sum ") + dtype_name<T>() + " n=" + std::to_string(d_.n) + " " + impl + ": " + e.what());
    } catch (const std::exception& e) {
      note("error",
           std::string("sum ") + dtype_name<T>() + " n=" + std::to_string(d_.n) + " " + impl + ": " + e.what());
      ++g_check_failures;
    }
  }

  void set_sum_reference(long double s, long double abs_sum) { sum_ref_ = s, abs_sum_ = abs_sum; }

 private:
  void check_sum(const std::string& impl, T got) {
    const double err = std::fabs(static_cast<double>(static_cast<long double>(got) - sum_ref_)) /
                       std::max(1.0, static_cast<double>(abs_sum_));
    const bool ok = err <= tolerance<T>("sum");
    std::printf("# check,sum %s n=%lld %s,%s,rel_err_vs_sum_abs=%g\n", dtype_name<T>(), static_cast<long long>(d_.n),
                impl.c_str(), ok ? "ok" : "FAIL", err);
    if (!ok) {
      ++g_check_failures;
      std::fprintf(stderr, "CHECK FAILED: sum %s n=%lld %s: %g\n", dtype_name<T>(), static_cast<long long>(d_.n),
                   impl.c_str(), err);
    }
  }

  const options& o_;
  data<T>& d_;
  slow_guard& guard_;
  long double sum_ref_ = 0, abs_sum_ = 0;
};

template <class T>
void run_size(const options& o, std::int64_t n, progress& prog, slow_guard& guard) {
  const std::string dt = dtype_name<T>();
  data<T> d(n);
  runner<T> run(o, d, guard);
  const auto targets = ufunc_targets();
  const auto exp_fn = make_exp<T>();
  const T *pa = d.a.data(), *pb = d.b.data(), *pa2 = d.a2.data();
  T* pc = d.c.data();

  // The bound first: every case's plot draws it.
  prog.step(dt, n, "copy");
  emit("copy", dt, n, "copy_bound",
       seconds_per_call(o, [&] { parallel_copy(pa, pc, static_cast<std::size_t>(n) * sizeof(T)); }),
       bytes_moved("copy", n, sizeof(T)));

  for (const auto& c : o.cases) {
    if (c == "call1024") continue;  // one size only, below
    prog.step(dt, n, c);
    if (c == "add") {
      plain::add(pa, pb, d.ref.data(), n);
      for (const auto& t : targets)
        run.measure(c, t.name, [&, t] { ufunc::add(d.a, d.b, {.out = {d.c}, .target = t.target}); });
      run.measure(c, "plain_loop", [&] { plain::add(pa, pb, pc, n); });
    } else if (c == "square") {
      plain::square(pa, d.ref.data(), n);
      for (const auto& t : targets)
        run.measure(c, t.name, [&, t] { ufunc::square(d.a, {.out = {d.c}, .target = t.target}); });
      run.measure(c, "plain_loop", [&] { plain::square(pa, pc, n); });
    } else if (c == "sin") {
      plain::sin(pa, d.ref.data(), n);
      for (const auto& t : targets)
        run.measure(c, t.name, [&, t] { ufunc::sin(d.a, {.out = {d.c}, .target = t.target}); });
      run.measure(c, "plain_loop", [&] { plain::sin(pa, pc, n); });
    } else if (c == "exp") {
      plain::exp(pa, d.ref.data(), n);
      for (const auto& t : targets) run.measure(c, t.name, [&, t] { exp_fn(d.a, {.out = {d.c}, .target = t.target}); });
      run.measure(c, "plain_loop", [&] { plain::exp(pa, pc, n); });
    } else if (c == "bcast") {
      if (d.r * d.r != n) {
        note("skip", "bcast " + dt + " n=" + std::to_string(n) + ": not a square size");
        continue;
      }
      plain::bcast(pa, pb, d.ref.data(), d.r);
      for (const auto& t : targets)
        run.measure(c, t.name, [&, t] { ufunc::add(d.col, d.row, {.out = {d.c2d}, .target = t.target}); });
      run.measure(c, "plain_loop", [&] { plain::bcast(pa, pb, pc, d.r); });
    } else if (c == "strided") {
      plain::strided(pa2, pb, d.ref.data(), n);
      const auto every_second = d.a2[{ufunc::slice{std::nullopt, std::nullopt, 2}}];
      for (const auto& t : targets)
        run.measure(c, t.name, [&, t] { ufunc::add(every_second, d.b, {.out = {d.c}, .target = t.target}); });
      run.measure(c, "plain_loop", [&] { plain::strided(pa2, pb, pc, n); });
    } else if (c == "sum") {
      long double s = 0, abs_s = 0;
      for (std::int64_t i = 0; i < n; ++i) s += pa[i], abs_s += std::fabs(static_cast<long double>(pa[i]));
      run.set_sum_reference(s, abs_s);
      using add_type = std::remove_cvref_t<decltype(ufunc::add)>;
      if constexpr (has_reduce_target<add_type, ufunc::array_t<T>>) {
        for (const auto& t : targets)
          run.measure_sum(t.name, [&, t] { return scalar_of<T>(reduce_on(ufunc::add, d.a, t.target)); });
      } else if constexpr (has_reduce<add_type, ufunc::array_t<T>>) {
        // No options: the call runs on the build's default target (UFUNC_TARGET, else the preset's).
        run.measure_sum("ufunc_default", [&] { return scalar_of<T>(reduce(ufunc::add, d.a)); });
      } else {
        static bool said = false;
        if (!said) note("skip", "sum: ufunc::add.reduce is not in this build of the library; no ufunc rows");
        said = true;
      }
      run.measure_sum("plain_loop", [&] { return plain::sum(pa, n); });
    } else {
      note("skip", "unknown case '" + c + "'");
    }
  }
}

// 1024 elements, allocating the result each call (as np.add(a, b)): the fixed cost of a call.
template <class T>
void run_call1024(const options& o, slow_guard& guard) {
  data<T> d(1024);
  runner<T> run(o, d, guard);
  for (const auto& t : ufunc_targets())
    run.measure("call1024", t.name, [&, t] { keep(ufunc::add(d.a, d.b, {.target = t.target})); });
  run.measure("call1024", "plain_loop", [&] { delete[] plain::add_new(d.a.data(), d.b.data(), d.n); });
}

}  // namespace
}  // namespace sweep

int main(int argc, char** argv) {
  using namespace sweep;
  options o;
  for (int i = 1; i < argc; ++i) {
    if (!parse_common(o, argc, argv, i)) {
      std::fprintf(stderr, "usage: %s %s\n", argv[0], usage_common());
      return 2;
    }
  }
  meta("ufunc_simd_arch", std::string(ufunc::simd_arch()));
  meta("compiler", "g++ " __VERSION__);
#if defined(BENCH_CXX_FLAGS)
  meta("cxx_flags", BENCH_CXX_FLAGS);
#endif
  meta("ufunc_parallel_threads", std::to_string(copy_threads()));
#if defined(UFUNC_HAS_TBB)
  meta("tbb", std::to_string(TBB_VERSION_MAJOR) + "." + std::to_string(TBB_VERSION_MINOR));
#endif
  meta("copy_bound", copy_threads() > 1 ? "memcpy in 1 MiB pieces on every thread (oneTBB)" : "memcpy, one thread");
  if constexpr (is_absent<decltype(ufunc::exp)>)
    note("note", "exp: the library has no built-in ufunc::exp; ufunc rows are ufunc::vectorize over xsimd::exp");
  std::fflush(stdout);

  progress prog("ufunc_sweep_bench", o);
  slow_guard guard(o.max_call_time);
  for (const auto& dt : o.dtypes) {
    for (auto n : o.sizes()) {
      if (dt == "f32") run_size<float>(o, n, prog, guard);
      if (dt == "f64") run_size<double>(o, n, prog, guard);
    }
    if (o.wants_case("call1024")) {
      prog.step(dt, 1024, "call1024");
      if (dt == "f32") run_call1024<float>(o, guard);
      if (dt == "f64") run_call1024<double>(o, guard);
    }
  }
  prog.finish();
  return g_check_failures == 0 ? 0 : 1;
}
