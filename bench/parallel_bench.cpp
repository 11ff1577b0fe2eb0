// ufunc's TBB backend (target parallel) on 1..16 threads against the serial cpu
// backend and against a multi-threaded copy of the same bytes, the memory-bandwidth
// bound (memcpy, and a streaming-store copy that skips the read of each written
// line), plus small arrays with targets cpu, parallel and automatic.
// numba_parallel.py measures NumPy and Numba on the same data and run_parallel.sh
// puts everything in one table.
//
//   parallel_bench [--quick] [--samples N] [--log2n K] [--threads 1,2,4,8,16]
//
// stdout is CSV, `case,impl,threads,n,median_ms,GBps_or_Gelem_s`, with '#' lines of
// information; the last column is GB/s (bytes read + written) for add and copy, and
// Gelem/s for sin. A human-readable table goes to stderr, so `> file.csv` keeps the
// CSV clean. Large cases time one call per sample (median of --samples after a
// warm-up); the small-size cases time batches of calls and divide.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define BENCH_HAVE_STREAM_STORES 1
#endif

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <ufunc/backends/parallel/elementwise.hpp>
#include <ufunc/core/detail/streaming.hpp>
#include <ufunc/ufunc.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
  int samples = 9;
  int warmup = 2;
  int small_samples = 101;
  int log2n = 26;
  std::vector<int> threads = {1, 2, 4, 8, 16};
};

// Sizes of the small-array cases: the issue's, plus 32768 (the default grain, the
// largest call that stays on the calling thread) and 131072, to place the crossover.
// 524288 and 1048576 place the inline threshold on many cores (4 grains by default).
constexpr std::int64_t small_sizes[] = {256, 1024, 4096, 16384, 32768, 65536, 131072, 262144, 524288, 1048576};

// Runs f with ufunc's streaming stores turned off (the A/B of the "_nostream" rows).
template <class F>
void without_streaming(F&& f) {
  const std::int64_t saved = ufunc::detail::streaming_threshold();
  ufunc::detail::set_streaming_threshold(0);
  f();
  ufunc::detail::set_streaming_threshold(saved);
}

struct row {
  std::string case_name, impl;
  int threads = 0;
  std::int64_t n = 0;
  double median_ms = 0;
  double rate = 0;  // GB/s or Gelem/s, from the median
};

std::vector<row> g_rows;
bool g_failed = false;

// Keeps a value alive in the optimizer's eyes (an empty asm that may read it).
template <class T>
void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

// Median ms of `samples` single calls after `warmup` untimed ones.
template <class F>
double time_ms(F&& f, int samples, int warmup) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> ms;
  for (int s = 0; s < samples; ++s) {
    const auto t0 = clock_type::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
  }
  return median(ms);
}

// Median ms of each of `fs`, timed in turn sample by sample (one call each), so that
// drift in what the machine gives us (other jobs, a neighbour's memory traffic on a
// shared host) lands on all of them alike and their ratios stay meaningful.
std::vector<double> time_ms_interleaved(const std::vector<std::function<void()>>& fs, int samples, int warmup) {
  for (int i = 0; i < warmup; ++i)
    for (const auto& f : fs) f();
  std::vector<std::vector<double>> ms(fs.size());
  for (int s = 0; s < samples; ++s)
    for (std::size_t k = 0; k < fs.size(); ++k) {
      const auto t0 = clock_type::now();
      fs[k]();
      ms[k].push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    }
  std::vector<double> out;
  for (auto& v : ms) out.push_back(median(std::move(v)));
  return out;
}

void emit(std::string case_name, std::string impl, int threads, std::int64_t n, double ms, double units_per_call) {
  row r{std::move(case_name), std::move(impl), threads, n, ms, units_per_call / (ms * 1e-3) / 1e9};
  std::printf("%s,%s,%d,%lld,%.6f,%.3f\n", r.case_name.c_str(), r.impl.c_str(), r.threads, static_cast<long long>(r.n),
              r.median_ms, r.rate);
  std::fflush(stdout);
  g_rows.push_back(std::move(r));
}

