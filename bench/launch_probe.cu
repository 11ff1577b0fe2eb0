// What a kernel launch costs the host, by launch API and parameter size, and what
// programmatic dependent launch (PDL, sm_90) saves on back-to-back launches. Standalone
// (no library), so it builds in seconds on the GPU machine:
//   nvcc -O2 -std=c++20 -arch=sm_90 bench/launch_probe.cu -lcuda -o launch_probe && ./launch_probe
// Columns: enqueue = host time per launch in batches of 100 that never fill the queue;
// back_to_back = 10000 launches then one sync, per launch (the GPU's rate once it is the
// slower side).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#define CK(x)                                                                    \
  do {                                                                           \
    auto e_ = (x);                                                               \
    if (e_ != 0) {                                                               \
      std::fprintf(stderr, "%s failed: %d at line %d\n", #x, int(e_), __LINE__); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

struct sink {
  unsigned long long* flags;
  unsigned long long* tag;
  unsigned long long seq;
};

__global__ void empty_kernel() {}

// Pdl: starts with the dependent-launch wait and trigger, as ufunc's contiguous kernel.
template <bool Pdl>
__global__ void add_kernel(int n, sink fp, float* __restrict__ out, const float* __restrict__ a,
                           const float* __restrict__ b) {
#if __CUDA_ARCH__ >= 900
  if constexpr (Pdl) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
  }
#endif
  const int first = blockIdx.x * 1024 + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int i = first + k * 256;
    if (i < n) out[i] = a[i] + b[i];
  }
  if (fp.flags && threadIdx.x == 1023) *fp.flags = 1;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static double enqueue(cudaStream_t s, const std::function<void()>& f) {
  for (int i = 0; i < 200; ++i) f();
  CK(cudaStreamSynchronize(s));
  std::vector<double> us;
  for (int k = 0; k < 200; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    CK(cudaStreamSynchronize(s));
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 100);
  }
  return median(us);
}

static double back_to_back(cudaStream_t s, const std::function<void()>& f) {
  for (int i = 0; i < 2000; ++i) f();
  CK(cudaStreamSynchronize(s));
  std::vector<double> us;
  for (int k = 0; k < 7; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 10000; ++i) f();
    CK(cudaStreamSynchronize(s));
    auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 10000);
  }
  return median(us);
}

int main() {
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int n = 1024;
  float *a, *b, *c;
  CK(cudaMalloc(&a, n * 4));
  CK(cudaMalloc(&b, n * 4));
  CK(cudaMalloc(&c, n * 4));
  CK(cudaMemset(a, 0, n * 4));
  CK(cudaMemset(b, 0, n * 4));
  sink fp{};
  CUfunction cu_add;
  CK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&cu_add),
                         reinterpret_cast<const void*>(&add_kernel<false>)));

  struct variant {
    const char* name;
    std::function<void()> f;
  };
  int nn = n;
  void* args[] = {&nn, &fp, &c, &a, &b};
  cudaLaunchAttribute pdl{};
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(256);
  cfg.stream = s;
  cudaLaunchConfig_t cfg_pdl = cfg;
  cfg_pdl.attrs = &pdl;
  cfg_pdl.numAttrs = 1;

  std::vector<variant> vs = {
      {"empty <<<>>>", [&] { empty_kernel<<<1, 256, 0, s>>>(); }},
      {"add <<<>>>", [&] { add_kernel<false><<<1, 256, 0, s>>>(n, fp, c, a, b); }},
      {"add <<<>>> + cudaGetLastError",
       [&] {
         add_kernel<false><<<1, 256, 0, s>>>(n, fp, c, a, b);
         (void)cudaGetLastError();
       }},
      {"add cudaLaunchKernel", [&] { (void)cudaLaunchKernel((const void*)&add_kernel<false>, 1, 256, args, 0, s); }},
      {"add cuLaunchKernel", [&] { (void)cuLaunchKernel(cu_add, 1, 1, 1, 256, 1, 1, 0, s, args, nullptr); }},
      {"add cudaLaunchKernelEx", [&] { (void)cudaLaunchKernelEx(&cfg, add_kernel<false>, n, fp, c, a, b); }},
      {"add_pdl cudaLaunchKernelEx+PDL", [&] { (void)cudaLaunchKernelEx(&cfg_pdl, add_kernel<true>, n, fp, c, a, b); }},
      {"add_pdl <<<>>> (no PDL attr)", [&] { add_kernel<true><<<1, 256, 0, s>>>(n, fp, c, a, b); }},
  };
  std::printf("%-34s %12s %14s\n", "variant", "enqueue_us", "back_to_back_us");
  for (int rep = 0; rep < 2; ++rep)
    for (auto& v : vs) {
      const double e = enqueue(s, v.f);
      const double bb = back_to_back(s, v.f);
      CK(cudaGetLastError());
      std::printf("%-34s %12.3f %14.3f\n", v.name, e, bb);
    }
  return 0;
}
