// cuda_bench: ufunc's cuda target against cub::DeviceTransform (what ufunc's contiguous path calls), a device-to-device
// cudaMemcpyAsync (the bandwidth ceiling) and an empty kernel (the launch floor). run_gpu.sh runs it next to
// gpu_peers.py (CuPy, PyTorch, Numba), which measures the same cases the same way.
//
//   cuda_bench [--quick] [--reps N] [--errstate-ignore]
//   cuda_bench --sweep [--quick] [--reps N] [--min-log2 K] [--max-log2 K] [--cases ...] [--dtypes ...]
//
// --sweep runs the size sweep of bench/run_all_gpu.sh instead (see gpu_sweep below and bench/README.md).
//
// Output: lines starting with '#' are notes and result checks; every measurement is one CSV line
//   case,impl,n,bytes_moved,median_us,GBps
// with GBps = bytes_moved / median (1 GB = 1e9 bytes), followed by a short table. bytes_moved per case:
//   add_*            3 * n * itemsize (two inputs read, one output written); memcpy rows: 2 * n * itemsize
//                    (the output's size, read once and written once)
//   bcast_f32*       the OUTPUT bytes only, n * 4 (the inputs are 2 * 32 KiB), as CuPy's 819 GB/s in the issue
//   outer_f32*       multiply.outer of two 8192-vectors: the OUTPUT bytes only, as bcast_f32
//   strided_f32*     the bytes the result needs, 3 * n * 4; the GPU actually reads whole 32-byte sectors, so DRAM
//                    sees the full (8192, 16384) inputs: 2 * 2 * n * 4 read + n * 4 written
//   percall_*        3 * 1024 * itemsize; median_us is host time per call (the GB/s column means little there)
//   percall_f32_enqueue  the same, in batches of 100 calls that never fill the launch queue (the host's own cost)
//
// Device times (every case but percall_*) are CUDA event times of ONE call, median over reps. Before each rep the
// stream is held by a kernel that spins on a host flag until the call has been enqueued, so the events bracket GPU
// work only, not the host's time to issue the call (nvbench does the same). If a call synchronizes (the spin kernel
// would hold it back), the spin times out, the case is re-timed without it and a '# note' says so.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>

#include <ufunc/backends/cuda/loops.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/errstate.hpp>
#include <ufunc/core/transfer.hpp>
#include <ufunc/ufuncs/builtins.hpp>
#include <ufunc/vectorize.hpp>

#include "cuda_timing.hpp"
#include "sweep_common.hpp"
#include "sweep_probe.hpp"

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Errors: every CUDA call is checked; a failure ends the program (a benchmark that continues past a CUDA error
// reports numbers for work that did not happen).

void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorName(e), cudaGetErrorString(e));
  std::exit(2);
}
#define CUDA_CHECK(expr) check_cuda((expr), #expr, __FILE__, __LINE__)

using bench::device_buffer;

// ---------------------------------------------------------------------------------------------------------------
// Inputs. Each value is an exact product plus one addition, so a fused multiply-add on the device gives the same
// bits as the host's separate operations, and the host reference can be computed from the formula alone.

template <class T>
__host__ __device__ T value_a(std::int64_t i) {
  return static_cast<T>(i % 1000) * T(0.5) - T(3.3);
}
template <class T>
__host__ __device__ T value_b(std::int64_t i) {
  return static_cast<T>(i % 777) * T(0.125) + T(0.1);
}

template <class T>
__global__ void fill_inputs(T* a, T* b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    a[i] = value_a<T>(i);
    b[i] = value_b<T>(i);
  }
}

template <class T>
void fill(T* a, T* b, std::int64_t n, cudaStream_t s) {
  fill_inputs<T><<<1024, 256, 0, s>>>(a, b, n);
  CUDA_CHECK(cudaGetLastError());
}

__global__ void empty_kernel() {}

template <class T>
struct add_op {
  __device__ T operator()(T x, T y) const { return x + y; }
};

// ---------------------------------------------------------------------------------------------------------------
// Results.

struct result {
  std::string case_name, impl;
  std::int64_t n, bytes;
  double median_us;
};
std::vector<result> g_results;
int g_failures = 0;

void emit(const std::string& case_name, const std::string& impl, std::int64_t n, std::int64_t bytes, double median_us) {
  std::printf("%s,%s,%lld,%lld,%.3f,%.1f\n", case_name.c_str(), impl.c_str(), static_cast<long long>(n),
              static_cast<long long>(bytes), median_us, static_cast<double>(bytes) / median_us / 1e3);
  std::fflush(stdout);
  g_results.push_back({case_name, impl, n, bytes, median_us});
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Compares a device result with reference(i) for every i, bit for bit (the sums are correctly rounded on both sides).
template <class T, class Ref>
void validate(const std::string& case_name, const std::string& impl, const T* device_out, std::int64_t n, Ref reference,
              cudaStream_t s) {
  std::vector<T> host(static_cast<std::size_t>(n));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaMemcpy(host.data(), device_out, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  std::int64_t bad = 0, first = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    const T want = reference(i);
    if (std::memcmp(&host[i], &want, sizeof(T)) != 0) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (bad == 0) {
    std::printf("# check,%s,%s,%lld,ok\n", case_name.c_str(), impl.c_str(), static_cast<long long>(n));
  } else {
    ++g_failures;
    std::printf("# check,%s,%s,%lld,FAILED: %lld of %lld elements differ; first at %lld: got %.9g, want %.9g\n",
                case_name.c_str(), impl.c_str(), static_cast<long long>(n), static_cast<long long>(bad),
                static_cast<long long>(n), static_cast<long long>(first), static_cast<double>(host[first]),
                static_cast<double>(reference(first)));
  }
  std::fflush(stdout);
}

// Output bytes 0xFF: a NaN in every float and double, so a kernel that writes nothing cannot pass.
void poison(void* p, std::size_t bytes, cudaStream_t s) { CUDA_CHECK(cudaMemsetAsync(p, 0xFF, bytes, s)); }

// ---------------------------------------------------------------------------------------------------------------
// Timing.

struct bench_config {
  int warmup = 5;
  int reps = 30;
  int reps_large = 20;  // 2^28-element cases: each rep moves gigabytes
  bool quick = false;
  int percall_calls = 10000;
  int percall_samples = 7;
  int reps_override = 0;  // --reps
};

using bench::gpu_timer;

// Per-call host time: `calls` back-to-back calls, one synchronization at the end; median over samples.
double measure_host_per_call(const bench_config& cfg, cudaStream_t s, const std::function<void()>& call) {
  for (int i = 0; i < cfg.percall_calls / 5; ++i) call();
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> us;
  for (int k = 0; k < cfg.percall_samples; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < cfg.percall_calls; ++i) call();
    CUDA_CHECK(cudaStreamSynchronize(s));
    const auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / cfg.percall_calls);
  }
  return median(us);
}

