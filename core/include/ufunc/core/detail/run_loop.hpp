// Running one resolved loop over operands: the part of a ufunc call shared by the
// run-time path (function::call) and the typed path of vectorize.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include <ufunc/core/function.hpp>

namespace ufunc {
struct backend;
}

namespace ufunc::detail {

/// The outputs of one call: one or two stay inline, so a call allocates nothing
/// but its result arrays.
class result_list : public out_arrays {
 public:
  [[nodiscard]] std::vector<array> to_vector() && {
    std::vector<array> v;
    v.reserve(size());
    for (auto& a : *this) v.push_back(std::move(a));
    return v;
  }
};

struct loop_call {
  std::string_view name;        // for messages
  const type_signature& types;  // the loop's dtypes
  inner_loop_fn fn;
  const void* data;
  device_code_slots devices;  // the loop's code for device backends (may be empty)
  std::span<const operand> inputs;
  /// The dtype each input is read as: an array's own dtype, or the dtype a scalar is stored in.
  std::span<const dtype> input_types;
  const call_options& options;
  target_id target;
  /// False when the target is only the build's or the environment's default: data
  /// on a GPU then runs on the GPU instead of being refused.
  bool target_named = true;
  /// Inputs are only tested for truth, so any dtype converts to the loop's bool
  /// inputs whatever the casting rule (NumPy's logical_and/or/xor).
  bool truth_inputs = false;
  /// Python integers compare exactly, whatever their size and the casting rule
  /// (NumPy's comparisons): no conversion check applies to them.
  bool exact_weak_integers = false;
};

/// Validates casts, shapes, outputs and overlap, allocates missing outputs, and runs
/// the loop on the target. Returns the outputs.
result_list run_loop(const loop_call& call);
/// run_loop's path for the device backend `b` (run_loop_device.cpp), once the call is validated:
/// placement, device outputs and casts, host-in/host-out copies, and b.execute_device.
result_list run_loop_on_device(const loop_call& call, const backend& b);

// The pieces of run_loop that every target shares.
void validate_loop_call(const loop_call& call);
/// Throws overlap_error for an out= array that is read-only (null ones are left to
/// the caller's own message). function::call checks it before resolving a loop, as
/// NumPy does while it parses the arguments; validate_loop_call checks it too, for
/// the typed path of vectorize, which comes to run_loop directly.
void check_outputs_writeable(std::string_view name, std::span<const array> out);
/// A scalar's conversion into the loop's dtype `t` that overflows, reported as NumPy's "overflow
/// encountered in cast" (the flags of the conversion itself are not the loop's).
void report_scalar_cast(const weak_scalar& w, dtype t);
[[nodiscard]] dim_vector broadcast_call_shape(const loop_call& call);
void check_out_overlap(const loop_call& call, std::span<const dim_vector> input_strides);
/// The axis order (fastest first) of the outputs `call` allocates over its broadcast
/// `shape`: NumPy's rule for call.options.order over the operands as the caller gave
/// them (call_output_axes, core/detail/layout.hpp).
[[nodiscard]] dim_vector output_axes(const loop_call& call, std::span<const std::int64_t> shape);

}  // namespace ufunc::detail
