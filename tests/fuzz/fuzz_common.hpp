// Shared by the libFuzzer harnesses (tests/fuzz, docs/fuzzing.md). The contract they
// check: whatever the input, the library returns a correct result or throws a
// ufunc::error. Any other exception, a crash, a sanitizer report or a hang is a bug.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>
#include <vector>

#include <ufunc/ufunc.hpp>

namespace fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "FUZZ FAILURE: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void require(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

/// Runs `f`. Returns true when it returned, false when it threw a ufunc::error (an
/// accepted answer to bad input); anything else thrown is a finding.
template <class F>
bool accepted(F&& f) {
  try {
    f();
    return true;
  } catch (const ufunc::error&) {
    return false;
  } catch (const std::exception& e) {
    fail(std::string("exception outside ufunc::error: ") + typeid(e).name() + ": " + e.what());
  } catch (...) {
    fail("exception outside ufunc::error (not a std::exception)");
  }
}

/// Runs `f`, which must throw a ufunc::error of type E (the harness knows the input is
/// invalid); `what` names the case in the report.
template <class E, class F>
void expect_error(F&& f, const std::string& what) {
  try {
    f();
  } catch (const E&) {
    return;
  } catch (const ufunc::error& e) {
    fail(what + ": expected " + typeid(E).name() + ", got " + typeid(e).name() + ": " + e.what());
  } catch (const std::exception& e) {
    fail(what + ": exception outside ufunc::error: " + e.what());
  }
  fail(what + ": accepted although invalid");
}

inline ufunc::dtype pick_dtype(FuzzedDataProvider& in) {
  return ufunc::dtype::from_index(in.ConsumeIntegralInRange<int>(0, ufunc::dtype::count - 1));
}

/// Mostly small values (shapes, strides, indices that mean something for small
/// arrays), sometimes anything: the edges (int64 limits, overflow) are where the
/// unchecked arithmetic is.
inline std::int64_t small_or_wild(FuzzedDataProvider& in, std::int64_t lo, std::int64_t hi) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return in.ConsumeIntegral<std::int64_t>();
    case 1: {
      static constexpr std::int64_t edges[] = {INT64_MIN,
                                               INT64_MIN + 1,
                                               -(std::int64_t{1} << 62),
                                               -(std::int64_t{1} << 32),
                                               -1,
                                               0,
                                               1,
                                               std::int64_t{1} << 31,
                                               std::int64_t{1} << 32,
                                               std::int64_t{1} << 62,
                                               INT64_MAX - 1,
                                               INT64_MAX};
      return edges[in.ConsumeIntegralInRange<std::size_t>(0, std::size(edges) - 1)];
    }
    default:
      return in.ConsumeIntegralInRange<std::int64_t>(lo, hi);
  }
}

/// A weak (C++) scalar of any kind, including integers beyond every dtype's range.
inline ufunc::operand pick_scalar(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      return ufunc::operand(in.ConsumeBool());
    case 1:
      return ufunc::operand(in.ConsumeIntegral<std::int64_t>());
    case 2:
      return ufunc::operand(in.ConsumeIntegral<std::uint64_t>());
    case 3:
      return ufunc::operand(in.ConsumeFloatingPoint<double>());
    case 4:
      return ufunc::operand(static_cast<float>(in.ConsumeIntegralInRange<int>(-4, 4)));
    default:
      return ufunc::operand(std::complex<double>(in.ConsumeFloatingPoint<double>(), in.ConsumeFloatingPoint<double>()));
  }
}

inline ufunc::weak_scalar pick_weak(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0:
      return ufunc::weak_scalar(in.ConsumeBool());
    case 1:
      return ufunc::weak_scalar(in.ConsumeIntegral<std::int64_t>());
    case 2:
      return ufunc::weak_scalar(in.ConsumeIntegral<std::uint64_t>());
    case 3:
      return ufunc::weak_scalar(in.ConsumeFloatingPoint<double>());
    default:
      return ufunc::weak_scalar(std::complex<double>(in.ConsumeFloatingPoint<double>(), 1.0));
  }
}

/// A built-in ufunc chosen by the input (every one of NumPy's standard set).
inline const ufunc::function& pick_builtin(FuzzedDataProvider& in) {
  const auto list = ufunc::builtin_ufuncs();
  return list[in.ConsumeIntegralInRange<std::size_t>(0, list.size() - 1)].get();
}

/// An owning C-ordered array of `shape` whose bytes come from the input (every bit
/// pattern: NaNs, infinities, bools other than 0 and 1 are normalized to 0/1).
inline ufunc::array filled_array(FuzzedDataProvider& in, ufunc::dtype type, const ufunc::dim_vector& shape) {
  auto a = ufunc::array::zeros(shape, type);
  const auto bytes = static_cast<std::size_t>(a.nbytes());
  const auto given = in.ConsumeBytes<std::uint8_t>(bytes);
  auto* p = reinterpret_cast<std::uint8_t*>(a.data());
  for (std::size_t i = 0; i < bytes; ++i)
    p[i] = given.empty() ? static_cast<std::uint8_t>(i * 37) : given[i % given.size()];
  // A bool byte other than 0 or 1 is undefined behaviour in C++ (NumPy normalizes too).
  if (type == ufunc::bool_)
    for (std::size_t i = 0; i < bytes; ++i) p[i] &= 1;
  return a;
}

/// A shape of up to `max_ndim` small extents, total size at most `max_size`.
inline ufunc::dim_vector small_shape(FuzzedDataProvider& in, int max_ndim, std::int64_t max_extent,
                                     std::int64_t max_size) {
  ufunc::dim_vector shape;
  const int nd = in.ConsumeIntegralInRange<int>(0, max_ndim);
  std::int64_t size = 1;
  for (int d = 0; d < nd; ++d) {
    auto e = in.ConsumeIntegralInRange<std::int64_t>(0, max_extent);
    if (e > 0 && size * e > max_size) e = 1;
    size *= e > 0 ? e : 1;
    shape.push_back(e);
  }
  return shape;
}

inline std::int64_t checked_shape_size(const ufunc::dim_vector& shape) {
  __int128 n = 1;
  for (auto e : shape) {
    n *= e;
    if (n > (__int128{1} << 62) || n < 0) return INT64_MAX;
  }
  return static_cast<std::int64_t>(n);
}

/// A view of `a` with another layout: reversed axes, negative steps, every other
/// element. The harnesses use it to reach the strided and flipped paths.
inline ufunc::array relayout(FuzzedDataProvider& in, const ufunc::array& a) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 1:
      return a.transpose();
    case 2: {
      if (a.ndim() == 0) return a;
      return a[{ufunc::slice{std::nullopt, std::nullopt, -1}}];
    }
    case 3:
      return a.as_readonly();
    default:
      return a;
  }
}

}  // namespace fuzz
