// The measured split that execute() and execute_units() share: a probe timed on the
// calling thread decides whether the rest of a call is worth splitting, and every
// split call is counted (split_calls()).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <ufunc/backends/parallel/elementwise.hpp>

namespace ufunc::backends::parallel {

/// Called once by every call that runs pieces on the arena's threads.
void count_split() noexcept;

/// Runs probe(), which does `probe_elements` of a call's `total` elements, timed; returns
/// whether the rest is worth splitting into `pieces` pieces over `threads` threads
/// (split_pays, against wake_cost_ns(); threads beyond the pieces count for nothing).
template <class Probe>
[[nodiscard]] bool probe_then_decide(Probe&& probe, std::int64_t probe_elements, std::int64_t total, int threads,
                                     std::int64_t pieces) {
  const auto start = std::chrono::steady_clock::now();
  probe();
  const auto probe_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  const int busy = static_cast<int>(std::min<std::int64_t>(threads, pieces));
  return split_pays(probe_ns, probe_elements, total - probe_elements, busy, wake_cost_ns());
}

}  // namespace ufunc::backends::parallel
