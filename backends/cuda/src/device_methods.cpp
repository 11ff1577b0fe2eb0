// The ufunc methods on target cuda (host side, no CUDA headers): placement, casts on
// the device, the accumulator and its start value, then the loop's device method
// launcher (backends/cuda/reduce.hpp). Device data never goes through the host; host
// data on target cuda is copied in and the result copied back (host-in/host-out, as
// calls). The only host copies of device data are index arrays (reduceat, at), which
// the host must read to check them before anything is written.
#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/iteration.hpp>
#include <ufunc/core/transfer.hpp>

namespace ufunc::detail {

namespace {

namespace cuda = backends::cuda;

struct device_context {
  int device = 0;
  stream_ref s;
  bool host_io = false;  // every operand on the host: copy in, copy the result back
};

device_context context_of(const function& f, const char* method, std::initializer_list<const array*> arrays,
                          stream_ref requested) {
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

void require_device_code(const function& f, const char* method, const loop_entry& loop) {
  if (loop.device_reduce == nullptr)
    throw target_error(method_label(f, method) + " is not available on target 'cuda': loop " + loop.types.str() +
                       " has no CUDA code for the ufunc methods (make the ufunc with vectorize<Sig, target::cuda> "
                       "in a .cu file, or backends::cuda::make_loop)");
}

array device_empty(const dim_vector& shape, dtype t, const device_context& ctx) {
  auto owner = cuda::allocate(static_cast<std::size_t>(shape_size(shape)) * t.itemsize(), ctx.device, ctx.s);
  return array(owner.get(), t, shape, {}, owner, ufunc::device::cuda(ctx.device));
}

array on_device(const array& a, const device_context& ctx) {
  return a.device().is_host() ? to_device(a, ctx.device, ctx.s) : a;
}

array as_type(const array& a, dtype t, const device_context& ctx) {
  if (a.type() == t) return a;
  array out = device_empty(a.shape(), t, ctx);
  cuda::cast(a, out, ctx.s);
  return out;
}

array device_value(const std::byte* value, dtype t, const device_context& ctx) {
  const array host(const_cast<std::byte*>(value), t, {});
  return to_device(host, ctx.device, ctx.s);
}

bool has_zero_stride(const array& a) {
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.shape()[d] > 1 && a.strides()[d] == 0) return true;
  return false;
}

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
  cuda::launch_method(loop.device_reduce, loop.device_data, c);
}

// Folds x (device, loop dtype) into acc (initialized): one box with a start value,
// else the boxes that leave out the element copied in first (as the host engine).
// start_in_kernel: acc is not initialized; the kernels start every output from p.start.
void device_folds(const reduce_plan& p, const device_context& ctx, const array& x, const array& where, const array& acc,
                  bool keepdims, bool start_in_kernel = false) {
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

array slice_along(const array& a, int axis, std::int64_t i, std::int64_t n = 1) {
  dim_vector shape = a.shape();
  shape[axis] = n;
  return restride(a, shape, a.strides(), a.data() + i * a.strides()[axis]);
}

// The result back where the caller wants it.
array deliver(const array& computed, const array* out, const device_context& ctx) {
  if (out == nullptr) return ctx.host_io ? to_host(computed, ctx.s) : computed;
  if (computed.data() == out->data()) return *out;
  if (out->device().is_host())
    to_host(computed, ctx.s).copy_to(*out);
  else
    cuda::cast(computed, *out, ctx.s);
  return *out;
}

}  // namespace

array reduce_on_device(const function& f, const array& a, const reduce_options& o, const reduce_plan& p) {
  require_device_code(f, "reduce", p.loop);
  const array* out = o.out ? &*o.out : nullptr;
  const device_context ctx = context_of(f, "reduce", {&a, out, &o.where}, o.stream);
  const array x = as_type(on_device(a, ctx), p.type, ctx);
  const array where = o.where.valid() ? on_device(o.where, ctx) : array();
  const bool direct = out != nullptr && !ctx.host_io && out->type() == p.type && !may_share_memory(*out, a) &&
                      !(where.valid() && may_share_memory(*out, where)) && !has_zero_stride(*out);
  const array acc = direct ? *out : device_empty(p.shape, p.type, ctx);
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
      const array rounded = device_empty(p.shape, out->type(), ctx);
      cuda::cast(acc, rounded, ctx.s);
      cuda::cast(rounded, acc, ctx.s);
    }
    device_folds(p, ctx, x, where, acc, o.keepdims, start_in_kernel);
  }
  return deliver(acc, out, ctx);
}

