// ufunc::fuse: a chain of ufunc calls written once as a function, traced, and run as one
// pass over memory. Every node resolves its loop by NumPy 2's rules on the dtypes flowing
// into it, so the results equal those of the same calls made one by one (bit for bit on
// the host targets: the same loops run), without the temporaries.
//
//   auto hyp = ufunc::fuse([](auto a, auto b) { return ufunc::sqrt(a * a + b * b); }, "hyp");
//   auto r = hyp(x, y);                          // one pass on cpu or parallel
//   hyp(x, y, {.out = {r}, .where = mask});      // a ufunc like any other
//   std::puts(hyp.explain({ufunc::float32, ufunc::float32}).c_str());   // the nodes and their loops
//
// Inside the function the arguments are symbolic (ufunc::fusion::expr): the built-in
// ufuncs take them, and so do the operators + - * / % (add, subtract, multiply, divide,
// remainder), unary - (negative), == != < <= > >= (the comparisons), & | ^ ~ (the bitwise
// ufuncs), ufunc::where(cond, x, y) as np.where, mixed with C++ scalars, which stay weak as
// in a call. Any ufunc::function is a
// node through ufunc::fusion::apply(f, {args...}). Returning a std::tuple of exprs gives
// several outputs. A function is traced and compiled once per tuple of input dtypes.
//
// C++ scalars passed to the fused call are weak as in a call (axpy(2.5, x_f32, y_f32) is
// float32): traced once per scalar kind (and, for an integer, the set of dtypes its value
// fits), then any value of that kind runs the same graph.
//
// A reduction may end the function, as cupy.fuse allows, as its one output:
//   auto dot = ufunc::fuse([](auto a, auto b) { return ufunc::add.reduce(a * b); }, "dot");
// (axis, keepdims, dtype, initial as reduce takes them; out= of the fused call is the
// reduction's). Its result is the chain's bit for bit: on the host targets the ufunc's own
// reduce folds the graph's values as they are computed, piece by piece where it would read
// them (one pass, no temporary); on cuda the pass writes them once, then the device reduce
// runs over them.
//
// On cuda the graph runs as one kernel generated from it and compiled at run time
// (device_source() shows it; a node without device source keeps it on the host). Not fused
// yet (issue 19): the reduction at the end in the same pass on cuda. Floating-point errors
// reach errstate under the fused ufunc's name ("overflow encountered in hyp"), not the
// node's; a reduction's own under "reduce", after the pass's.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <ufunc/fusion/astype.hpp>
#include <ufunc/fusion/expr.hpp>
#include <ufunc/fusion/fused_core.hpp>
#include <ufunc/fusion/select.hpp>
#include <ufunc/ufuncs/builtins.hpp>

namespace ufunc {

namespace fusion {

// The operators, found by argument-dependent lookup on expr. (clang-format 14 would join
// the requires-clauses onto the declarations.)
// clang-format off
#define UFUNC_FUSION_BINARY(op, ufunc_name)                                              \
  template <class A, class B>                                                            \
    requires(is_traceable<A> && is_traceable<B> && (is_expr<A> || is_expr<B>))          \
  expr operator op(const A& a, const B& b) {                                             \
    const expr args[] = {to_expr(a), to_expr(b)};                                        \
    return apply(::ufunc::ufunc_name, args);                                             \
  }
UFUNC_FUSION_BINARY(+, add)
UFUNC_FUSION_BINARY(-, subtract)
UFUNC_FUSION_BINARY(*, multiply)
UFUNC_FUSION_BINARY(/, divide)
UFUNC_FUSION_BINARY(%, remainder)
UFUNC_FUSION_BINARY(==, equal)
UFUNC_FUSION_BINARY(!=, not_equal)
UFUNC_FUSION_BINARY(<, less)
UFUNC_FUSION_BINARY(<=, less_equal)
UFUNC_FUSION_BINARY(>, greater)
UFUNC_FUSION_BINARY(>=, greater_equal)
UFUNC_FUSION_BINARY(&, bitwise_and)
UFUNC_FUSION_BINARY(|, bitwise_or)
UFUNC_FUSION_BINARY(^, bitwise_xor)
#undef UFUNC_FUSION_BINARY

inline expr operator-(const expr& a) {
  const expr args[] = {a};
  return apply(::ufunc::negative, args);
}
inline expr operator~(const expr& a) {
  const expr args[] = {a};
  return apply(::ufunc::invert, args);
}
// clang-format on

}  // namespace fusion

/// np.where(cond, x, y) inside a fused function: x where cond is nonzero, else y; x and y
/// are promoted as a call's operands (weak C++ scalars included), cond may have any dtype
/// (as np.where, it counts where it is nonzero: cond != 0 first). One difference: a weak
/// integer that does not fit the other branch's dtype (where(c, int8_array, 1000)) raises
/// overflow_error as a ufunc call does, where np.where converts it silently.
///
///     ufunc::fuse([](auto d, auto r) { return ufunc::where(d > 0.0, 1.0 - r, r); }, "cnd_tail");
// clang-format off
template <class C, class A, class B>
  requires(fusion::is_traceable<C> && fusion::is_traceable<A> && fusion::is_traceable<B> &&
           (fusion::is_expr<C> || fusion::is_expr<A> || fusion::is_expr<B>))
fusion::expr where(const C& cond, const A& x, const B& y) {
  const fusion::expr args[] = {fusion::truth_test(::ufunc::not_equal, fusion::to_expr(cond)), fusion::to_expr(x),
                               fusion::to_expr(y)};
  return fusion::apply(fusion::select_function(), args);
}
// clang-format on

/// ndarray.astype(to) inside a fused function: unsafe casting, NumPy's values and flags
/// (reported as NumPy reports a cast's). A C++ scalar is converted from its weak dtype.
///
///     ufunc::fuse([](auto counts, auto total) { return ufunc::astype(counts, ufunc::float64) / total; }, "share");
template <class A>
requires fusion::is_traceable<A> fusion::expr astype(const A& x, dtype to) {
  const fusion::expr args[] = {fusion::to_expr(x)};
  return fusion::apply(fusion::astype_function(to), args);
}

namespace fusion {

namespace detail {

// The one arity (1..8) the function takes exprs in.
template <class F, std::size_t... I>
constexpr bool takes(std::index_sequence<I...>) {
  return std::is_invocable_v<const F&, decltype((void)I, std::declval<expr>())...>;
}
template <class F>
constexpr int arity() {
  int found = 0, count = 0;
  // clang-format 14 would split the immediately invoked lambda from its call.
  // clang-format off
  [&]<std::size_t... N>(std::index_sequence<N...>) {
    ((takes<F>(std::make_index_sequence<N + 1>{}) ? (found = int(N + 1), ++count) : 0), ...);
  }(std::make_index_sequence<8>{});
  // clang-format on
  return count == 1 ? found : -count;
}

template <class R>
std::vector<expr> outputs_of(R&& r) {
  if constexpr (is_expr<R>) {
    return {std::forward<R>(r)};
  } else {
    return std::apply([](auto&&... e) { return std::vector<expr>{expr(e)...}; }, std::forward<R>(r));
  }
}

}  // namespace detail
}  // namespace fusion

/// A fused ufunc: see the top of this file.
template <class F>
class fused {
 public:
  static constexpr int nin = fusion::detail::arity<F>();
  static_assert(nin > 0,
                "ufunc::fuse: the function must take a fixed number (1 to 8) of arguments, e.g. [](auto a, auto b)");

