// A traced expression compiled for one tuple of input dtypes: every call node with the
// loop NumPy's rules give it for the dtypes flowing into it, in evaluation order, and one
// inner loop (the fused loop) that runs them over blocks that stay in the L1 cache, so
// that each operand is read once and each result written once. A ufunc::function whose
// loop is the fused loop gets broadcasting, out=, where=, casting and the host targets'
// executors (cpu, parallel) from the library as any loop does.
//
//   auto g = ufunc::fusion::compile_graph(outputs, input_types);   // outputs: the traced exprs
//   g->types().str();    // "ff->f"
//   g->explain();        // one line per node: its ufunc, its loop, where its inputs come from
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <ufunc/core/dtype.hpp>
#include <ufunc/core/loop.hpp>
#include <ufunc/fusion/expr.hpp>

namespace ufunc::fusion {

class compiled_graph;

/// Compiles `outputs` (exprs traced over inputs 0..input_types.size()-1) for those input
/// dtypes. Where weak_inputs[k] holds a value, input k is a C++ scalar passed to the fused
/// call: nodes resolve their loops with it as a weak scalar (NEP 50), as a call does, and it
/// reaches the graph as input_types[k] (its default dtype), cast to each node's loop dtype.
/// The resolution depends on the scalar's kind and, for an integer, on which dtypes its
/// value fits: equal for every value that fits the same ones. Throws the error the unfused
/// chain would raise first (no_loop_error naming the node's ufunc and the dtypes flowing
/// into it, overflow_error for a weak integer that does not fit), and value_error for an
/// output that is a constant. `name` (a C identifier, else "fused" is used) names the CUDA
/// kernel generated for the graph.
[[nodiscard]] std::shared_ptr<const compiled_graph> compile_graph(
    std::span<const expr> outputs, std::span<const dtype> input_types,
    std::span<const std::optional<weak_scalar>> weak_inputs = {}, std::string_view name = "fused");

class compiled_graph {
 public:
  /// Input dtypes -> output dtypes.
  [[nodiscard]] const type_signature& types() const noexcept;
  /// The fused loop as a loop entry of types() (keepalive: this graph).
  [[nodiscard]] loop_entry loop(const std::shared_ptr<const compiled_graph>& self) const;
  /// What runs: one line per call node, "t2 = multiply(x0, x0) ff->f".
  [[nodiscard]] std::string explain() const;
  /// The CUDA source of the graph's kernel (one pass, compiled on the first cuda call), or,
  /// where the graph has none, why (the node whose loop has no source).
  [[nodiscard]] const std::string& device_source() const noexcept;
  [[nodiscard]] bool runs_on_device() const noexcept;
  /// Weak constants that overflow when converted to their loop's dtype (reported as a
  /// call reports such a scalar: "overflow encountered in cast").
  [[nodiscard]] int overflowing_constants() const noexcept;

  struct plan;
  explicit compiled_graph(std::unique_ptr<plan> p);
  ~compiled_graph();

 private:
  std::unique_ptr<plan> plan_;
};

}  // namespace ufunc::fusion
