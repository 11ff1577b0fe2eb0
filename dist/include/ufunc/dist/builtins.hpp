// Every built-in ufunc as a distributed one, under NumPy's names (and aliases): the
// handles of ufunc::dist::function over ufunc's built-ins (ufuncs/builtin_handles.hpp).
//
//   auto c = ufunc::dist::add(a, b);
//   auto m = ufunc::dist::maximum.reduce(a, {.axis = ufunc::all_axes});
#pragma once

#include <ufunc/dist/function.hpp>
#include <ufunc/ufuncs/builtins.hpp>

namespace ufunc::dist {

// One line per handle, in ufunc::builtin_list's order, then the aliases.
// clang-format off
inline constexpr function add{ufunc::add};
inline constexpr function subtract{ufunc::subtract};
inline constexpr function multiply{ufunc::multiply};
inline constexpr function divide{ufunc::divide};
inline constexpr function floor_divide{ufunc::floor_divide};
inline constexpr function negative{ufunc::negative};
inline constexpr function positive{ufunc::positive};
inline constexpr function power{ufunc::power};
inline constexpr function float_power{ufunc::float_power};
inline constexpr function remainder{ufunc::remainder};
inline constexpr function fmod{ufunc::fmod};
inline constexpr function divmod{ufunc::divmod};
inline constexpr function absolute{ufunc::absolute};
inline constexpr function fabs{ufunc::fabs};
inline constexpr function rint{ufunc::rint};
inline constexpr function sign{ufunc::sign};
inline constexpr function heaviside{ufunc::heaviside};
inline constexpr function conjugate{ufunc::conjugate};
inline constexpr function reciprocal{ufunc::reciprocal};
inline constexpr function square{ufunc::square};
inline constexpr function sqrt{ufunc::sqrt};
inline constexpr function cbrt{ufunc::cbrt};
inline constexpr function gcd{ufunc::gcd};
inline constexpr function lcm{ufunc::lcm};
inline constexpr function logaddexp{ufunc::logaddexp};
inline constexpr function logaddexp2{ufunc::logaddexp2};
inline constexpr function exp{ufunc::exp};
inline constexpr function exp2{ufunc::exp2};
inline constexpr function expm1{ufunc::expm1};
inline constexpr function log{ufunc::log};
inline constexpr function log2{ufunc::log2};
inline constexpr function log10{ufunc::log10};
inline constexpr function log1p{ufunc::log1p};
inline constexpr function sin{ufunc::sin};
inline constexpr function cos{ufunc::cos};
inline constexpr function tan{ufunc::tan};
inline constexpr function arcsin{ufunc::arcsin};
inline constexpr function arccos{ufunc::arccos};
inline constexpr function arctan{ufunc::arctan};
inline constexpr function arctan2{ufunc::arctan2};
inline constexpr function hypot{ufunc::hypot};
inline constexpr function sinh{ufunc::sinh};
inline constexpr function cosh{ufunc::cosh};
inline constexpr function tanh{ufunc::tanh};
inline constexpr function arcsinh{ufunc::arcsinh};
inline constexpr function arccosh{ufunc::arccosh};
inline constexpr function arctanh{ufunc::arctanh};
inline constexpr function degrees{ufunc::degrees};
inline constexpr function radians{ufunc::radians};
inline constexpr function deg2rad{ufunc::deg2rad};
inline constexpr function rad2deg{ufunc::rad2deg};
inline constexpr function bitwise_and{ufunc::bitwise_and};
inline constexpr function bitwise_or{ufunc::bitwise_or};
inline constexpr function bitwise_xor{ufunc::bitwise_xor};
inline constexpr function invert{ufunc::invert};
inline constexpr function left_shift{ufunc::left_shift};
inline constexpr function right_shift{ufunc::right_shift};
inline constexpr function bitwise_count{ufunc::bitwise_count};
inline constexpr function greater{ufunc::greater};
inline constexpr function greater_equal{ufunc::greater_equal};
inline constexpr function less{ufunc::less};
inline constexpr function less_equal{ufunc::less_equal};
inline constexpr function equal{ufunc::equal};
inline constexpr function not_equal{ufunc::not_equal};
inline constexpr function logical_and{ufunc::logical_and};
inline constexpr function logical_or{ufunc::logical_or};
inline constexpr function logical_xor{ufunc::logical_xor};
inline constexpr function logical_not{ufunc::logical_not};
inline constexpr function maximum{ufunc::maximum};
inline constexpr function minimum{ufunc::minimum};
inline constexpr function fmax{ufunc::fmax};
inline constexpr function fmin{ufunc::fmin};
inline constexpr function isfinite{ufunc::isfinite};
inline constexpr function isinf{ufunc::isinf};
inline constexpr function isnan{ufunc::isnan};
inline constexpr function signbit{ufunc::signbit};
inline constexpr function copysign{ufunc::copysign};
inline constexpr function nextafter{ufunc::nextafter};
inline constexpr function spacing{ufunc::spacing};
inline constexpr function modf{ufunc::modf};
inline constexpr function frexp{ufunc::frexp};
inline constexpr function ldexp{ufunc::ldexp};
inline constexpr function floor{ufunc::floor};
inline constexpr function ceil{ufunc::ceil};
inline constexpr function trunc{ufunc::trunc};
inline constexpr function true_divide{ufunc::true_divide};
inline constexpr function mod{ufunc::mod};
inline constexpr function abs{ufunc::abs};
inline constexpr function conj{ufunc::conj};
inline constexpr function pow{ufunc::pow};
inline constexpr function acos{ufunc::acos};
inline constexpr function asin{ufunc::asin};
inline constexpr function atan{ufunc::atan};
inline constexpr function atan2{ufunc::atan2};
inline constexpr function acosh{ufunc::acosh};
inline constexpr function asinh{ufunc::asinh};
inline constexpr function atanh{ufunc::atanh};
inline constexpr function bitwise_invert{ufunc::bitwise_invert};
inline constexpr function bitwise_not{ufunc::bitwise_not};
inline constexpr function bitwise_left_shift{ufunc::bitwise_left_shift};
inline constexpr function bitwise_right_shift{ufunc::bitwise_right_shift};
// clang-format on

/// Every built-in, in ufunc::builtin_list's order (aliases not repeated).
// clang-format off
inline constexpr function builtin_list[] = {
    add, subtract, multiply, divide, floor_divide, negative, positive, power, float_power, remainder, fmod, divmod,
    absolute, fabs, rint, sign, heaviside, conjugate, reciprocal, square, sqrt, cbrt, gcd, lcm, logaddexp, logaddexp2,
    exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tan, arcsin, arccos, arctan, arctan2, hypot, sinh, cosh,
    tanh, arcsinh, arccosh, arctanh, degrees, radians, deg2rad, rad2deg, bitwise_and, bitwise_or, bitwise_xor, invert,
    left_shift, right_shift, bitwise_count, greater, greater_equal, less, less_equal, equal, not_equal, logical_and,
    logical_or, logical_xor, logical_not, maximum, minimum, fmax, fmin, isfinite, isinf, isnan, signbit, copysign,
    nextafter, spacing, modf, frexp, ldexp, floor, ceil, trunc
};
// clang-format on
static_assert(sizeof(builtin_list) / sizeof(builtin_list[0]) == ufunc::builtin_count);

}  // namespace ufunc::dist
