// ufunc.accumulate on target cuda (methods.hpp): the first slice copied, then one
// launch of the loop's accumulate kernel.
#include <cstddef>

#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/error.hpp>
#include "entry_points.hpp"
#include "methods.hpp"

namespace ufunc::detail {

using namespace cuda_methods;  // the drivers' shared helpers (methods.hpp)

array device_accumulate(const function& f, const array& a, const accumulate_options& o, const accumulate_plan& p) {
  require_device_code(f, "accumulate", p.loop);
  const array* out = o.out ? &*o.out : nullptr;
  const device_context ctx = context_of(f, "accumulate", {&a, out}, o.stream, p.loop);
  const array x = as_type(input_on_device(a, ctx), p.type, ctx);
  const bool direct =
      out != nullptr && !ctx.host_io && out->type() == p.type && !may_share_memory(*out, x) && !has_zero_stride(*out);
  const dim_vector result_strides = accumulate_result_strides(a, p.type.itemsize());
  const array res = direct ? *out : device_empty(a.shape(), result_strides, p.type, ctx);
  if (res.size() > 0) {
    cuda::cast(slice_along(x, p.axis, 0), slice_along(res, p.axis, 0), ctx.s);
    if (a.ndim() > static_cast<std::size_t>(max_ndim)) throw value_error("too many dimensions");
    device_method_call c;
    c.kind = device_method::accumulate;
    c.reorderable = p.loop.reorderable;
    c.ndim = static_cast<int>(a.ndim());
    c.axis = p.axis;
    c.device = ctx.device;
    c.stream = ctx.s.handle;
    for (int d = 0; d < c.ndim; ++d) {
      c.shape[d] = a.shape()[d];
      c.strides[0][d] = res.strides()[d];
      c.strides[1][d] = x.strides()[d];
      c.strides[2][d] = 0;
    }
    c.base[0] = res.data();
    c.base[1] = x.data();
    c.base[2] = nullptr;
    launch_method(p.loop, c);
  }
  return deliver(res, out, ctx);
}

}  // namespace ufunc::detail