  fused(F f, std::string name) : fused(std::make_shared<const F>(std::move(f)), std::move(name)) {}

  std::vector<array> call(std::span<const operand> inputs, const call_options& options = {}) const {
    return core_.call(inputs, options);
  }
  // clang-format off
  array operator()(const operand& a, const call_options& options = {}) const
    requires(nin == 1)
  {
    const operand in[] = {a};
    return core_.call(in, options).front();
  }
  array operator()(const operand& a, const operand& b, const call_options& options = {}) const
    requires(nin == 2)
  {
    const operand in[] = {a, b};
    return core_.call(in, options).front();
  }
  array operator()(const operand& a, const operand& b, const operand& c, const call_options& options = {}) const
    requires(nin == 3)
  {
    const operand in[] = {a, b, c};
    return core_.call(in, options).front();
  }
  array operator()(const operand& a, const operand& b, const operand& c, const operand& d,
                   const call_options& options = {}) const
    requires(nin == 4)
  {
    const operand in[] = {a, b, c, d};
    return core_.call(in, options).front();
  }
  // clang-format on
  /// The same function as ordinary calls, one node after the other (an array per
  /// result): what a fused call equals, bit for bit on the host targets.
  std::vector<array> call_unfused(std::span<const operand> inputs, const call_options& options = {}) const {
    return core_.call_unfused(inputs, options);
  }
  /// The nodes, their loops and where their inputs come from, for these input dtypes.
  [[nodiscard]] std::string explain(std::span<const dtype> input_types) const { return core_.explain(input_types); }
  [[nodiscard]] std::string explain(std::initializer_list<dtype> input_types) const {
    return core_.explain(std::span<const dtype>(input_types.begin(), input_types.size()));
  }
  /// The ufunc behind: its loops are the dtype tuples compiled so far.
  [[nodiscard]] const function& ufunc() const noexcept { return core_.ufunc(); }
  /// The CUDA kernel generated for these input dtypes (what NVRTC compiles on the first
  /// cuda call: one pass, each node calling its built-in operation); value_error where a
  /// node has no source for generated code.
  [[nodiscard]] std::string device_source(std::initializer_list<dtype> input_types) const {
    return core_.device_source(std::span<const dtype>(input_types.begin(), input_types.size()));
  }
  /// How many times the function was traced (once per tuple of input dtypes).
  [[nodiscard]] std::size_t traces() const { return core_.traces(); }

 private:
  static std::vector<fusion::expr> trace(const void* f, int) {
    // clang-format off
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return fusion::detail::outputs_of((*static_cast<const F*>(f))(fusion::input(int(I))...));
    }(std::make_index_sequence<std::size_t(nin)>{});
    // clang-format on
  }
  // The function is traced once here only to count its outputs (arguments are evaluated in
  // no fixed order, so the copy is made first and counted after).
  fused(std::shared_ptr<const F> f, std::string name)
      : core_(std::move(name), nin, static_cast<int>(trace(f.get(), nin).size()), &trace, f) {}

  fusion::detail::fused_core core_;
};

/// Fuses `f`, a function of 1 to 8 symbolic arguments, into one ufunc named `name`.
template <class F>
[[nodiscard]] fused<F> fuse(F f, std::string name = "fused") {
  return fused<F>(std::move(f), std::move(name));
}

}  // namespace ufunc
