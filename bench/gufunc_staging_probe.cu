// How a gufunc block should move its elements' cores through shared memory (issue 20): the
// moving average over (10^5, 256) rows and vecdot of (10^6, 16) rows, one thread per row,
// with the cores read from global memory, or staged by the copy of the library's staged
// kernel (a 4-byte word per thread per step, a division per word), or by 16-byte loads K at a
// time with the row found by a multiply; blocks of 32 to 128 threads, shared memory beyond
// 48 KB opted in. Standalone (no library), so it builds in seconds on the GPU machine:
//   nvcc -O3 -std=c++20 -arch=sm_90 bench/gufunc_staging_probe.cu -o gufunc_staging_probe && ./gufunc_staging_probe
// Prints case,dtype,variant,threads,us (median of 21 launches, CUDA events), and checks each
// variant's output against the unstaged kernel's.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <cuda/barrier>

#define CK(x)                                                                                   \
  do {                                                                                          \
    auto e_ = (x);                                                                              \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s failed: %s at line %d\n", #x, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

namespace {

// Where a thread's core lies: its base and the stride between elements (bytes).
template <class T>
struct view {
  T* p;
  std::int64_t stride;
  __device__ T& operator()(std::int64_t i) const {
    return *reinterpret_cast<T*>(reinterpret_cast<char*>(const_cast<std::remove_const_t<T>*>(p)) + i * stride);
  }
};

// As ufunc::core_view: extents and strides read through pointers (into the kernel's parameters).
template <class T>
struct ptr_view {
  T* p;
  const std::int64_t* extents;
  const std::int64_t* strides;
  __device__ std::int64_t extent(int d) const { return extents[d]; }
  __device__ T& operator()(std::int64_t i) const {
    return *reinterpret_cast<T*>(reinterpret_cast<char*>(const_cast<std::remove_const_t<T>*>(p)) + i * strides[0]);
  }
};

// The same with the extent and stride held by value.
template <class T>
struct value_view {
  T* p;
  std::int64_t extent0, stride0;
  __device__ std::int64_t extent(int) const { return extent0; }
  __device__ T& operator()(std::int64_t i) const {
    return *reinterpret_cast<T*>(reinterpret_cast<char*>(const_cast<std::remove_const_t<T>*>(p)) + i * stride0);
  }
};

// bench/gufunc_cuda_bench.cu's moving average, over any view.
struct move_mean_generic {
  template <class A, class W, class R>
  __device__ void operator()(A a, W window, R out) const {
    using T = std::remove_reference_t<decltype(out(0))>;
    const std::int64_t w = window(0);
    T sum = 0;
    for (std::int64_t i = 0; i < a.extent(0); ++i) {
      sum += a(i);
      if (i >= w) sum -= a(i - w);
      out(i) = sum / static_cast<T>(i + 1 < w ? i + 1 : w);
    }
  }
};

struct view_params {
  std::int64_t extents[3][8];
  std::int64_t strides[3][8];
};

struct move_mean {
  template <class T>
  __device__ void operator()(view<const T> a, int n, view<T> out) const {
    const int w = 8;
    T sum = 0;
    for (int i = 0; i < n; ++i) {
      sum += a(i);
      if (i >= w) sum -= a(i - w);
      out(i) = sum / static_cast<T>(i + 1 < w ? i + 1 : w);
    }
  }
};

struct vecdot {
  template <class T>
  __device__ void operator()(view<const T> a, view<const T> b, int n, view<T> out) const {
    T sum = 0;
    for (int i = 0; i < n; ++i) sum += a(i) * b(i);
    out(0) = sum;
  }
};

// Row of word w: w * magic >> 32, exact for w, row_words < 2^16.
__device__ __forceinline__ unsigned row_of(unsigned w, std::uint64_t magic) {
  return static_cast<unsigned>((static_cast<std::uint64_t>(w) * magic) >> 32);
}

struct stage {
  unsigned row_words, pitch;
  std::uint64_t magic;
};

inline stage make_stage(unsigned row_bytes, unsigned pitch) {
  const unsigned rw = row_bytes / 4;
  return {rw, pitch, ((std::uint64_t{1} << 32) + rw - 1) / rw};
}

// The library's copy today.
template <bool In>
__device__ void copy_words(char* g, unsigned char* s, const stage& st, int count) {
  const unsigned words = st.row_words * count;
  for (unsigned w = threadIdx.x; w < words; w += blockDim.x) {
    const unsigned row = w / st.row_words, col = w - row * st.row_words;
    auto* gp = reinterpret_cast<std::uint32_t*>(g) + w;
    auto* sp = reinterpret_cast<std::uint32_t*>(s + row * st.pitch) + col;
    if constexpr (In)
      *sp = *gp;
    else
      *gp = *sp;
  }
}

__device__ __forceinline__ std::uint32_t* slot(unsigned char* s, const stage& st, unsigned w) {
  const unsigned row = row_of(w, st.magic), col = w - row * st.row_words;
  return reinterpret_cast<std::uint32_t*>(s + row * st.pitch) + col;
}

// 16-byte loads, K in flight per thread, then their words to their rows.
template <int K, bool In>
__device__ void copy_vectors(char* g, unsigned char* s, const stage& st, int count) {
  const unsigned words = st.row_words * count, vecs = words / 4;
  auto* gv = reinterpret_cast<uint4*>(g);
  for (unsigned v0 = threadIdx.x; v0 < vecs; v0 += blockDim.x * K) {
    uint4 r[K];
    if constexpr (In) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const unsigned v = v0 + k * blockDim.x;
        if (v < vecs) r[k] = gv[v];
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const unsigned v = v0 + k * blockDim.x;
        if (v < vecs) {
          *slot(s, st, 4 * v) = r[k].x;
          *slot(s, st, 4 * v + 1) = r[k].y;
          *slot(s, st, 4 * v + 2) = r[k].z;
          *slot(s, st, 4 * v + 3) = r[k].w;
        }
      }
    } else {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const unsigned v = v0 + k * blockDim.x;
        if (v < vecs) {
          r[k].x = *slot(s, st, 4 * v);
          r[k].y = *slot(s, st, 4 * v + 1);
          r[k].z = *slot(s, st, 4 * v + 2);
          r[k].w = *slot(s, st, 4 * v + 3);
          gv[v] = r[k];
        }
      }
    }
  }
  for (unsigned w = vecs * 4 + threadIdx.x; w < words; w += blockDim.x) {
    auto* gp = reinterpret_cast<std::uint32_t*>(g) + w;
    if constexpr (In)
      *slot(s, st, w) = *gp;
    else
      *gp = *slot(s, st, w);
  }
}

