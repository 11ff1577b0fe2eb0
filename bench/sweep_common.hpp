// The size sweep's shared parts (sweep_bench.cpp, xtensor_bench.cpp; cuda_bench.cu --sweep uses the output
// format): the cases, their data, the adaptive timing and the raw output lines that bench/perfcsv.py turns into
// the run's CSV. Header-only on purpose: each program is its own executable, compiled with its own flags, so
// no inline function here can be replaced by a copy built for another instruction set (see bench/RESULTS.md,
// "A link hazard").
//
// Raw output (stdout), one line per measurement:
//   case,dtype,size,impl,seconds,bytes
// seconds: median time of one call; bytes: what the case must move (read + written), see bytes_moved().
// Lines starting with '#' carry information: "# meta,KEY,VALUE" (versions, flags), "# check,..." (result checks),
// "# note,..." and "# skip,..." (what was left out and why).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace sweep {

// ---------------------------------------------------------------------------------------------------------------
// Cases.
//
//   add       c = a + b                        (n elements)
//   square    c = a * a
//   sin       c = sin(a)
//   exp       c = exp(a)
//   bcast     C = col + row, col (r, 1), row (1, r), C (r, r), n = r * r (r = 2^(k/2); k is even in the sweep)
//   strided   c = a[::2] + b: a holds 2n elements and every second one is read
//   sum       s = sum(a)                       (a reduction; bytes: the input once)
//   call1024  c = a + b allocating c, n = 1024 only: the per-call overhead (as np.add(a, b))
//   copy      dst = src on every thread: the memory-bandwidth bound (bytes: n read + n written)
//
// Every measured case except call1024 writes into a preallocated output (out=).
inline const std::vector<std::string>& all_cases() {
  static const std::vector<std::string> cases = {"add", "square", "sin", "exp", "bcast", "strided", "sum", "call1024"};
  return cases;
}

/// Bytes a case must move for n elements of `itemsize` bytes (the GB/s column divides this by the time).
inline std::int64_t bytes_moved(std::string_view c, std::int64_t n, std::int64_t itemsize) {
  if (c == "add" || c == "strided" || c == "call1024") return 3 * n * itemsize;
  if (c == "square" || c == "sin" || c == "exp" || c == "copy") return 2 * n * itemsize;
  if (c == "bcast") {
    const auto r = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(n))));
    return (n + 2 * r) * itemsize;
  }
  if (c == "sum") return n * itemsize;
  return 0;
}

/// The input values, in T's own arithmetic (numpy_bench.py and the sweep's Python side compute the same bits):
/// a in [-5, 5) (sin and exp stay well inside their fast paths), b in [0, 15.54).
template <class T>
T value_a(std::int64_t i) {
  return static_cast<T>(i % 1000) * static_cast<T>(0.01) - static_cast<T>(5);
}
template <class T>
T value_b(std::int64_t i) {
  return static_cast<T>(i % 777) * static_cast<T>(0.02);
}

// ---------------------------------------------------------------------------------------------------------------
// Options shared by the sweep programs.

struct options {
  int min_log2 = 10, max_log2 = 26, step_log2 = 2;
  double min_time = 0.1;  // seconds of timed calls per measurement (at least min_samples samples)
  int min_samples = 3, max_samples = 100;
  double min_sample_time = 2e-4;  // shorter calls are timed in batches of at least this long
  double max_call_time = 1.0;     // a call slower than this is timed once, and larger sizes of its row are skipped
  std::vector<std::string> cases = all_cases();
  std::vector<std::string> dtypes = {"f32", "f64"};
  bool progress = true;

  [[nodiscard]] bool wants_case(std::string_view c) const {
    return std::find(cases.begin(), cases.end(), c) != cases.end();
  }
  [[nodiscard]] bool wants_dtype(std::string_view d) const {
    return std::find(dtypes.begin(), dtypes.end(), d) != dtypes.end();
  }
  [[nodiscard]] std::vector<std::int64_t> sizes() const {
    std::vector<std::int64_t> s;
    for (int k = min_log2; k <= max_log2; k += step_log2) s.push_back(std::int64_t{1} << k);
    return s;
  }
};

inline std::vector<std::string> split_list(const char* s) {
  std::vector<std::string> out;
  std::string item;
  for (const char* p = s;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!item.empty()) out.push_back(item);
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return out;
}

