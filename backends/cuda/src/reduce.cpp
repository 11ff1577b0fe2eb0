// ufunc.reduce on target cuda (methods.hpp): the accumulator on the device, its start
// value (in the kernels where they can start from it, else filled or copied first),
// then the folds.
#include <cstddef>
#include <vector>

#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/transfer.hpp>
#include "entry_points.hpp"
#include "methods.hpp"

namespace ufunc::detail {

using namespace cuda_methods;  // the drivers' shared helpers (methods.hpp)

namespace {

array device_value(const std::byte* value, dtype t, const device_context& ctx) {
  const array host(const_cast<std::byte*>(value), t, {});
  return to_device(host, ctx.device, ctx.s);
}

// The first element along every reduced axis, as a view of x shaped like the result.
array first_slice(const array& x, const reduce_plan& p, bool keepdims) {
  dim_vector strides;
  for (std::size_t d = 0; d < p.reduced.size(); ++d) {
    if (!p.reduced[d])
      strides.push_back(x.strides()[d]);
    else if (keepdims)
      strides.push_back(0);
  }
  return restride(x, p.shape, strides, x.data());
}

}  // namespace

array device_reduce(const function& f, const array& a, const reduce_options& o, const reduce_plan& p) {
  require_device_code(f, "reduce", p.loop);
  const array* out = o.out ? &*o.out : nullptr;
  const device_context ctx = context_of(f, "reduce", {&a, out, &o.where}, o.stream, p.loop);
  const array x = as_type(input_on_device(a, ctx), p.type, ctx);
  const array where = o.where.valid() ? on_device(o.where, ctx) : array();
  const bool direct = out != nullptr && !ctx.host_io && out->type() == p.type && !may_share_memory(*out, a) &&
                      !(where.valid() && may_share_memory(*out, where)) && !has_zero_stride(*out);
  // In the input's order, as the host target and NumPy lay it out.
  const dim_vector result_strides = reduce_result_strides(a, o.where, p.reduced, o.keepdims, p.type.itemsize());
  const array acc = direct ? *out : device_empty(p.shape, result_strides, p.type, ctx);
  if (acc.size() > 0) {
    const bool round_trip = out != nullptr && !direct && out->type() != p.type;
    // The kernels start from the start value themselves (no fill, no host-to-device
    // copy) unless nothing is reduced or the start must round through out's dtype.
    const bool start_in_kernel = p.has_start && x.size() > 0 && !round_trip;
    if (!start_in_kernel) {
      if (p.has_start)
        cuda::cast(device_value(p.start, p.type, ctx), acc, ctx.s);
      else
        cuda::cast(first_slice(x, p, o.keepdims), acc, ctx.s);
    }
    if (round_trip) {  // as the host: start values rounded in out's dtype
      const array rounded =
          device_empty(p.shape, like_strides(acc, order::K, out->type().itemsize()), out->type(), ctx);
      cuda::cast(acc, rounded, ctx.s);
      cuda::cast(rounded, acc, ctx.s);
    }
    device_folds(p, ctx, x, where, acc, o.keepdims, start_in_kernel);
  }
  return deliver(acc, out, ctx);
}

}  // namespace ufunc::detail
