// Run-time kernels on the GPU (issue 18's figures), from a program compiled by g++ alone:
//   compile    the hyp kernel's first call (NVRTC, module load, launch), as the process's first
//              compile and again (another name) with NVRTC loaded; its first call in a
//              process whose disk cache has it (run the program twice on one --cache folder:
//              the second run's "first call" is the warm figure), and a later call (hot)
//   add        elementwise_kernel "z = x + y" on float32 device arrays against the built-in
//              ufunc::add on the cuda target, 2^20, 2^24, 2^28 elements, and 1024 (per call)
//   sum        reduction_kernel "sum of x" on float32 against the built-in add.reduce
//   percall    host time per call at 1024 elements (enqueue only, and synchronized), split
//              by where the kernel's path differs from the built-in's
// Prints CSV: bench,variant,n,seconds. bench/run_rtc.sh runs it with CuPy beside it.
//
//   rtc_bench --cache /tmp/k compile     # cold (empty folder), then again: warm
//   rtc_bench add
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <ufunc/backends/cuda/rtc/elementwise_kernel.hpp>
#include <ufunc/backends/cuda/rtc/reduction_kernel.hpp>

#include <ufunc/ufunc.hpp>
#include "cuda_timing.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void sync() { bench::device_sync(); }

template <class F>
double median_time(F&& f, int warm, int reps) {
  return bench::median_synchronized(std::forward<F>(f), warm, reps);
}

// The hyp kernel's first call twice: as the process's first compile (NVRTC loaded and
// started by it), then the same body under another name (another source: compiled too) with
// NVRTC running. CuPy's figures (rtc_cupy.py) are taken the same two ways.
void compile_figures() {
  const auto x = ufunc::to_device(ufunc::full<float>({1024}, 3.0f));
  const auto y = ufunc::to_device(ufunc::full<float>({1024}, 4.0f));
  sync();
  const auto first_call = [&](const char* name, const char* variant) {
    ufunc::cuda::elementwise_kernel hyp("T x, T y", "T z", "z = sqrt(x * x + y * y);", name);
    const auto t0 = std::chrono::steady_clock::now();
    auto z = hyp(x, y);
    sync();
    std::printf("compile,%s,1024,%.9g\n", variant, seconds_since(t0));
    return std::pair{hyp, z};
  };
  auto [hyp, z] = first_call("hyp", "first_call");
  (void)first_call("hyp_second", "first_call_nvrtc_running");
  std::printf("compile,hot_call,1024,%.9g\n", median_time([&] { hyp(x, y, {.out = {z}}); }, 3, 101));
  std::printf("compile,builtin_add_call,1024,%.9g\n",
              median_time([&] { ufunc::add(x, y, {.out = {z}, .target = ufunc::target_id::cuda}); }, 3, 101));
}

// Host time per call, enqueue only: batches of 100 calls, then one wait (the batch never
// fills the launch queue), median over batches. Where the elementwise_kernel's call differs
// from the built-in's: its own preamble (placeholders, signature), the ufunc call with
// signature= (resolution), or the launch through the driver API.
template <class F>
double enqueue_time(F&& f) {
  constexpr int batch = 100;
  for (int k = 0; k < 3 * batch; ++k) f();
  sync();
  std::vector<double> per_call;
  for (int b = 0; b < 41; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < batch; ++k) f();
    per_call.push_back(seconds_since(t0) / batch);
    sync();
  }
  std::nth_element(per_call.begin(), per_call.begin() + per_call.size() / 2, per_call.end());
  return per_call[per_call.size() / 2];
}

