// A generalized ufunc (NumPy's gufunc, Numba's @guvectorize): a function over the core
// dimensions of its operands ("(m,n),(n,p)->(m,p)"), applied at every element of the
// broadcast loop dimensions (the leading axes). This is the type-erased engine; programs
// make one with ufunc::gvectorize (<ufunc/gvectorize.hpp>).
//
// Semantics are NumPy's: core dimensions are the last axes of each operand; a dimension
// named twice must have one size across operands ("dot: Input operand 1 has a mismatch in
// its core dimension 0, with gufunc signature (n),(n)->() (size 4 is different from 3)");
// an optional dimension ("n?") may be missing from every operand that has it, and is then
// dropped from the outputs; the loop dimensions of the inputs and of given outputs broadcast
// together, and each given output must have the whole loop shape; outputs not given are
// allocated (C order) with the loop shape and their core dimensions, which the inputs must
// give. Loops are chosen by the type resolution of ufuncs (NumPy 2's rules, weak scalars,
// dtype=, signature=, casting=); inputs of other dtypes are converted first. where= is
// refused, as NumPy refuses it. Host targets (cpu, parallel, any registered host backend);
// the cuda target is not there yet (target_error).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/core/function.hpp>
#include <ufunc/gufunc/signature.hpp>

namespace ufunc::gufunc {

/// The core dimensions of every operand at one call: per operand its core extents and
/// byte strides (outermost first), pointers into the call's own storage.
struct core_layout {
  int ndim[max_operands] = {};
  const std::int64_t* extents[max_operands] = {};
  const std::int64_t* strides[max_operands] = {};
};

/// Where the core dimensions are, as NumPy's axes=, axis= and keepdims= of a gufunc call:
///
///   ufunc::vecdot(a, b, {}, {.axis = 0});                       // over the first axis
///   ufunc::matmul(a, b, {}, {.axes = {{0, 1}, {1, 0}, {0, 1}}});  // cores on axes (0, 1), ...
///   ufunc::vecdot(a, b, {}, {.axis = 1, .keepdims = true});     // the result keeps axis 1, of size 1
struct core_axes {
  /// Per operand (inputs, then outputs), the axes that hold its core dimensions, in the
  /// signature's order (negative ones count from the end). Outputs may be left out where
  /// none has core dimensions. Empty: every operand's last axes.
  std::vector<std::vector<int>> axes;
  /// One axis for every operand that has one core dimension, where the signature has a
  /// single core dimension (vecdot's n).
  std::optional<int> axis;
  /// Outputs keep the inputs' core axes with size 1: for signatures whose inputs have the
  /// same number of core dimensions and whose outputs have none.
  bool keepdims = false;
};

/// One loop of a gufunc: runs `fn` at n loop elements, the operands' core origins at
/// args[k] + i * steps[k].
using loop_fn = void (*)(char* const* args, std::int64_t n, const std::int64_t* steps, const core_layout& core,
                         const void* fn);

class function {
 public:
  /// A gufunc named `name` with core signature `signature` (NumPy's grammar; value_error
  /// with NumPy's message when it does not parse) and no loops yet.
  function(std::string name, std::string_view signature);

  [[nodiscard]] const std::string& name() const noexcept;
  [[nodiscard]] const gufunc::signature& signature() const noexcept;
  /// The signature as given ("(n?,k),(k,m?)->(n?,m?)").
  [[nodiscard]] const std::string& signature_text() const noexcept;
  [[nodiscard]] int nin() const noexcept;
  [[nodiscard]] int nout() const noexcept;
  /// The registered type signatures in search order ({"ff->f", "dd->d"}).
  [[nodiscard]] std::vector<std::string> types() const;

  /// Registers a loop for `types` (nin inputs, nout outputs); `fn` is passed to `loop` and
  /// kept alive by `keepalive`.
  void add_loop(const type_signature& types, loop_fn loop, const void* fn, std::shared_ptr<const void> keepalive);

  /// The call: every output returned (the given ones, or new arrays).
  std::vector<array> call(std::span<const operand> inputs, const call_options& options = {},
                          const core_axes& axes = {}) const;
  array operator()(const operand& a, const call_options& options = {}, const core_axes& axes = {}) const;
  array operator()(const operand& a, const operand& b, const call_options& options = {},
                   const core_axes& axes = {}) const;
  array operator()(const operand& a, const operand& b, const operand& c, const call_options& options = {},
                   const core_axes& axes = {}) const;

 private:
  // The call once every operand's core dimensions are its last axes.
  std::vector<array> call_last_axes(std::span<const operand> inputs, const call_options& options) const;

 public:
 private:
  struct state;
  std::shared_ptr<state> state_;
};

}  // namespace ufunc::gufunc
