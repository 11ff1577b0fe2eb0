#include <string>

#include <ufunc/core/detail/methods.hpp>
#include <ufunc/dist/calls.hpp>
#include <ufunc/dist/methods.hpp>

namespace ufunc::dist {

namespace {

// The operand with `n` trailing axes of length 1 appended: a[..., newaxis, ...].
operand widened(const operand& op, std::size_t n) {
  if (op.is_scalar() || op.empty() || n == 0) return op;
  const auto grow = [n](dim_vector s) {
    for (std::size_t i = 0; i < n; ++i) s.push_back(1);
    return s;
  };
  if (op.is_replicated()) return op.replicated().reshape(grow(op.replicated().shape()));
  const dist::array& a = op.distributed();
  return dist::array(a.local().reshape(grow(a.local().shape())), grow(a.global_shape()), a.distribution(), a.comm());
}

std::size_t ndim_of(const operand& op) {
  if (op.is_distributed()) return op.distributed().ndim();
  if (op.is_replicated()) return op.replicated().ndim();
  return 0;
}

}  // namespace

// np.ufunc.outer(a, b) is f(a[..., newaxis * b.ndim], b): a call, whose alignment splits the
// result along a's split axis (b, distributed, is then gathered whole) or b's.
dist::array outer(const ufunc::function& f, const operand& a, const operand& b, const call_options& options) {
  if (f.nin() != 2)
    throw value_error(ufunc::detail::method_label(f, "outer") + ": outer product only supported for binary functions");
  const operand ops[] = {widened(a, ndim_of(b)), b};
  return dist::call(f, std::span<const operand>(ops), options).front();
}

}  // namespace ufunc::dist