/// Parses the options every sweep program takes; returns false (after a message) on anything else, leaving
/// argv[i] for the caller to try when `unknown` is given.
inline const char* usage_common() {
  return "[--min-log2 K] [--max-log2 K] [--min-time S] [--min-samples N] [--max-samples N] [--max-call-time S] "
         "[--cases a,b,...] [--dtypes f32,f64] [--no-progress]";
}

inline bool parse_common(options& o, int argc, char** argv, int& i) {
  const std::string_view arg = argv[i];
  auto value = [&]() -> const char* {
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", argv[i]);
      std::exit(2);
    }
    return argv[++i];
  };
  if (arg == "--min-log2") {
    o.min_log2 = std::atoi(value());
  } else if (arg == "--max-log2") {
    o.max_log2 = std::atoi(value());
  } else if (arg == "--min-time") {
    o.min_time = std::atof(value());
  } else if (arg == "--min-samples") {
    o.min_samples = std::max(1, std::atoi(value()));
  } else if (arg == "--max-samples") {
    o.max_samples = std::max(1, std::atoi(value()));
  } else if (arg == "--max-call-time") {
    o.max_call_time = std::atof(value());
  } else if (arg == "--cases") {
    o.cases = split_list(value());
  } else if (arg == "--dtypes") {
    o.dtypes = split_list(value());
  } else if (arg == "--no-progress") {
    o.progress = false;
  } else {
    return false;
  }
  o.max_samples = std::max(o.max_samples, o.min_samples);
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Timing.

using clock_type = std::chrono::steady_clock;

inline double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

/// Median seconds per call of f. Adaptive: a first (warm-up) call estimates the cost; calls shorter than
/// min_sample_time are timed in batches that last about that long (a clock read per call would be part of the
/// result); then as many samples as fill min_time, at least min_samples and at most max_samples. A 0.5 s call
/// thus takes 1 + min_samples calls; a 1 us call, min_time / 1 us calls; a call over max_call_time, two (the
/// second one timed).
template <class F>
double seconds_per_call(const options& o, F&& f) {
  auto t0 = clock_type::now();
  f();
  double est = seconds_since(t0);
  if (est < 1e-2) {  // a second look: the first call paid for page faults and cold caches
    t0 = clock_type::now();
    f();
    est = std::max(seconds_since(t0), 1e-9);
  }
  const int calls = est >= o.min_sample_time ? 1 : static_cast<int>(std::min(1e6, std::ceil(o.min_sample_time / est)));
  if (calls > 1)
    for (int i = 0; i < calls; ++i) f();  // warm up the branch predictors and caches for the batch
  const int samples = est > o.max_call_time
                          ? 1
                          : std::clamp(static_cast<int>(o.min_time / (est * calls)), o.min_samples, o.max_samples);
  std::vector<double> per_call;
  per_call.reserve(static_cast<std::size_t>(samples));
  for (int s = 0; s < samples; ++s) {
    t0 = clock_type::now();
    for (int i = 0; i < calls; ++i) f();
    per_call.push_back(seconds_since(t0) / calls);
  }
  return median(std::move(per_call));
}

/// Keeps a value alive in the optimizer's eyes.
template <class T>
inline void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

// ---------------------------------------------------------------------------------------------------------------
// Output.

inline void emit(std::string_view c, std::string_view dtype, std::int64_t n, std::string_view impl, double seconds,
                 std::int64_t bytes) {
  std::printf("%.*s,%.*s,%lld,%.*s,%.9g,%lld\n", static_cast<int>(c.size()), c.data(), static_cast<int>(dtype.size()),
              dtype.data(), static_cast<long long>(n), static_cast<int>(impl.size()), impl.data(), seconds,
              static_cast<long long>(bytes));
  std::fflush(stdout);
}

inline void meta(std::string_view key, std::string_view value) {
  std::printf("# meta,%.*s,%.*s\n", static_cast<int>(key.size()), key.data(), static_cast<int>(value.size()),
              value.data());
}

inline void note(const std::string& kind, const std::string& text) {
  std::printf("# %s,%s\n", kind.c_str(), text.c_str());
  std::fflush(stdout);
}

inline int g_check_failures = 0;

