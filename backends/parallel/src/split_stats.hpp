// Counts the calls that the parallel backend split over threads (split_calls()).
#pragma once

namespace ufunc::backends::parallel {

/// Called once by every call that runs pieces on the arena's threads.
void count_split() noexcept;

}  // namespace ufunc::backends::parallel
