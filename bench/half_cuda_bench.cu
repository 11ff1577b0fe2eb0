// float16 and bfloat16 on the GPU (issue 21): c = a + b and c = sin(a) on device arrays through the library's cuda
// target (ufunc::add / ufunc::sin with out= preallocated), against cub::DeviceTransform over the same pointers, at
// 2^24 and 2^28 elements (--sizes). bench/half_gpu_peers.py times CuPy and PyTorch on the same data;
// bench/half_compare.py prints the ratios (the issue's target: ufunc add at least 0.97x cub at 2^28).
//
//   half_cuda_bench [--sizes 20,24,28] [--reps N]
//
// impls:
//   ufunc           the built-in loop (computed in float, rounded once: half_device_ops.hpp), NumPy's default
//                   errstate (the device gathers overflow and underflow flags)
//   ufunc_noflags   the same call under errstate ignore for every kind (no flags gathered)
//   cub_ufunc_t     cub::DeviceTransform with a functor over ufunc::float16_t / ufunc::bfloat16_t: converted to
//                   float, computed, rounded back (what the library's loop computes, without its flags)
//   cub_intrinsics  cub::DeviceTransform over __half / __nv_bfloat16 with cuda_fp16.h / cuda_bf16.h: __hadd for
//                   add; __float2half_rn(sinf(__half2float(x))) (bfloat16: __float2bfloat16_rn ...) for sin
//   cub_hsin        sin only: hsin(x), the headers' own half sin (its error is reported, not checked)
//   memcpy          cudaMemcpyAsync of the output's bytes, device to device: the bandwidth bound (bytes: 2 n x 2)
//
// The inputs are bench_common's a[i] = float(i % 1000) * 0.01f - 5, b[i] = float(i % 777) * 0.02f (every step
// rounded as on the host), rounded to the dtype. Every impl's result is checked against a host reference computed
// in float and rounded once: add bit for bit, sin within one unit of the dtype's last place (cub_hsin: reported);
// '# check' lines; exit 1 if one fails.
//
// Times: CUDA events around one call with the stream held until the call is enqueued (bench::gpu_timer,
// cuda_timing.hpp, as cuda_bench), median of --reps (30; 20 at 2^28) after 5 warm-up calls, input sets rotated
// below 4x the L2 (bench::input_sets). Output: '#' notes and checks, then CSV
//   op,dtype,impl,n,seconds,GBps
// with GBps = bytes / seconds, 1 GB = 1e9 bytes; bytes = (inputs + output) x 2 x n (add 6 n, sin 4 n).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>

#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/errstate.hpp>
#include <ufunc/core/transfer.hpp>
#include <ufunc/ufunc.hpp>

#include "cuda_timing.hpp"

namespace {

#define CUDA_CHECK(expr) bench::cuda_check((expr), #expr)

static_assert(sizeof(ufunc::float16_t) == sizeof(__half) && sizeof(ufunc::bfloat16_t) == sizeof(__nv_bfloat16));

// ---------------------------------------------------------------------------------------------------------------
// The functors of the cub rows.

// Over ufunc's element types: float, compute, round back (float16.hpp / bfloat16.hpp's conversions).
template <class T>
struct add_in_float {
  __device__ T operator()(T x, T y) const { return T(static_cast<float>(x) + static_cast<float>(y)); }
};
template <class T>
struct sin_in_float {
  __device__ T operator()(T x) const { return T(sinf(static_cast<float>(x))); }
};

// Over CUDA's types, with the headers' intrinsics.
template <class H>
struct add_intrinsic {
  __device__ H operator()(H x, H y) const { return __hadd(x, y); }
};
template <class H>
struct sin_intrinsic {
  __device__ H operator()(H x) const {
    if constexpr (std::is_same_v<H, __half>)
      return __float2half_rn(sinf(__half2float(x)));
    else
      return __float2bfloat16_rn(sinf(__bfloat162float(x)));
  }
};
template <class H>
struct sin_hsin {
  __device__ H operator()(H x) const { return hsin(x); }
};

// ufunc's element type -> CUDA's.
template <class T>
using cuda_half = std::conditional_t<std::is_same_v<T, ufunc::float16_t>, __half, __nv_bfloat16>;

template <class T>
constexpr const char* dtype_name() {
  return std::is_same_v<T, ufunc::float16_t> ? "float16" : "bfloat16";
}

// ---------------------------------------------------------------------------------------------------------------
// Data.

// bench_common's values, each step rounded as the host rounds it (no contraction into a fused multiply-add).
__host__ __device__ inline float value_a(std::int64_t i) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(__fmul_rn(static_cast<float>(i % 1000), 0.01f), -5.0f);
#else
  return static_cast<float>(i % 1000) * 0.01f - 5.0f;
#endif
}
__host__ __device__ inline float value_b(std::int64_t i) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(static_cast<float>(i % 777), 0.02f);
#else
  return static_cast<float>(i % 777) * 0.02f;
