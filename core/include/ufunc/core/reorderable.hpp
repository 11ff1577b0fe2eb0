// Marking a functor as reorderable: reductions with it may regroup the operations
// (SIMD lanes, pairwise sums, blocks on several threads) and may run over several
// axes at once, as NumPy does for ufuncs with an identity. Without the mark a
// reduction folds each output strictly in order along one axis.
//
//   struct my_max : ufunc::reorderable {                  // derive from the tag,
//     template <class T> T operator()(T a, T b) const { return a < b ? b : a; }
//   };
//   struct my_sum { static constexpr bool reorderable = true; ... };   // or say so,
//   auto f = ufunc::vectorize<float(float, float)>(ufunc::reorderable_fn{[](auto a, auto b) { return a + b; }});
//
// Regrouping changes floating-point results in the last bits (as np.sum's pairwise
// summation does); results stay deterministic: the grouping depends only on the
// shape, not on the target or the number of threads.
#pragma once

#include <type_traits>

namespace ufunc {

/// Tag base class: a functor deriving from it is reorderable.
struct reorderable {};

namespace detail {
template <class F>
constexpr bool reorderable_member() {
  if constexpr (requires { F::reorderable; }) {
    if constexpr (std::is_convertible_v<decltype(F::reorderable), bool>)
      return static_cast<bool>(F::reorderable);
    else
      return false;
  } else {
    return false;
  }
}
}  // namespace detail

/// Whether reductions may regroup F's operations.
template <class F>
inline constexpr bool is_reorderable = std::is_base_of_v<reorderable, std::remove_cvref_t<F>> ||
                                       detail::reorderable_member<std::remove_cvref_t<F>>();

/// Wraps a functor (a lambda, say) to mark it reorderable.
template <class F>
struct reorderable_fn : F, reorderable {
  using F::operator();
};
template <class F>
reorderable_fn(F) -> reorderable_fn<F>;

}  // namespace ufunc
