// ufunc.reduceat on target cuda (methods.hpp): each segment a reduction along the axis,
// folded as reduce folds (device_folds) into its slice of the result.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/methods.hpp>
#include "entry_points.hpp"
#include "methods.hpp"

namespace ufunc::detail {

using namespace cuda_methods;  // the drivers' shared helpers (methods.hpp)

array device_reduceat(const function& f, const array& a, std::span<const std::int64_t> idx, const accumulate_options& o,
                      const accumulate_plan& p) {
  require_device_code(f, "reduceat", p.loop);
  const array* out = o.out ? &*o.out : nullptr;
  const device_context ctx = context_of(f, "reduceat", {&a, out}, o.stream, p.loop);
  const array x = as_type(input_on_device(a, ctx), p.type, ctx);
  dim_vector shape = a.shape();
  shape[p.axis] = static_cast<std::int64_t>(idx.size());
  const bool direct =
      out != nullptr && !ctx.host_io && out->type() == p.type && !may_share_memory(*out, x) && !has_zero_stride(*out);
  const dim_vector result_strides = reduceat_result_strides(a, p.axis, shape[p.axis], p.type.itemsize());
  const array res = direct ? *out : device_empty(shape, result_strides, p.type, ctx);
  if (res.size() > 0) {
    reduce_plan rp;
    rp.reduced.assign(a.ndim(), false);
    rp.reduced[static_cast<std::size_t>(p.axis)] = true;
    rp.loop = p.loop;
    rp.type = p.type;
    rp.has_start = true;  // the segment's first element, copied below
    const std::int64_t len = a.shape()[p.axis];
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const std::int64_t start = idx[k];
      const std::int64_t end = k + 1 == idx.size() ? len : std::max(idx[k + 1], start + 1);
      const array acc = slice_along(res, p.axis, static_cast<std::int64_t>(k));
      cuda::cast(slice_along(x, p.axis, start), acc, ctx.s);
      if (end - start > 1) {
        rp.shape = acc.shape();
        device_folds(rp, ctx, slice_along(x, p.axis, start + 1, end - start - 1), array(), acc, true);
      }
    }
  }
  return deliver(res, out, ctx);
}

}  // namespace ufunc::detail
