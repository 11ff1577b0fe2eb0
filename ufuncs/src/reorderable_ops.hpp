// Which built-in operations reductions may regroup (pairwise sums, SIMD lanes, TBB
// blocks): those that are associative and commutative (add, integer multiply,
// min/max, bitwise and logical operations, gcd), float add included, which NumPy
// itself sums pairwise. The others reduce strictly in order, as NumPy does: float
// multiply (NumPy's product is sequential), lcm (wrap-around breaks associativity),
// subtract, power, hypot, ...; for float16 and bfloat16 see reorderable_half. Shared by the
// host and device kernel tables.
#pragma once

#include <type_traits>

#include <ufunc/ufuncs/ops.hpp>

namespace ufunc::ufuncs {

template <class Op>
inline constexpr bool reorderable_op = false;
#define UFUNC_REORDERABLE(name) \
  template <>                   \
  inline constexpr bool reorderable_op<ops::name> = true;
UFUNC_REORDERABLE(add)
UFUNC_REORDERABLE(maximum)
UFUNC_REORDERABLE(minimum)
UFUNC_REORDERABLE(fmax)
UFUNC_REORDERABLE(fmin)
UFUNC_REORDERABLE(bitwise_and)
UFUNC_REORDERABLE(bitwise_or)
UFUNC_REORDERABLE(bitwise_xor)
UFUNC_REORDERABLE(logical_and)
UFUNC_REORDERABLE(logical_or)
UFUNC_REORDERABLE(logical_xor)
UFUNC_REORDERABLE(gcd)
#undef UFUNC_REORDERABLE

/// The extrema: any grouping gives the same element.
template <class Op>
inline constexpr bool exact_fold = std::is_same_v<Op, ops::maximum> || std::is_same_v<Op, ops::minimum> ||
                                   std::is_same_v<Op, ops::fmax> || std::is_same_v<Op, ops::fmin>;

/// The 16-bit folds: the extrema, and float16's sum, which NumPy adds in float pairwise (the
/// host loop does too, half_loops.hpp). bfloat16's sum folds in order, rounding every step,
/// as ml_dtypes' plain loop does under NumPy's reduce.
template <class Op, class T>
inline constexpr bool reorderable_half = exact_fold<Op> ||
                                         (std::is_same_v<T, float16_t> && std::is_same_v<Op, ops::add>);

/// Integer products wrap, so they regroup freely; float products do not.
template <class Op, class T>
inline constexpr bool reorderable_for = std::conditional_t<
    ::ufunc::detail::is_half<T>, std::bool_constant<reorderable_half<Op, T>>,
    std::bool_constant<reorderable_op<Op> || (std::is_same_v<Op, ops::multiply> && std::is_integral_v<T>)>>::value;

/// T(T, T): a signature reduce, accumulate and reduceat can use.
template <class Sig>
inline constexpr bool is_fold_signature = false;
template <class T>
inline constexpr bool is_fold_signature<T(T, T)> = true;

/// T(T): a signature `at` can use with a unary ufunc.
template <class Sig>
inline constexpr bool is_unary_signature = false;
template <class T>
inline constexpr bool is_unary_signature<T(T)> = true;

template <class Op, class Sig>
inline constexpr bool reorderable_loop = false;
template <class Op, class T>
inline constexpr bool reorderable_loop<Op, T(T, T)> = reorderable_for<Op, T>;

}  // namespace ufunc::ufuncs
