// The Mandelbrot set of NVIDIA's Numba blog post: mandel(x, y, max_iters) as a
// scalar function, made a ufunc and broadcast over a row of x and a column of y
// into a 1024x1536 uint8 image, written as mandelbrot.pgm.
//
// As the post does, it compares: the same function as a plain C++ loop on one core,
// then the ufunc on every target this build has (cpu, parallel, cuda). Times are warm
// (the median of several calls); the first call is shown apart, since on the GPU it
// creates the CUDA context and loads the kernels, once per process.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <ufunc/ufunc.hpp>
#if defined(UFUNC_HAS_CUDA)
#include <ufunc/backends/cuda/runtime.hpp>
#endif

#include "example_target.hpp"

namespace {

constexpr int max_iters = 20;

// Numba: @cuda.jit(device=True) def mandel(x, y, max_iters): ... A branchy scalar
// function: typed parameters keep it on the scalar path of the cpu target.
struct mandel {
  UFUNC_HOST_DEVICE std::uint8_t operator()(double x, double y) const {
    double re = 0.0, im = 0.0;
    for (int i = 0; i < max_iters; ++i) {
      const double re2 = re * re - im * im + x;
      im = 2.0 * re * im + y;
      re = re2;
      if (re * re + im * im >= 4.0) return static_cast<std::uint8_t>(i);
    }
    return 255;
  }
};

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The median of `runs` timed calls of f.
template <class F>
double median_ms(int runs, F&& f) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(milliseconds_since(start));
  }
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

struct row {
  std::string how;
  std::optional<double> first_ms;
  double warm_ms;
};

}  // namespace

int main(int argc, char** argv) try {
  const char* path = argc > 1 ? argv[1] : "mandelbrot.pgm";
  const std::int64_t height = 1024, width = 1536;
  const double min_x = -2.0, max_x = 1.0, min_y = -1.0, max_y = 1.0;
  const int runs = 10;

  auto xs = ufunc::empty<double>({1, width});   // a row of x
  auto ys = ufunc::empty<double>({height, 1});  // a column of y
  for (std::int64_t j = 0; j < width; ++j) xs.at(0, j) = min_x + j * (max_x - min_x) / width;
  for (std::int64_t i = 0; i < height; ++i) ys.at(i, 0) = min_y + i * (max_y - min_y) / height;

  // The reference: the same function in two nested loops, one core, no ufunc.
  std::vector<std::uint8_t> reference(static_cast<std::size_t>(height * width));
  auto scalar_loop = [&] {
    for (std::int64_t i = 0; i < height; ++i)
      for (std::int64_t j = 0; j < width; ++j) reference[i * width + j] = mandel{}(xs.at(0, j), ys.at(i, 0));
  };
  std::vector<row> rows{{"plain C++ loop, 1 core", std::nullopt, median_ms(runs, scalar_loop)}};

  auto mandel_ufunc = ufunc::vectorize<std::uint8_t(double, double), example_target>(mandel{}, "mandel");
  int wrong = 0;
  auto check = [&](const ufunc::array& image) {
    const auto pixels = ufunc::to_host(image);  // a no-op for host arrays
    if (std::memcmp(pixels.data(), reference.data(), reference.size()) != 0) ++wrong;
    return pixels;
  };

  // Every target of this build, host arrays in and out; the example's own target last, its image written.
  std::vector<ufunc::target_id> targets{ufunc::target_id::cpu};
  if (ufunc::target_available(ufunc::target_id::parallel)) targets.push_back(ufunc::target_id::parallel);
  const bool on_gpu = example_target::id == ufunc::target_id::cuda;
  if (on_gpu) targets.push_back(ufunc::target_id::cuda);
  ufunc::array image;
  for (const auto t : targets) {
    const ufunc::call_options on{.target = t};
    const auto start = std::chrono::steady_clock::now();
    image = check(mandel_ufunc(xs, ys, on));  // (1, 1536) with (1024, 1) broadcasts to (1024, 1536)
    const double first = milliseconds_since(start);
    const double warm = median_ms(runs, [&] { image = ufunc::to_host(mandel_ufunc(xs, ys, on)); });
    rows.push_back({"target " + std::string(ufunc::to_string(t)) + (on_gpu ? ", host arrays" : ""), first, warm});
  }
#if defined(UFUNC_HAS_CUDA)
  // Data kept on the GPU between calls, as Numba's cuda.to_device: no transfers in the loop.
  if (on_gpu) {
    const ufunc::array xs_d = ufunc::to_device(xs), ys_d = ufunc::to_device(ys);
    ufunc::array on_device;
    const double warm = median_ms(runs, [&] {
      on_device = mandel_ufunc(xs_d, ys_d);
      ufunc::backends::cuda::synchronize();
    });
    check(on_device);
    rows.push_back({"target cuda, device arrays", std::nullopt, warm});
  }
#endif

  std::FILE* f = std::fopen(path, "wb");
  if (!f) {
    std::perror(path);
    return 1;
  }
  std::fprintf(f, "P5\n%ld %ld\n255\n", width, height);
  std::fwrite(image.data(), 1, static_cast<std::size_t>(image.size()), f);
  std::fclose(f);

  std::printf("mandelbrot %s uint8, %d iterations -> %s; every target's image equals the plain loop's: %s\n",
              ufunc::array::shape_string(image.shape()).c_str(), max_iters, path, wrong == 0 ? "yes" : "NO");
  std::printf("  %-28s %12s %22s %16s\n", "how", "first call", "warm (median of 10)", "vs plain loop");
  for (const auto& r : rows) {
    char first[32] = "-";
    if (r.first_ms) std::snprintf(first, sizeof first, "%.2f ms", *r.first_ms);
    std::printf("  %-28s %12s %19.3f ms %15.1fx\n", r.how.c_str(), first, r.warm_ms, rows[0].warm_ms / r.warm_ms);
  }
  if (on_gpu)
    std::printf("The first cuda call creates the CUDA context and loads the kernels (once per process); "
                "warm host-array calls include copying the image back.\n");
  return wrong == 0 && image.at<std::uint8_t>(height / 2, width / 3) == 255 ? 0 : 1;  // (-1, 0) lies in the set
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
