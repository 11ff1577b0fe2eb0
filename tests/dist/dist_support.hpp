// Helpers of the distributed tests: the same pseudo-random arrays on every rank, this
// rank's block of a whole array, and comparisons of a gathered distributed result with
// the single-process result (exact, or within a float bound).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <ufunc/dist/dist.hpp>

namespace dist_test {

namespace dist = ufunc::dist;

inline const dist::communicator& world() {
  static const dist::communicator w;
  return w;
}

/// Values in [lo, hi] from a seed: the same array on every rank.
template <class T>
ufunc::array_t<T> random_array(const ufunc::dim_vector& shape, std::uint64_t seed, double lo = -50, double hi = 50) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  auto a = ufunc::empty<T>(shape);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_same_v<T, bool>)
      a.data()[i] = u(gen) > 0;
    else if constexpr (std::is_integral_v<T>)
      a.data()[i] = static_cast<T>(std::llround(u(gen)));
    else
      a.data()[i] = static_cast<T>(u(gen));
  }
  return a;
}

/// This rank's block of `whole` (every rank holds `whole`): no communication.
inline dist::array split(const ufunc::array& whole, const dist::distribution& layout) {
  const int rank = world().rank();
  if (layout.is_replicated()) return dist::array(whole.copy(), whole.shape(), layout, world());
  ufunc::dim_vector lo(whole.ndim(), 0);
  ufunc::dim_vector shape = whole.shape();
  const auto axis = static_cast<std::size_t>(layout.axis());
  lo[axis] = layout.offset(rank);
  shape[axis] = layout.count(rank);
  std::byte* data = whole.data();
  if (ufunc::shape_size(shape) > 0)
    for (std::size_t i = 0; i < lo.size(); ++i) data += lo[i] * whole.strides()[i];
  const ufunc::array view(data, whole.type(), shape, whole.strides(), whole.owner());
  return dist::array(view.copy(), whole.shape(), layout, world());
}
inline dist::array split(const ufunc::array& whole, int axis = 0) {
  return split(whole, dist::distribution::blocks(whole.shape()[static_cast<std::size_t>(axis)], world().size(), axis));
}

/// Uneven blocks: rank r holds about (r + 1) parts of the axis, the last rank the rest.
inline dist::distribution uneven(std::int64_t extent, int axis = 0) {
  const int p = world().size();
  std::vector<std::int64_t> counts(static_cast<std::size_t>(p), 0);
  std::int64_t left = extent;
  for (int r = 0; r < p; ++r) {
    const std::int64_t c = r + 1 == p ? left : std::min<std::int64_t>(left, (r + 1) * extent / (p * (p + 1) / 2));
    counts[static_cast<std::size_t>(r)] = c;
    left -= c;
  }
  return dist::distribution::from_counts(counts, axis);
}

/// Exact equality of dtype, shape and values (NaN equals NaN).
inline void check_same(const ufunc::array& got, const ufunc::array& want) {
  CHECK(got.valid());
  if (!got.valid()) return;
  CHECK(got.type() == want.type());
  CHECK(ufunc::array::shape_string(got.shape()) == ufunc::array::shape_string(want.shape()));
  if (got.shape() != want.shape()) return;
  if (got.type().is_integer() || got.type() == ufunc::bool_) {
    const auto g = got.to_vector<std::int64_t>();
    const auto w = want.to_vector<std::int64_t>();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < g.size(); ++i) bad += g[i] != w[i] ? 1 : 0;
    CHECK(bad == 0);
  } else {
    const auto g = got.to_vector<double>();
    const auto w = want.to_vector<double>();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < g.size(); ++i) bad += !(g[i] == w[i] || (std::isnan(g[i]) && std::isnan(w[i])));
    CHECK(bad == 0);
  }
}

/// Floats within `bound` times the sum of |terms| behind each value (the pairwise-sum
/// bound of a reduction or scan: a few ulps times log2 n, taken generously).
inline void check_close(const ufunc::array& got, const ufunc::array& want, const ufunc::array& magnitude,
                        double bound) {
  CHECK(got.valid());
  if (!got.valid()) return;
  CHECK(got.type() == want.type());
  CHECK(ufunc::array::shape_string(got.shape()) == ufunc::array::shape_string(want.shape()));
  if (got.shape() != want.shape()) return;
  const auto g = got.to_vector<double>();
  const auto w = want.to_vector<double>();
  const auto m = magnitude.to_vector<double>();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < g.size(); ++i) bad += std::abs(g[i] - w[i]) > bound * m[i] ? 1 : 0;
  CHECK(bad == 0);
}

/// What a collective call threw on this rank: "" when nothing, else the exception's kind.
template <class F>
std::string thrown(F&& f, std::string* message = nullptr) {
  try {
    f();
    return "";
  } catch (const dist::remote_error& e) {
    if (message) *message = e.what();
    return "remote_error";
  } catch (const ufunc::floating_point_error& e) {
    if (message) *message = e.what();
    return "floating_point_error";
  } catch (const dist::distribution_error& e) {
    if (message) *message = e.what();
    return "distribution_error";
  } catch (const ufunc::broadcast_error& e) {
    if (message) *message = e.what();
    return "broadcast_error";
  } catch (const ufunc::index_error& e) {
    if (message) *message = e.what();
    return "index_error";
  } catch (const ufunc::casting_error& e) {
    if (message) *message = e.what();
    return "casting_error";
  } catch (const ufunc::value_error& e) {
    if (message) *message = e.what();
    return "value_error";
  } catch (const ufunc::error& e) {
    if (message) *message = e.what();
    return "error";
  }
}

}  // namespace dist_test
