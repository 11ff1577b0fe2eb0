// The parameter lists of a run-time kernel, in CuPy's ElementwiseKernel syntax:
//
//   "T x, T y"            two inputs whose dtype is a placeholder, bound per call
//   "float32 alpha, raw T table"   an explicit dtype; a raw array, indexed by the kernel itself
//
// Each parameter is "[raw] <type> <name>": <type> is a NumPy dtype name (float32, int64,
// bool, complex64, ...) or a placeholder, one capital letter (T, U, ...), which takes the
// dtype of the first argument that has it. Names are C identifiers; `i`, names starting
// with `_`, and C++/CUDA keywords are the generated code's. Bad lists are value_errors
// that name the list, the parameter's position and what is wrong.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/core/dtype.hpp>

namespace ufunc::cuda::rtc {

struct kernel_parameter {
  std::string name;
  /// The explicit dtype; empty where the type is a placeholder.
  std::optional<ufunc::dtype> type;
  /// The placeholder letter ('T'); 0 where the type is explicit.
  char placeholder = 0;
  /// A raw array: not broadcast, the body indexes it (x[i], with _ind.size() elements).
  bool raw = false;
  bool output = false;
};

/// The inputs then the outputs of a kernel.
struct parameter_list {
  std::vector<kernel_parameter> params;
  int nin = 0;
  int nout = 0;
  /// The placeholders in order of first appearance ("T", "U").
  std::string placeholders;

  [[nodiscard]] std::span<const kernel_parameter> inputs() const noexcept { return {params.data(), std::size_t(nin)}; }
  [[nodiscard]] std::span<const kernel_parameter> outputs() const noexcept {
    return {params.data() + nin, std::size_t(nout)};
  }
};

/// Whether `s` is a C identifier ([A-Za-z_][A-Za-z0-9_]*): parameter and kernel names.
[[nodiscard]] bool is_c_identifier(std::string_view s) noexcept;

/// Parses the two lists; throws value_error. Every output placeholder must also type
/// an input (the call binds it from there), and there is at least one output.
///
///     auto p = parse_parameters("T x, T y", "T z");   // p.nin == 2, p.placeholders == "T"
[[nodiscard]] parameter_list parse_parameters(std::string_view inputs, std::string_view outputs);

/// Whether `t` is float16 or bfloat16, the dtypes generated code computes in float.
[[nodiscard]] bool is_half_precision(ufunc::dtype t) noexcept;

/// Throws dtype_error naming the first parameter of `p` that is float16 or bfloat16 under
/// `bound`: reduction_kernel's generated code has no 16-bit path (elementwise kernels and fused
/// expressions compute them in float); `who` names the kernel ("reduction_kernel l2").
void refuse_half_precision(const parameter_list& p, std::span<const ufunc::dtype> bound, std::string_view who);

/// The dtypes a call binds: one per placeholder of `p` (in p.placeholders' order), taken
/// from `argument_types` (one per input, then optionally one per output given as out=):
/// the first argument whose parameter has the placeholder sets it; every other argument
/// with that placeholder must have the same dtype. Throws no_loop_error naming the
/// parameters whose dtypes differ, or a placeholder no argument binds.
///
///     bind_placeholders(p, {float32, float32})   // {float32}
[[nodiscard]] std::vector<ufunc::dtype> bind_placeholders(const parameter_list& p,
                                                          std::span<const std::optional<ufunc::dtype>> argument_types);

/// The dtype of parameter `k` under `bound` (bind_placeholders' result).
[[nodiscard]] ufunc::dtype parameter_type(const parameter_list& p, int k, std::span<const ufunc::dtype> bound);

}  // namespace ufunc::cuda::rtc
