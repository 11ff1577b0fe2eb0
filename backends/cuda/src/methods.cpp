// What the cuda backend's method drivers share (methods.hpp): kept out of the drivers
// so that each method's file holds that method only.
#include "methods.hpp"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/dense_transfer.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/iteration.hpp>
#include <ufunc/core/transfer.hpp>
#include "fp_reports.hpp"

namespace ufunc::detail::cuda_methods {

namespace {

// Byte strides over x's shape of a result laid out as p.shape (0 along reduced axes).
dim_vector spread_strides(const std::vector<bool>& reduced, const array& result, bool keepdims) {
  dim_vector s(reduced.size(), 0);
  std::size_t j = 0;
  for (std::size_t d = 0; d < reduced.size(); ++d) {
    if (reduced[d]) {
      if (keepdims) ++j;
      continue;
    }
    s[d] = result.strides()[j++];
  }
  return s;
}

void launch_fold(const loop_entry& loop, const device_context& ctx, const array& acc, const dim_vector& acc_strides,
                 const dim_vector& shape, const std::byte* x, const dim_vector& x_strides, const array& where,
                 const dim_vector& where_strides, const std::byte* start = nullptr) {
  const bool has_mask = where.valid();
  const plan_operand ops[3] = {{acc.data(), acc_strides},
                               {const_cast<std::byte*>(x), x_strides},
                               {has_mask ? where.data() : nullptr, where_strides}};
  const iteration_plan plan(shape, {ops, has_mask ? 3u : 2u}, loop.reorderable);
  if (plan.size() == 0) return;
  device_method_call c;
  c.kind = device_method::reduce;
  c.reorderable = loop.reorderable;
  c.has_mask = has_mask;
  if (start != nullptr) {
    c.has_start = true;
    std::memcpy(c.start, start, loop.types.output(0).itemsize());
  }
  c.ndim = plan.ndim();
  c.device = ctx.device;
  c.stream = ctx.s.handle;
  for (int d = 0; d < plan.ndim(); ++d) {
    c.shape[d] = plan.extent(d);
    for (int op = 0; op < (has_mask ? 3 : 2); ++op) c.strides[op][d] = plan.stride(op, d);
    if (!has_mask) c.strides[2][d] = 0;
  }
  for (int op = 0; op < 3; ++op) c.base[op] = op < (has_mask ? 3 : 2) ? plan.base(op) : nullptr;
  launch_method(loop, c);
}

}  // namespace

device_context context_of(const function& f, const char* method, std::initializer_list<const array*> arrays,
                          stream_ref requested, const loop_entry& loop, std::string_view fp_name) {
  cuda::fp_reports::begin_method(fp_name.empty() ? std::string_view(method) : fp_name,
                                 cuda::fp_reports::refuses_values(f.name(), loop.types));
  device_context ctx;
  std::optional<ufunc::device> seen;
  for (const array* a : arrays) {
    if (a == nullptr || !a->valid() || a->device().is_host()) continue;
    if (seen && *seen != a->device())
      throw target_error(method_label(f, method) + ": operands on " + seen->str() + " and " + a->device().str());
    seen = a->device();
  }
  ctx.host_io = !seen;
  ctx.device = seen ? seen->index : 0;
  cuda::require_device(ctx.device);
  ctx.s = stream_ref{requested.handle ? requested.handle : cuda::current_stream().handle};
  return ctx;
}

const device_code* method_code(const loop_entry& loop) {
  const device_code* code = loop.devices.find(target_id::cuda);
  return code != nullptr && code->methods != nullptr ? code : nullptr;
}

void launch_method(const loop_entry& loop, const device_method_call& c) {
  const device_code* code = method_code(loop);  // require_device_code has checked it
  cuda::launch_method(code->methods, code->data, c);
}

void require_device_code(const function& f, const char* method, const loop_entry& loop) {
  if (method_code(loop) == nullptr)
    throw target_error(method_label(f, method) + " is not available on target 'cuda': loop " + loop.types.str() +
                       " has no CUDA code for the ufunc methods (make the ufunc with vectorize<Sig, target::cuda> "
                       "in a .cu file, or backends::cuda::make_loop)");
}

array device_empty(const dim_vector& shape, dtype t, const device_context& ctx) {
  return device_empty(shape, dense_strides(shape, c_order_axes(shape.size()), t.itemsize()), t, ctx);
}

array device_empty(const dim_vector& shape, const dim_vector& strides, dtype t, const device_context& ctx) {
  return empty_strided(shape, strides, t, ufunc::device::cuda(ctx.device), ctx.s);
}

array on_device(const array& a, const device_context& ctx) {
  return a.device().is_host() ? to_device(a, ctx.device, ctx.s) : a;
}

array input_on_device(const array& a, const device_context& ctx) {
  return a.device().is_host() ? to_device_as_is(a, ctx.device, ctx.s) : a;
}

array as_type(const array& a, dtype t, const device_context& ctx) {
  if (a.type() == t) return a;
  array out = device_empty(a.shape(), like_strides(a, order::K, t.itemsize()), t, ctx);  // in a's order, as astype
  cuda::cast(a, out, ctx.s);
  return out;
}

bool has_zero_stride(const array& a) {
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.shape()[d] > 1 && a.strides()[d] == 0) return true;
  return false;
}

void device_folds(const reduce_plan& p, const device_context& ctx, const array& x, const array& where, const array& acc,
                  bool keepdims, bool start_in_kernel) {
  const dim_vector acc_strides = spread_strides(p.reduced, acc, keepdims);
  dim_vector where_strides(x.ndim(), 0);
  if (where.valid()) where_strides = broadcast_strides(where.shape(), where.strides(), x.shape());
  if (p.has_start) {
    launch_fold(p.loop, ctx, acc, acc_strides, x.shape(), x.data(), x.strides(), where, where_strides,
                start_in_kernel ? p.start : nullptr);
    return;
  }
  dim_vector shape = x.shape();
  for (std::size_t d = 0; d < p.reduced.size(); ++d) {
    if (!p.reduced[d]) continue;
    if (shape[d] > 1) {
      dim_vector box = shape;
      box[d] -= 1;
      launch_fold(p.loop, ctx, acc, acc_strides, box, x.data() + x.strides()[d], x.strides(), array(), where_strides);
    }
    shape[d] = 1;
  }
}

array slice_along(const array& a, int axis, std::int64_t i, std::int64_t n) {
  dim_vector shape = a.shape();
  shape[axis] = n;
  return restride(a, shape, a.strides(), a.data() + i * a.strides()[axis]);
}

array deliver(const array& computed, const array* out, const device_context& ctx) {
  if (out == nullptr) return ctx.host_io ? to_host_as_is(computed, ctx.s) : computed;
  if (computed.data() == out->data()) return *out;
  if (out->device().is_host())
    to_host(computed, ctx.s).copy_to(*out);
  else
    cuda::cast(computed, *out, ctx.s);
  return *out;
}

}  // namespace ufunc::detail::cuda_methods
