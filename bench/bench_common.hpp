// Shared by the benchmark translation units: the timing harness and the result
// records. Several TUs are compiled with different -m flags (vectorize_cases.cpp
// for AVX2 and AVX-512), so everything here that is not a template over a TU-local
// type is only declared here and defined in cpu_bench.cpp (compiled for the
// baseline): an inline function emitted by an AVX2 TU could otherwise be the copy
// the linker keeps for every caller.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <ufunc/core/array.hpp>

namespace bench {

/// Per-call times of one measurement: each sample is the mean over `calls` back-to-back
/// calls (one call for the large arrays; a batch of calls for small ones, where a
/// clock read per call would be a measurable part of the call).
struct timing {
  double median_ns = 0;
  double min_ns = 0;
  int samples = 0;
  int calls = 0;
};

/// One printed result: `group` names the workload shared with numpy_bench.py (the
/// join key of run_cpu.sh), `variant` what ran it.
struct result {
  std::string group;
  std::string variant;
  std::int64_t elements = 0;
  std::int64_t bytes = 0;  // read + written per call
  timing t;
};

/// How many samples and calls per sample each kind of case takes.
struct plan {
  int large_samples = 25;
  int large_warmup = 3;
  int small_samples = 200;
  int small_calls = 1000;
  int small_warmup_calls = 20000;
};

/// The operands every case reads: a, b in [-5, 5) and [0, 15.54) (the same values
/// numpy_bench.py builds), and a preallocated output c.
struct data {
  std::int64_t n = 0;
  ufunc::array_t<float> a, b, c;
};

/// The expected results, from plain scalar loops.
struct references {
  ufunc::array_t<float> add_big, sin_big, add_small;
};

/// a[i] = float(i % 1000) * 0.01f - 5, b[i] = float(i % 777) * 0.02f.
data make_data(std::int64_t n);
timing summarize(std::vector<double>& per_call_ns, int calls);
void print(const result& r);
/// Compares float32 results (max abs difference <= tolerance) and prints a CHECK line.
void check(const std::string& what, const ufunc::array& got, const ufunc::array& expected, double tolerance);
bool any_check_failed();

/// Times `calls` consecutive calls of f, `samples` times, after `warmup` calls.
template <class F>
timing measure(F&& f, int samples, int calls, int warmup) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> per_call;
  per_call.reserve(static_cast<std::size_t>(samples));
  for (int s = 0; s < samples; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
  }
  return summarize(per_call, calls);
}

/// The median time of one call of f, in seconds, over repeated calls (one warm-up) until
/// `min_total` seconds and at least 5 calls have run: for calls long enough to time alone.
template <class F>
double median_seconds(F&& f, double min_total = 0.2) {
  f();
  std::vector<double> t;
  double total = 0;
  while (total < min_total || t.size() < 5) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    total += t.back();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Keeps a result alive in the optimizer's eyes: an empty asm that may read it.
template <class T>
inline void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}
/// The same for a pointer the caller goes on to use (so new/delete pairs stay).
template <class T>
inline T* keep_ptr(T* p) {
  asm volatile("" : "+r"(p) : : "memory");
  return p;
}

}  // namespace bench