#endif
}

template <class T>
__global__ void fill_inputs(T* a, T* b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    a[i] = T(value_a(i));
    b[i] = T(value_b(i));
  }
}

using bench::device_buffer;

ufunc::array device_view(void* p, ufunc::dtype t, std::int64_t n) {
  return ufunc::array(p, t, {n}, {}, {}, ufunc::device::cuda(0));
}

// The operands of one rotation set, as raw pointers (cub) and as ufunc device arrays.
template <class T>
struct operand_set {
  device_buffer<T> a, b, c;
  ufunc::array ua, ub, uc;
  operand_set(std::int64_t n, cudaStream_t s) : a(n), b(n), c(n) {
    fill_inputs<T><<<1024, 256, 0, s>>>(a.ptr, b.ptr, n);
    CUDA_CHECK(cudaGetLastError());
    ua = device_view(a.ptr, ufunc::dtype_of<T>, n);
    ub = device_view(b.ptr, ufunc::dtype_of<T>, n);
    uc = device_view(c.ptr, ufunc::dtype_of<T>, n);
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Checks.

int g_failures = 0;

// The expected results in float, from the inputs' period: a repeats every 1000 elements, (a, b) every 777000.
template <class T>
struct reference {
  std::vector<float> add, sin;
  reference() : add(777000), sin(1000) {
    for (std::int64_t i = 0; i < 777000; ++i)
      add[i] = static_cast<float>(T(static_cast<float>(T(value_a(i))) + static_cast<float>(T(value_b(i)))));
    for (std::int64_t i = 0; i < 1000; ++i) sin[i] = static_cast<float>(T(std::sin(static_cast<float>(T(value_a(i))))));
  }
};

// Output bytes 0x7b: a finite value in both dtypes, far from every result, so a call that writes nothing fails.
void poison(void* p, std::size_t bytes, cudaStream_t s) { CUDA_CHECK(cudaMemsetAsync(p, 0x7b, bytes, s)); }

// Compares the device result with the reference: add bit for bit (tolerance 0), sin within `tolerance`.
template <class T>
void validate(const char* op, const std::string& impl, const T* device_out, std::int64_t n, const reference<T>& ref,
              double tolerance, cudaStream_t s) {
  std::vector<T> host(static_cast<std::size_t>(n));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaMemcpy(host.data(), device_out, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  const bool is_add = std::strcmp(op, "add") == 0;
  std::int64_t differ = 0, worst_at = 0;
  double worst = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const float want = is_add ? ref.add[i % 777000] : ref.sin[i % 1000];
    const float got = static_cast<float>(host[i]);
    if (got != want) ++differ;
    const double err = std::fabs(static_cast<double>(got) - want);
    if (!(err <= worst)) worst = err, worst_at = i;  // a NaN counts as the worst
  }
  const bool ok = worst <= tolerance;
  g_failures += ok ? 0 : 1;
  std::printf("# check,%s,%s,%s,%lld,%s: %lld of %lld elements differ from the reference, max abs error %g at %lld\n",
              op, dtype_name<T>(), impl.c_str(), static_cast<long long>(n), ok ? "ok" : "FAILED",
              static_cast<long long>(differ), static_cast<long long>(n), worst, static_cast<long long>(worst_at));
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------------------------
// Cases.

struct config {
  std::vector<int> log2_sizes = {24, 28};
  int warmup = 5;
  int reps = 30;
  int reps_large = 20;  // 2^28: each rep moves gigabytes
};

struct context {
  config cfg;
  cudaStream_t stream{};
  bench::gpu_timer* timer = nullptr;
  std::int64_t l2_bytes = 0;
};

void emit(const char* op, const char* dtype, const std::string& impl, std::int64_t n, double bytes, double us) {
  std::printf("%s,%s,%s,%lld,%.9g,%.1f\n", op, dtype, impl.c_str(), static_cast<long long>(n), us * 1e-6,
              bytes / us / 1e3);
  std::fflush(stdout);
}

void guarded(const std::string& what, const std::function<void()>& body) { bench::guarded(what, body, g_failures); }

template <class T>
void run_size(context& ctx, std::int64_t n, const reference<T>& ref) {
  using H = cuda_half<T>;
  const auto s = ctx.stream;
  const char* dtype = dtype_name<T>();
  const int nsets = bench::input_sets(3 * n * static_cast<std::int64_t>(sizeof(T)), ctx.l2_bytes);
  const int reps = n >= (std::int64_t{1} << 28) ? ctx.cfg.reps_large : ctx.cfg.reps;
  std::printf("# case,%s,n=%lld,input sets=%d,reps=%d\n", dtype, static_cast<long long>(n), nsets, reps);
  std::vector<operand_set<T>> sets;
  for (int k = 0; k < nsets; ++k) sets.emplace_back(n, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  const ufunc::call_options base{.target = ufunc::target_id::cuda, .stream = {s}};
  std::vector<ufunc::call_options> opts;
  for (auto& x : sets) {
    auto o = base;
    o.out = {x.uc};
    opts.push_back(std::move(o));
  }
  const double half_tol = std::is_same_v<T, ufunc::float16_t> ? 0x1p-11 : 0x1p-8;  // an ulp of the dtype below 1

  for (const char* op : {"add", "sin"}) {
    const bool is_add = std::strcmp(op, "add") == 0;
    const double bytes = (is_add ? 3.0 : 2.0) * static_cast<double>(n) * sizeof(T);
    const double tol = is_add ? 0.0 : half_tol;
    // One row: poison set 0's output, call once, check it, then time the call over the rotated sets.
    const auto row = [&](const std::string& impl, double tolerance, const std::function<void(int)>& call) {
      const std::string what = std::string(op) + " " + dtype + " " + impl + " n=" + std::to_string(n);
      guarded(what, [&] {
        poison(sets[0].c.ptr, sets[0].c.bytes(), s);
        call(0);
        validate<T>(op, impl, sets[0].c.ptr, n, ref, tolerance, s);
        emit(op, dtype, impl, n, bytes,
             ctx.timer->measure(what, ctx.cfg.warmup, reps, [&](int r) { call(r % nsets); }));
      });
    };
    const auto ufunc_call = [&](int k) {
      if (is_add)
        (void)ufunc::add(sets[k].ua, sets[k].ub, opts[k]);
      else
        (void)ufunc::sin(sets[k].ua, opts[k]);
    };
    row("ufunc", tol, ufunc_call);
    {
      ufunc::errstate quiet({.divide = ufunc::fp_policy::ignore,
                             .over = ufunc::fp_policy::ignore,
                             .under = ufunc::fp_policy::ignore,
                             .invalid = ufunc::fp_policy::ignore});
      row("ufunc_noflags", tol, ufunc_call);
    }
    row("cub_ufunc_t", tol, [&](int k) {
      auto& x = sets[k];
      if (is_add)
        CUDA_CHECK(
            cub::DeviceTransform::Transform(cuda::std::make_tuple(x.a.ptr, x.b.ptr), x.c.ptr, n, add_in_float<T>{}, s));
      else
        CUDA_CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(x.a.ptr), x.c.ptr, n, sin_in_float<T>{}, s));
    });
    row("cub_intrinsics", tol, [&](int k) {
      auto& x = sets[k];
      const auto a = reinterpret_cast<const H*>(x.a.ptr), b = reinterpret_cast<const H*>(x.b.ptr);
      const auto c = reinterpret_cast<H*>(x.c.ptr);
      if (is_add)
        CUDA_CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(a, b), c, n, add_intrinsic<H>{}, s));
      else
        CUDA_CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(a), c, n, sin_intrinsic<H>{}, s));
    });
    if (!is_add) {
      // hsin's accuracy is its own (the check line reports it; no limit).
      row("cub_hsin", HUGE_VAL, [&](int k) {
        auto& x = sets[k];
        CUDA_CHECK(cub::DeviceTransform::Transform(cuda::std::make_tuple(reinterpret_cast<const H*>(x.a.ptr)),
                                                   reinterpret_cast<H*>(x.c.ptr), n, sin_hsin<H>{}, s));
      });
    }
  }

  // The bound: the output's bytes copied device to device (read once, written once); checked as a copy of a.
  {
    const std::string what = std::string("memcpy ") + dtype + " n=" + std::to_string(n);
    const auto copy = [&](int k) {
      CUDA_CHECK(cudaMemcpyAsync(sets[k].c.ptr, sets[k].a.ptr, sets[k].c.bytes(), cudaMemcpyDeviceToDevice, s));
    };
    poison(sets[0].c.ptr, sets[0].c.bytes(), s);
    copy(0);
    std::vector<T> host(static_cast<std::size_t>(n));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(host.data(), sets[0].c.ptr, sets[0].c.bytes(), cudaMemcpyDeviceToHost));
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) bad += static_cast<float>(host[i]) != static_cast<float>(T(value_a(i)));
    g_failures += bad ? 1 : 0;
    std::printf("# check,copy,%s,memcpy,%lld,%s\n", dtype, static_cast<long long>(n), bad ? "FAILED" : "ok");
    emit("copy", dtype, "memcpy", n, 2.0 * static_cast<double>(n) * sizeof(T),
         ctx.timer->measure(what, ctx.cfg.warmup, reps, [&](int r) { copy(r % nsets); }));
  }
}

