// Aligned host allocation shared by every owning array.
#pragma once

#include <cstddef>
#include <memory>

namespace ufunc::detail {

/// `bytes` of host memory aligned to host_alignment, freed when the last owner
/// goes. Throws memory_error when the allocation fails.
[[nodiscard]] std::shared_ptr<void> allocate_host(std::size_t bytes);

}  // namespace ufunc::detail
