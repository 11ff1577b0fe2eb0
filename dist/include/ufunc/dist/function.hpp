// A ufunc as a distributed one: calls and methods on ufunc::dist arrays. Every built-in
// has a handle in ufunc::dist (builtins.hpp); any other ufunc gets one from its
// ufunc::function.
//
//   auto z = ufunc::dist::add(x, y);                     // ufunc::dist::call(ufunc::add, x, y)
//   auto s = ufunc::dist::add.reduce(x);
//   auto hyp = ufunc::vectorize<float(float, float)>(..., "hyp");
//   const ufunc::dist::function dhyp(hyp.ufunc());       // the vectorize'd ufunc, distributed
//   auto h = dhyp(x, y, {.target = ufunc::target_id::parallel});
#pragma once

#include <initializer_list>
#include <span>
#include <vector>

#include <ufunc/core/function.hpp>
#include <ufunc/dist/calls.hpp>
#include <ufunc/dist/methods.hpp>
#include <ufunc/ufuncs/lazy_function.hpp>

namespace ufunc::dist {

class function {
 public:
  /// A built-in's handle (constant: built on first use, as ufunc::add is).
  constexpr function(ufunc::lazy_function f) noexcept : lazy_(f) {}  // NOLINT(google-explicit-constructor)
  /// Any ufunc; it must outlive this handle.
  explicit function(const ufunc::function& f) noexcept : lazy_(nullptr), direct_(&f) {}

  [[nodiscard]] const ufunc::function& get() const { return direct_ != nullptr ? *direct_ : lazy_.get(); }
  operator const ufunc::function&() const { return get(); }  // NOLINT(google-explicit-constructor)

  dist::array operator()(const operand& a, const call_options& options = {}) const {
    return dist::call(get(), a, options);
  }
  dist::array operator()(const operand& a, const operand& b, const call_options& options = {}) const {
    return dist::call(get(), a, b, options);
  }
  dist::array operator()(const operand& a, const operand& b, const operand& c, const call_options& options = {}) const {
    return dist::call(get(), a, b, c, options);
  }
  std::vector<dist::array> call_all(std::span<const operand> inputs, const call_options& options = {}) const {
    return dist::call(get(), inputs, options);
  }

  dist::array reduce(const dist::array& a, const reduce_options& options = {}) const {
    return dist::reduce(get(), a, options);
  }
  dist::array accumulate(const dist::array& a, const accumulate_options& options = {}) const {
    return dist::accumulate(get(), a, options);
  }
  dist::array reduceat(const dist::array& a, const ufunc::array& indices,
                       const accumulate_options& options = {}) const {
    return dist::reduceat(get(), a, indices, options);
  }
  dist::array outer(const operand& a, const operand& b, const call_options& options = {}) const {
    return dist::outer(get(), a, b, options);
  }
  void at(const dist::array& a, std::span<const ufunc::array> indices, const operand& b,
          const call_options& options = {}) const {
    dist::at(get(), a, indices, b, options);
  }
  void at(const dist::array& a, std::initializer_list<ufunc::array> indices, const operand& b,
          const call_options& options = {}) const {
    dist::at(get(), a, std::span<const ufunc::array>(indices.begin(), indices.size()), b, options);
  }
  void at(const dist::array& a, const ufunc::array& index, const operand& b, const call_options& options = {}) const {
    dist::at(get(), a, std::span<const ufunc::array>(&index, 1), b, options);
  }
  /// ufunc.at of a unary ufunc: a[index] = f(a[index]).
  void at(const dist::array& a, const ufunc::array& index, const call_options& options = {}) const {
    dist::at(get(), a, std::span<const ufunc::array>(&index, 1), options);
  }

 private:
  ufunc::lazy_function lazy_;
  const ufunc::function* direct_ = nullptr;
};

}  // namespace ufunc::dist