std::vector<int> parse_list(const char* text) {
  std::vector<int> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::atoi(item.c_str()));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  context ctx;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--sizes" && i + 1 < argc) {
      ctx.cfg.log2_sizes = parse_list(argv[++i]);
    } else if (arg == "--reps" && i + 1 < argc) {
      ctx.cfg.reps = ctx.cfg.reps_large = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--sizes 20,24,28] [--reps N]\n", argv[0]);
      return 2;
    }
  }
  if (!ufunc::cuda_available()) {
    std::fprintf(stderr, "no usable CUDA device\n");
    return 77;
  }
  const int l2 = bench::print_device_line().l2;
  std::printf(
      "# timing,median of %d reps (%d at 2^28) after %d warm-up, one call per rep between CUDA events, stream held "
      "until enqueued\n",
      ctx.cfg.reps, ctx.cfg.reps_large, ctx.cfg.warmup);

  // A non-blocking stream; arrays the library allocates without a stream in the options go on the thread's current
  // stream, so that is set to it as well (as cuda_bench).
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ufunc::backends::cuda::set_current_stream({stream});
  {
    bench::gpu_timer timer(stream);
    ctx.stream = stream;
    ctx.timer = &timer;
    ctx.l2_bytes = l2;
    std::printf("op,dtype,impl,n,seconds,GBps\n");
    const reference<ufunc::float16_t> ref16;
    const reference<ufunc::bfloat16_t> ref_bf16;
    for (int e : ctx.cfg.log2_sizes) {
      run_size<ufunc::float16_t>(ctx, std::int64_t{1} << e, ref16);
      run_size<ufunc::bfloat16_t>(ctx, std::int64_t{1} << e, ref_bf16);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  ufunc::backends::cuda::set_current_stream({});
  CUDA_CHECK(cudaStreamDestroy(stream));
  if (g_failures == 0)
    std::printf("# all checks passed\n");
  else
    std::printf("# %d check(s) or case(s) FAILED\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
