// ndarray.astype's element step as a ufunc of one input, for fused functions (ufunc::astype
// in <ufunc/fuse.hpp>): one loop per input dtype into `to` ("b->f", "h->f", ...), each the
// library's cast (unsafe casting: NumPy's values and floating-point flags, reported as
// NumPy reports a cast's: "invalid value encountered in cast"); on cuda, the device cast.
#pragma once

#include <ufunc/core/dtype.hpp>
#include <ufunc/core/function.hpp>

namespace ufunc::fusion {

/// The "cast" ufunc into `to`, made on first use (one per dtype, never destroyed).
[[nodiscard]] const function& astype_function(dtype to);

}  // namespace ufunc::fusion
