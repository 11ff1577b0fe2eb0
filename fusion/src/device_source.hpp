// A compiled graph's CUDA kernel: the plan's steps as one elementwise body, each node calling
// its loop's own operation (loop_entry::source_op, the built-in device loops' ufunc::ops
// structs) and classifying its floating-point flags with that operation's device rule, so
// that the fused kernel computes and reports what the chain of device loops does. Compiled
// by NVRTC through the run-time kernel cache (backends/cuda/rtc) on the first cuda call.
#pragma once

#include <string_view>

#include "plan.hpp"

namespace ufunc::fusion {

/// Fills p.device, or p.device_refusal (which node has no device
/// source) where the graph cannot run on cuda. `name` is the fused ufunc's.
void generate_device_loop(compiled_graph::plan& p, std::string_view name);

}  // namespace ufunc::fusion
