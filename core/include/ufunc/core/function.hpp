// ufunc::function, the type-erased universal function: a name, an arity, and a
// table of loops keyed by type signature. Calls resolve a loop at run time as
// NumPy 2 does, broadcast, and hand one elementwise task to a backend.
//
//   ufunc::function f("axpy", 3, 1);
//   f.add_loop(ufunc::make_loop<float(float, float, float)>(target::cpu{}, axpy_functor));
//   auto y = f(a, x, b);                            // loop chosen from the operands' dtypes
//   f(a, x, b, {.out = {y}, .where = mask});       // in place, masked
//   auto z = f(a.transpose(), x, b, {.order = ufunc::order::C});   // a C-ordered result
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <ufunc/core/array.hpp>
#include <ufunc/core/casting.hpp>
#include <ufunc/core/detail/dense_loop.hpp>
#include <ufunc/core/loop.hpp>
#include <ufunc/core/methods.hpp>
#include <ufunc/core/out_arrays.hpp>
#include <ufunc/core/scalar.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc {

/// An operand of a run-time call: an array, or a weakly typed C++ scalar.
class operand {
 public:
  operand(const array& a) : value_(a) {}  // NOLINT(google-explicit-constructor): operands convert implicitly
  operand(array&& a) noexcept : value_(std::move(a)) {}  // NOLINT(google-explicit-constructor)
  // clang-format 14 would join the requires-clause onto the declaration.
  // clang-format off
  template <class T>
    requires is_weak_scalar_type<T>
  operand(T v) : value_(weak_scalar(v)) {}  // NOLINT(google-explicit-constructor)
  // clang-format on
  operand(const weak_scalar& w) noexcept : value_(w) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool is_scalar() const noexcept { return value_.index() == 2; }
  [[nodiscard]] const array& as_array() const {
    if (const auto* p = std::get_if<0>(&value_)) return **p;
    return std::get<1>(value_);
  }
  [[nodiscard]] const weak_scalar& as_scalar() const { return std::get<weak_scalar>(value_); }

 private:
  friend class function;
  struct view_tag {};
  // An operand that refers to `o`'s array (or copies its scalar), for the library's own
  // operand lists, which live within a call: a copy of the array would cost each call
  // the reference counting of every array operand.
  operand(view_tag, const operand& o) noexcept
      : value_(o.is_scalar() ? decltype(value_)(o.as_scalar()) : decltype(value_)(&o.as_array())) {}

  std::variant<const array*, array, weak_scalar> value_;
};

/// NumPy's keyword arguments to a ufunc call.
struct call_options {
  /// Output arrays (nout of them, or none to allocate). An output may be an input
  /// exactly (in place); any other overlap with an input is an overlap_error.
  out_arrays out;
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
  /// The memory order of the outputs the call allocates, as NumPy's order=: K (the
  /// inputs' axis order, so add(a.T, b.T) is F-ordered and written contiguously), C,
  /// F, or A (F when every operand is F-contiguous). Given outputs keep their own.
  ufunc::order order = ufunc::order::K;
  /// The backend; empty means the UFUNC_TARGET environment variable, else the build default.
  std::optional<target_id> target;
  /// The CUDA stream a cuda-target call is enqueued on (default: the thread's current stream).
  stream_ref stream;
};

namespace detail {
struct function_state;
class result_list;
}  // namespace detail

class function {
 public:
  /// A ufunc with no loops yet. `identity` is what reduce starts from (NumPy's
  /// ufunc.identity), or empty for none. `nout` may be 0, as NumPy allows: a ufunc run
  /// for its loop's effects (call() returns no arrays; operator() refuses).
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
  /// A ufunc's own type resolution rule, run before the loop search for calls that
  /// fix no types (NumPy's per-ufunc type resolvers: true division runs int / int as
  /// float64). Returns the signature of a registered loop, or nothing to search.
  using type_resolver = std::optional<type_signature> (*)(std::span<const ufunc::dtype> inputs);
  void set_type_resolver(type_resolver resolver);
  /// Inputs are only tested for truth: any dtype converts to a bool input under any
  /// casting rule (NumPy's logical_and/or/xor accept int8 with casting='no').
  void set_truth_inputs();
  /// C++ integers that do not fit the arrays' dtype take part at their value (as
  /// int64 or uint64) instead of raising overflow_error: NumPy 2's comparisons,
  /// where uint8_array == -1 is false everywhere.
  void set_exact_weak_integers();
  /// The loop that a call with these input dtypes would run (as ufunc.resolve_dtypes);
  /// throws no_loop_error.
  [[nodiscard]] type_signature resolve(std::span<const dtype> inputs, const call_options& options = {}) const;
  /// The same, returning the whole loop entry (its code, reduce fn, flags).
  [[nodiscard]] loop_entry resolve_loop(std::span<const dtype> inputs, const call_options& options = {}) const;
  /// The loop a call with these operands would run: arrays count by their dtype, C++
  /// scalars stay weak (NEP 50), as in a call, and a weak integer that does not fit the
  /// loop raises overflow_error as the call would (only the arrays' dtypes are read).
  ///
  ///     ufunc::add.get().resolve_loop({ufunc::operand(x_float32), ufunc::operand(2.5)}).types.str()   // "ff->f"
  [[nodiscard]] loop_entry resolve_loop(std::span<const operand> inputs, const call_options& options = {}) const;

