// A constant handle to a library ufunc, built on first use. Being constexpr, the
// handles need no static initialization, so they are safe to use from other
// static initializers.
#pragma once

#include <ufunc/core/function.hpp>

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

 private:
  factory get_;
};

}  // namespace ufunc