array accumulate_on_device(const function& f, const array& a, const accumulate_options& o, const accumulate_plan& p) {
  require_device_code(f, "accumulate", p.loop);
  const array* out = o.out ? &*o.out : nullptr;
  const device_context ctx = context_of(f, "accumulate", {&a, out}, o.stream);
  const array x = as_type(on_device(a, ctx), p.type, ctx);
  const bool direct =
      out != nullptr && !ctx.host_io && out->type() == p.type && !may_share_memory(*out, x) && !has_zero_stride(*out);
  const array res = direct ? *out : device_empty(a.shape(), p.type, ctx);
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
    cuda::launch_method(p.loop.device_reduce, p.loop.device_data, c);
  }
  return deliver(res, out, ctx);
}

array reduceat_on_device(const function& f, const array& a, std::span<const std::int64_t> idx,
                         const accumulate_options& o, const accumulate_plan& p) {
  require_device_code(f, "reduceat", p.loop);
  const array* out = o.out ? &*o.out : nullptr;
  const device_context ctx = context_of(f, "reduceat", {&a, out}, o.stream);
  const array x = as_type(on_device(a, ctx), p.type, ctx);
  dim_vector shape = a.shape();
  shape[p.axis] = static_cast<std::int64_t>(idx.size());
  const bool direct =
      out != nullptr && !ctx.host_io && out->type() == p.type && !may_share_memory(*out, x) && !has_zero_stride(*out);
  const array res = direct ? *out : device_empty(shape, p.type, ctx);
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

void at_on_device(const function& f, const array& a, const array& b, const at_plan& plan, const call_options& options) {
  require_device_code(f, "at", plan.loop);
  const auto& t = plan.loop.types;
  if (t.input(0) != t.output(0))
    throw target_error(method_label(f, "at") + " is not available on target 'cuda' with loop " + t.str() +
                       ": its first input and its output differ");
  const device_context ctx = context_of(f, "at", {&a, b.valid() ? &b : nullptr}, options.stream);
  const std::int64_t npos = shape_size(plan.index_shape);
  if (npos == 0 || shape_size(plan.sub_shape) == 0) return;
  const array ad = on_device(a, ctx);  // host-in/host-out: a C-ordered device copy
  // a of another dtype than the loop's (the loop was resolved with unsafe casting, as
  // on the host): NumPy casts at every application, a[i] = cast_a(f(cast_loop(a[i]),
  // b)), repeated indices included. The kernel works on `work`, a copy of a in the
  // loop's dtype, in rounds: round r applies every index's (r+1)-th occurrence (so its
  // positions touch disjoint elements), after a fresh cast of a into work, and casts
  // only the touched elements back into a (a mask), so that every application reads
  // the value a holds and untouched elements are never rewritten.
  const bool cast_a = ad.type() != t.input(0);
  const array work = cast_a ? device_empty(ad.shape(), t.input(0), ctx) : ad;
  dim_vector full = plan.index_shape;
  for (auto e : plan.sub_shape) full.push_back(e);
  const array bd = b.valid() ? as_type(on_device(b, ctx), t.input(1), ctx).broadcast_to(full) : array();
  // Byte offsets of every position into work and bd, in index order.
  const std::size_t k = static_cast<std::size_t>(plan.index_ndim);
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(npos) * 2, 0);
  std::vector<std::int64_t> pos_idx(plan.index_shape.size(), 0);
  for (std::int64_t p = 0; p < npos; ++p) {
    std::int64_t ao = 0, bo = 0;
    for (std::size_t j = 0; j < k; ++j) ao += plan.positions[static_cast<std::size_t>(p) * k + j] * work.strides()[j];
    for (std::size_t d = 0; d < pos_idx.size() && bd.valid(); ++d) bo += pos_idx[d] * bd.strides()[d];
    offsets[2 * static_cast<std::size_t>(p)] = ao;
    offsets[2 * static_cast<std::size_t>(p) + 1] = bo;
    for (std::size_t d = pos_idx.size(); d-- > 0;) {
      if (++pos_idx[d] < plan.index_shape[d]) break;
      pos_idx[d] = 0;
    }
  }
  // Rounds (cast_a only): positions grouped by occurrence number, in index order.
  std::vector<std::int64_t> round_start{0, npos};
  if (cast_a) {
    std::unordered_map<std::int64_t, std::int64_t> seen;
    std::vector<std::int64_t> occurrence(static_cast<std::size_t>(npos));
    std::int64_t rounds = 0;
    for (std::int64_t p = 0; p < npos; ++p) {
      const std::int64_t n = seen[offsets[2 * static_cast<std::size_t>(p)]]++;
      occurrence[static_cast<std::size_t>(p)] = n;
      rounds = std::max(rounds, n + 1);
    }
    std::vector<std::int64_t> count(static_cast<std::size_t>(rounds) + 1, 0);
    for (auto n : occurrence) ++count[static_cast<std::size_t>(n) + 1];
    round_start.assign(static_cast<std::size_t>(rounds) + 1, 0);
    for (std::int64_t r = 0; r < rounds; ++r)
      round_start[static_cast<std::size_t>(r) + 1] =
          round_start[static_cast<std::size_t>(r)] + count[static_cast<std::size_t>(r) + 1];
    std::vector<std::int64_t> next(round_start.begin(), round_start.end() - 1), sorted(offsets.size());
    for (std::int64_t p = 0; p < npos; ++p) {
      const std::size_t q =
          static_cast<std::size_t>(next[static_cast<std::size_t>(occurrence[static_cast<std::size_t>(p)])]++);
      sorted[2 * q] = offsets[2 * static_cast<std::size_t>(p)];
      sorted[2 * q + 1] = offsets[2 * static_cast<std::size_t>(p) + 1];
    }
    offsets.swap(sorted);
  }
  const array offsets_device =
      to_device(asarray<std::int64_t>(std::span<const std::int64_t>(offsets)), ctx.device, ctx.s);
  if (plan.sub_shape.size() > static_cast<std::size_t>(max_ndim)) throw value_error("too many dimensions");
  device_method_call c;
  c.kind = device_method::at;
  c.nin = plan.unary ? 1 : 2;
  c.ndim = static_cast<int>(plan.sub_shape.size());
  c.device = ctx.device;
  c.stream = ctx.s.handle;
  for (int d = 0; d < c.ndim; ++d) {
    c.shape[d] = plan.sub_shape[static_cast<std::size_t>(d)];
    c.strides[0][d] = work.strides()[k + static_cast<std::size_t>(d)];
    c.strides[1][d] = bd.valid() ? bd.strides()[plan.index_shape.size() + static_cast<std::size_t>(d)] : 0;
    c.strides[2][d] = 0;
  }
  if (c.ndim == 0) {  // one element per position
    c.ndim = 1;
    c.shape[0] = 1;
    c.strides[0][0] = c.strides[1][0] = c.strides[2][0] = 0;
  }
  c.base[0] = work.data();
  c.base[1] = bd.valid() ? bd.data() : nullptr;
  c.base[2] = nullptr;
  const auto* all_offsets = reinterpret_cast<const std::int64_t*>(offsets_device.data());
  if (!cast_a) {
    c.offsets = all_offsets;
    c.count = npos;
    cuda::launch_method(plan.loop.device_reduce, plan.loop.device_data, c);
  } else {
    // work is C-ordered: a position's elements are the sub_size elements from its offset.
    const std::int64_t sub_size = shape_size(plan.sub_shape);
    const std::int64_t item = static_cast<std::int64_t>(work.itemsize());
    array mask = array::empty(ad.shape(), bool_);
    auto* flags = reinterpret_cast<bool*>(mask.data());
    for (std::size_t r = 0; r + 1 < round_start.size(); ++r) {
      std::fill(flags, flags + mask.size(), false);
      for (std::int64_t q = round_start[r]; q < round_start[r + 1]; ++q)
        std::fill_n(flags + offsets[2 * static_cast<std::size_t>(q)] / item, sub_size, true);
      cuda::cast(ad, work, ctx.s);
      c.offsets = all_offsets + 2 * round_start[r];
      c.count = round_start[r + 1] - round_start[r];
      cuda::launch_method(plan.loop.device_reduce, plan.loop.device_data, c);
      cuda::cast(work, ad, ctx.s, to_device(mask, ctx.device, ctx.s));
    }
  }
  if (ctx.host_io) to_host(ad, ctx.s).copy_to(a);
}

}  // namespace ufunc::detail
