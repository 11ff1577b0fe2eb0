// Which operands of a built-in operation carry an infinite or NaN value into its result:
// the fused kernel's fast path (device_source.cpp) probes a value only where no use of it
// carries it on, so that most of a chain's values cost no probe of their own.
#pragma once

#include <string_view>

namespace ufunc::fusion {

/// Bit i is set where a non-finite (infinite or NaN) operand i of the built-in operation
/// `source_op` ("ufunc::ops::add", loop_entry::source_op) gives a non-finite result whatever
/// the other operands are, for loops of real floating dtypes with one output: add and
/// multiply both (inf * 0 is NaN), divide its numerator only (x / inf is 0), exp none
/// (exp(-inf) is 0). 0 for every other operation, elementwise_kernels included.
///
///   nonfinite_carrying_operands("ufunc::ops::divide") == 0b01
[[nodiscard]] unsigned nonfinite_carrying_operands(std::string_view source_op);

}  // namespace ufunc::fusion