// Per-call host time with the launch queue never full: batches of `batch` calls, each batch timed from its first
// call to the return of its last (nothing waits inside), the GPU drained between batches outside the timing;
// median over batches. Back-to-back calls (measure_host_per_call) measure the GPU's per-kernel time instead once
// the GPU is slower per kernel than the host is per call.
double measure_host_enqueue(const bench_config& cfg, cudaStream_t s, const std::function<void()>& call) {
  constexpr int batch = 100;
  for (int i = 0; i < batch; ++i) call();
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> us;
  const int batches = std::max(20, cfg.percall_calls * cfg.percall_samples / batch / 4);
  for (int k = 0; k < batches; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) call();
    const auto t1 = std::chrono::steady_clock::now();
    CUDA_CHECK(cudaStreamSynchronize(s));
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
  }
  return median(us);
}

void guarded(const std::string& what, const std::function<void()>& body) { bench::guarded(what, body, g_failures); }

// ---------------------------------------------------------------------------------------------------------------
// Cases.

struct context {
  bench_config cfg;
  cudaStream_t stream;
  gpu_timer* timer;
  std::int64_t l2_bytes;
};

ufunc::array device_view(void* p, ufunc::dtype t, ufunc::dim_vector shape) {
  return ufunc::array(p, t, std::move(shape), {}, {}, ufunc::device::cuda(0));
}

ufunc::call_options cuda_options(cudaStream_t s, std::vector<ufunc::array> out = {}) {
  // target::cuda by name: the build's default target is cpu, which refuses device operands (see the '# api' note).
  return {.out = std::move(out), .target = ufunc::target_id::cuda, .stream = {s}};
}

using bench::input_sets;

template <class T>
struct add_sets {
  std::vector<device_buffer<T>> a, b, c;
  std::vector<ufunc::array> ua, ub, uc;
  add_sets(std::int64_t n, int sets, cudaStream_t s) {
    for (int k = 0; k < sets; ++k) {
      a.emplace_back(n);
      b.emplace_back(n);
      c.emplace_back(n);
      fill(a.back().ptr, b.back().ptr, n, s);
      ua.push_back(device_view(a.back().ptr, ufunc::dtype_of<T>, {n}));
      ub.push_back(device_view(b.back().ptr, ufunc::dtype_of<T>, {n}));
      uc.push_back(device_view(c.back().ptr, ufunc::dtype_of<T>, {n}));
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
  }
  [[nodiscard]] int count() const { return static_cast<int>(a.size()); }
};

// The allocating ufunc call returns pool memory that may still hold a correct result from an earlier call; poison
// a block of the same size first and free it, so the pool most likely hands that block to the checked call.
template <class T>
void poison_pool_block(std::int64_t n, cudaStream_t s) {
  auto owner = ufunc::backends::cuda::allocate(static_cast<std::size_t>(n) * sizeof(T), 0, ufunc::stream_ref{s});
  poison(owner.get(), static_cast<std::size_t>(n) * sizeof(T), s);
}

// The vectorize cases: the functor is a user's extended lambda, compiled in this TU. (An extended lambda must live
// in a named function with a declared return type, hence this function rather than a lambda or main.)
template <class T>
void vectorize_add_case(context& ctx, const std::string& case_name, std::int64_t n, add_sets<T>& sets, int reps);

template <class T>
void add_case(context& ctx, const char* type_name, std::int64_t n, bool with_alloc) {
  const std::string case_name = std::string("add_") + type_name;
  const auto s = ctx.stream;
  const auto bytes = 3 * n * static_cast<std::int64_t>(sizeof(T));
  const int nsets = input_sets(bytes, ctx.l2_bytes);
  const int reps = n >= (std::int64_t{1} << 28) ? ctx.cfg.reps_large : ctx.cfg.reps;
  std::printf("# case,%s,n=%lld,input sets=%d\n", case_name.c_str(), static_cast<long long>(n), nsets);
  add_sets<T> sets(n, nsets, s);
  auto sum = [](std::int64_t i) { return value_a<T>(i) + value_b<T>(i); };
  const std::string tag = case_name + " n=" + std::to_string(n);

  guarded(tag + " ufunc", [&] {
    std::vector<ufunc::call_options> opts;
    for (int k = 0; k < nsets; ++k) opts.push_back(cuda_options(s, {sets.uc[k]}));
    poison(sets.c[0].ptr, sets.c[0].bytes(), s);
    (void)ufunc::add(sets.ua[0], sets.ub[0], opts[0]);
    validate(case_name, "ufunc", sets.c[0].ptr, n, sum, s);
    const double t = ctx.timer->measure(tag + " ufunc", ctx.cfg.warmup, reps, [&](int r) {
      const int k = r % nsets;
      (void)ufunc::add(sets.ua[k], sets.ub[k], opts[k]);
    });
    emit(case_name, "ufunc", n, bytes, t);
  });

  if (with_alloc) {
    guarded(tag + " ufunc alloc", [&] {
      const auto opts = cuda_options(s);
      poison_pool_block<T>(n, s);
      const auto r0 = ufunc::add(sets.ua[0], sets.ub[0], opts);
      validate(case_name + "_alloc", "ufunc", reinterpret_cast<const T*>(r0.data()), n, sum, s);
      const double t = ctx.timer->measure(tag + " ufunc alloc", ctx.cfg.warmup, reps, [&](int r) {
        const int k = r % nsets;
        (void)ufunc::add(sets.ua[k], sets.ub[k], opts);  // the result goes back to the pool, stream-ordered
      });
      emit(case_name + "_alloc", "ufunc", n, bytes, t);
    });
  }

  // The light contiguous kernel (ufuncs outside the cub::DeviceTransform set use it at every size): fmax moves the
  // same bytes as add. Impl "light" in the CSV; compare with "ufunc" (cub) and "memcpy".
  guarded(tag + " light", [&] {
    std::vector<ufunc::call_options> opts;
    for (int k = 0; k < nsets; ++k) opts.push_back(cuda_options(s, {sets.uc[k]}));
    poison(sets.c[0].ptr, sets.c[0].bytes(), s);
    (void)ufunc::fmax(sets.ua[0], sets.ub[0], opts[0]);
    validate(
        case_name, "light", sets.c[0].ptr, n, [](std::int64_t i) { return std::max(value_a<T>(i), value_b<T>(i)); }, s);
    const double t = ctx.timer->measure(tag + " light", ctx.cfg.warmup, reps, [&](int r) {
      const int k = r % nsets;
      (void)ufunc::fmax(sets.ua[k], sets.ub[k], opts[k]);
    });
    emit(case_name, "light", n, bytes, t);
  });

  vectorize_add_case<T>(ctx, case_name, n, sets, reps);

  // cub::DeviceTransform with the int64 count ufunc passes it (the count's type picks cub's offset type).
  {
    auto cub_add = [&](int k) {
      CUDA_CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(sets.a[k].ptr, sets.b[k].ptr), sets.c[k].ptr, n,
                                                 add_op<T>{}, s));
    };
    poison(sets.c[0].ptr, sets.c[0].bytes(), s);
    cub_add(0);
    validate(case_name, "cub", sets.c[0].ptr, n, sum, s);
    const double t = ctx.timer->measure(tag + " cub", ctx.cfg.warmup, reps, [&](int r) { cub_add(r % nsets); });
    emit(case_name, "cub", n, bytes, t);
  }

  // The bandwidth reference: the output's bytes copied device to device (read once, written once).
  {
    auto copy = [&](int k) {
      CUDA_CHECK(cudaMemcpyAsync(sets.c[k].ptr, sets.a[k].ptr, sets.c[k].bytes(), cudaMemcpyDeviceToDevice, s));
    };
    poison(sets.c[0].ptr, sets.c[0].bytes(), s);
    copy(0);
    validate(
        case_name, "memcpy", sets.c[0].ptr, n, [](std::int64_t i) { return value_a<T>(i); }, s);
    const double t = ctx.timer->measure(tag + " memcpy", ctx.cfg.warmup, reps, [&](int r) { copy(r % nsets); });
    emit(case_name, "memcpy", n, 2 * n * static_cast<std::int64_t>(sizeof(T)), t);
  }
}

