// The conversions of ufunc::float16 and ufunc::bfloat16 for check_half_conversions.py, which
// compares them with NumPy's float16 and ml_dtypes' bfloat16. Reads from stdin two counts
// (uint64: float bits, double bits) and the float and double bit patterns; writes to stdout,
// in order: every binary16 pattern as float bits and as double bits, every bfloat16 pattern
// as float bits, then each given float and double as float16 bits and as bfloat16 bits.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <ufunc/core/bfloat16.hpp>
#include <ufunc/core/float16.hpp>

namespace {

template <class T>
bool read(std::vector<T>& v, std::size_t n) {
  v.resize(n);
  return std::fread(v.data(), sizeof(T), n, stdin) == n;
}

template <class T>
void write(const std::vector<T>& v) {
  std::fwrite(v.data(), sizeof(T), v.size(), stdout);
}

}  // namespace

int main() {
  std::uint64_t counts[2] = {};
  std::vector<std::uint32_t> floats;
  std::vector<std::uint64_t> doubles;
  if (std::fread(counts, sizeof counts, 1, stdin) != 1 || !read(floats, counts[0]) || !read(doubles, counts[1])) {
    std::fprintf(stderr, "half_conversions: short input\n");
    return 2;
  }
  std::vector<std::uint32_t> h2f(65536), b2f(65536);
  std::vector<std::uint64_t> h2d(65536);
  for (std::uint32_t h = 0; h < 65536; ++h) {
    h2f[h] = ufunc::half_bits::to_float_bits(static_cast<std::uint16_t>(h));
    h2d[h] = ufunc::half_bits::to_double_bits(static_cast<std::uint16_t>(h));
    b2f[h] = ufunc::bfloat16_bits::to_float_bits(static_cast<std::uint16_t>(h));
  }
  std::vector<std::uint16_t> f2h(floats.size()), f2b(floats.size()), d2h(doubles.size()), d2b(doubles.size());
  for (std::size_t i = 0; i < floats.size(); ++i) {
    const float f = std::bit_cast<float>(floats[i]);
    f2h[i] = ufunc::float16_t(f).bits();
    f2b[i] = ufunc::bfloat16_t(f).bits();
  }
  for (std::size_t i = 0; i < doubles.size(); ++i) {
    const double d = std::bit_cast<double>(doubles[i]);
    d2h[i] = ufunc::float16_t(d).bits();
    d2b[i] = ufunc::bfloat16_t(d).bits();
  }
  write(h2f);
  write(h2d);
  write(b2f);
  write(f2h);
  write(f2b);
  write(d2h);
  write(d2b);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
