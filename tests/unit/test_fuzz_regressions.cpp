// Regressions found by the libFuzzer harnesses (tests/fuzz, docs/fuzzing.md). Each
// case was undefined behaviour that only a sanitizer reports (the values were right on
// x86); the values are checked here, and the asan preset, whose kernels are the
// baseline ones, reports the UB again if it comes back.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

template <class T>
std::vector<T> values(const ufunc::array& a) {
  return a.to_vector<T>();
}

}  // namespace

TEST_CASE("fuzz regression: 16-bit square and multiply wrap without signed overflow") {
  // xsimd's scalar fallback for 16-bit multiply (SSE2) promoted uint16 lanes to int:
  // 60615 * 60615 overflowed int (found by fuzz_view).
  const std::vector<std::uint16_t> u = {60615, 65535, 2, 0, 40000, 65535, 256, 255, 60615};
  std::vector<std::uint16_t> want;
  for (auto x : u) want.push_back(static_cast<std::uint16_t>(std::uint32_t{x} * x));
  const auto a = ufunc::asarray<std::uint16_t>(std::span<const std::uint16_t>(u));
  CHECK(values<std::uint16_t>(ufunc::square(a)) == want);
  CHECK(values<std::uint16_t>(ufunc::multiply(a, a)) == want);

  const std::vector<std::int16_t> s = {-32768, 32767, -1, 181, -182, 300, -300, 32767, -32768};
  std::vector<std::int16_t> swant;
  for (auto x : s) swant.push_back(static_cast<std::int16_t>(static_cast<std::uint32_t>(x * x)));
  const auto b = ufunc::asarray<std::int16_t>(std::span<const std::int16_t>(s));
  CHECK(values<std::int16_t>(ufunc::square(b)) == swant);
  CHECK(values<std::int16_t>(ufunc::multiply(b, b)) == swant);
}

TEST_CASE("fuzz regression: floor, ceil and trunc of float64 beyond the integer range") {
  // xsimd's generic trunc converted every lane to int64, also 1e300 and NaN (out of
  // range: UB) before discarding them (found by fuzz_signature).
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> x = {8.81033e+135, -1e300, 1e19, -9.3e18, 4503599627370497.0, inf, -inf,
                                 nan,          -0.0,   2.5,  -2.5};
  const auto a = ufunc::asarray<double>(std::span<const double>(x));
  for (const char* name : {"floor", "ceil", "trunc"}) {
    CAPTURE(name);
    const auto* f = ufunc::find_builtin(name);
    REQUIRE(f != nullptr);
    const auto got = values<double>((*f)(a));
    for (std::size_t i = 0; i < x.size(); ++i) {
      CAPTURE(i);
      const double want = name[0] == 'f' ? std::floor(x[i]) : name[0] == 'c' ? std::ceil(x[i]) : std::trunc(x[i]);
      if (std::isnan(want)) {
        CHECK(std::isnan(got[i]));
      } else {
        CHECK(got[i] == want);
        CHECK(std::signbit(got[i]) == std::signbit(want));
      }
    }
  }
}

TEST_CASE("fuzz regression: slicing an empty array with huge extents and steps") {
  // stride * step and start * stride overflowed int64 for empty arrays, whose extents
  // may reach 2^62 with any strides (found by fuzz_view).
  std::int8_t byte = 0;
  const ufunc::array empty(&byte, ufunc::int8, {0, std::int64_t{1} << 62}, {1, 4});
  const std::int64_t big = (std::int64_t{1} << 62) - 1;
  const auto r = empty[{ufunc::slice{}, ufunc::slice{std::nullopt, std::nullopt, -(std::int64_t{1} << 61)}}];
  CHECK(r.size() == 0);
  CHECK(r.shape()[1] == 2);
  const auto s = empty[{ufunc::slice{}, ufunc::slice{big, std::nullopt, 1}}];
  CHECK(s.shape()[1] == 1);
  const ufunc::array wide(&byte, ufunc::int8, {0, big}, {1, INT64_MAX});
  CHECK(wide[{ufunc::slice{}, big - 1}].size() == 0);
  CHECK(wide[{ufunc::slice{}, ufunc::slice{big - 2, std::nullopt, 1}}].shape()[1] == 2);
}

TEST_CASE("fuzz regression: views of misaligned elements are refused") {
  // The loops read elements through typed pointers: a misaligned one was UB (found by
  // fuzz_view). Views that address no misaligned element stay valid.
  alignas(16) std::byte buf[64] = {};
  CHECK_THROWS_AS(ufunc::array(buf + 1, ufunc::float32, {4}), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::array(buf, ufunc::float64, {4}, {12}), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::array(buf + 2, ufunc::complex64, {1}), ufunc::value_error);
  CHECK_NOTHROW(ufunc::array(buf + 1, ufunc::float32, {0}));          // addresses nothing
  CHECK_NOTHROW(ufunc::array(buf, ufunc::float64, {1, 2}, {3, 8}));   // a stride of an extent-1 axis is unused
  CHECK_NOTHROW(ufunc::array(buf + 1, ufunc::int8, {4}, {3}));        // bytes are always aligned
  CHECK_NOTHROW(ufunc::array(buf + 4, ufunc::complex64, {2}, {12}));  // complex64 is aligned as float
}

TEST_CASE("fuzz regression: element access to an empty array with huge strides") {
  // index * stride overflowed int64 before the out-of-range index of the empty axis
  // threw (found by fuzz_view).
  std::int32_t word = 0;
  const ufunc::array empty(&word, ufunc::int32, {3, 0}, {-(std::int64_t{3} << 61), 4});
  CHECK_THROWS_AS((void)empty.at<std::int32_t>(2, 0), ufunc::index_error);
}
