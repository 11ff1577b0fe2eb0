// cuda backend: runs a planned elementwise call on a GPU (host side, no CUDA headers).
#pragma once

namespace ufunc {
struct device_task;
}

namespace ufunc::backends::cuda {

/// Enqueues `task` (core/backend.hpp) on its stream: the casts of its inputs, the launch
/// of the loop's device code, the casts into its outputs; then hands the call's
/// floating-point flags to errstate (fp_reports.hpp), waiting for the stream only where a
/// policy raises or calls, or the loop may refuse a value.
void execute(const device_task& task);

}  // namespace ufunc::backends::cuda
