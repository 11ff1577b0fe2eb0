// ufunc::function, the type-erased universal function: a name, an arity, and a
// table of loops keyed by type signature. Calls resolve a loop at run time as
// NumPy 2 does, broadcast, and hand one elementwise task to a backend.
//
//   ufunc::function f("axpy", 3, 1);
//   f.add_loop(ufunc::make_loop<float(float, float, float)>(target::cpu{}, axpy_functor));
//   auto y = f(a, x, b);                            // loop chosen from the operands' dtypes
//   f(a, x, b, {.out = {y}, .where = mask});       // in place, masked
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <ufunc/core/array.hpp>
#include <ufunc/core/casting.hpp>
#include <ufunc/core/loop.hpp>
#include <ufunc/core/scalar.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc {

/// An operand of a run-time call: an array, or a weakly typed C++ scalar.
class operand {
 public:
  operand(const array& a) : value_(a) {}  // NOLINT(google-explicit-constructor): operands convert implicitly
  template <class T>
    requires is_weak_scalar_type<T>
  operand(T v) : value_(weak_scalar(v)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool is_scalar() const noexcept { return std::holds_alternative<weak_scalar>(value_); }
  [[nodiscard]] const array& as_array() const { return std::get<array>(value_); }
  [[nodiscard]] const weak_scalar& as_scalar() const { return std::get<weak_scalar>(value_); }

 private:
  std::variant<array, weak_scalar> value_;
};

/// NumPy's keyword arguments to a ufunc call.
struct call_options {
  /// Output arrays (nout of them, or none to allocate). An output may be an input
  /// exactly (in place); any other overlap with an input is an overlap_error.
  std::vector<array> out;
  /// Boolean mask broadcast with the operands: outputs are written only where true.
  /// Outputs allocated by the call are zero where the mask is false (NumPy leaves
  /// them uninitialized).
  array where;
  /// Fixes the output dtype (as dtype=...): the loop is the first whose outputs have it.
  std::optional<ufunc::dtype> dtype;
  /// Fixes the loop by its types ("ff->f"), as signature=...
  std::string_view signature;
  /// How operands may be converted to the loop's dtypes and results to outputs.
  ufunc::casting casting = ufunc::casting::same_kind;
  /// The backend; empty means the UFUNC_TARGET environment variable, else the build default.
  std::optional<target_id> target;
  /// The CUDA stream a cuda-target call is enqueued on (default: the thread's current stream).
  stream_ref stream;
};

namespace detail {
struct function_state;
class result_list;
}

class function {
 public:
  /// A ufunc with no loops yet. `identity` is what reduce starts from (NumPy's
  /// ufunc.identity), or empty for none.
  function(std::string name, int nin, int nout, std::optional<weak_scalar> identity = {}, std::string doc = {});

  [[nodiscard]] const std::string& name() const noexcept;
  [[nodiscard]] const std::string& doc() const noexcept;
  [[nodiscard]] int nin() const noexcept;
  [[nodiscard]] int nout() const noexcept;
  [[nodiscard]] int nargs() const noexcept { return nin() + nout(); }
  [[nodiscard]] std::size_t ntypes() const;
  /// The registered signatures in search order, as ufunc.types: {"ff->f", "dd->d"}.
  [[nodiscard]] std::vector<std::string> types() const;
  [[nodiscard]] const std::optional<weak_scalar>& identity() const noexcept;

  /// Registers a loop (after creation too). A loop with the same signature as an
  /// existing one replaces it; otherwise it is appended to the search order.
  void add_loop(loop_entry loop);
  /// Makes calls whose input dtypes are exactly `inputs` fail with no_loop_error and
  /// `reason`, where NumPy refuses although a safe cast would find a loop (boolean
  /// subtract would otherwise run the int8 loop).
  void reject_inputs(std::vector<dtype> inputs, std::string reason);
  /// The loop that a call with these input dtypes would run (as ufunc.resolve_dtypes);
  /// throws no_loop_error.
  [[nodiscard]] type_signature resolve(std::span<const dtype> inputs, const call_options& options = {}) const;

  array operator()(const operand& a, const call_options& options = {}) const;
  array operator()(const operand& a, const operand& b, const call_options& options = {}) const;
  array operator()(const operand& a, const operand& b, const operand& c, const call_options& options = {}) const;
  /// The general call: any arity, every output returned.
  std::vector<array> call(std::span<const operand> inputs, const call_options& options = {}) const;

 private:
  array call_single(std::span<const operand> inputs, const call_options& options) const;
  detail::result_list call_list(std::span<const operand> inputs, const call_options& options) const;
  std::shared_ptr<detail::function_state> state_;
};

}  // namespace ufunc
