// An operand of a distributed call: a distributed array, an ordinary array that every
// rank holds (replicated), or a weakly typed C++ scalar (as in ufunc::function calls).
//
//   ufunc::dist::add(x, 1.5);                 // x distributed, 1.5 weak
//   ufunc::dist::multiply(x, weights);        // weights: a ufunc::array, the same on every rank
#pragma once

#include <variant>

#include <ufunc/core/array.hpp>
#include <ufunc/core/scalar.hpp>
#include <ufunc/dist/array.hpp>

namespace ufunc::dist {

class operand {
 public:
  /// No operand (an option left out, as where=).
  operand() = default;
  operand(const dist::array& a) : value_(a) {}   // NOLINT(google-explicit-constructor)
  operand(const ufunc::array& a) : value_(a) {}  // NOLINT(google-explicit-constructor)
  // clang-format off
  template <class T>
    requires is_weak_scalar_type<T>
  operand(T v) : value_(weak_scalar(v)) {}  // NOLINT(google-explicit-constructor)
  // clang-format on
  operand(const weak_scalar& w) : value_(w) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool empty() const noexcept { return value_.index() == 0; }
  [[nodiscard]] bool is_distributed() const noexcept { return value_.index() == 1; }
  /// An ordinary array, the same on every rank.
  [[nodiscard]] bool is_replicated() const noexcept { return value_.index() == 2; }
  [[nodiscard]] bool is_scalar() const noexcept { return value_.index() == 3; }
  [[nodiscard]] const dist::array& distributed() const { return std::get<1>(value_); }
  [[nodiscard]] const ufunc::array& replicated() const { return std::get<2>(value_); }
  [[nodiscard]] const weak_scalar& scalar() const { return std::get<3>(value_); }

 private:
  std::variant<std::monostate, dist::array, ufunc::array, weak_scalar> value_;
};

}  // namespace ufunc::dist
