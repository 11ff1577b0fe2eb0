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
// refused, as NumPy refuses it. Host targets (cpu, parallel, any registered host backend) run
// the host loops; a device target (cuda) runs the loops that have device code (gvectorize
// with target::cuda in a CUDA translation unit; the built-in gufuncs), on device arrays or
// host-in/host-out as ufunc calls do. On a device the functions run one thread per loop
// element and raise no floating-point flags: errstate does not apply there (as in CuPy).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/core/device_call.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/target.hpp>
#include <ufunc/gufunc/signature.hpp>

namespace ufunc::gufunc {

/// The core dimensions of every operand at one call: per operand its core extents and
/// byte strides (outermost first), pointers into the call's own storage.
struct core_layout {
  int ndim[max_operands] = {};
  const std::int64_t* extents[max_operands] = {};
  const std::int64_t* strides[max_operands] = {};
};

/// The most core dimensions one operand may have where its gufunc runs on a device (the
/// layout travels by value with every launch).
inline constexpr int max_device_core_dims = 8;

/// core_layout for a device launch: the extents and byte strides themselves.
struct device_core_layout {
  int ndim[max_operands] = {};
  std::int64_t extents[max_operands][max_device_core_dims] = {};
  std::int64_t strides[max_operands][max_device_core_dims] = {};
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

/// One device loop of a gufunc: launches `fn` at every loop element of `call` (the operands'
/// core origins) on call.stream, asynchronously, on device call.device.
using device_loop_fn = void (*)(const device_call& call, const device_core_layout& core, const void* fn);

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
  /// Gives the loop registered for `types` device code: `device` runs the same `fn`
  /// (value_error where no loop has these types).
  void add_device_loop(const type_signature& types, device_loop_fn device);
  /// The target of calls that name none (gvectorize's Target); unset: the environment's
  /// and the build's default, as for the built-in ufuncs.
  void set_default_target(std::optional<target_id> target);
  /// Declares that each element of the (one) output's core depends only on the inputs' elements
  /// at the same indices of the output's core dimensions (matmul's c(i, j): a's row i and b's
  /// column j). A call whose loop is too short to occupy a GPU then runs, on a device or a host
  /// target other than the serial cpu, the output's core dimensions as loop dimensions too, the function seeing each of
  /// them (in every operand that has it) with extent 1: one large product spreads over the device's or the parallel
  /// target's threads instead of running on one. gvectorize declares it for functors that have `static constexpr bool
  /// independent_output_elements = true`. Without effect for gufuncs of several outputs or an output that repeats a
  /// core dimension's name.
  void set_independent_output_elements(bool independent);

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

  struct state;
  std::shared_ptr<state> state_;
};

}  // namespace ufunc::gufunc
