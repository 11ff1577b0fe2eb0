// The seam between the type-erased core and the backends: which target a call
// runs on, and handing it the prepared task.
#pragma once

#include <cstdint>
#include <optional>

#include <ufunc/core/target.hpp>

namespace ufunc {
class elementwise_task;
}

namespace ufunc::detail {

/// The target a call runs on: the call's option, else the UFUNC_TARGET environment
/// variable (read once), else the build's default. Throws target_error if it is
/// unknown or not compiled in. `automatic` is resolved per call by execute().
[[nodiscard]] target_id resolve_target(std::optional<target_id> requested);

/// Whether a call of `size` elements on host data runs on the calling thread in one
/// piece on target `t`: up to its backend's inline_limit() elements (always for cpu; up to
/// parallel::inline_limit() for parallel and automatic; never for a backend without one).
[[nodiscard]] bool runs_inline(target_id t, std::int64_t size);

/// Runs every element of `task` on `t`'s backend.
void execute(target_id t, const elementwise_task& task);

}  // namespace ufunc::detail