void percall_figures() {
  ufunc::cuda::elementwise_kernel add("T x, T y", "T z", "z = x + y;", "rtc_add");
  const auto x = ufunc::to_device(ufunc::full<float>({1024}, 1.5f));
  const auto y = ufunc::to_device(ufunc::full<float>({1024}, 2.5f));
  auto z = ufunc::to_device(ufunc::zeros<float>({1024}));
  const ufunc::operand xy[] = {x, y};
  const auto cuda = ufunc::target_id::cuda;
  std::printf("percall,enqueue_builtin,1024,%.9g\n",
              enqueue_time([&] { ufunc::add(x, y, {.out = {z}, .target = cuda}); }));
  std::printf("percall,enqueue_kernel,1024,%.9g\n", enqueue_time([&] { add(x, y, {.out = {z}}); }));
  std::printf("percall,enqueue_kernel_ufunc_call,1024,%.9g\n",
              enqueue_time([&] { (void)add.ufunc().call(xy, {.out = {z}, .signature = "ff->f", .target = cuda}); }));
  std::printf("percall,enqueue_builtin_signature,1024,%.9g\n",
              enqueue_time([&] { (void)ufunc::add.call(xy, {.out = {z}, .signature = "ff->f", .target = cuda}); }));
  {
    ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
    std::printf("percall,enqueue_builtin_ignore,1024,%.9g\n",
                enqueue_time([&] { ufunc::add(x, y, {.out = {z}, .target = cuda}); }));
    std::printf("percall,enqueue_kernel_ignore,1024,%.9g\n", enqueue_time([&] { add(x, y, {.out = {z}}); }));
  }
  const auto [builtin, kernel] = bench::median_synchronized_pair(
      [&] { ufunc::add(x, y, {.out = {z}, .target = cuda}); }, [&] { add(x, y, {.out = {z}}); }, 3, 201);
  std::printf("percall,sync_builtin,1024,%.9g\n", builtin);
  std::printf("percall,sync_kernel,1024,%.9g\n", kernel);
}

void add_figures() {
  ufunc::cuda::elementwise_kernel add("T x, T y", "T z", "z = x + y;", "rtc_add");
  for (int log2 : {10, 20, 24, 28}) {
    const std::int64_t n = std::int64_t{1} << log2;
    const auto x = ufunc::to_device(ufunc::full<float>({n}, 1.5f));
    const auto y = ufunc::to_device(ufunc::full<float>({n}, 2.5f));
    auto z = ufunc::to_device(ufunc::zeros<float>({n}));
    const int reps = log2 >= 28 ? 21 : 201;
    const auto [kernel, builtin] = bench::median_synchronized_pair(
        [&] { add(x, y, {.out = {z}}); }, [&] { ufunc::add(x, y, {.out = {z}, .target = ufunc::target_id::cuda}); }, 3,
        reps);
    std::printf("add,elementwise_kernel,%lld,%.9g\n", static_cast<long long>(n), kernel);
    std::printf("add,builtin,%lld,%.9g\n", static_cast<long long>(n), builtin);
  }
}

// reduction_kernel "sum of x" on float32 against the built-in add.reduce (every axis).
void sum_figures() {
  ufunc::cuda::reduction_kernel sum("T x", "T y", "x", "a + b", "y = a", "0", "rtc_sum");
  for (int log2 : {10, 20, 24, 28}) {
    const std::int64_t n = std::int64_t{1} << log2;
    const auto x = ufunc::to_device(ufunc::full<float>({n}, 1.0f));
    const int reps = log2 >= 28 ? 21 : 101;
    std::printf("sum,reduction_kernel,%lld,%.9g\n", static_cast<long long>(n),
                median_time([&] { (void)sum(x); }, 3, reps));
    std::printf("sum,builtin_add_reduce,%lld,%.9g\n", static_cast<long long>(n),
                median_time([&] { (void)ufunc::add.reduce(x, {.target = ufunc::target_id::cuda}); }, 3, reps));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> what;
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--cache") == 0 && k + 1 < argc) {
      ::setenv("UFUNC_CACHE_DIR", argv[++k], 1);  // before the process's cache is first used
      continue;
    }
    what.emplace_back(argv[k]);
  }
  if (what.empty()) what = {"compile", "add", "sum", "percall"};
  if (!ufunc::cuda_available()) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  std::printf("bench,variant,n,seconds\n");
  for (const auto& w : what) {
    if (w == "compile")
      compile_figures();
    else if (w == "add")
      add_figures();
    else if (w == "sum")
      sum_figures();
    else if (w == "percall")
      percall_figures();
    else {
      std::fprintf(stderr, "rtc_bench: unknown benchmark '%s' (compile, add, sum, percall)\n", w.c_str());
      return 2;
    }
  }
}