template <class T>
void vectorize_add_case(context& ctx, const std::string& case_name, std::int64_t n, add_sets<T>& sets, int reps) {
  // Typed parameters: nvcc rejects generic __host__ __device__ extended lambdas ((auto x, auto y) does not compile).
  const auto add =
      ufunc::vectorize<T(T, T), ufunc::target::cuda>([] __host__ __device__(T x, T y) { return x + y; }, "bench_add");
  const auto s = ctx.stream;
  const auto bytes = 3 * n * static_cast<std::int64_t>(sizeof(T));
  const int nsets = sets.count();
  const std::string tag = case_name + " n=" + std::to_string(n) + " vectorize";
  guarded(tag, [&] {
    std::vector<ufunc::array_t<T>> ta, tb;
    std::vector<ufunc::call_options> opts;
    for (int k = 0; k < nsets; ++k) {
      ta.emplace_back(sets.ua[k]);
      tb.emplace_back(sets.ub[k]);
      opts.push_back(ufunc::call_options{.out = {sets.uc[k]}, .stream = {s}});  // the target comes from vectorize<>
    }
    poison(sets.c[0].ptr, sets.c[0].bytes(), s);
    (void)add(ta[0], tb[0], opts[0]);  // typed path: the T(T, T) loop is chosen at compile time
    validate(
        case_name, "vectorize", sets.c[0].ptr, n, [](std::int64_t i) { return value_a<T>(i) + value_b<T>(i); }, s);
    const double t = ctx.timer->measure(tag, ctx.cfg.warmup, reps, [&](int r) {
      const int k = r % nsets;
      (void)add(ta[k], tb[k], opts[k]);
    });
    emit(case_name, "vectorize", n, bytes, t);
  });
}

// (8192, 1) + (1, 8192) -> (8192, 8192) float32; GB/s of the output only.
void broadcast_case(context& ctx) {
  constexpr std::int64_t rows = 8192, cols = 8192, n = rows * cols;
  const auto s = ctx.stream;
  const std::int64_t bytes = n * 4;
  std::printf("# case,bcast_f32,(8192,1)+(1,8192),GB/s of output bytes\n");
  std::printf("# case,outer_f32,multiply.outer of two 8192-vectors,GB/s of output bytes\n");
  device_buffer<float> a(rows), b(cols), c(n);
  fill(a.ptr, b.ptr, rows, s);  // rows == cols: one fill gives a[r] = value_a(r), b[c] = value_b(c)
  CUDA_CHECK(cudaStreamSynchronize(s));
  const auto ua = device_view(a.ptr, ufunc::float32, {rows, 1});
  const auto ub = device_view(b.ptr, ufunc::float32, {1, cols});
  const auto uc = device_view(c.ptr, ufunc::float32, {rows, cols});
  auto reference = [](std::int64_t i) { return value_a<float>(i / cols) + value_b<float>(i % cols); };

  guarded("bcast_f32 ufunc", [&] {
    const auto opts = cuda_options(s, {uc});
    poison(c.ptr, c.bytes(), s);
    (void)ufunc::add(ua, ub, opts);
    validate("bcast_f32", "ufunc", c.ptr, n, reference, s);
    emit("bcast_f32", "ufunc", n, bytes, ctx.timer->measure("bcast_f32 ufunc", ctx.cfg.warmup, ctx.cfg.reps, [&](int) {
      (void)ufunc::add(ua, ub, opts);
    }));
  });
  guarded("bcast_f32 ufunc alloc", [&] {
    const auto opts = cuda_options(s);
    poison_pool_block<float>(n, s);
    const auto r0 = ufunc::add(ua, ub, opts);
    validate("bcast_f32_alloc", "ufunc", reinterpret_cast<const float*>(r0.data()), n, reference, s);
    emit("bcast_f32_alloc", "ufunc", n, bytes,
         ctx.timer->measure("bcast_f32 ufunc alloc", ctx.cfg.warmup, ctx.cfg.reps,
                            [&](int) { (void)ufunc::add(ua, ub, opts); }));
  });
  // np.multiply.outer of two 8192-vectors into the same (8192, 8192) output (issue: outer against CuPy).
  const auto va = device_view(a.ptr, ufunc::float32, {rows});
  const auto vb = device_view(b.ptr, ufunc::float32, {cols});
  auto outer_reference = [](std::int64_t i) { return value_a<float>(i / cols) * value_b<float>(i % cols); };
  guarded("outer_f32 ufunc", [&] {
    const auto opts = cuda_options(s, {uc});
    poison(c.ptr, c.bytes(), s);
    (void)ufunc::multiply.outer(va, vb, opts);
    validate("outer_f32", "ufunc", c.ptr, n, outer_reference, s);
    emit("outer_f32", "ufunc", n, bytes, ctx.timer->measure("outer_f32 ufunc", ctx.cfg.warmup, ctx.cfg.reps, [&](int) {
      (void)ufunc::multiply.outer(va, vb, opts);
    }));
  });
  guarded("outer_f32 ufunc alloc", [&] {
    const auto opts = cuda_options(s);
    poison_pool_block<float>(n, s);
    const auto r0 = ufunc::multiply.outer(va, vb, opts);
    validate("outer_f32_alloc", "ufunc", reinterpret_cast<const float*>(r0.data()), n, outer_reference, s);
    emit("outer_f32_alloc", "ufunc", n, bytes,
         ctx.timer->measure("outer_f32 ufunc alloc", ctx.cfg.warmup, ctx.cfg.reps,
                            [&](int) { (void)ufunc::multiply.outer(va, vb, opts); }));
  });
  // Write-bandwidth reference for an output-bound case: cudaMemsetAsync of the output.
  emit("outer_f32", "memset", n, bytes, ctx.timer->measure("outer_f32 memset", ctx.cfg.warmup, ctx.cfg.reps, [&](int) {
    CUDA_CHECK(cudaMemsetAsync(c.ptr, 0, c.bytes(), s));
  }));
  emit("bcast_f32", "memset", n, bytes, ctx.timer->measure("bcast_f32 memset", ctx.cfg.warmup, ctx.cfg.reps, [&](int) {
    CUDA_CHECK(cudaMemsetAsync(c.ptr, 0, c.bytes(), s));
  }));
}