template <int Mode, bool In>
__device__ void copy(char* g, unsigned char* s, const stage& st, int count) {
  if constexpr (Mode == 0)
    copy_words<In>(g, s, st, count);
  else
    copy_vectors<Mode, In>(g, s, st, count);
}

// Moving average: unstaged (Mode < 0), or input staged (and the output when StageOut).
template <class T, int Mode, bool StageOut>
__global__ void move_mean_kernel(const T* x, T* y, int rows, int n, stage sx, stage sy) {
  extern __shared__ __align__(16) unsigned char shared[];
  const int first = blockIdx.x * blockDim.x;
  const int count = min(static_cast<int>(blockDim.x), rows - first);
  if constexpr (Mode < 0) {
    if (static_cast<int>(threadIdx.x) < count) {
      const std::int64_t r = first + threadIdx.x;
      move_mean{}(view<const T>{x + r * n, sizeof(T)}, n, view<T>{y + r * n, sizeof(T)});
    }
  } else {
    unsigned char* sin = shared;
    unsigned char* sout = shared + (sx.pitch * blockDim.x + 15) / 16 * 16;
    copy<Mode, true>(reinterpret_cast<char*>(const_cast<T*>(x + std::int64_t{first} * n)), sin, sx, count);
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < count) {
      const std::int64_t r = first + threadIdx.x;
      auto* xi = reinterpret_cast<const T*>(sin + threadIdx.x * sx.pitch);
      T* yo = StageOut ? reinterpret_cast<T*>(sout + threadIdx.x * sy.pitch) : y + r * n;
      move_mean{}(view<const T>{xi, sizeof(T)}, n, view<T>{yo, sizeof(T)});
    }
    if constexpr (StageOut) {
      __syncthreads();
      copy<Mode, false>(reinterpret_cast<char*>(y + std::int64_t{first} * n), sout, sy, count);
    }
  }
}

