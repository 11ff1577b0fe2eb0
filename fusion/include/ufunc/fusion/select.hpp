// np.where(cond, x, y)'s element step as a ufunc of three inputs, for fused functions
// (ufunc::where in <ufunc/fuse.hpp>): out = cond ? x : y, one loop per dtype ("?ff->f",
// "?dd->d", ...), so that x and y are promoted as a call's operands are (NEP 50 weak
// scalars included) and the condition is a bool (ufunc::where converts it first).
#pragma once

#include <ufunc/core/function.hpp>

namespace ufunc::fusion {

/// The "where" ufunc: host loops for every dtype, in NumPy's type order.
[[nodiscard]] const function& select_function();

}  // namespace ufunc::fusion