// a[:, ::2] + b[:, ::2] for (8192, 16384) float32 a, b -> (8192, 8192).
void strided_case(context& ctx) {
  constexpr std::int64_t rows = 8192, cols = 16384, out_cols = cols / 2, n = rows * out_cols;
  const auto s = ctx.stream;
  const std::int64_t bytes = 3 * n * 4;
  std::printf(
      "# case,strided_f32,a[:, ::2] + b[:, ::2] of (8192,16384),GB/s of needed bytes (DRAM reads twice as "
      "much input)\n");
  device_buffer<float> a(rows * cols), b(rows * cols), c(n);
  fill(a.ptr, b.ptr, rows * cols, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  const ufunc::index every_second = ufunc::slice{0, std::nullopt, 2};
  const auto ua = device_view(a.ptr, ufunc::float32, {rows, cols})[{ufunc::slice{}, every_second}];
  const auto ub = device_view(b.ptr, ufunc::float32, {rows, cols})[{ufunc::slice{}, every_second}];
  const auto uc = device_view(c.ptr, ufunc::float32, {rows, out_cols});
  auto reference = [](std::int64_t i) {
    const std::int64_t src = (i / out_cols) * cols + 2 * (i % out_cols);
    return value_a<float>(src) + value_b<float>(src);
  };

  guarded("strided_f32 ufunc", [&] {
    const auto opts = cuda_options(s, {uc});
    poison(c.ptr, c.bytes(), s);
    (void)ufunc::add(ua, ub, opts);
    validate("strided_f32", "ufunc", c.ptr, n, reference, s);
    emit("strided_f32", "ufunc", n, bytes,
         ctx.timer->measure("strided_f32 ufunc", ctx.cfg.warmup, ctx.cfg.reps,
                            [&](int) { (void)ufunc::add(ua, ub, opts); }));
  });
  guarded("strided_f32 ufunc alloc", [&] {
    const auto opts = cuda_options(s);
    poison_pool_block<float>(n, s);
    const auto r0 = ufunc::add(ua, ub, opts);
    validate("strided_f32_alloc", "ufunc", reinterpret_cast<const float*>(r0.data()), n, reference, s);
    emit("strided_f32_alloc", "ufunc", n, bytes,
         ctx.timer->measure("strided_f32 ufunc alloc", ctx.cfg.warmup, ctx.cfg.reps,
                            [&](int) { (void)ufunc::add(ua, ub, opts); }));
  });
}

void vectorize_percall(context& ctx, const ufunc::array& ua, const ufunc::array& ub, const ufunc::array& uc);

// Host time per call for 1024 float32 elements: what a small call costs the issuing thread. When the GPU is slower
// per call than the host, the launch queue fills and this measures the GPU's per-kernel time instead.
void percall_case(context& ctx) {
  constexpr std::int64_t n = 1024;
  const auto s = ctx.stream;
  const std::int64_t bytes = 3 * n * 4;
  std::printf("# case,percall_f32,n=1024,host time per call over %d back-to-back calls (median of %d samples)\n",
              ctx.cfg.percall_calls, ctx.cfg.percall_samples);
  device_buffer<float> a(n), b(n), c(n);
  fill(a.ptr, b.ptr, n, s);
  const auto ua = device_view(a.ptr, ufunc::float32, {n});
  const auto ub = device_view(b.ptr, ufunc::float32, {n});
  const auto uc = device_view(c.ptr, ufunc::float32, {n});
  auto sum = [](std::int64_t i) { return value_a<float>(i) + value_b<float>(i); };

  guarded("percall ufunc", [&] {
    const auto opts = cuda_options(s, {uc});
    poison(c.ptr, c.bytes(), s);
    (void)ufunc::add(ua, ub, opts);
    validate("percall_f32", "ufunc", c.ptr, n, sum, s);
    emit("percall_f32", "ufunc", n, bytes, measure_host_per_call(ctx.cfg, s, [&] { (void)ufunc::add(ua, ub, opts); }));
    emit("percall_f32_enqueue", "ufunc", n, bytes,
         measure_host_enqueue(ctx.cfg, s, [&] { (void)ufunc::add(ua, ub, opts); }));
  });
  guarded("percall ufunc alloc", [&] {
    const auto opts = cuda_options(s);
    emit("percall_f32_alloc", "ufunc", n, bytes,
         measure_host_per_call(ctx.cfg, s, [&] { (void)ufunc::add(ua, ub, opts); }));
  });
  vectorize_percall(ctx, ua, ub, uc);
  {
    auto cub_add = [&] {
      CUDA_CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(a.ptr, b.ptr), c.ptr, n, add_op<float>{}, s));
    };
    poison(c.ptr, c.bytes(), s);
    cub_add();
    validate("percall_f32", "cub", c.ptr, n, sum, s);
    emit("percall_f32", "cub", n, bytes, measure_host_per_call(ctx.cfg, s, cub_add));
    emit("percall_f32_enqueue", "cub", n, bytes, measure_host_enqueue(ctx.cfg, s, cub_add));
  }
  {
    // The pieces of ufunc's per-call cost, each timed alone (no profiler on the GPU machine): the launcher that
    // ufunc::add's float32 loop ends in, called with a prepared device_call (no resolution, no checks), and the
    // same ufunc::add call on host arrays with target cpu (the host-side work shared by every target).
    ufunc::device_call call;
    call.nin = 2;
    call.nout = 1;
    call.ndim = 1;
    call.size = n;
    call.device = 0;
    call.stream = s;
    call.shape[0] = n;
    call.base[0] = reinterpret_cast<std::byte*>(a.ptr);
    call.base[1] = reinterpret_cast<std::byte*>(b.ptr);
    call.base[2] = reinterpret_cast<std::byte*>(c.ptr);
    for (int k = 0; k < 3; ++k) call.strides[k][0] = 4;
    const add_op<float> op{};
    const auto launcher = ufunc::backends::cuda::device_loop<float(float, float), add_op<float>>;
    const auto launch = [&] { launcher(call, &op); };
    poison(c.ptr, c.bytes(), s);
    launch();
    validate("percall_f32", "launcher", c.ptr, n, sum, s);
    emit("percall_f32_enqueue", "launcher", n, bytes, measure_host_enqueue(ctx.cfg, s, launch));
    // The whole device path but the launch: the same call on empty device arrays.
    const auto e0 = device_view(a.ptr, ufunc::float32, {0});
    const auto e1 = device_view(b.ptr, ufunc::float32, {0});
    const auto eopts = cuda_options(s, {device_view(c.ptr, ufunc::float32, {0})});
    emit("percall_f32_enqueue", "ufunc_no_launch", n, bytes,
         measure_host_enqueue(ctx.cfg, s, [&] { (void)ufunc::add(e0, e1, eopts); }));
    const auto ha = ufunc::to_host(ua, {s}), hb = ufunc::to_host(ub, {s});
    auto hc = ufunc::array::empty({n}, ufunc::float32);
    const ufunc::call_options host_opts{.out = {hc}, .target = ufunc::target_id::cpu};
    emit("percall_f32_enqueue", "cpu_target", n, bytes,
         measure_host_enqueue(ctx.cfg, s, [&] { (void)ufunc::add(ha, hb, host_opts); }));
  }
  {
    // The floor: launching a kernel that does nothing, with the grid a 1024-element kernel would have.
    const auto launch = [&] { empty_kernel<<<4, 256, 0, s>>>(); };
    const double t = measure_host_per_call(ctx.cfg, s, launch);
    const double te = measure_host_enqueue(ctx.cfg, s, launch);
    CUDA_CHECK(cudaGetLastError());
    emit("percall_f32", "empty_kernel", n, bytes, t);
    emit("percall_f32_enqueue", "empty_kernel", n, bytes, te);
  }
}