// Input and output staged (vec8), the functor over ptr_view (ByValue false) or value_view.
template <class T, bool ByValue>
__global__ void move_mean_view_kernel(const T* x, const std::int64_t* window, T* y, int rows, int n, stage sx,
                                      view_params vp) {
  extern __shared__ __align__(16) unsigned char shared[];
  const int first = blockIdx.x * blockDim.x;
  const int count = min(static_cast<int>(blockDim.x), rows - first);
  unsigned char* sin = shared;
  unsigned char* sout = shared + (sx.pitch * blockDim.x + 15) / 16 * 16;
  copy_vectors<8, true>(reinterpret_cast<char*>(const_cast<T*>(x + std::int64_t{first} * n)), sin, sx, count);
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < count) {
    auto* xi = reinterpret_cast<const T*>(sin + threadIdx.x * sx.pitch);
    auto* yo = reinterpret_cast<T*>(sout + threadIdx.x * sx.pitch);
    if constexpr (ByValue)
      move_mean_generic{}(value_view<const T>{xi, vp.extents[0][0], vp.strides[0][0]},
                          value_view<const std::int64_t>{window, 0, 0},
                          value_view<T>{yo, vp.extents[2][0], vp.strides[2][0]});
    else
      move_mean_generic{}(ptr_view<const T>{xi, vp.extents[0], vp.strides[0]},
                          ptr_view<const std::int64_t>{window, vp.extents[1], vp.strides[1]},
                          ptr_view<T>{yo, vp.extents[2], vp.strides[2]});
  }
  __syncthreads();
  copy_vectors<8, false>(reinterpret_cast<char*>(y + std::int64_t{first} * n), sout, sx, count);
}

// Asynchronous copies into rows padded by 16 bytes (so that every 16-byte piece lands 16-byte
// aligned): Async 1, LDGSTS (cp.async, 16 bytes a thread a step, none held in registers);
// Async 2, one bulk copy per row (cp.async.bulk through the TMA on sm_90, cuda::memcpy_async
// with a block barrier). The output staged (StageOut) goes out by the 16-byte copy.
template <class T, int Async, bool StageOut>
__global__ void move_mean_async_kernel(const T* x, T* y, int rows, int n, unsigned pitch, stage sy) {
  extern __shared__ __align__(16) unsigned char shared[];
#pragma nv_diag_suppress static_var_with_dynamic_init  // initialized by init(), as the CUDA guide does
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  const int first = blockIdx.x * blockDim.x;
  const int count = min(static_cast<int>(blockDim.x), rows - first);
  const unsigned row_bytes = n * sizeof(T);
  const char* g = reinterpret_cast<const char*>(x + std::int64_t{first} * n);
  if constexpr (Async == 1) {
    const unsigned pieces = row_bytes / 16 * count, per_row = row_bytes / 16;
    for (unsigned v = threadIdx.x; v < pieces; v += blockDim.x) {
      const unsigned row = v / per_row, col = v - row * per_row;
      __pipeline_memcpy_async(shared + row * pitch + col * 16, g + 16 * std::size_t{v}, 16);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
  } else {
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < count)
      cuda::memcpy_async(shared + threadIdx.x * pitch, g + std::size_t{threadIdx.x} * row_bytes,
                         cuda::aligned_size_t<16>(row_bytes), bar);
    bar.arrive_and_wait();
  }
  unsigned char* sout = shared + (pitch * blockDim.x + 15) / 16 * 16;
  if (static_cast<int>(threadIdx.x) < count) {
    const std::int64_t r = first + threadIdx.x;
    auto* xi = reinterpret_cast<const T*>(shared + threadIdx.x * pitch);
    T* yo = StageOut ? reinterpret_cast<T*>(sout + threadIdx.x * sy.pitch) : y + r * n;
    move_mean{}(view<const T>{xi, sizeof(T)}, n, view<T>{yo, sizeof(T)});
  }
  if constexpr (StageOut) {
    __syncthreads();
    copy_vectors<8, false>(reinterpret_cast<char*>(y + std::int64_t{first} * n), sout, sy, count);
  }
}

