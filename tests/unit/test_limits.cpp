// Limits: arrays of more than 2^31 elements, 32 and 64 dimensions, and shapes or
// strides whose sizes overflow 64 bits. Beyond a limit the answer is a ufunc::error
// that says what was wrong, never undefined behaviour.
//
// The test suite "big" allocates about 6.5 GB and takes a few seconds: ctest runs it
// once (test unit.big, label big) instead of once per instruction set. It skips
// itself, printing "SKIPPED", under AddressSanitizer and ThreadSanitizer, when
// UFUNC_TEST_BIG=0, and when the machine has too little free memory.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UFUNC_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UFUNC_TEST_SANITIZED 1
#endif
#endif
#if !defined(UFUNC_TEST_SANITIZED)
#define UFUNC_TEST_SANITIZED 0
#endif

namespace {

using i64 = std::int64_t;
using ufunc::array;
using ufunc::dim_vector;

constexpr i64 i64_max = std::numeric_limits<i64>::max();
constexpr i64 i64_min = std::numeric_limits<i64>::min();

// Checks that `fn` throws E and that the message contains `needle`.
template <class E, class Fn>
void check_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL("no exception; expected one whose message contains '" << needle << "'");
  } catch (const E& e) {
    INFO("message: " << e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Many dimensions: an independent element-by-element computation over raw strides.

// Byte offset of a C-order multi-index `idx` of `shape` in an array of that shape,
// or of an operand broadcast to it (right-aligned, extent-1 axes repeat).
i64 offset_in(const array& a, const dim_vector& shape, const std::vector<i64>& idx) {
  const std::size_t lead = shape.size() - a.ndim();
  i64 off = 0;
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.shape()[d] != 1) off += idx[lead + d] * a.strides()[d];
  return off;
}

// Calls fn(idx) for every multi-index of `shape` in C order.
template <class Fn>
void for_each_index(const dim_vector& shape, Fn&& fn) {
  std::vector<i64> idx(shape.size(), 0);
  const i64 n = ufunc::shape_size(shape);
  for (i64 k = 0; k < n; ++k) {
    fn(idx);
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

double value_at(const array& a, const dim_vector& shape, const std::vector<i64>& idx) {
  double v;
  std::memcpy(&v, a.data() + offset_in(a, shape, idx), sizeof v);
  return v;
}

// A `ndim`-dimensional float64 operand whose memory order is not its axis order
// (a permuted base), with one axis walked backwards, holding distinct small
// integers. `extents` gives the shape.
array scrambled_operand(const dim_vector& extents, unsigned seed) {
  const std::size_t nd = extents.size();
  std::mt19937 gen(seed);
  std::vector<i64> perm(nd);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), gen);
  dim_vector base_shape(nd);
  for (std::size_t i = 0; i < nd; ++i) base_shape[i] = extents[static_cast<std::size_t>(perm[i])];
  const array base = array::empty(base_shape, ufunc::float64);
  auto* p = reinterpret_cast<double*>(base.data());
  for (i64 i = 0; i < base.size(); ++i) p[i] = static_cast<double>((i * 37 + seed) % 1009) - 500.0;
  // base.transpose(inverse of perm) has shape `extents`.
  std::vector<i64> inverse(nd);
  for (std::size_t i = 0; i < nd; ++i) inverse[static_cast<std::size_t>(perm[i])] = static_cast<i64>(i);
  array t = base.transpose(inverse);
  // Reverse the first axis of extent > 1 through a raw view that keeps the owner.
  dim_vector strides = t.strides();
  std::byte* data = t.data();
  for (std::size_t d = 0; d < nd; ++d)
    if (t.shape()[d] > 1) {
      data += (t.shape()[d] - 1) * strides[d];
      strides[d] = -strides[d];
      break;
    }
  return array(data, ufunc::float64, t.shape(), strides, base.owner());
}

// A shape of `nd` axes: extent 2 on `twos` axes and 3 on `threes`, spread out, 1 elsewhere.
dim_vector spread_shape(std::size_t nd, std::size_t twos, std::size_t threes, unsigned seed) {
  dim_vector s(nd, 1);
  std::vector<std::size_t> axes(nd);
  std::iota(axes.begin(), axes.end(), std::size_t{0});
  std::mt19937 gen(seed);
  std::shuffle(axes.begin(), axes.end(), gen);
  for (std::size_t i = 0; i < twos + threes; ++i) s[axes[i]] = i < twos ? 2 : 3;
  return s;
}

void check_many_dimensions(std::size_t nd) {
  CAPTURE(nd);
  const dim_vector shape = spread_shape(nd, 12, 2, static_cast<unsigned>(nd));
  const array a = scrambled_operand(shape, 1);
  // b has fewer axes and is broadcast along some of a's: right-aligned, extent 1
  // wherever a's axis has extent 2 at even positions.
  const std::size_t bnd = nd - 5;
  dim_vector bshape(bnd);
  for (std::size_t d = 0; d < bnd; ++d) {
    const auto e = shape[nd - bnd + d];
    bshape[d] = (e == 2 && d % 2 == 0) ? 1 : e;
  }
  const array b = scrambled_operand(bshape, 2);

  std::vector<double> expected_sum, expected_fma;
  for_each_index(shape, [&](const std::vector<i64>& idx) {
    const double x = value_at(a, shape, idx), y = value_at(b, shape, idx);
    expected_sum.push_back(x + y);
    expected_fma.push_back(x * 2.0 + y);
  });
  auto fma2 = ufunc::vectorize<double(double, double)>([](auto x, auto y) { return x * 2.0 + y; }, "fma2");
  const ufunc_test::parallel_split split(7, 16);
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    const array r = ufunc::add(a, b, {.target = target});
    REQUIRE(r.ndim() == nd);
    CHECK(r.shape() == shape);
    CHECK(r.to_vector<double>() == expected_sum);
    // Into a 64-d strided output (another scrambled layout).
    const array out = scrambled_operand(shape, 3);
    fma2.call(std::vector<ufunc::operand>{a, b}, {.out = {out}, .target = target});
    std::vector<double> got;
    for_each_index(shape, [&](const std::vector<i64>& idx) { got.push_back(value_at(out, shape, idx)); });
    CHECK(got == expected_fma);
    // The typed path with array_t operands.
    const ufunc::array_t<double> ta(a), tb(b);
    CHECK(fma2(ta, tb, {.target = target}).to_vector() == expected_fma);

    // Reductions over a few axes, the first and the last among them.
    const std::vector<int> axes = {0, static_cast<int>(nd / 2), static_cast<int>(nd) - 1};
    const array red = ufunc::add.reduce(a, {.axis = axes, .keepdims = true, .target = target});
    dim_vector rshape = shape;
    for (int ax : axes) rshape[static_cast<std::size_t>(ax)] = 1;
    REQUIRE(red.shape() == rshape);
    std::vector<double> sums(static_cast<std::size_t>(ufunc::shape_size(rshape)), 0.0);
    for_each_index(shape, [&](const std::vector<i64>& idx) {
      i64 k = 0;  // C-order position in rshape
      for (std::size_t d = 0; d < nd; ++d) k = k * rshape[d] + (rshape[d] == 1 ? 0 : idx[d]);
      sums[static_cast<std::size_t>(k)] += value_at(a, shape, idx);
    });
    CHECK(red.to_vector<double>() == sums);
    double maximum = -1e300;
    for_each_index(shape, [&](const std::vector<i64>& idx) { maximum = std::max(maximum, value_at(a, shape, idx)); });
    CHECK(ufunc::maximum.reduce(a, {.axis = ufunc::all_axes, .target = target}).item<double>() == maximum);

    // A running sum along an inner axis of extent > 1.
    int acc_axis = static_cast<int>(nd) - 1;
    while (shape[static_cast<std::size_t>(acc_axis)] == 1) --acc_axis;
    const array acc = ufunc::add.accumulate(a, {.axis = acc_axis, .target = target});
    std::vector<double> running;
    for_each_index(shape, [&](const std::vector<i64>& idx) {
      std::vector<i64> j = idx;
      double s = 0;
      for (j[static_cast<std::size_t>(acc_axis)] = 0; j[static_cast<std::size_t>(acc_axis)] <= idx[acc_axis];
           ++j[static_cast<std::size_t>(acc_axis)])
        s += value_at(a, shape, j);
      running.push_back(s);
    });
    CHECK(acc.to_vector<double>() == running);
  }
}

}  // namespace

