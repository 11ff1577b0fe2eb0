// PyCUDA's first example, doublify through a SourceModule, in a program compiled by g++
// alone: the kernel is CUDA source in a string, compiled at run time (NVRTC) for the GPU
// it runs on, and launched by name on a device array.
//
//   mod = SourceModule("""
//     __global__ void doublify(float *a) {
//       int idx = threadIdx.x + threadIdx.y * 4;
//       a[idx] *= 2;
//     }""")
//   func = mod.get_function("doublify")
//   func(a_gpu, block=(4, 4, 1))
#include <cstdio>
#include <random>

#include <ufunc/backends/cuda/rtc/module.hpp>
#include <ufunc/ufunc.hpp>

static void print(const char* title, const std::vector<float>& v) {
  std::printf("%s\n", title);
  for (int i = 0; i < 4; ++i)
    std::printf("  [ %8.4f %8.4f %8.4f %8.4f ]\n", v[std::size_t(i * 4)], v[std::size_t(i * 4 + 1)],
                v[std::size_t(i * 4 + 2)], v[std::size_t(i * 4 + 3)]);
}

int main() try {
  ufunc::cuda::module mod(R"(
    extern "C" __global__ void doublify(float* a) {
      int idx = threadIdx.x + threadIdx.y * 4;
      a[idx] *= 2;
    })",
                          {.name = "doublify"});
  auto a = ufunc::empty<float>({4, 4});
  std::mt19937 gen(1);
  std::normal_distribution<float> normal;
  for (std::int64_t i = 0; i < 16; ++i) a.data()[i] = normal(gen);
  if (!ufunc::cuda_available()) {
    std::printf("the module's source:%s\nno usable CUDA device here: the kernel was not run\n", mod.source().c_str());
    return 0;
  }
  const auto a_gpu = ufunc::to_device(a);
  mod.function("doublify").launch({1}, {4, 4}, {a_gpu});
  const auto doubled = ufunc::to_host(a_gpu).to_vector<float>();
  print("a:", a.to_vector<float>());
  print("doublify(a_gpu), block=(4, 4, 1):", doubled);
  const auto want = ufunc::multiply(a, 2.0f).to_vector<float>();
  return doubled == want ? 0 : 1;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