void vectorize_percall(context& ctx, const ufunc::array& ua, const ufunc::array& ub, const ufunc::array& uc) {
  const auto add = ufunc::vectorize<float(float, float), ufunc::target::cuda>(
      [] __host__ __device__(float x, float y) { return x + y; }, "bench_add");
  const auto s = ctx.stream;
  guarded("percall vectorize", [&] {
    const ufunc::array_t<float> ta(ua), tb(ub);
    const ufunc::call_options opts{.out = {uc}, .stream = {s}};
    poison(uc.data(), static_cast<std::size_t>(uc.nbytes()), s);
    (void)add(ta, tb, opts);
    validate(
        "percall_f32", "vectorize", reinterpret_cast<const float*>(uc.data()), uc.size(),
        [](std::int64_t i) { return value_a<float>(i) + value_b<float>(i); }, s);
    emit("percall_f32", "vectorize", uc.size(), 3 * uc.nbytes(),
         measure_host_per_call(ctx.cfg, s, [&] { (void)add(ta, tb, opts); }));
    emit("percall_f32_enqueue", "vectorize", uc.size(), 3 * uc.nbytes(),
         measure_host_enqueue(ctx.cfg, s, [&] { (void)add(ta, tb, opts); }));
  });
}

// What the plain call of the brief, ufunc::add(device a, device b) with no target, does in this build.
void api_note(cudaStream_t s) {
  device_buffer<float> a(16), b(16);
  fill(a.ptr, b.ptr, 16, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  const auto ua = device_view(a.ptr, ufunc::float32, {16});
  const auto ub = device_view(b.ptr, ufunc::float32, {16});
  try {
    const auto r = ufunc::add(ua, ub);
    std::printf("# api,ufunc::add(device, device) without a target runs on %s\n", r.device().str().c_str());
  } catch (const std::exception& e) {
    std::printf(
        "# api,ufunc::add(device, device) without a target throws: %s (the timed calls name "
        "target_id::cuda; UFUNC_TARGET=cuda or automatic would also do)\n",
        e.what());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

// ---------------------------------------------------------------------------------------------------------------

void print_table() {
  // Columns in this order when present; rows keep first-seen order.
  const std::vector<std::string> impls = {"ufunc", "light", "vectorize", "cub", "memcpy", "memset", "empty_kernel"};
  std::vector<std::pair<std::string, std::int64_t>> rows;
  std::map<std::pair<std::string, std::int64_t>, std::map<std::string, const result*>> cells;
  for (const auto& r : g_results) {
    const auto key = std::make_pair(r.case_name, r.n);
    if (!cells.count(key)) rows.push_back(key);
    cells[key][r.impl] = &r;
  }
  std::printf("\n%-18s %11s", "case", "n");
  for (const auto& i : impls) std::printf(" %12s", i.c_str());
  std::printf("   (GB/s; percall_*: us per call)\n");
  for (const auto& key : rows) {
    std::printf("%-18s %11lld", key.first.c_str(), static_cast<long long>(key.second));
    const bool per_call = key.first.rfind("percall", 0) == 0;
    for (const auto& i : impls) {
      const auto it = cells[key].find(i);
      if (it == cells[key].end()) {
        std::printf(" %12s", "-");
      } else {
        const auto& r = *it->second;
        std::printf(" %12.1f", per_call ? r.median_us : static_cast<double>(r.bytes) / r.median_us / 1e3);
      }
    }
    std::printf("\n");
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The size sweep (cuda_bench --sweep): the cases of bench/sweep_common.hpp on the GPU, float32 and float64,
// 2^10..2^28 elements in steps of x4, in the sweep's raw format (case,dtype,size,impl,seconds,bytes). Impls:
// ufunc_cuda (the built-in ufuncs with target cuda on device arrays, out= preallocated), cub (cub::DeviceTransform
// for the elementwise contiguous cases, cub::DeviceReduce::Sum for the sum), memcpy_bound (cudaMemcpyAsync device
// to device of n elements, case "copy"). call1024 is host time per allocating call on device arrays (cub: into a
// preallocated output, and empty_kernel: an empty launch, the floor). gpu_peers.py --sweep measures CuPy and
// PyTorch the same way; bench/run_all_gpu.sh merges both.

namespace gpu_sweep {

// The inputs of sweep_common.hpp, computed on the device with correctly rounded operations only (no fused
// multiply-add), so that the host's sweep::value_a / value_b give the same bits for the checks.
__device__ inline float mul_rn(float x, float y) { return __fmul_rn(x, y); }
__device__ inline double mul_rn(double x, double y) { return __dmul_rn(x, y); }
__device__ inline float add_rn(float x, float y) { return __fadd_rn(x, y); }
__device__ inline double add_rn(double x, double y) { return __dadd_rn(x, y); }

template <class T>
__global__ void fill_sweep(T* a, std::int64_t na, T* b, std::int64_t nb) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < na;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    a[i] = add_rn(mul_rn(static_cast<T>(i % 1000), static_cast<T>(0.01)), static_cast<T>(-5));
    if (i < nb) b[i] = mul_rn(static_cast<T>(i % 777), static_cast<T>(0.02));
  }
}

template <class T>
struct square_op {
  __device__ T operator()(T x) const { return x * x; }
};
template <class T>
struct sin_op {
  __device__ T operator()(T x) const { return sin(x); }
};
template <class T>
struct exp_op {
  __device__ T operator()(T x) const { return exp(x); }
};

// exp for the ufunc rows when the library has no built-in one: vectorize over the device's exp.
// The scalar overloads run on the device (and the host); the batch overload is the host's SIMD loop (xsimd::exp).
// A template, so that a build with a built-in ufunc::exp, which never uses it, does not warn about it.
template <class = void>
struct exp_fn {
  UFUNC_HOST_DEVICE float operator()(float x) const { return ::expf(x); }
  UFUNC_HOST_DEVICE double operator()(double x) const { return ::exp(x); }
  // clang-format 14 would join the requires-clause onto the declaration.
  // clang-format off
  template <class B>
    requires(!std::is_arithmetic_v<B>)
  B operator()(const B& x) const {
    using std::exp;
    return exp(x);
  }
  // clang-format on
};

template <class T>
constexpr const char* dtype_name() {
  return sizeof(T) == 4 ? "f32" : "f64";
}

// One input set: a2 (2n elements; a is its first n, the strided case reads every second one), b, c (n), s (the
// sum's output), and their ufunc views.
template <class T>
struct sweep_set {
  device_buffer<T> a2, b, c, s;
  ufunc::array ua, ua2s, ub, uc, ucol, urow, uc2d, us;
  sweep_set(std::int64_t n, std::int64_t r, cudaStream_t st) : a2(2 * n), b(n), c(n), s(1) {
    fill_sweep<T><<<1024, 256, 0, st>>>(a2.ptr, 2 * n, b.ptr, n);
    CUDA_CHECK(cudaGetLastError());
    const auto dt = ufunc::dtype_of<T>;
    ua = device_view(a2.ptr, dt, {n});
    ua2s = device_view(a2.ptr, dt, {2 * n})[{ufunc::slice{std::nullopt, std::nullopt, 2}}];
    ub = device_view(b.ptr, dt, {n});
    uc = device_view(c.ptr, dt, {n});
    ucol = device_view(a2.ptr, dt, {r, 1});
    urow = device_view(b.ptr, dt, {1, r});
    uc2d = device_view(c.ptr, dt, {r, r});
    us = device_view(s.ptr, dt, {});
  }
};

struct sweep_state {
  context* ctx;
  sweep::options opt;
  int reps = 30, reps_large = 20, warmup = 5;
};

// Compares the device result (n elements) with want(i): all of it up to 2^22 elements, else the first and the
// last 2^21 (a full host copy and reference at 2^28 would take longer than the case).
template <class T, class Want>
void check_device(const std::string& what, const T* dev, std::int64_t n, Want want, double tol, cudaStream_t s) {
  CUDA_CHECK(cudaStreamSynchronize(s));
  const std::int64_t part = std::int64_t{1} << 21;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  if (n <= 2 * part)
    ranges = {{0, n}};
  else
    ranges = {{0, part}, {n - part, part}};
  bool ok = true;
  double worst = 0;
  std::int64_t at = -1;
  for (auto [first, len] : ranges) {
    std::vector<T> got(static_cast<std::size_t>(len));
    CUDA_CHECK(cudaMemcpy(got.data(), dev + first, static_cast<std::size_t>(len) * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::int64_t j = 0; j < len; ++j) {
      const double w = static_cast<double>(want(first + j));
      const double e = std::fabs(static_cast<double>(got[j]) - w) / std::max(1.0, std::fabs(w));
      if (!(e <= worst)) {
        worst = std::isnan(e) ? INFINITY : e;
        at = first + j;
      }
    }
  }
  ok = worst <= tol;
  std::printf("# check,%s,%s,max_rel_err=%g%s\n", what.c_str(), ok ? "ok" : "FAIL", worst,
              ok ? "" : (" at " + std::to_string(at)).c_str());
  if (!ok) {
    ++g_failures;
    std::fprintf(stderr, "CHECK FAILED: %s: max relative error %g at %lld\n", what.c_str(), worst,
                 static_cast<long long>(at));
  }
  std::fflush(stdout);
}

template <class T>
void run_sweep_size(sweep_state& st, std::int64_t n, sweep::progress& prog) {
  auto& ctx = *st.ctx;
  const auto s = ctx.stream;
  const std::string dt = dtype_name<T>();
  const auto r = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(n))));
  const int nsets = input_sets(4 * n * static_cast<std::int64_t>(sizeof(T)), ctx.l2_bytes);
  const int reps = n >= (std::int64_t{1} << 28) ? st.reps_large : st.reps;
  std::vector<sweep_set<T>> sets;
  sets.reserve(static_cast<std::size_t>(nsets));
  for (int k = 0; k < nsets; ++k) sets.emplace_back(n, r, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  const auto va = [](std::int64_t i) { return sweep::value_a<T>(i); };
  const auto vb = [](std::int64_t i) { return sweep::value_b<T>(i); };

  // Times enqueue(set) on the device (one call per rep, sets rotated), emits the row, checks set 0's result.
  auto device_case = [&](const std::string& c, const std::string& impl, const std::function<void(sweep_set<T>&)>& call,
                         const std::function<double(std::int64_t)>& want) {
    const std::string what = c + " " + dt + " n=" + std::to_string(n) + " " + impl;
    guarded(what, [&] {
      poison(sets[0].c.ptr, sets[0].c.bytes(), s);
      call(sets[0]);
      if (want) check_device(what, sets[0].c.ptr, n, want, sweep::tolerance<T>(c), s);
      const double us = ctx.timer->measure(what, st.warmup, reps, [&](int rep) { call(sets[rep % nsets]); });
      sweep::emit(c, dt, n, impl, us * 1e-6, sweep::bytes_moved(c, n, sizeof(T)));
    });
  };
  auto opts_for = [&](const ufunc::array& out) { return cuda_options(s, {out}); };

  prog.step(dt, n, "copy");
  guarded("copy " + dt, [&] {
    const double us = ctx.timer->measure("copy", st.warmup, reps, [&](int rep) {
      auto& set = sets[rep % nsets];
      CUDA_CHECK(cudaMemcpyAsync(set.c.ptr, set.a2.ptr, set.c.bytes(), cudaMemcpyDeviceToDevice, s));
    });
    sweep::emit("copy", dt, n, "memcpy_bound", us * 1e-6, sweep::bytes_moved("copy", n, sizeof(T)));
  });

  for (const auto& c : st.opt.cases) {
    if (c == "call1024") continue;
    prog.step(dt, n, c);
    if (c == "add") {
      device_case(
          c, "ufunc_cuda", [&](sweep_set<T>& x) { (void)ufunc::add(x.ua, x.ub, opts_for(x.uc)); },
          [&](std::int64_t i) { return static_cast<double>(va(i) + vb(i)); });
      device_case(
          c, "cub",
          [&](sweep_set<T>& x) {
            CUDA_CHECK(
                cub::DeviceTransform::Transform(cuda::std::make_tuple(x.a2.ptr, x.b.ptr), x.c.ptr, n, add_op<T>{}, s));
          },
          [&](std::int64_t i) { return static_cast<double>(va(i) + vb(i)); });
    } else if (c == "square") {
      device_case(
          c, "ufunc_cuda", [&](sweep_set<T>& x) { (void)ufunc::square(x.ua, opts_for(x.uc)); },
          [&](std::int64_t i) { return static_cast<double>(va(i) * va(i)); });
      device_case(
          c, "cub",
          [&](sweep_set<T>& x) {
            CUDA_CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(x.a2.ptr), x.c.ptr, n, square_op<T>{}, s));
          },
          [&](std::int64_t i) { return static_cast<double>(va(i) * va(i)); });
    } else if (c == "sin") {
      auto want = [&](std::int64_t i) { return static_cast<double>(std::sin(va(i))); };
      device_case(
          c, "ufunc_cuda", [&](sweep_set<T>& x) { (void)ufunc::sin(x.ua, opts_for(x.uc)); }, want);
      device_case(
          c, "cub",
          [&](sweep_set<T>& x) {
            CUDA_CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(x.a2.ptr), x.c.ptr, n, sin_op<T>{}, s));
          },
          want);
    } else if (c == "exp") {
      auto want = [&](std::int64_t i) { return static_cast<double>(std::exp(va(i))); };
      if constexpr (!sweep::is_absent<decltype(ufunc::exp)>) {
        device_case(
            c, "ufunc_cuda", [&](sweep_set<T>& x) { (void)ufunc::exp(x.ua, opts_for(x.uc)); }, want);
      } else {
        const auto vexp = ufunc::vectorize<T(T), ufunc::target::cuda>(exp_fn<>{}, "sweep_exp");
        device_case(
            c, "ufunc_cuda",
            [&](sweep_set<T>& x) {
              (void)vexp(ufunc::array_t<T>(x.ua), ufunc::call_options{.out = {x.uc}, .stream = {s}});
            },
            want);
      }
      device_case(
          c, "cub",
          [&](sweep_set<T>& x) {
            CUDA_CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(x.a2.ptr), x.c.ptr, n, exp_op<T>{}, s));
          },
          want);
    } else if (c == "bcast") {
      if (r * r != n) continue;
      device_case(
          c, "ufunc_cuda", [&](sweep_set<T>& x) { (void)ufunc::add(x.ucol, x.urow, opts_for(x.uc2d)); },
          [&](std::int64_t i) { return static_cast<double>(va(i / r) + vb(i % r)); });
    } else if (c == "strided") {
      device_case(
          c, "ufunc_cuda", [&](sweep_set<T>& x) { (void)ufunc::add(x.ua2s, x.ub, opts_for(x.uc)); },
          [&](std::int64_t i) { return static_cast<double>(va(2 * i) + vb(i)); });
    } else if (c == "sum") {
      // The reference once per size: a compensated (Kahan) double sum of the formula (the device data has the same
      // bits). No long double here: nvcc warns that device code treats it as double.
      double ref = 0, comp = 0, abs_ref = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const double y = static_cast<double>(va(i)) - comp, t = ref + y;
        comp = (t - ref) - y;
        ref = t;
        abs_ref += std::fabs(static_cast<double>(va(i)));
      }
      auto sum_case = [&](const std::string& impl, const std::function<void(sweep_set<T>&)>& call) {
        const std::string what = "sum " + dt + " n=" + std::to_string(n) + " " + impl;
        guarded(what, [&] {
          poison(sets[0].s.ptr, sizeof(T), s);
          try {
            call(sets[0]);
          } catch (const ufunc::target_error& e) {  // a reduce the library does not run on the GPU: not a failure
            std::printf("# skip,%s: %s\n", what.c_str(), e.what());
            return;
          }
          T got{};
          CUDA_CHECK(cudaStreamSynchronize(s));
          CUDA_CHECK(cudaMemcpy(&got, sets[0].s.ptr, sizeof(T), cudaMemcpyDeviceToHost));
          const double err = std::fabs(static_cast<double>(got) - ref) / std::max(1.0, abs_ref);
          const bool ok = err <= sweep::tolerance<T>("sum");
          std::printf("# check,%s,%s,rel_err_vs_sum_abs=%g\n", what.c_str(), ok ? "ok" : "FAIL", err);
          g_failures += !ok;
          const double us = ctx.timer->measure(what, st.warmup, reps, [&](int rep) { call(sets[rep % nsets]); });
          sweep::emit("sum", dt, n, impl, us * 1e-6, sweep::bytes_moved("sum", n, sizeof(T)));
        });
      };
      using add_type = std::remove_cvref_t<decltype(ufunc::add)>;
      if constexpr (sweep::has_reduce_target<add_type, ufunc::array_t<T>>) {
        sum_case("ufunc_cuda", [&](sweep_set<T>& x) {
          // array_t<T>: an operand whose type depends on T, so that this call is compiled only where the probe
          // found reduce.
          const auto res =
              sweep::reduce_on(ufunc::add, ufunc::array_t<T>(x.ua), ufunc::target_id::cuda, ufunc::stream_ref{s});
          if constexpr (requires { res.data(); }) {  // a device 0-d array: copy it into s (stream-ordered)
            CUDA_CHECK(cudaMemcpyAsync(x.s.ptr, res.data(), sizeof(T), cudaMemcpyDeviceToDevice, s));
          } else {
            const T v = static_cast<T>(res);
            CUDA_CHECK(cudaMemcpyAsync(x.s.ptr, &v, sizeof(T), cudaMemcpyHostToDevice, s));
            CUDA_CHECK(cudaStreamSynchronize(s));
          }
        });
      } else {
        static bool said = false;
        if (!said)
          std::printf("# skip,sum: ufunc::add.reduce(a, {.target}) is not in this build; no ufunc_cuda rows\n");
        said = true;
      }
      // cub::DeviceReduce::Sum with its temporary storage allocated once, outside the timing.
      std::size_t temp_bytes = 0;
      CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, sets[0].a2.ptr, sets[0].s.ptr, n, s));
      device_buffer<unsigned char> temp(static_cast<std::int64_t>(std::max<std::size_t>(temp_bytes, 1)));
      sum_case("cub", [&](sweep_set<T>& x) {
        CUDA_CHECK(cub::DeviceReduce::Sum(temp.ptr, temp_bytes, x.a2.ptr, x.s.ptr, n, s));
      });
    } else {
      std::printf("# skip,unknown case '%s'\n", c.c_str());
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
}