// Exact comparison where both sides run the same kernel (the parallel backend
// runs the cpu backend's loop on pieces, so the split must not change any bit).
void check_equal(const char* what, const float* got, const float* expected, std::int64_t n) {
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) bad += std::memcmp(&got[i], &expected[i], sizeof(float)) != 0;
  std::printf("# check %s: %s (%lld mismatches)\n", what, bad ? "FAIL" : "ok", static_cast<long long>(bad));
  g_failed |= bad != 0;
}

// The bandwidth bound: memcpy of `n` floats in 1 MiB chunks spread over the arena's
// threads. Fixed chunks keep glibc's per-call choice of copy routine the same for
// every thread count (one huge memcpy per thread would switch to non-temporal stores
// past its threshold, which a ufunc loop never uses).
constexpr std::int64_t copy_chunk = std::int64_t{1} << 18;

void parallel_copy(tbb::task_arena& arena, const float* src, float* dst, std::int64_t n) {
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, (n + copy_chunk - 1) / copy_chunk),
                      [&](const tbb::blocked_range<std::int64_t>& r) {
                        for (auto k = r.begin(); k != r.end(); ++k) {
                          const std::int64_t first = k * copy_chunk, len = std::min(copy_chunk, n - first);
                          std::memcpy(dst + first, src + first, static_cast<std::size_t>(len) * sizeof(float));
                        }
                      });
  });
}

#if defined(BENCH_HAVE_STREAM_STORES)
// The same copy with non-temporal (streaming) stores: the destination is not read
// into the cache before it is written, so this moves the bytes it counts and no
// more. That is the bound for a kernel that streams its output as well; one that
// uses ordinary stores (ufunc's loops, memcpy of 1 MiB) also reads every line it
// writes, so against this bound add can reach about 3/4 (12 bytes counted, 16 moved).
void stream_copy_range(const float* src, float* dst, std::int64_t len) {
  std::int64_t i = 0;
  for (; i < len && reinterpret_cast<std::uintptr_t>(dst + i) % 16 != 0; ++i) dst[i] = src[i];
  for (; i + 4 <= len; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
  for (; i < len; ++i) dst[i] = src[i];
}

void parallel_stream_copy(tbb::task_arena& arena, const float* src, float* dst, std::int64_t n) {
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, (n + copy_chunk - 1) / copy_chunk),
                      [&](const tbb::blocked_range<std::int64_t>& r) {
                        for (auto k = r.begin(); k != r.end(); ++k) {
                          const std::int64_t first = k * copy_chunk;
                          stream_copy_range(src + first, dst + first, std::min(copy_chunk, n - first));
                        }
                        _mm_sfence();  // streaming stores are weakly ordered: publish them before the join
                      });
  });
}
#endif

// A diagnostic beside the bounds: a plain loop with add's access pattern (read two
// arrays, write one with ordinary stores), split as parallel_copy is. What ufunc's
// add loses against this is the library's own overhead; what this loses against the
// streaming copy is the cost of ordinary stores (each written line is read first).
void parallel_plain_add(tbb::task_arena& arena, const float* __restrict a, const float* __restrict b,
                        float* __restrict c, std::int64_t n) {
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, (n + copy_chunk - 1) / copy_chunk),
                      [&](const tbb::blocked_range<std::int64_t>& r) {
                        const std::int64_t first = r.begin() * copy_chunk, last = std::min(n, r.end() * copy_chunk);
                        for (std::int64_t i = first; i < last; ++i) c[i] = a[i] + b[i];
                      });
  });
}

// Pages of a fresh array are placed where they are first written; writing them from
// every thread spreads them over the NUMA nodes the benchmark will read them from.
template <class F>
void parallel_fill(std::int64_t n, F&& f) {
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n), [&](const tbb::blocked_range<std::int64_t>& r) {
    for (auto i = r.begin(); i != r.end(); ++i) f(i);
  });
}