TEST_CASE("limits: 32 dimensions, transposed, reversed and broadcast operands, equal an element-wise computation") {
  check_many_dimensions(32);
}

TEST_CASE("limits: 64 dimensions (NumPy's maximum), equal an element-wise computation") {
  static_assert(ufunc::max_ndim == 64);
  check_many_dimensions(64);
}

TEST_CASE("limits: results that would need a 65th dimension are a value_error") {
  // outer() of a 33-d and a 32-d array: NumPy raises "maximum supported dimension".
  const array x33 = array::zeros(dim_vector(std::size_t{33}, 1), ufunc::float64);
  const array y32 = array::zeros(dim_vector(std::size_t{32}, 1), ufunc::float64);
  const array x32 = array::zeros(dim_vector(std::size_t{32}, 1), ufunc::float64);
  const array r = ufunc::add.outer(x32, y32);
  CHECK(r.ndim() == 64);
  check_error<ufunc::value_error>([&] { (void)ufunc::add.outer(x33, y32); }, "64");
  // keepdims reductions and newaxis keep within the limit or say so.
  const array a64 = array::zeros(dim_vector(std::size_t{64}, 1), ufunc::float64);
  CHECK(ufunc::add.reduce(a64, {.axis = ufunc::all_axes, .keepdims = true}).ndim() == 64);
  check_error<ufunc::index_error>([&] { (void)a64[{ufunc::newaxis}]; }, "64");
  check_error<ufunc::value_error>([&] { (void)a64.reshape(dim_vector(std::size_t{65}, 1)); }, "64");
}

