// Running one resolved loop over operands: the part of a ufunc call shared by the
// run-time path (function::call) and the typed path of vectorize.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include <ufunc/core/function.hpp>

namespace ufunc::detail {

struct loop_call {
  std::string_view name;            // for messages
  const type_signature& types;      // the loop's dtypes
  inner_loop_fn fn;
  const void* data;
  std::span<const operand> inputs;
  /// The dtype each input is read as: an array's own dtype, or the dtype a scalar is stored in.
  std::span<const dtype> input_types;
  const call_options& options;
  target_id target;
};

/// Validates casts, shapes, outputs and overlap, allocates missing outputs, and runs
/// the loop on the target. Returns the outputs.
std::vector<array> run_loop(const loop_call& call);

}  // namespace ufunc::detail
