// cpu backend: runs an elementwise task on the calling thread.
#pragma once

namespace ufunc {
class elementwise_task;
}

namespace ufunc::backends::cpu {

/// Runs every element of `task` in order on this thread; the SIMD work is in the
/// task's inner loop (see loops.hpp).
void execute(const elementwise_task& task);

}  // namespace ufunc::backends::cpu