  /// The loop that a call with no options runs on C-contiguous host arrays of these dtypes (and
  /// weak float scalars), of `n` elements each, when it takes the arrays without a cast and runs
  /// in one inner-loop call on the calling thread of `target` (nullopt: the default target); a
  /// null `fn` otherwise (the general call then applies). The loop search is a call's, cached
  /// alike. For front ends that run small calls on operands they hold as raw pointers
  /// (detail/dense_loop.hpp).
  ///
  ///     const ufunc::detail::dense_input in[] = {{ufunc::float32}, {ufunc::float32}};
  ///     const auto loop = ufunc::add.get().find_dense_loop(in, 1024);
  ///     if (loop.fn) ufunc::detail::run_dense_loop(loop, "add", in, args, 1024);  // args: a, b, out
  [[nodiscard]] detail::dense_loop find_dense_loop(std::span<const detail::dense_input> inputs, std::int64_t n,
                                                   std::optional<target_id> target = std::nullopt) const;

  array operator()(const operand& a, const call_options& options = {}) const;
  array operator()(const operand& a, const operand& b, const call_options& options = {}) const;
  array operator()(const operand& a, const operand& b, const operand& c, const call_options& options = {}) const;
  /// The general call: any arity, every output returned.
  std::vector<array> call(std::span<const operand> inputs, const call_options& options = {}) const;

  // NumPy's ufunc methods (core/methods.hpp has the options), on every target.
  /// np.<ufunc>.reduce: binary ufuncs with one output. Several axes (or all) need a
  /// reorderable loop or an identity; empty reductions and where= need an identity or
  /// `initial`. Returns `out` when given.
  array reduce(const array& a, const reduce_options& options = {}) const;
  /// np.<ufunc>.accumulate along one axis: out[0] = a[0], out[i] = f(out[i-1], a[i]).
  array accumulate(const array& a, const accumulate_options& options = {}) const;
  /// np.<ufunc>.reduceat: reductions of a[indices[i]:indices[i+1]] along the axis (just
  /// a[indices[i]] where indices[i] >= indices[i+1]; to the end for the last).
  array reduceat(const array& a, const array& indices, const accumulate_options& options = {}) const;
  /// np.<ufunc>.outer: f(a[i..., newaxis...], b[j...]), of shape a.shape + b.shape.
  array outer(const operand& a, const operand& b, const call_options& options = {}) const;
  /// outer for ufuncs of any number of outputs, all of them (np.divmod.outer's tuple):
  ///   const auto qr = ufunc::divmod.outer_all(a, b);  // qr[0] quotients, qr[1] remainders
  std::vector<array> outer_all(const operand& a, const operand& b, const call_options& options = {}) const;
  /// np.<ufunc>.at: a[indices] = f(a[indices], b) in place, unbuffered: repeated
  /// indices apply repeatedly, in index order. One integer (or bool) array per leading
  /// axis of `a`; b broadcasts to the indexed shape. Indices are checked before anything
  /// is written; results are cast back to a's dtype (unsafe, as NumPy).
  void at(const array& a, std::span<const array> indices, const operand& b, const call_options& options = {}) const;
  void at(const array& a, std::initializer_list<array> indices, const operand& b,
          const call_options& options = {}) const {
    at(a, std::span<const array>(indices.begin(), indices.size()), b, options);
  }
  void at(const array& a, const array& index, const operand& b, const call_options& options = {}) const {
    at(a, std::span<const array>(&index, 1), b, options);
  }
  /// ufunc.at for unary ufuncs: a[indices] = f(a[indices]).
  void at(const array& a, std::span<const array> indices, const call_options& options = {}) const;
  void at(const array& a, std::initializer_list<array> indices, const call_options& options = {}) const {
    at(a, std::span<const array>(indices.begin(), indices.size()), options);
  }
  void at(const array& a, const array& index, const call_options& options = {}) const {
    at(a, std::span<const array>(&index, 1), options);
  }

 private:
  void at_impl(const array& a, std::span<const array> indices, const operand* b, const call_options& options) const;
  array call_single(std::span<const operand> inputs, const call_options& options) const;
  detail::result_list call_list(std::span<const operand> inputs, const call_options& options) const;
  std::shared_ptr<detail::function_state> state_;
};

}  // namespace ufunc
