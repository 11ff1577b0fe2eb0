// Device casts whose floating-point flags belong to something other than a cast of
// their own (host side, no CUDA headers). cuda::cast (runtime.hpp) reports its flags
// as NumPy's "cast", as astype and copies do; a cast that is part of a ufunc call
// reports with it, as on the host target, where the call's buffer casts raise within
// the call's own flag scope.
#pragma once

#include <ufunc/core/array.hpp>
#include <ufunc/core/device_call.hpp>

namespace ufunc::backends::cuda {

/// cuda::cast whose kernels report into `fp`, the sink of the call the cast is part
/// of (fp_reports::call_scope); a null sink gathers nothing.
void cast_reporting(const array& src, const array& dst, stream_ref s, const array& where, const device_fp_sink& fp);

}  // namespace ufunc::backends::cuda
