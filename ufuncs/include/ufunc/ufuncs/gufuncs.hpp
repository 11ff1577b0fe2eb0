// NumPy 2's built-in generalized ufuncs on every target: matmul, vecdot, matvec and vecmat, with NumPy's signatures and
// loops (?, every integer type, float16 (float32 products summed in float32, rounded once, as NumPy's), float32,
// float64, complex64, complex128; NumPy's long double and object loops have no dtype here).
//
//   auto c = ufunc::matmul(a, b);                  // (..., n, k) @ (..., k, m); 1-d operands as NumPy
//   auto d = ufunc::vecdot(x, y);                  // sum(conj(x) * y) over the last axis
//
// Integers wrap around as NumPy's do, booleans give the OR of ANDs, complex vecdot and
// vecmat conjugate their vector operand. The loops are plain (no BLAS): on the host one call
// of the function per loop element, on the GPU one thread per loop element (in CUDA builds),
// so they suit many small cores (batched 3x3 products), not large matrices.
#pragma once

#include <ufunc/gufunc/gufunc.hpp>

namespace ufunc {

namespace detail {
/// The built-in gufunc number `id` (0 matmul, 1 vecdot, 2 matvec, 3 vecmat), built on first use.
const gufunc::function& builtin_gufunc(int id);
template <int Id>
const gufunc::function& builtin_gufunc_at() {
  return builtin_gufunc(Id);
}
}  // namespace detail

/// A handle to a built-in gufunc, made on first use.
class lazy_gufunc {
 public:
  using factory = const gufunc::function& (*)();
  constexpr explicit lazy_gufunc(factory f) noexcept : get_(f) {}

  [[nodiscard]] const gufunc::function& get() const { return get_(); }
  operator const gufunc::function&() const { return get_(); }  // NOLINT(google-explicit-constructor)
  const gufunc::function* operator->() const { return &get_(); }
  array operator()(const operand& a, const operand& b, const call_options& options = {},
                   const gufunc::core_axes& axes = {}) const {
    return get_()(a, b, options, axes);
  }
  std::vector<array> call(std::span<const operand> inputs, const call_options& options = {},
                          const gufunc::core_axes& axes = {}) const {
    return get_().call(inputs, options, axes);
  }

 private:
  factory get_;
};

/// Matrix product of two arrays, as np.matmul: "(n?,k),(k,m?)->(n?,m?)".
inline constexpr lazy_gufunc matmul{&detail::builtin_gufunc_at<0>};
/// Vector dot product over the last axis, the first argument conjugated, as np.vecdot: "(n),(n)->()".
inline constexpr lazy_gufunc vecdot{&detail::builtin_gufunc_at<1>};
/// Matrix-vector product over the last two and last axes, as np.matvec: "(m,n),(n)->(m)".
inline constexpr lazy_gufunc matvec{&detail::builtin_gufunc_at<2>};
/// Vector-matrix product, the vector conjugated, as np.vecmat: "(n),(n,m)->(m)".
inline constexpr lazy_gufunc vecmat{&detail::builtin_gufunc_at<3>};

}  // namespace ufunc
