#include "nonfinite.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace ufunc::fusion {

unsigned nonfinite_carrying_operands(std::string_view source_op) {
  // Each entry is checked on every floating dtype's host loop (tests/unit/test_fuse_nonfinite.cpp):
  // inf, -inf and NaN in a listed position, any value (finite, zero, infinite, NaN) in the other,
  // give inf or NaN. Left out on purpose: exp, exp2, expm1, tanh, arctan, reciprocal, sign
  // (finite at an infinity), maximum and minimum (maximum(-inf, 1) is 1), power (1 ** NaN is
  // 1), logaddexp, nextafter, where (the other branch), and the quotients' floor_divide,
  // remainder and divmod.
  static constexpr std::pair<std::string_view, unsigned> table[] = {
      {"add", 0b11},     {"subtract", 0b11},  {"multiply", 0b11}, {"hypot", 0b11},    {"divide", 0b01},
      {"fmod", 0b01},    {"copysign", 0b01},  {"negative", 0b01}, {"positive", 0b01}, {"absolute", 0b01},
      {"fabs", 0b01},    {"conjugate", 0b01}, {"square", 0b01},   {"sqrt", 0b01},     {"cbrt", 0b01},
      {"log", 0b01},     {"log2", 0b01},      {"log10", 0b01},    {"log1p", 0b01},    {"sin", 0b01},
      {"cos", 0b01},     {"tan", 0b01},       {"arcsin", 0b01},   {"arccos", 0b01},   {"sinh", 0b01},
      {"cosh", 0b01},    {"arcsinh", 0b01},   {"arccosh", 0b01},  {"arctanh", 0b01},  {"degrees", 0b01},
      {"radians", 0b01}, {"rint", 0b01},      {"floor", 0b01},    {"ceil", 0b01},     {"trunc", 0b01},
      {"deg2rad", 0b01}, {"rad2deg", 0b01},
  };
  constexpr std::string_view prefix = "ufunc::ops::";
  if (!source_op.starts_with(prefix)) return 0;
  source_op.remove_prefix(prefix.size());
  const auto* e = std::find_if(std::begin(table), std::end(table), [&](const auto& x) { return x.first == source_op; });
  return e == std::end(table) ? 0u : e->second;
}

}  // namespace ufunc::fusion
