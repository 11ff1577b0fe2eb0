// Shared pieces of the unit tests: the type lists TEST_CASE_TEMPLATE runs over, the
// targets a test runs on, and comparison helpers.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include <doctest/doctest.h>

#include <ufunc/ufunc.hpp>
#if !defined(UFUNC_TEST_CUDA_SUITE)
#include "backends/serial/serial_backend.hpp"
#endif
#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

namespace ufunc_test {

// Every element type, and subsets, for TEST_CASE_TEMPLATE.
#define UFUNC_TEST_ALL_TYPES                                                                               \
  bool, std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, std::int64_t, \
      std::uint64_t, float, double, std::complex<float>, std::complex<double>
#define UFUNC_TEST_NUMERIC_TYPES                                                                                    \
  std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, \
      float, double, std::complex<float>, std::complex<double>
#define UFUNC_TEST_REAL_TYPES                                                                                       \
  std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, \
      float, double
#define UFUNC_TEST_FLOAT_TYPES float, double

/// The host targets of this build: cpu, and parallel where TBB is compiled in.
inline std::vector<ufunc::target_id> host_targets() {
#if defined(UFUNC_HAS_TBB)
  return {ufunc::target_id::cpu, ufunc::target_id::parallel};
#else
  return {ufunc::target_id::cpu};
#endif
}

/// For a scope: the parallel backend's grain and inline threshold (in elements), small
/// so that a test-sized call is split into pieces whose edges fall everywhere. Without
/// TBB it does nothing.
#if defined(UFUNC_HAS_TBB)
class parallel_split {
 public:
  /// Pieces of `grain`, and every call of more than 4 grains split (a fixed inline limit
  /// rather than the measured cost, which keeps test-sized calls on one thread).
  explicit parallel_split(std::int64_t grain) : parallel_split(grain, 4 * grain) {}
  parallel_split(std::int64_t grain, std::int64_t threshold) {
    ufunc::backends::parallel::set_grain(grain);
    ufunc::backends::parallel::set_threshold(threshold);
  }
  parallel_split(const parallel_split&) = delete;
  parallel_split& operator=(const parallel_split&) = delete;
  ~parallel_split() {
    ufunc::backends::parallel::set_grain(grain_);
    ufunc::backends::parallel::set_threshold(threshold_);
  }

 private:
  std::int64_t grain_ = ufunc::backends::parallel::grain();
  std::int64_t threshold_ = ufunc::backends::parallel::threshold();
};
#else
struct parallel_split {
  explicit parallel_split(std::int64_t) {}
  parallel_split(std::int64_t, std::int64_t) {}
};
#endif

// The targets of the shared cases (tests/targets/), written once and run on each target of the
// executable they are compiled into: the host targets of this build in the unit suite, cuda in
// the CUDA test executable (which defines UFUNC_TEST_CUDA_SUITE and compiles them with nvcc).
// A new backend with a tag type adds it here; typed cases take the tags (TEST_CASE_TEMPLATE),
// calls of built-ins the ids (targets()).
#if defined(UFUNC_TEST_CUDA_SUITE)
#define UFUNC_TEST_TARGETS ufunc::target::cuda
#elif defined(UFUNC_HAS_TBB)
#define UFUNC_TEST_TARGETS ufunc::target::cpu, ufunc::target::parallel
#else
#define UFUNC_TEST_TARGETS ufunc::target::cpu
#endif

template <class... Targets>
std::vector<ufunc::target_id> ids_of() {
  return {Targets::id...};
}

/// The targets a call of a built-in ufunc runs on in the shared cases: those of
/// UFUNC_TEST_TARGETS and, in the unit suite, the suite's own run-time backend
/// (tests/backends/serial), which has no tag type.
inline std::vector<ufunc::target_id> targets() {
  auto ids = ids_of<UFUNC_TEST_TARGETS>();
#if !defined(UFUNC_TEST_CUDA_SUITE)
  ids.push_back(ufunc::testing::serial_target);
#endif
  return ids;
}

/// a + b as NumPy computes it for T: integers wrap, bool is logical or.
template <class T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}

/// a * b as NumPy computes it for T: integers wrap, bool is logical and; complex as
/// C++ multiplies it (exact for the small integral values the shared cases use).
template <class T>
T wrapping_multiply(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a && b;
  else if constexpr (std::is_integral_v<T>)
    // In uint64: uint16 operands would otherwise promote to int, and 65535 * 65535 overflows it.
    return static_cast<T>(static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(a)) *
                          static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(b)));
  else
    return a * b;
}

/// Deterministic test values of type T, varied and away from overflow for small
/// integer types (values in [-50, 50], or [0, 100] for unsigned).
template <class T>
std::vector<T> sample_values(std::size_t n, unsigned seed = 1) {
  static_assert(!std::is_same_v<T, bool>, "std::vector<bool> is not contiguous: use sample_array<bool>");
  std::mt19937 gen(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_same_v<T, bool>) {
      x = gen() & 1u;
    } else if constexpr (std::is_integral_v<T>) {
      const int r = static_cast<int>(gen() % 101u);
      x = static_cast<T>(std::is_signed_v<T> ? r - 50 : r);
    } else if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(gen));
    } else {
      using R = typename T::value_type;
      x = T(static_cast<R>(std::uniform_real_distribution<double>(-10, 10)(gen)),
            static_cast<R>(std::uniform_real_distribution<double>(-10, 10)(gen)));
    }
  }
  return v;
}

/// The same values as sample_values, in a new 1-d array (works for bool too).
template <class T>
ufunc::array_t<T> sample_array(std::size_t n, unsigned seed = 1) {
  auto a = ufunc::empty<T>({static_cast<std::int64_t>(n)});
  if constexpr (std::is_same_v<T, bool>) {
    std::mt19937 gen(seed);
    for (std::size_t i = 0; i < n; ++i) a.data()[i] = (gen() & 1u) != 0;
  } else {
    const auto v = sample_values<T>(n, seed);
    std::copy(v.begin(), v.end(), a.data());
  }
  return a;
}

/// Distance in units in the last place between two finite floats of type T.
template <class T>
double ulp_distance(T a, T b) {
  if (a == b) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INFINITY;
  const T scale = std::max(std::abs(a), std::abs(b));
  const T ulp = std::nextafter(scale, std::numeric_limits<T>::infinity()) - scale;
  return std::abs(static_cast<double>(a) - static_cast<double>(b)) / static_cast<double>(ulp);
}

}  // namespace ufunc_test