template <class T, int Mode>
__global__ void vecdot_kernel(const T* x, const T* y, T* d, int rows, int n, stage sx) {
  extern __shared__ __align__(16) unsigned char shared[];
  const int first = blockIdx.x * blockDim.x;
  const int count = min(static_cast<int>(blockDim.x), rows - first);
  const std::int64_t r = first + threadIdx.x;
  if constexpr (Mode < 0) {
    if (static_cast<int>(threadIdx.x) < count)
      vecdot{}(view<const T>{x + r * n, sizeof(T)}, view<const T>{y + r * n, sizeof(T)}, n, view<T>{d + r, 0});
  } else {
    unsigned char* sa = shared;
    unsigned char* sb = shared + (sx.pitch * blockDim.x + 15) / 16 * 16;
    copy<Mode, true>(reinterpret_cast<char*>(const_cast<T*>(x + std::int64_t{first} * n)), sa, sx, count);
    copy<Mode, true>(reinterpret_cast<char*>(const_cast<T*>(y + std::int64_t{first} * n)), sb, sx, count);
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < count)
      vecdot{}(view<const T>{reinterpret_cast<const T*>(sa + threadIdx.x * sx.pitch), sizeof(T)},
               view<const T>{reinterpret_cast<const T*>(sb + threadIdx.x * sx.pitch), sizeof(T)}, n, view<T>{d + r, 0});
  }
}

template <class F>
float median_us(F&& launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int k = 0; k < 3; ++k) launch();
  std::vector<float> t;
  for (int k = 0; k < 21; ++k) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

unsigned padded(unsigned row_bytes, unsigned itemsize) {
  const unsigned unit = itemsize < 4 ? 4 : itemsize;
  return (row_bytes / unit) % 2 == 0 ? row_bytes + unit : row_bytes;
}

