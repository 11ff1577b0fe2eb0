// Aligned host allocation shared by every owning array.
#pragma once

#include <cstddef>
#include <memory>

namespace ufunc::detail {

/// `bytes` of host memory aligned to host_alignment, freed when the last owner
/// goes. Throws memory_error when the allocation fails.
[[nodiscard]] std::shared_ptr<void> allocate_host(std::size_t bytes);

/// Fault injection for tests: after the next `after` host allocations (by any
/// thread) succeed, the following `count` fail as if malloc had returned null, so
/// that a test can reach every allocation of an operation. `count` 0 disarms it.
/// When disarmed, allocate_host pays one relaxed atomic load.
void inject_host_allocation_failures(int count, int after = 0) noexcept;
/// Injected failures that have not happened yet (0 when disarmed).
[[nodiscard]] int pending_host_allocation_failures() noexcept;

}  // namespace ufunc::detail