// ---------------------------------------------------------------------------------------------------------------------
// Sizes that overflow 64 bits

TEST_CASE("limits: views over raw pointers whose byte extent overflows are an overflow_error") {
  std::int8_t x[16] = {};
  // Strides so large that (extent - 1) * stride overflows int64.
  check_error<ufunc::overflow_error>([&] { (void)ufunc::view(x, {i64{1} << 40}, {i64{1} << 40}); }, "spans");
  check_error<ufunc::overflow_error>([&] { (void)ufunc::view(x, {3}, {i64_max}); }, "byte strides");
  check_error<ufunc::overflow_error>([&] { (void)ufunc::view(x, {2}, {i64_min}); }, "spans");
  check_error<ufunc::overflow_error>([&] { (void)ufunc::view(x, {2, 2}, {i64{1} << 62, i64{1} << 62}); }, "spans");
  // Sums of per-axis spans that overflow although each axis fits.
  check_error<ufunc::overflow_error>(
      [&] {
        (void)ufunc::view(x, {2, 2, 2}, {i64{1} << 61, i64{1} << 61, -(i64{1} << 61)});
      },
      "spans");
  // Beyond 2^62 bytes (no address space is that large) although int64 would hold it.
  check_error<ufunc::overflow_error>([&] { (void)ufunc::view(x, {3}, {i64{1} << 61}); }, "2^62");
  // Element counts that overflow, with zero strides.
  check_error<ufunc::overflow_error>([&] { (void)ufunc::view(x, {i64{1} << 32, i64{1} << 32}, {0, 0}); }, "overflows");
  // The same through the span overload (which also checks the extent against the span).
  const std::span<std::int8_t> all(x);
  check_error<ufunc::overflow_error>([&] { (void)ufunc::view(all, {4}, {i64{1} << 62}); }, "spans");
  check_error<ufunc::overflow_error>([&] { (void)ufunc::view(all, {2}, {i64_min}); }, "spans");
  check_error<ufunc::index_error>([&] { (void)ufunc::view(all, {2}, {i64{1} << 40}); }, "reaches bytes");
  // Large but legal: a repeated element, a single element whatever its stride, an empty view.
  CHECK(ufunc::view(x, {i64{1} << 62}, {0}).size() == i64{1} << 62);
  CHECK(ufunc::view(x, {1, 1}, {i64_max, i64_min}).size() == 1);
  CHECK(ufunc::view(x, {0, i64{1} << 40}, {i64_max, i64_max}).size() == 0);
  CHECK(ufunc::view(x, {2}, {i64{1} << 60}).size() == 2);  // never read here
}

