// The Mandelbrot set of NVIDIA's Numba blog post: mandel(x, y, max_iters) as a
// scalar function, made a ufunc and broadcast over a row of x and a column of y
// into a 1024x1536 uint8 image, written as mandelbrot.pgm.
#include <chrono>
#include <cstdint>
#include <cstdio>

#include <ufunc/ufunc.hpp>

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

}  // namespace

int main(int argc, char** argv) try {
  const char* path = argc > 1 ? argv[1] : "mandelbrot.pgm";
  const std::int64_t height = 1024, width = 1536;
  const double min_x = -2.0, max_x = 1.0, min_y = -1.0, max_y = 1.0;

  auto xs = ufunc::empty<double>({1, width});   // a row of x
  auto ys = ufunc::empty<double>({height, 1});  // a column of y
  for (std::int64_t j = 0; j < width; ++j) xs.at(0, j) = min_x + j * (max_x - min_x) / width;
  for (std::int64_t i = 0; i < height; ++i) ys.at(i, 0) = min_y + i * (max_y - min_y) / height;

  auto mandel_ufunc = ufunc::vectorize<std::uint8_t(double, double), example_target>(mandel{}, "mandel");
  const auto start = std::chrono::steady_clock::now();
  auto image = mandel_ufunc(xs, ys);  // (1, 1536) with (1024, 1) broadcasts to (1024, 1536)
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::FILE* f = std::fopen(path, "wb");
  if (!f) {
    std::perror(path);
    return 1;
  }
  std::fprintf(f, "P5\n%ld %ld\n255\n", width, height);
  const auto pixels = ufunc::to_host(image);  // a no-op on the cpu targets
  std::fwrite(pixels.data(), 1, static_cast<std::size_t>(pixels.size()), f);
  std::fclose(f);
  std::printf("mandelbrot %s: %ld x %ld uint8, %d iterations, %.1f ms on target %s -> %s\n",
              ufunc::array::shape_string(image.shape()).c_str(), height, width, max_iters, seconds * 1e3,
              std::string(ufunc::to_string(example_target::id)).c_str(), path);
  return pixels.at<std::uint8_t>(height / 2, width / 3) == 255 ? 0 : 1;  // (-1, 0) lies in the set
} catch (const ufunc::error& e) {
  std::fprintf(stderr, "ufunc error: %s\n", e.what());
  return 1;
}