template <class T>
bool same(const T* a, const T* b, std::size_t n) {
  std::vector<T> ha(n), hb(n);
  CK(cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  return std::memcmp(ha.data(), hb.data(), n * sizeof(T)) == 0;
}

template <class T>
void fill(T* d, std::size_t n) {
  std::vector<T> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<T>((i * 2654435761u % 1000) / 100.0 - 5);
  CK(cudaMemcpy(d, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
}

// Times one moving-average kernel (launch() launches it) after opting it in to `shared` bytes,
// and checks its output against ref (when given).
template <class T, class Kernel, class Launch>
void time_move_mean(const char* dtype, const char* name, int threads, unsigned shared, Kernel kernel, T* y,
                    const T* ref, int rows, int n, Launch launch) {
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared) != cudaSuccess) {
    cudaGetLastError();
    std::printf("move_mean,%s,%s,%d,too much shared memory (%u)\n", dtype, name, threads, shared);
    return;
  }
  CK(cudaMemset(y, 0, std::size_t(rows) * n * sizeof(T)));
  const float us = median_us(launch);
  std::printf("move_mean,%s,%s,%d,%.1f,shared %u%s\n", dtype, name, threads, us, shared,
              ref && !same(y, ref, std::size_t(rows) * n) ? ",MISMATCH" : "");
}

template <class T, int Mode, bool StageOut>
void move_mean_case(const char* dtype, const char* name, const T* x, T* y, T* ref, int rows, int n, int threads) {
  const unsigned row = n * sizeof(T), pitch = padded(row, sizeof(T));
  const stage s = make_stage(row, pitch);
  const unsigned shared = Mode < 0 ? 0 : (pitch * threads + 15) / 16 * 16 * (StageOut ? 2 : 1);
  auto k = move_mean_kernel<T, Mode, StageOut>;
  const int blocks = (rows + threads - 1) / threads;
  time_move_mean(dtype, name, threads, shared, k, y, ref, rows, n,
                 [&] { k<<<blocks, threads, shared>>>(x, y, rows, n, s, s); });
}

template <class T, bool ByValue>
void move_mean_view_case(const char* dtype, const char* name, const T* x, T* y, T* ref, int rows, int n) {
  const int threads = 32;
  const unsigned row = n * sizeof(T), pitch = padded(row, sizeof(T));
  const stage s = make_stage(row, pitch);
  const unsigned shared = (pitch * threads + 15) / 16 * 16 * 2;
  auto k = move_mean_view_kernel<T, ByValue>;
  std::int64_t* window;
  CK(cudaMalloc(&window, 8));
  const std::int64_t w = 8;
  CK(cudaMemcpy(window, &w, 8, cudaMemcpyHostToDevice));
  view_params vp{};
  vp.extents[0][0] = vp.extents[2][0] = n;
  vp.strides[0][0] = vp.strides[2][0] = sizeof(T);
  const int blocks = (rows + threads - 1) / threads;
  time_move_mean(dtype, name, threads, shared, k, y, ref, rows, n,
                 [&] { k<<<blocks, threads, shared>>>(x, window, y, rows, n, s, vp); });
  CK(cudaFree(window));
}

template <class T, int Async, bool StageOut>
void move_mean_async_case(const char* dtype, const char* name, const T* x, T* y, T* ref, int rows, int n, int threads) {
  const unsigned row = n * sizeof(T), pitch = row + 16, out_pitch = padded(row, sizeof(T));
  const stage so = make_stage(row, out_pitch);
  const unsigned shared = (pitch * threads + 15) / 16 * 16 + (StageOut ? (out_pitch * threads + 15) / 16 * 16 : 0);
  auto k = move_mean_async_kernel<T, Async, StageOut>;
  const int blocks = (rows + threads - 1) / threads;
  time_move_mean(dtype, name, threads, shared, k, y, ref, rows, n,
                 [&] { k<<<blocks, threads, shared>>>(x, y, rows, n, pitch, so); });
}

template <class T, int Mode>
void vecdot_case(const char* dtype, const char* name, const T* x, const T* y, T* d, T* ref, int rows, int n,
                 int threads) {
  const unsigned row = n * sizeof(T), pitch = padded(row, sizeof(T));
  const stage s = make_stage(row, pitch);
  const unsigned shared = Mode < 0 ? 0 : (pitch * threads + 15) / 16 * 16 * 2;
  auto k = vecdot_kernel<T, Mode>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  const int blocks = (rows + threads - 1) / threads;
  CK(cudaMemset(d, 0, std::size_t(rows) * sizeof(T)));
  const float us = median_us([&] { k<<<blocks, threads, shared>>>(x, y, d, rows, n, s); });
  std::printf("vecdot,%s,%s,%d,%.1f,shared %u%s\n", dtype, name, threads, us, shared,
              ref && !same(d, ref, rows) ? ",MISMATCH" : "");
}

template <class T>
void run(const char* dtype) {
  {
    const int rows = 100000, n = 256;
    const std::size_t size = std::size_t(rows) * n;
    T *x, *y, *ref;
    CK(cudaMalloc(&x, size * sizeof(T)));
    CK(cudaMalloc(&y, size * sizeof(T)));
    CK(cudaMalloc(&ref, size * sizeof(T)));
    fill(x, size);
    move_mean_case<T, -1, false>(dtype, "global", x, ref, nullptr, rows, n, 128);
    move_mean_case<T, -1, false>(dtype, "global", x, y, ref, rows, n, 32);
    for (int threads : {16, 32, 64}) {
      move_mean_async_case<T, 1, false>(dtype, "ldgsts_in", x, y, ref, rows, n, threads);
      move_mean_async_case<T, 1, true>(dtype, "ldgsts_inout", x, y, ref, rows, n, threads);
      move_mean_async_case<T, 2, false>(dtype, "bulk_in", x, y, ref, rows, n, threads);
      move_mean_async_case<T, 2, true>(dtype, "bulk_inout", x, y, ref, rows, n, threads);
      move_mean_case<T, 8, false>(dtype, "vec8_in", x, y, ref, rows, n, threads);
      move_mean_case<T, 8, true>(dtype, "vec8_inout", x, y, ref, rows, n, threads);
    }
    move_mean_view_case<T, false>(dtype, "vec8_inout_ptr_view", x, y, ref, rows, n);
    move_mean_view_case<T, true>(dtype, "vec8_inout_value_view", x, y, ref, rows, n);
    move_mean_case<T, 16, false>(dtype, "vec16_in", x, y, ref, rows, n, 32);
    move_mean_case<T, 16, true>(dtype, "vec16_inout", x, y, ref, rows, n, 32);
    for (int threads : {32, 64, 128}) {
      move_mean_case<T, 0, false>(dtype, "words_in", x, y, ref, rows, n, threads);
      move_mean_case<T, 0, true>(dtype, "words_inout", x, y, ref, rows, n, threads);
      move_mean_case<T, 2, false>(dtype, "vec2_in", x, y, ref, rows, n, threads);
      move_mean_case<T, 4, false>(dtype, "vec4_in", x, y, ref, rows, n, threads);
      move_mean_case<T, 4, true>(dtype, "vec4_inout", x, y, ref, rows, n, threads);
      move_mean_case<T, 8, false>(dtype, "vec8_in", x, y, ref, rows, n, threads);
      move_mean_case<T, 8, true>(dtype, "vec8_inout", x, y, ref, rows, n, threads);
    }
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(ref));
  }
  {
    const int rows = 1000000, n = 16;
    const std::size_t size = std::size_t(rows) * n;
    T *x, *y, *d, *ref;
    CK(cudaMalloc(&x, size * sizeof(T)));
    CK(cudaMalloc(&y, size * sizeof(T)));
    CK(cudaMalloc(&d, rows * sizeof(T)));
    CK(cudaMalloc(&ref, rows * sizeof(T)));
    fill(x, size);
    fill(y, size);
    vecdot_case<T, -1>(dtype, "global", x, y, ref, nullptr, rows, n, 128);
    for (int threads : {64, 128, 256}) {
      vecdot_case<T, 0>(dtype, "words", x, y, d, ref, rows, n, threads);
      vecdot_case<T, 2>(dtype, "vec2", x, y, d, ref, rows, n, threads);
      vecdot_case<T, 4>(dtype, "vec4", x, y, d, ref, rows, n, threads);
      vecdot_case<T, 8>(dtype, "vec8", x, y, d, ref, rows, n, threads);
    }
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(d));
    CK(cudaFree(ref));
  }
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs, %zu B shared per block opt-in, %zu per SM\n", prop.name, prop.multiProcessorCount,
              prop.sharedMemPerBlockOptin, prop.sharedMemPerMultiprocessor);
  std::printf("case,dtype,variant,threads,us,note\n");
  run<float>("f32");
  run<double>("f64");
}