TEST_CASE("limits: broadcasting huge shapes in a call raises overflow_error before anything is allocated") {
  const auto one = ufunc::scalar<std::int8_t>(1);
  const array row = one.broadcast_to({1, i64{1} << 40}), col = one.broadcast_to({i64{1} << 40, 1});
  auto twice = ufunc::vectorize<std::int8_t(std::int8_t, std::int8_t)>([](auto p, auto q) { return p + q; }, "twice");
  for (const auto target : ufunc_test::host_targets()) {
    CAPTURE(ufunc::to_string(target));
    // (2^40, 2^40) elements: the count overflows.
    check_error<ufunc::overflow_error>([&] { (void)ufunc::add(row, col, {.target = target}); },
                                       "(1099511627776, 1099511627776)");
    check_error<ufunc::overflow_error>(
        [&] { (void)twice(ufunc::array_t<std::int8_t>(row), ufunc::array_t<std::int8_t>(col), {.target = target}); },
        "overflows");
    check_error<ufunc::overflow_error>([&] { (void)ufunc::add.outer(row, col, {.target = target}); }, "overflows");
    // where= allocates zeros: the same check.
    const array mask = ufunc::scalar<bool>(true).broadcast_to({1, 1});
    check_error<ufunc::overflow_error>([&] { (void)ufunc::add(row, col, {.where = mask, .target = target}); },
                                       "overflows");
    // 2^61 elements fit, but not as 8-byte float64 results (int8 + a weak float is float64).
    const array wide = one.broadcast_to({i64{1} << 61});
    check_error<ufunc::overflow_error>([&] { (void)ufunc::add(wide, 1.5, {.target = target}); }, "8-byte");
    check_error<ufunc::overflow_error>([&] { (void)ufunc::add(wide, 1, {.dtype = ufunc::float64, .target = target}); },
                                       "overflows");
  }
  // The broadcast itself: shapes that overflow, and shapes that do not broadcast.
  check_error<ufunc::overflow_error>([&] { (void)one.broadcast_to({i64{1} << 40, i64{1} << 40}); }, "overflows");
  check_error<ufunc::broadcast_error>(
      [&] {
        (void)ufunc::add(row, one.broadcast_to({1, i64{1} << 41}));
      },
      "could not be broadcast");
}

#if !UFUNC_TEST_SANITIZED
// Sanitizer allocators abort on requests this large instead of returning null.
TEST_CASE("limits: sizes that fit in 64 bits but not in memory are a memory_error") {
  check_error<ufunc::memory_error>([] { (void)array::empty({i64_max}, ufunc::int8); }, "unable to allocate");
  check_error<ufunc::memory_error>([] { (void)array::zeros({i64{1} << 61}, ufunc::int16); }, "unable to allocate");
  const array huge = ufunc::scalar<std::int8_t>(1).broadcast_to({i64{1} << 50});
  for (const auto target : ufunc_test::host_targets())
    check_error<ufunc::memory_error>([&] { (void)ufunc::add(huge, 1, {.target = target}); }, "1125899906842624 bytes");
  CHECK(ufunc::add(ufunc::arange<std::int8_t>(5), 1).to_vector<std::int8_t>() ==
        std::vector<std::int8_t>{1, 2, 3, 4, 5});
}
#endif

