// The type-erased part of ufunc::fused (<ufunc/fuse.hpp>): the ufunc::function a fused
// function becomes, whose loops are compiled graphs added per tuple of input dtypes on
// first call, and the trace it asks the typed front end for.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <ufunc/core/function.hpp>
#include <ufunc/fusion/expr.hpp>

namespace ufunc::fusion::detail {

class fused_core {
 public:
  /// Traces the function `f` (the front end's copy) over `nin` inputs.
  using tracer = std::vector<expr> (*)(const void* f, int nin);
  fused_core(std::string name, int nin, int nout, tracer trace, std::shared_ptr<const void> f);

  /// Compiles the graph for the inputs' dtypes if this is their first call, then calls
  /// the ufunc with that loop's signature (out=, where=, casting and target as given;
  /// the host targets run it).
  std::vector<array> call(std::span<const operand> inputs, const call_options& options) const;
  /// The same trace run as ordinary calls, one node after the other with an array per
  /// result (passed on as a weak scalar where weak_result says so): what the fused call
  /// must equal (tests, the differential runner, examples).
  std::vector<array> call_unfused(std::span<const operand> inputs, const call_options& options) const;
  [[nodiscard]] std::string explain(std::span<const dtype> input_types) const;
  /// The CUDA source of the kernel for these input dtypes; value_error naming the node
  /// where the graph cannot run on cuda.
  [[nodiscard]] std::string device_source(std::span<const dtype> input_types) const;
  [[nodiscard]] const function& ufunc() const noexcept;
  [[nodiscard]] std::size_t traces() const;

 private:
  struct state;
  std::shared_ptr<state> state_;
};

}  // namespace ufunc::fusion::detail