void run_large(const options& opt, const std::vector<int>& threads) {
  const std::int64_t n = std::int64_t{1} << opt.log2n;
  const double f4 = sizeof(float);
  const double add_bytes = 3 * n * f4, n_elems = static_cast<double>(n);
  // a and b are the values numba_parallel.py and cpu_bench.cpp use.
  auto a = ufunc::empty<float>({n}), b = ufunc::empty<float>({n}), c = ufunc::empty<float>({n});
  auto ref_add = ufunc::empty<float>({n}), ref_sin = ufunc::empty<float>({n});
  // The copy moves exactly add's bytes: 1.5 n floats read and 1.5 n written.
  const std::int64_t copy_n = 3 * n / 2;
  auto copy_src = ufunc::empty<float>({copy_n}), copy_dst = ufunc::empty<float>({copy_n});
  float *pa = a.data(), *pb = b.data(), *pc = c.data(), *ps = copy_src.data(), *pd = copy_dst.data();
  parallel_fill(n, [&](std::int64_t i) {
    pa[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
    pb[i] = static_cast<float>(i % 777) * 0.02f;
    pc[i] = 0.0f;  // touched, so no out= case pays for first page faults
  });
  parallel_fill(copy_n, [&](std::int64_t i) { ps[i] = static_cast<float>(i), pd[i] = 0.0f; });

  const auto par = ufunc::target_id::parallel, cpu = ufunc::target_id::cpu;
  ufunc::add(a, b, {.out = {ref_add}, .target = cpu});
  ufunc::sin(a, {.out = {ref_sin}, .target = cpu});

  // The serial backend, once: it does not depend on the thread setting.
  std::printf("# serial reference (target cpu)\n");
  auto ms = time_ms_interleaved(
      {[&] { ufunc::add(a, b, {.out = {c}, .target = cpu}); }, [&] { ufunc::sin(a, {.out = {c}, .target = cpu}); },
       [&] { without_streaming([&] { ufunc::add(a, b, {.out = {c}, .target = cpu}); }); },
       [&] { without_streaming([&] { ufunc::sin(a, {.out = {c}, .target = cpu}); }); }},
      opt.samples, opt.warmup);
  emit("add_f32", "ufunc_cpu_out", 1, n, ms[0], add_bytes);
  emit("sin_f32", "ufunc_cpu_out", 1, n, ms[1], n_elems);
  emit("add_f32", "ufunc_cpu_out_nostream", 1, n, ms[2], add_bytes);
  emit("sin_f32", "ufunc_cpu_out_nostream", 1, n, ms[3], n_elems);
  // Allocating calls on their own: each one maps and faults in a fresh output,
  // which would disturb whatever ran next to it.
  emit("add_f32", "ufunc_cpu_alloc", 1, n,
       time_ms([&] { keep(ufunc::add(a, b, {.target = cpu})); }, opt.samples, opt.warmup), add_bytes);
  emit("sin_f32", "ufunc_cpu_alloc", 1, n,
       time_ms([&] { keep(ufunc::sin(a, {.target = cpu})); }, opt.samples, opt.warmup), n_elems);

  for (int t : threads) {
    std::printf("# threads %d\n", t);
    tbb::task_arena arena(t);
    ufunc::backends::parallel::set_max_threads(t);
    // Results first, outside the timings: no split may change a bit.
    std::fill(pc, pc + n, 0.0f);
    ufunc::add(a, b, {.out = {c}, .target = par});
    check_equal(("add parallel t=" + std::to_string(t)).c_str(), pc, ref_add.data(), n);
    std::fill(pc, pc + n, 0.0f);
    ufunc::sin(a, {.out = {c}, .target = par});
    check_equal(("sin parallel t=" + std::to_string(t)).c_str(), pc, ref_sin.data(), n);
    std::vector<std::function<void()>> group = {
        [&] { parallel_copy(arena, ps, pd, copy_n); },
        [&] { parallel_plain_add(arena, pa, pb, pc, n); },
        [&] { ufunc::add(a, b, {.out = {c}, .target = par}); },
        [&] { ufunc::sin(a, {.out = {c}, .target = par}); },
    };
#if defined(BENCH_HAVE_STREAM_STORES)
    group.push_back([&] { parallel_stream_copy(arena, ps, pd, copy_n); });
#else
    group.push_back([] {});
#endif
    // The same calls with ordinary stores (streaming stores off): the A/B of streaming.
    group.push_back([&] { without_streaming([&] { ufunc::add(a, b, {.out = {c}, .target = par}); }); });
    group.push_back([&] { without_streaming([&] { ufunc::sin(a, {.out = {c}, .target = par}); }); });
    ms = time_ms_interleaved(group, opt.samples, opt.warmup);
    emit("add_f32", "ufunc_parallel_out_nostream", t, n, ms[5], add_bytes);
    emit("sin_f32", "ufunc_parallel_out_nostream", t, n, ms[6], n_elems);
    emit("copy_f32", "memcpy_tbb", t, n, ms[0], add_bytes);
#if defined(BENCH_HAVE_STREAM_STORES)
    emit("copy_f32", "stream_copy_tbb", t, n, ms[4], add_bytes);
#endif
    emit("add_f32", "plain_loop_tbb_out", t, n, ms[1], add_bytes);
    emit("add_f32", "ufunc_parallel_out", t, n, ms[2], add_bytes);
    emit("sin_f32", "ufunc_parallel_out", t, n, ms[3], n_elems);
    emit("add_f32", "ufunc_parallel_alloc", t, n,
         time_ms([&] { keep(ufunc::add(a, b, {.target = par})); }, opt.samples, opt.warmup), add_bytes);
    emit("sin_f32", "ufunc_parallel_alloc", t, n,
         time_ms([&] { keep(ufunc::sin(a, {.target = par})); }, opt.samples, opt.warmup), n_elems);
  }
  ufunc::backends::parallel::set_max_threads(0);
}

// Small arrays: add with target cpu, parallel and automatic at the default thread
// setting (every core). The three are timed in rotation, sample by sample, so that
// drift in the machine's speed (other jobs, clocks) lands on all of them alike.
void run_small(const options& opt) {
  struct impl {
    const char* name;
    ufunc::target_id target;
    std::int64_t threshold;  // parallel::set_threshold during its calls (0: the default)
  };
  // "split1": the parallel target splitting every call of more than one grain (the
  // behaviour before the inline threshold), to see where splitting starts to pay;
  // "fixed4": a fixed inline limit of 4 grains (the rule before the measured split).
  const std::int64_t g = ufunc::backends::parallel::grain();
  const impl impls[] = {{"ufunc_cpu_out", ufunc::target_id::cpu, 0},
                        {"ufunc_parallel_out", ufunc::target_id::parallel, 0},
                        {"ufunc_automatic_out", ufunc::target_id::automatic, 0},
                        {"ufunc_parallel_split1_out", ufunc::target_id::parallel, g},
                        {"ufunc_parallel_fixed4_out", ufunc::target_id::parallel, 4 * g}};
  constexpr int nimpl = 5;
  const std::int64_t base_threshold = ufunc::backends::parallel::threshold();
  const int all_threads = tbb::this_task_arena::max_concurrency();
  std::printf("# parallel wake cost (measured by the backend): %lld ns on %d threads\n",
              static_cast<long long>(ufunc::backends::parallel::wake_cost_ns()), all_threads);
  for (const bool sine : {false, true}) {
    for (std::int64_t n : small_sizes) {
      auto a = ufunc::empty<float>({n}), b = ufunc::empty<float>({n}), c = ufunc::zeros<float>({n});
      for (std::int64_t i = 0; i < n; ++i) {
        a.data()[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
        b.data()[i] = static_cast<float>(i % 777) * 0.02f;
      }
      auto call = [&](ufunc::target_id t) {
        if (sine)
          ufunc::sin(a, {.out = {c}, .target = t});
        else
          ufunc::add(a, b, {.out = {c}, .target = t});
      };
      // About 0.2 ms per sample: long enough that a clock read is no visible part of
      // it, short enough that most samples see no preemption on a shared machine (the
      // median then ignores the ones that do).
      const int probe = static_cast<int>(std::clamp<std::int64_t>((std::int64_t{1} << 20) / n, 4, 4096));
      for (const auto& im : impls)
        for (int i = 0; i < probe; ++i) call(im.target);
      const auto p0 = clock_type::now();
      for (int i = 0; i < probe; ++i) call(ufunc::target_id::cpu);
      const double probe_ms = std::chrono::duration<double, std::milli>(clock_type::now() - p0).count() / probe;
      const int calls = static_cast<int>(std::clamp(0.2 / probe_ms, 4.0, 100000.0));
      std::vector<double> per_call[nimpl];
      for (int s = 0; s < opt.small_samples; ++s) {
        for (int k = 0; k < nimpl; ++k) {
          const int which = (s + k) % nimpl;  // rotate who goes first
          ufunc::backends::parallel::set_threshold(impls[which].threshold ? impls[which].threshold : base_threshold);
          // A few untimed calls first, so that each batch starts in the state its own
          // target leaves the machine in (TBB workers awake or asleep), not the previous one's.
          for (int i = 0; i < std::max(2, calls / 8); ++i) call(impls[which].target);
          const auto t0 = clock_type::now();
          for (int i = 0; i < calls; ++i) call(impls[which].target);
          per_call[which].push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count() / calls);
        }
      }
      for (int k = 0; k < nimpl; ++k) {
        const int threads = impls[k].target == ufunc::target_id::cpu ? 1 : all_threads;
        if (sine)
          emit("sin_f32_small", impls[k].name, threads, n, median(per_call[k]), n * 1e-9);
        else
          emit("add_f32_small", impls[k].name, threads, n, median(per_call[k]), 3.0 * n * sizeof(float));
      }
    }
  }
  ufunc::backends::parallel::set_threshold(base_threshold);
}

const row* find(const std::string& case_name, const std::string& impl, int threads, std::int64_t n = -1) {
  for (const auto& r : g_rows)
    if (r.case_name == case_name && r.impl == impl && r.threads == threads && (n < 0 || r.n == n)) return &r;
  return nullptr;
}

void print_table(const std::vector<int>& threads) {
  std::fprintf(stderr, "\nLarge arrays: float32 2^n elements, median ms per call (rate).\n");
  std::fprintf(stderr, "%-8s %10s %12s %14s %14s %16s %8s %9s %15s %16s %8s\n", "threads", "copy GB/s", "stream GB/s",
               "plain add GB/s", "add out GB/s", "add alloc GB/s", "%copy", "%stream", "sin out Gel/s",
               "sin alloc Gel/s", "xserial");
  const row* sin_cpu = find("sin_f32", "ufunc_cpu_out", 1);
  const row* add_cpu = find("add_f32", "ufunc_cpu_out", 1);
  if (add_cpu && sin_cpu)
    std::fprintf(stderr, "%-8s %10s %12s %14s %14.2f %16s %8s %9s %15.3f %16s %8s\n", "cpu", "-", "-", "-",
                 add_cpu->rate, "-", "-", "-", sin_cpu->rate, "-", "1.00");
  for (int t : threads) {
    const row* cp = find("copy_f32", "memcpy_tbb", t);
    const row* pl = find("add_f32", "plain_loop_tbb_out", t);
    const row* ao = find("add_f32", "ufunc_parallel_out", t);
    const row* aa = find("add_f32", "ufunc_parallel_alloc", t);
    const row* so = find("sin_f32", "ufunc_parallel_out", t);
    const row* sa = find("sin_f32", "ufunc_parallel_alloc", t);
    const row* st = find("copy_f32", "stream_copy_tbb", t);
    if (!cp || !pl || !ao || !aa || !so || !sa) continue;
    const double stream = st ? st->rate : 0.0;
    std::fprintf(stderr, "%-8d %10.2f %12.2f %14.2f %14.2f %16.2f %7.0f%% %8.0f%% %15.3f %16.3f %8.2f\n", t, cp->rate,
                 stream, pl->rate, ao->rate, aa->rate, 100 * ao->rate / cp->rate,
                 stream > 0 ? 100 * ao->rate / stream : 0.0, so->rate, sa->rate,
                 sin_cpu ? so->rate / sin_cpu->rate : 0.0);
  }
  for (const char* case_name : {"add_f32_small", "sin_f32_small"}) {
    std::fprintf(stderr, "\nSmall arrays: %s out=, ns per call (median); x/cpu above 1 is slower.\n", case_name);
    std::fprintf(stderr, "%-8s %12s %12s %12s %12s %12s %14s %14s\n", "n", "cpu", "parallel", "automatic", "par/cpu",
                 "auto/cpu", "split1/cpu", "fixed4/cpu");
    for (std::int64_t n : small_sizes) {
      const row* c = nullptr;
      const row* p = nullptr;
      const row* au = nullptr;
      const row* s1 = nullptr;
      const row* f4 = nullptr;
      for (const auto& r : g_rows) {
        if (r.case_name != case_name || r.n != n) continue;
        if (r.impl == "ufunc_cpu_out") c = &r;
        if (r.impl == "ufunc_parallel_out") p = &r;
        if (r.impl == "ufunc_automatic_out") au = &r;
        if (r.impl == "ufunc_parallel_split1_out") s1 = &r;
        if (r.impl == "ufunc_parallel_fixed4_out") f4 = &r;
      }
      if (!c || !p || !au) continue;
      std::fprintf(stderr, "%-8lld %12.1f %12.1f %12.1f %12.3f %12.3f %14.3f %14.3f\n", static_cast<long long>(n),
                   c->median_ms * 1e6, p->median_ms * 1e6, au->median_ms * 1e6, p->median_ms / c->median_ms,
                   au->median_ms / c->median_ms, s1 ? s1->median_ms / c->median_ms : 0.0,
                   f4 ? f4->median_ms / c->median_ms : 0.0);
    }
  }
}

int parse_positive(const char* s) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v <= 0) {
    std::fprintf(stderr, "parallel_bench: '%s' is not a positive integer\n", s);
    std::exit(2);
  }
  return static_cast<int>(v);
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> out;
  std::string item;
  for (const char* p = s;; ++p) {
    if (*p == ',' || *p == '\0') {
      out.push_back(parse_positive(item.c_str()));
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "parallel_bench: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--quick") {
      opt.samples = 3, opt.warmup = 1, opt.small_samples = 11;
    } else if (arg == "--samples") {
      opt.samples = parse_positive(value());
    } else if (arg == "--log2n") {
      opt.log2n = parse_positive(value());
    } else if (arg == "--threads") {
      opt.threads = parse_list(value());
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--samples N] [--log2n K] [--threads 1,2,4,8,16]\n", argv[0]);
      return 2;
    }
  }

  // More threads than twice the hardware's only measure oversubscription.
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> threads, skipped;
  for (int t : opt.threads) (t <= 2 * hw ? threads : skipped).push_back(t);
  std::printf(
      "# simd_arch=%s hardware_concurrency=%d tbb_max_concurrency=%d grain=%lld threshold=%lld streaming_bytes=%lld "
      "samples=%d warmup=%d\n",
      std::string(ufunc::simd_arch()).c_str(), hw, tbb::this_task_arena::max_concurrency(),
      static_cast<long long>(ufunc::backends::parallel::grain()),
      static_cast<long long>(ufunc::backends::parallel::threshold()),
      static_cast<long long>(ufunc::detail::streaming_threshold()), opt.samples, opt.warmup);
  std::printf("# threads run:");
  for (int t : threads) std::printf(" %d", t);
  std::printf("; skipped (more than 2x hardware_concurrency=%d):", hw);
  for (int t : skipped) std::printf(" %d", t);
  std::printf("%s\n", skipped.empty() ? " none" : "");
  std::printf("case,impl,threads,n,median_ms,GBps_or_Gelem_s\n");

  run_large(opt, threads);
  run_small(opt);
  print_table(threads);
  return g_failed ? 1 : 0;
}
