// CuPy's ElementwiseKernel example, the squared difference, in a program compiled by g++
// alone: the kernel body is a string, compiled at run time (NVRTC) for the dtypes of the
// call, and run on the GPU as a ufunc, with broadcasting and a scalar argument.
//
//   squared_diff = cp.ElementwiseKernel('T x, T y', 'T z', 'z = (x - y) * (x - y)', 'squared_diff')
//   x = cp.arange(10, dtype=np.float32).reshape(2, 5)
//   y = cp.arange(5, dtype=np.float32)
//   squared_diff(x, y)     # broadcast over the rows
//   squared_diff(x, 5)     # a scalar: T stays float32
#include <cstdio>
#include <string>

#include <ufunc/backends/cuda/rtc/elementwise_kernel.hpp>
#include <ufunc/ufunc.hpp>

static void print(const char* title, const ufunc::array& a) {
  const auto v = a.to_vector<float>();
  std::printf("%s\n", title);
  for (std::int64_t i = 0; i < a.shape()[0]; ++i) {
    std::printf("  [");
    for (std::int64_t j = 0; j < a.shape()[1]; ++j) std::printf(" %5.1f", v[std::size_t(i * a.shape()[1] + j)]);
    std::printf(" ]\n");
  }
}

int main() try {
  ufunc::cuda::elementwise_kernel squared_diff("T x, T y", "T z", "z = (x - y) * (x - y);", "squared_diff");
  const auto x = ufunc::arange<float>(0, 10).reshape({2, 5});
  const auto y = ufunc::arange<float>(0, 5);
  if (!ufunc::cuda_available()) {
    const std::string source = squared_diff.source(std::vector<ufunc::dtype>{ufunc::float32, ufunc::float32});
    std::printf("the CUDA source compiled for float32 arguments ends with:\n%s\n",
                source.substr(source.rfind("typedef")).c_str());
    std::printf("no usable CUDA device here: the kernel was not run\n");
    return 0;
  }
  const auto by_row = ufunc::to_host(squared_diff(ufunc::to_device(x), ufunc::to_device(y)));
  const auto by_scalar = ufunc::to_host(squared_diff(ufunc::to_device(x), 5.0f));
  print("squared_diff(x, y):", by_row);
  print("squared_diff(x, 5):", by_scalar);
  std::printf("loops compiled: %s\n", squared_diff.ufunc().types().front().c_str());
  // The same with built-in ufuncs on the host.
  const auto d = ufunc::subtract(x, y), e = ufunc::subtract(x, 5.0f);
  const auto want_row = ufunc::multiply(d, d).to_vector<float>(),
             want_scalar = ufunc::multiply(e, e).to_vector<float>();
  return by_row.to_vector<float>() == want_row && by_scalar.to_vector<float>() == want_scalar ? 0 : 1;
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