TEST_CASE("limits: reshape and arange with sizes that overflow raise instead of wrapping") {
  const auto empty = ufunc::zeros<std::int8_t>({0});
  // NumPy: np.zeros(0).reshape(2**40, 2**40, 0) is "array is too big".
  check_error<ufunc::overflow_error>([&] { (void)empty.reshape({i64{1} << 40, i64{1} << 40, 0}); }, "overflows");
  check_error<ufunc::overflow_error>([&] { (void)empty.reshape({0, i64{1} << 40, i64{1} << 40}); }, "overflows");
  check_error<ufunc::overflow_error>([&] { (void)empty.reshape({-1, i64{1} << 40, i64{1} << 40}); }, "overflows");
  check_error<ufunc::overflow_error>([&] { (void)empty.reshape({0, i64_max, 2}); }, "overflows");
  CHECK(empty.reshape({0, i64{1} << 40}).shape() == dim_vector{0, i64{1} << 40});
  check_error<ufunc::value_error>([&] { (void)empty.reshape({-1, 0}); }, "cannot reshape");
  const auto six = ufunc::arange<std::int8_t>(6);
  check_error<ufunc::value_error>([&] { (void)six.reshape({i64{1} << 62, -1}); }, "cannot reshape");
  check_error<ufunc::overflow_error>([&] { (void)six.reshape({i64{1} << 62, i64{1} << 62}); }, "too big");
  CHECK(six.reshape({-1, 3}).shape() == dim_vector{2, 3});

  check_error<ufunc::overflow_error>([] { (void)ufunc::arange<double>(0.0, 1e300); }, "overflows");
  check_error<ufunc::overflow_error>([] { (void)ufunc::arange<i64>(i64_min, i64_max); }, "overflows");
  check_error<ufunc::value_error>([] { (void)ufunc::arange<double>(0.0, std::nan("")); }, "NaN");
  CHECK(ufunc::arange<double>(0.0, 1e300, 1e299).size() == 10);
}

// ---------------------------------------------------------------------------------------------------------------------
// More than 2^31 elements (test suite "big")