/// Largest error of got[i] against want[i] relative to max(1, |want[i]|); prints a "# check" line.
template <class T>
bool check(const std::string& what, const T* got, const T* want, std::int64_t n, double tolerance) {
  double worst = 0;
  std::int64_t at = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    const double w = static_cast<double>(want[i]);
    const double e = std::fabs(static_cast<double>(got[i]) - w) / std::max(1.0, std::fabs(w));
    if (!(e <= worst)) {  // NaN counts as the worst
      worst = std::isnan(e) ? INFINITY : e;
      at = i;
      if (std::isnan(e)) break;
    }
  }
  const bool ok = worst <= tolerance;
  std::printf("# check,%s,%s,max_rel_err=%g%s\n", what.c_str(), ok ? "ok" : "FAIL", worst,
              ok ? "" : (" at " + std::to_string(at)).c_str());
  if (!ok) {
    ++g_check_failures;
    std::fprintf(stderr, "CHECK FAILED: %s: max relative error %g at %lld\n", what.c_str(), worst,
                 static_cast<long long>(at));
  }
  return ok;
}

/// Tolerances: exact for add, square, bcast and strided (one correctly rounded operation per element); a few
/// ulps for sin and exp (SIMD polynomials against libm); for sum, relative to sum |a| (summation order differs).
template <class T>
double tolerance(std::string_view c) {
  const bool f32 = sizeof(T) == 4;
  if (c == "sin" || c == "exp") return f32 ? 4e-6 : 1e-13;
  if (c == "sum") return f32 ? 1e-3 : 1e-9;
  return 0.0;
}

// ---------------------------------------------------------------------------------------------------------------
// Progress on stderr: one line per case and size, "[program 12s] 37/146 f32 2^22 exp" (steps done of all; the
// large sizes take most of the time).

class progress {
 public:
  /// copy_step: whether the program measures the copy bound (a step per size).
  progress(std::string name, const options& o, bool copy_step = true)
      : name_(std::move(name)), on_(o.progress), start_(clock_type::now()) {
    std::size_t per_size = copy_step ? 1 : 0;
    for (const auto& c : o.cases) per_size += c != "call1024";
    total_ = o.dtypes.size() * (o.sizes().size() * per_size + (o.wants_case("call1024") ? 1 : 0));
  }
  void step(const std::string& dtype, std::int64_t n, const std::string& what) {
    ++done_;
    if (!on_) return;
    std::fprintf(stderr, "[%s %4.0fs] %zu/%zu %s 2^%d %s\n", name_.c_str(), seconds_since(start_), done_, total_,
                 dtype.c_str(), static_cast<int>(std::lround(std::log2(static_cast<double>(n)))), what.c_str());
  }
  void finish() {
    if (on_) std::fprintf(stderr, "[%s] done in %.0f s\n", name_.c_str(), seconds_since(start_));
  }

 private:
  std::string name_;
  bool on_;
  clock_type::time_point start_;
  std::size_t total_ = 0, done_ = 0;
};

// ---------------------------------------------------------------------------------------------------------------
// Slow rows: once a call of some (case, dtype, impl) takes more than options::max_call_time, larger sizes of it are
// not run (a '# skip' line says so). Numba's parallel broadcast, for one, takes about a minute per call at 2^26.

class slow_guard {
 public:
  explicit slow_guard(double limit) : limit_(limit) {}
  [[nodiscard]] bool skip(const std::string& c, const std::string& dtype, const std::string& impl) const {
    return std::find(stopped_.begin(), stopped_.end(), c + "|" + dtype + "|" + impl) != stopped_.end();
  }
  void record(const std::string& c, const std::string& dtype, const std::string& impl, std::int64_t n, double seconds) {
    if (!(seconds > limit_) || skip(c, dtype, impl)) return;
    stopped_.push_back(c + "|" + dtype + "|" + impl);
    std::printf(
        "# skip,%s %s %s: %.2f s per call at n=%lld (over --max-call-time %.2g s): timed once, larger sizes not run\n",
        c.c_str(), dtype.c_str(), impl.c_str(), seconds, static_cast<long long>(n), limit_);
    std::fflush(stdout);
  }

 private:
  double limit_;
  std::vector<std::string> stopped_;
};

/// "Model name" of /proc/cpuinfo, for the meta lines.
inline std::string cpu_model() {
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (!f) return "?";
  char line[512];
  std::string model = "?";
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "model name", 10) == 0) {
      const char* colon = std::strchr(line, ':');
      if (colon) {
        model = colon + 2;
        while (!model.empty() && (model.back() == '\n' || model.back() == ' ')) model.pop_back();
      }
      break;
    }
  }
  std::fclose(f);
  return model;
}

}  // namespace sweep