// 1024 elements, host time per call (back-to-back calls, one synchronization at the end).
template <class T>
void run_sweep_call1024(sweep_state& st) {
  auto& ctx = *st.ctx;
  const auto s = ctx.stream;
  const std::int64_t n = 1024;
  const std::string dt = dtype_name<T>();
  sweep_set<T> x(n, 32, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  const auto bytes = sweep::bytes_moved("call1024", n, sizeof(T));
  guarded("call1024 ufunc", [&] {
    const auto opts = cuda_options(s);
    sweep::emit("call1024", dt, n, "ufunc_cuda",
                measure_host_per_call(ctx.cfg, s, [&] { (void)ufunc::add(x.ua, x.ub, opts); }) * 1e-6, bytes);
  });
  sweep::emit("call1024", dt, n, "cub",
              measure_host_per_call(ctx.cfg, s,
                                    [&] {
                                      CUDA_CHECK(cub::DeviceTransform::Transform(
                                          cuda::std::make_tuple(x.a2.ptr, x.b.ptr), x.c.ptr, n, add_op<T>{}, s));
                                    }) *
                  1e-6,
              bytes);
  const double t = measure_host_per_call(ctx.cfg, s, [&] { empty_kernel<<<4, 256, 0, s>>>(); });
  CUDA_CHECK(cudaGetLastError());
  sweep::emit("call1024", dt, n, "empty_kernel", t * 1e-6, bytes);
}

int run_sweep(context& ctx, const sweep::options& opt) {
  sweep_state st{&ctx, opt};
  if (ctx.cfg.quick) st.reps = 10, st.reps_large = 5, st.warmup = 2;
  if (ctx.cfg.reps_override > 0) st.reps = st.reps_large = ctx.cfg.reps_override;
  std::printf(
      "# meta,ufunc_cuda_timing,CUDA events around one call; median of %d reps (%d at 2^28) after %d warm-up; "
      "stream held until enqueued\n",
      st.reps, st.reps_large, st.warmup);
  if constexpr (sweep::is_absent<decltype(ufunc::exp)>)
    std::printf(
        "# note,exp: the library has no built-in ufunc::exp; ufunc_cuda rows are ufunc::vectorize over the "
        "device exp\n");
  sweep::progress prog("cuda_bench --sweep", opt);
  for (const auto& dt : opt.dtypes) {
    for (auto n : opt.sizes()) {
      if (dt == "f32") run_sweep_size<float>(st, n, prog);
      if (dt == "f64") run_sweep_size<double>(st, n, prog);
    }
    if (opt.wants_case("call1024")) {
      prog.step(dt, 1024, "call1024");
      if (dt == "f32") run_sweep_call1024<float>(st);
      if (dt == "f64") run_sweep_call1024<double>(st);
    }
  }
  prog.finish();
  return g_failures == 0 ? 0 : 1;
}

}  // namespace gpu_sweep

}  // namespace

