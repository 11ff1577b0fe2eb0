// A constant handle to a library ufunc, built on first use. Being constexpr, the
// handles need no static initialization, so they are safe to use from other
// static initializers.
#pragma once

#include <ufunc/core/function.hpp>
#include <ufunc/fusion/expr.hpp>

namespace ufunc {

class lazy_function {
 public:
  using factory = const function& (*)();
  constexpr explicit lazy_function(factory f) noexcept : get_(f) {}

  [[nodiscard]] const function& get() const { return get_(); }
  operator const function&() const { return get_(); }  // NOLINT(google-explicit-constructor)
  const function* operator->() const { return &get_(); }

  array operator()(const operand& a, const call_options& options = {}) const { return get_()(a, options); }
  array operator()(const operand& a, const operand& b, const call_options& options = {}) const {
    return get_()(a, b, options);
  }
  array operator()(const operand& a, const operand& b, const operand& c, const call_options& options = {}) const {
    return get_()(a, b, c, options);
  }
  std::vector<array> call(std::span<const operand> inputs, const call_options& options = {}) const {
    return get_().call(inputs, options);
  }
  /// Inside a fused function (ufunc::fuse): records this ufunc as a node on symbolic
  /// arguments (C++ scalars among them stay weak) and returns its first output.
  // clang-format off
  template <class... A>
    requires(sizeof...(A) >= 1 && (fusion::is_traceable<A> && ...) && (fusion::is_expr<A> || ...))
  fusion::expr operator()(const A&... a) const {
    const fusion::expr args[] = {fusion::to_expr(a)...};
    return fusion::apply(get_(), args);
  }
  // clang-format on

  // The ufunc methods (see function.hpp and core/methods.hpp).
  array reduce(const array& a, const reduce_options& options = {}) const { return get_().reduce(a, options); }
  /// Inside a fused function: the reduction at its end (ufunc::fuse's one output).
  fusion::expr reduce(const fusion::expr& a, const reduce_options& options = {}) const {
    return fusion::reduce(get_(), a, options);
  }
  array accumulate(const array& a, const accumulate_options& options = {}) const {
    return get_().accumulate(a, options);
  }
  array reduceat(const array& a, const array& indices, const accumulate_options& options = {}) const {
    return get_().reduceat(a, indices, options);
  }
  array outer(const operand& a, const operand& b, const call_options& options = {}) const {
    return get_().outer(a, b, options);
  }
  std::vector<array> outer_all(const operand& a, const operand& b, const call_options& options = {}) const {
    return get_().outer_all(a, b, options);
  }
  void at(const array& a, std::span<const array> indices, const operand& b, const call_options& options = {}) const {
    get_().at(a, indices, b, options);
  }
  void at(const array& a, std::initializer_list<array> indices, const operand& b,
          const call_options& options = {}) const {
    get_().at(a, indices, b, options);
  }
  void at(const array& a, const array& index, const operand& b, const call_options& options = {}) const {
    get_().at(a, index, b, options);
  }
  void at(const array& a, std::span<const array> indices, const call_options& options = {}) const {
    get_().at(a, indices, options);
  }
  void at(const array& a, std::initializer_list<array> indices, const call_options& options = {}) const {
    get_().at(a, indices, options);
  }
  void at(const array& a, const array& index, const call_options& options = {}) const { get_().at(a, index, options); }

 private:
  factory get_;
};

}  // namespace ufunc