namespace {

// 0: skip, with the reason printed for ctest (SKIP_REGULAR_EXPRESSION "SKIPPED").
bool big_tests_enabled(std::int64_t bytes_needed) {
  if (UFUNC_TEST_SANITIZED) {
    std::printf("SKIPPED: big-memory limit tests do not run under sanitizers\n");
    return false;
  }
  if (const char* v = std::getenv("UFUNC_TEST_BIG"); v != nullptr && std::string(v) == "0") {
    std::printf("SKIPPED: big-memory limit tests (UFUNC_TEST_BIG=0)\n");
    return false;
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  while (meminfo >> key >> kib)
    if (key == "MemAvailable:") {
      if (kib * 1024 < bytes_needed + (std::int64_t{1} << 30)) {
        std::printf("SKIPPED: big-memory limit tests need %lld MiB free, %lld MiB are\n",
                    static_cast<long long>(bytes_needed >> 20), static_cast<long long>(kib >> 10));
        return false;
      }
      break;
    }
  return true;
}

// Periods that are prime, so that no index error by a multiple of 2^k (a 32-bit
// wrap-around) maps an element onto one with the same value.
constexpr int period_a = 251, period_b = 241;

std::int8_t pattern(i64 i, int period, int mul) { return static_cast<std::int8_t>((i * mul) % period); }

// Fills p[0, n) with pattern(i) through one repeated block (memory speed, not a
// division per element).
void fill_pattern(std::int8_t* p, i64 n, int period, int mul) {
  std::vector<std::int8_t> block(static_cast<std::size_t>(period) * 4096);
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = pattern(static_cast<i64>(i), period, mul);
  for (i64 at = 0; at < n; at += static_cast<i64>(block.size()))
    std::memcpy(p + at, block.data(), static_cast<std::size_t>(std::min<i64>(n - at, static_cast<i64>(block.size()))));
}

// The positions checked: both ends, around 2^31 and 2^32 (where 32-bit offsets
// wrap), piece edges of the parallel target, and random ones.
std::vector<i64> probe_positions(i64 n) {
  std::vector<i64> pos = {0, 1, 2, 31, 32, 33, 4095, 4096, 32767, 32768, 32769};
  for (i64 c : {i64{1} << 31, i64{1} << 32})
    for (i64 d = -3; d <= 3; ++d)
      if (c + d >= 0 && c + d < n) pos.push_back(c + d);
  for (i64 d = 1; d <= 40; ++d) pos.push_back(n - d);
  std::mt19937_64 gen(7);
  for (int k = 0; k < 2000; ++k) pos.push_back(static_cast<i64>(gen() % static_cast<std::uint64_t>(n)));
  return pos;
}

}  // namespace

TEST_SUITE("big") {
  TEST_CASE("limits (big): an int8 array of 2^31 + 65553 elements: reduce, contiguous, broadcast and reversed adds") {
    const i64 n = (i64{1} << 31) + (i64{1} << 16) + 17;
    if (!big_tests_enabled(n)) return;
    // One buffer, updated in place: on this kind of virtual machine first-touching
    // fresh memory costs more than the arithmetic, so no call allocates a result of n.
    auto a = ufunc::empty<std::int8_t>({n});
    fill_pattern(a.data(), n, period_a, 1);
    const auto positions = probe_positions(n);
    // Pieces of the default size whatever the environment says (unit.parallel's tiny
    // grain would make 400 million pieces).
    const ufunc_test::parallel_split split(32768, 4 * 32768);
    const auto targets = ufunc_test::host_targets();

    // add.reduce of int8 sums in int64 (NumPy's rule): every element counts once.
    i64 period_sum = 0, expected_sum = 0;
    for (int v = 0; v < period_a; ++v) period_sum += static_cast<std::int8_t>(v);
    expected_sum = (n / period_a) * period_sum;
    for (int v = 0; v < n % period_a; ++v) expected_sum += static_cast<std::int8_t>(v);
    for (const auto target : targets) {
      CAPTURE(ufunc::to_string(target));
      const array s = ufunc::add.reduce(a, {.target = target});
      CHECK(s.type() == ufunc::int64);
      CHECK(s.item<i64>() == expected_sum);
    }

    // Then additions in place; expected(i) is the pattern plus everything added so far
    // (int8 wraps modulo 256, so the order of the additions does not matter).
    const i64 cols = 65537, rows = 32768;
    static_assert(65537 * i64{32768} > (i64{1} << 31));
    const auto row = ufunc::empty<std::int8_t>({cols});
    fill_pattern(row.data(), cols, period_b, 7);
    int scalar_added = 0, rows_added = 0;
    auto expected = [&](i64 i) {
      int v = pattern(i, period_a, 1) + scalar_added;
      if (i < rows * cols) v += rows_added * pattern(i % cols, period_b, 7);
      return static_cast<std::int8_t>(v);
    };
    auto mismatches = [&] {
      int bad = 0;
      for (i64 i : positions) bad += a.data()[i] != expected(i);
      for (i64 i : {rows * cols - 1, rows * cols, n - 1}) bad += a.data()[i] != expected(i);
      return bad;
    };
    for (const auto target : targets) {
      CAPTURE(ufunc::to_string(target));
      // Contiguous with a weak scalar: on cpu one inner-loop call of n elements.
      ufunc::add(a, 3, {.out = {a}, .target = target});
      scalar_added += 3;
      CHECK(mismatches() == 0);
      // A 2-d view over rows * cols elements plus a broadcast row: the general path,
      // with offsets row * cols beyond 2^31.
      const auto a2 = a[{ufunc::slice{0, rows * cols}}].reshape({rows, cols});
      ufunc::add(a2, row, {.out = {a2}, .target = target});
      ++rows_added;
      CHECK(mismatches() == 0);
      // a[::-1] in place: the plan flips the axis, starting n - 1 bytes from the view's data.
      const auto reversed = a[{ufunc::slice{std::nullopt, std::nullopt, -1}}];
      ufunc::add(reversed, 5, {.out = {reversed}, .target = target});
      scalar_added += 5;
      CHECK(mismatches() == 0);
    }
  }
}