int main(int argc, char** argv) {
  context ctx{};
  bool sweep_mode = false;
  sweep::options sweep_opt;
  sweep_opt.max_log2 = 28;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--sweep") {
      sweep_mode = true;
    } else if (arg == "--errstate-ignore") {  // no flags gathered on the device: their cost, by difference
      ufunc::seterr({.divide = ufunc::fp_policy::ignore,
                     .over = ufunc::fp_policy::ignore,
                     .under = ufunc::fp_policy::ignore,
                     .invalid = ufunc::fp_policy::ignore});
    } else if (arg == "--quick") {
      ctx.cfg.quick = true;
      ctx.cfg.reps = 10;
      ctx.cfg.reps_large = 5;
      ctx.cfg.warmup = 2;
      ctx.cfg.percall_calls = 2000;
      ctx.cfg.percall_samples = 3;
    } else if (arg == "--reps" && i + 1 < argc) {
      ctx.cfg.reps = ctx.cfg.reps_large = ctx.cfg.reps_override = std::max(1, std::atoi(argv[++i]));
    } else if (!sweep::parse_common(sweep_opt, argc, argv, i)) {
      std::fprintf(stderr, "usage: %s [--quick] [--reps N]\n       %s --sweep [--quick] [--reps N] %s\n", argv[0],
                   argv[0], sweep::usage_common());
      return 2;
    }
  }

  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  const auto [prop, l2, driver, runtime] = bench::print_device_line();
  std::printf(
      "# timing,device cases: median of %d reps (%d at 2^28) after %d warm-up, one call per rep between CUDA "
      "events, stream held until enqueued; percall: host clock over %d calls, median of %d samples\n",
      ctx.cfg.reps, ctx.cfg.reps_large, ctx.cfg.warmup, ctx.cfg.percall_calls, ctx.cfg.percall_samples);
  std::printf("# columns,case,impl,n,bytes_moved,median_us,GBps\n");

  // A non-blocking stream: no implicit ordering with the legacy default stream. Arrays ufunc allocates without a
  // stream in the options go on the thread's current stream, so that is set to it as well.
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ufunc::backends::cuda::set_current_stream({stream});
  gpu_timer timer(stream);
  ctx.stream = stream;
  ctx.timer = &timer;
  ctx.l2_bytes = l2;

  if (sweep_mode) {
    std::printf("# meta,gpu,%s (sm_%d%d; %d SMs; L2 %d MiB; %.0f GiB)\n", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount, l2 >> 20, static_cast<double>(prop.totalGlobalMem) / (1 << 30));
    std::printf("# meta,cuda_runtime,%d.%d (driver %d.%d)\n", runtime / 1000, runtime % 1000 / 10, driver / 1000,
                driver % 1000 / 10);
    std::printf("# meta,compiler,nvcc %d.%d with host compiler g++ %s\n", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__,
                __VERSION__);
    const int rc = gpu_sweep::run_sweep(ctx, sweep_opt);
    ufunc::backends::cuda::set_current_stream({});
    CUDA_CHECK(cudaStreamDestroy(stream));
    return rc;
  }
  api_note(stream);
  const std::vector<int> f32_exps = ctx.cfg.quick ? std::vector<int>{20, 24} : std::vector<int>{20, 24, 28};
  for (int e : f32_exps) add_case<float>(ctx, "f32", std::int64_t{1} << e, /*with_alloc=*/true);
  const std::vector<int> f64_exps = ctx.cfg.quick ? std::vector<int>{24} : std::vector<int>{24, 28};
  for (int e : f64_exps) add_case<double>(ctx, "f64", std::int64_t{1} << e, /*with_alloc=*/false);
  broadcast_case(ctx);
  strided_case(ctx);
  percall_case(ctx);

  CUDA_CHECK(cudaStreamSynchronize(stream));
  print_table();
  if (g_failures == 0)
    std::printf("\n# all checks passed\n");
  else
    std::printf("\n# %d check(s) or case(s) FAILED\n", g_failures);
  ufunc::backends::cuda::set_current_stream({});
  CUDA_CHECK(cudaStreamDestroy(stream));
  return g_failures == 0 ? 0 : 1;
}
