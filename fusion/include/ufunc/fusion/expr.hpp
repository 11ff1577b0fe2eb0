// The symbolic values of a fused expression (ufunc::fuse, <ufunc/fuse.hpp>). Inside the
// function given to fuse, the arguments are exprs; calling a ufunc on an expr, or an
// operator of <ufunc/fuse.hpp>, records a node instead of computing. C++ scalars mixed in
// stay weak (NEP 50), as in a call.
//
//   ufunc::fusion::expr x = ufunc::fusion::input(0);
//   ufunc::fusion::expr y = ufunc::fusion::apply(ufunc::multiply, {x, ufunc::fusion::constant(2.0)});
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include <ufunc/core/function.hpp>
#include <ufunc/core/methods.hpp>
#include <ufunc/core/scalar.hpp>

namespace ufunc::fusion {

struct node;

/// A value of the traced expression: an input, a constant or a ufunc's output.
class expr {
 public:
  explicit expr(std::shared_ptr<const node> n) noexcept : node_(std::move(n)) {}
  [[nodiscard]] const node& get() const noexcept { return *node_; }
  [[nodiscard]] const std::shared_ptr<const node>& pointer() const noexcept { return node_; }

 private:
  std::shared_ptr<const node> node_;
};

/// One call of a ufunc in the trace; each of its outputs is a node.
struct call_site {
  function f;
  std::vector<expr> args;
  /// A truth test (truth_test): the graph uses a bool first argument as it is, since
  /// `x != 0` of a bool is x (the chain still calls f).
  bool truth_test = false;
};

struct node {
  enum class kind { input, constant, call, reduction };
  kind what = kind::input;
  /// input: the fused call's input position; call: which output of the call.
  int index = 0;
  /// constant: the C++ scalar (weak).
  std::optional<weak_scalar> value;
  /// call: the ufunc and its arguments; reduction: the binary ufunc and the reduced value.
  std::shared_ptr<const call_site> site;
  /// reduction: axis, keepdims, dtype, initial (out= and where= belong to the fused call).
  std::shared_ptr<const reduce_options> reduce;
};

/// Input `k` of the fused call.
[[nodiscard]] expr input(int k);
/// A C++ scalar in the expression: weak, as a scalar argument of a call.
[[nodiscard]] expr constant(const weak_scalar& value);
/// `f` applied to `args` (f.nin() of them): its first output. apply_all: every output.
[[nodiscard]] expr apply(const function& f, std::span<const expr> args);
[[nodiscard]] std::vector<expr> apply_all(const function& f, std::span<const expr> args);

/// np.where's truth test of `x`, `not_equal(x, 0)` (`not_equal` is that ufunc): nonzero
/// values, NaN included, are true. For a bool x the graph skips the call (NumPy resolves
/// bool != 0 to int64's loop, a cast and a compare that give x again).
[[nodiscard]] expr truth_test(const function& not_equal, const expr& x);

/// `f`.reduce(x, options) at the end of a fused function, as cupy.fuse allows: the fused
/// function returns it as its one output. `options.out` and `options.where` are refused
/// here (give out= to the fused call).
[[nodiscard]] expr reduce(const function& f, const expr& x, const reduce_options& options = {});

/// What a value computed by a node whose operands are all weak (C++ scalars, constants,
/// values computed so) is to later nodes: NumPy's users compute `r + 0.5 * v * v` on Python
/// floats, a Python float, weak; so a floating, complex or bool value is a weak scalar of
/// that kind (NEP 50 resolves those kinds whatever their value), with the value at `value`
/// (bytes of dtype `t`), or 0 where it is null (a loop's resolution reads only the kind).
/// An integer stays strong (nullopt): NEP 50 checks a Python int's value against the other
/// operand's dtype, which a trace cannot know. The compiled graph and the unfused chain
/// both follow it.
[[nodiscard]] std::optional<weak_scalar> weak_result(dtype t, const std::byte* value = nullptr);

template <class T>
inline constexpr bool is_expr = std::is_same_v<std::remove_cvref_t<T>, expr>;

/// An argument a traced call takes: an expr or a C++ scalar.
template <class T>
inline constexpr bool is_traceable = is_expr<T> || is_weak_scalar_type<std::remove_cvref_t<T>>;

template <class A>
[[nodiscard]] expr to_expr(const A& a) {
  if constexpr (is_expr<A>)
    return a;
  else
    return constant(weak_scalar(a));
}

}  // namespace ufunc::fusion
