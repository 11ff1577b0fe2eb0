// The ufunc methods on target cuda (host side, no CUDA headers): placement, casts on
// the device, the accumulator and its start value, then the loop's device method
// launcher (backends/cuda/reduce.hpp). Device data never goes through the host; host
// data on target cuda is copied in and the result copied back (host-in/host-out, as
// calls). The only host copies of device data are index arrays (reduceat, at), which
// the host must read to check them before anything is written.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/errstate.hpp>
#include <ufunc/core/iteration.hpp>
#include <ufunc/core/transfer.hpp>
#include "dense_transfer.hpp"
#include "fp_reports.hpp"

#include "at_gather.hpp"
#include "entry_points.hpp"

namespace ufunc::detail {

namespace {

namespace cuda = backends::cuda;

struct device_context {
  int device = 0;
  stream_ref s;
  bool host_io = false;  // every operand on the host: copy in, copy the result back
};

// Every method's driver starts here, which also names the method for the flags its
// launches report (cuda::launch_method attaches the slots): as NumPy, the method for
// reduce, accumulate and reduceat ("overflow encountered in reduce"), `fp_name` where
// given (at: at_plan::fp_name, the ufunc or "at"), and whether its loop may refuse
// values (fp_reports::refuses_values).
device_context context_of(const function& f, const char* method, std::initializer_list<const array*> arrays,
                          stream_ref requested, const loop_entry& loop, std::string_view fp_name = {}) {
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

// With dense `strides` (core/detail/layout.hpp): the results, laid out as on the host.
array device_empty(const dim_vector& shape, const dim_vector& strides, dtype t, const device_context& ctx) {
  auto owner = cuda::allocate(static_cast<std::size_t>(shape_size(shape)) * t.itemsize(), ctx.device, ctx.s);
  return array(owner.get(), t, shape, strides, owner, ufunc::device::cuda(ctx.device));
}

array on_device(const array& a, const device_context& ctx) {
  return a.device().is_host() ? to_device(a, ctx.device, ctx.s) : a;
}

// The input of a reduction on the device, a dense host array keeping its layout.
array input_on_device(const array& a, const device_context& ctx) {
  return a.device().is_host() ? cuda::to_device_as_is(a, ctx.device, ctx.s) : a;
}

array as_type(const array& a, dtype t, const device_context& ctx) {
  if (a.type() == t) return a;
  array out = device_empty(a.shape(), like_strides(a, order::K, t.itemsize()), t, ctx);  // in a's order, as astype
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
  if (out == nullptr) return ctx.host_io ? cuda::to_host_as_is(computed, ctx.s) : computed;
  if (computed.data() == out->data()) return *out;
  if (out->device().is_host())
    to_host(computed, ctx.s).copy_to(*out);
  else
    cuda::cast(computed, *out, ctx.s);
  return *out;
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
    cuda::launch_method(p.loop.device_reduce, p.loop.device_data, c);
  }
  return deliver(res, out, ctx);
}

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

namespace {

// ufunc.at's positions by rounds: round r holds every element's (r+1)-th occurrence,
// in index order, so that the positions of one round touch disjoint elements of a.
// Round r is order[round_start[r]] .. order[round_start[r + 1] - 1].
struct at_rounds {
  std::vector<std::int64_t> order;
  std::vector<std::int64_t> round_start;
};

at_rounds rounds_of(const std::vector<std::int64_t>& a_offsets) {
  const std::size_t n = a_offsets.size();
  std::unordered_map<std::int64_t, std::int64_t> seen;
  seen.reserve(n);
  std::vector<std::int64_t> occurrence(n);
  std::size_t rounds = 0;
  for (std::size_t p = 0; p < n; ++p) {
    occurrence[p] = seen[a_offsets[p]]++;
    rounds = std::max(rounds, static_cast<std::size_t>(occurrence[p]) + 1);
  }
  at_rounds r;
  r.round_start.assign(rounds + 1, 0);
  for (auto o : occurrence) ++r.round_start[static_cast<std::size_t>(o) + 1];
  for (std::size_t i = 0; i < rounds; ++i) r.round_start[i + 1] += r.round_start[i];
  std::vector<std::int64_t> next(r.round_start.begin(), r.round_start.end() - 1);
  r.order.resize(n);
  for (std::size_t p = 0; p < n; ++p)
    r.order[static_cast<std::size_t>(next[static_cast<std::size_t>(occurrence[p])]++)] = static_cast<std::int64_t>(p);
  return r;
}

// The strided side of a gather or scatter: x's trailing axes from `first` on.
cuda::at_moves::strided_side side_of(const array& x, std::size_t first) {
  cuda::at_moves::strided_side s;
  s.base = x.data();
  for (std::size_t d = first; d < x.ndim(); ++d) {
    s.shape[s.ndim] = x.shape()[d];
    s.strides[s.ndim] = x.strides()[d];
    ++s.ndim;
  }
  return s;
}

// Byte offsets into bd (b broadcast to the index positions then the trailing subspace)
// of every index position, in index order.
std::vector<std::int64_t> position_offsets(const array& bd, const dim_vector& index_shape, std::size_t npos) {
  std::vector<std::int64_t> offsets(npos, 0);
  std::vector<std::int64_t> pos_idx(index_shape.size(), 0);
  for (std::size_t p = 0; p < npos; ++p) {
    for (std::size_t d = 0; d < pos_idx.size(); ++d) offsets[p] += pos_idx[d] * bd.strides()[d];
    for (std::size_t d = pos_idx.size(); d-- > 0;) {
      if (++pos_idx[d] < index_shape[d]) break;
      pos_idx[d] = 0;
    }
  }
  return offsets;
}

// The loop's device method launcher on a's memory, every position in index order in
// one launch (repeats serialized by the kernel): for loops T(T, ...) -> T whose T is
// a's dtype.
void at_serialized(const array& ad, const array& b, const at_plan& plan, const device_context& ctx,
                   const std::vector<std::int64_t>& a_offsets, const dim_vector& full) {
  const auto& t = plan.loop.types;
  const std::size_t npos = a_offsets.size();
  const array bd = b.valid() ? as_type(on_device(b, ctx), t.input(1), ctx).broadcast_to(full) : array();
  const std::vector<std::int64_t> b_offsets =
      bd.valid() ? position_offsets(bd, plan.index_shape, npos) : std::vector<std::int64_t>(npos, 0);
  std::vector<std::int64_t> offsets(npos * 2, 0);
  for (std::size_t p = 0; p < npos; ++p) {
    offsets[2 * p] = a_offsets[p];
    offsets[2 * p + 1] = b_offsets[p];
  }
  const array offsets_device =
      to_device(asarray<std::int64_t>(std::span<const std::int64_t>(offsets)), ctx.device, ctx.s);
  const std::size_t k = static_cast<std::size_t>(plan.index_ndim);
  device_method_call c;
  c.kind = device_method::at;
  c.nin = plan.unary ? 1 : 2;
  c.ndim = static_cast<int>(plan.sub_shape.size());
  c.device = ctx.device;
  c.stream = ctx.s.handle;
  for (int d = 0; d < c.ndim; ++d) {
    c.shape[d] = plan.sub_shape[static_cast<std::size_t>(d)];
    c.strides[0][d] = ad.strides()[k + static_cast<std::size_t>(d)];
    c.strides[1][d] = bd.valid() ? bd.strides()[plan.index_shape.size() + static_cast<std::size_t>(d)] : 0;
    c.strides[2][d] = 0;
  }
  if (c.ndim == 0) {  // one element per position
    c.ndim = 1;
    c.shape[0] = 1;
    c.strides[0][0] = c.strides[1][0] = c.strides[2][0] = 0;
  }
  c.base[0] = ad.data();
  c.base[1] = bd.valid() ? bd.data() : nullptr;
  c.base[2] = nullptr;
  c.offsets = reinterpret_cast<const std::int64_t*>(offsets_device.data());
  c.count = static_cast<std::int64_t>(npos);
  cuda::launch_method(plan.loop.device_reduce, plan.loop.device_data, c);
}

// Every other loop (casts of a, outputs of another dtype than the first input, loops
// without device methods), in rounds: gather a's elements at the round's positions
// into a C-ordered temporary, the ordinary call on target cuda with the loop at
// resolved (pinned by its signature; casting 'unsafe' since NumPy casts the result
// back into a's dtype unsafely) and out= that temporary, then scatter it back. The
// call supplies the casts, errstate and the loops' value checks, as on the host.
void at_rounds_path(const function& f, const array& ad, const array& b, const at_plan& plan, const device_context& ctx,
                    const std::vector<std::int64_t>& a_offsets, const dim_vector& full) {
  const std::size_t npos = a_offsets.size();
  const std::size_t k = static_cast<std::size_t>(plan.index_ndim);
  const std::size_t pos_nd = plan.index_shape.size();
  const array bd = b.valid() ? on_device(b, ctx).broadcast_to(full) : array();
  // b that is the same at every position (a scalar, or broadcast along the index
  // axes) need not be gathered: its subspace broadcasts against the temporary.
  bool b_varies = false;
  for (std::size_t d = 0; d < pos_nd && bd.valid(); ++d)
    if (plan.index_shape[d] > 1 && bd.strides()[d] != 0) b_varies = true;
  const at_rounds r = rounds_of(a_offsets);
  // One upload: (a offset, b offset) of every position, in round order.
  const std::vector<std::int64_t> b_offsets =
      b_varies ? position_offsets(bd, plan.index_shape, npos) : std::vector<std::int64_t>();
  std::vector<std::int64_t> moved(npos * 2, 0);
  std::uint64_t a_bits = 0, b_bits = 0;
  for (std::size_t q = 0; q < npos; ++q) {
    const auto p = static_cast<std::size_t>(r.order[q]);
    moved[2 * q] = a_offsets[p];
    moved[2 * q + 1] = b_varies ? b_offsets[p] : 0;
    a_bits |= static_cast<std::uint64_t>(moved[2 * q]);
    b_bits |= static_cast<std::uint64_t>(moved[2 * q + 1]);
  }
  const array moved_device = to_device(asarray<std::int64_t>(std::span<const std::int64_t>(moved)), ctx.device, ctx.s);
  const auto* offsets = reinterpret_cast<const std::int64_t*>(moved_device.data());

  // The temporaries, sized for round 0 (the largest); later rounds use their first rows.
  dim_vector tshape{r.round_start[1]};
  for (auto e : plan.sub_shape) tshape.push_back(e);
  const array ta_all = device_empty(tshape, ad.type(), ctx);
  const array tb_all = b_varies ? device_empty(tshape, bd.type(), ctx) : array();
  dim_vector b_sub_strides;
  for (std::size_t d = pos_nd; d < full.size() && bd.valid(); ++d) b_sub_strides.push_back(bd.strides()[d]);
  const array b_same = bd.valid() && !b_varies ? restride(bd, plan.sub_shape, b_sub_strides, bd.data()) : array();

  cuda::at_moves::move ma;
  ma.side = side_of(ad, k);
  ma.itemsize = static_cast<std::int64_t>(ad.itemsize());
  ma.offset_step = 2;
  ma.offset_bits = a_bits;
  ma.device = ctx.device;
  ma.stream = ctx.s;
  cuda::at_moves::move mb = ma;
  if (b_varies) {
    mb.side = side_of(bd, pos_nd);
    mb.itemsize = static_cast<std::int64_t>(bd.itemsize());
    mb.offset_bits = b_bits;
    mb.packed = tb_all.data();
  }
  ma.packed = ta_all.data();

  const std::string sig = plan.loop.types.str();
  call_options co;
  co.signature = sig;
  co.casting = casting::unsafe;
  co.target = target_id::cuda;
  co.stream = ctx.s;
  // NumPy applies every position, then reports once. The kinds whose policy is raise or
  // call are relayed: the rounds' calls hand them to `deferred` (the call policy) rather
  // than raise mid-way, and they are reported after the last round, so a 'raise' finds
  // every position applied. warn and print stay with each round's call (a repeated
  // warning is shown once).
  const fp_errors policies = geterr();
  const auto relayed = [](fp_policy p) { return p == fp_policy::raise || p == fp_policy::call; };
  const unsigned relayed_kinds = (relayed(policies.divide) ? static_cast<unsigned>(fp_flag::divide) : 0u) |
                                 (relayed(policies.over) ? static_cast<unsigned>(fp_flag::overflow) : 0u) |
                                 (relayed(policies.under) ? static_cast<unsigned>(fp_flag::underflow) : 0u) |
                                 (relayed(policies.invalid) ? static_cast<unsigned>(fp_flag::invalid) : 0u);
  unsigned deferred = 0;
  std::optional<errstate> relay;
  if (relayed_kinds != 0) {
    const auto to_call = [&](fp_policy p) { return relayed(p) ? fp_policy::call : p; };
    relay.emplace(fp_error_changes{.all = std::nullopt,
                                   .divide = to_call(policies.divide),
                                   .over = to_call(policies.over),
                                   .under = to_call(policies.under),
                                   .invalid = to_call(policies.invalid)},
                  [&deferred](std::string_view, unsigned flags) { deferred |= flags; });
  }
  for (std::size_t round = 0; round + 1 < r.round_start.size(); ++round) {
    const std::int64_t first = r.round_start[round];
    const std::int64_t n = r.round_start[round + 1] - first;
    tshape[0] = n;
    ma.offsets = offsets + 2 * first;
    ma.count = n;
    cuda::at_moves::gather(ma);
    const array ta = restride(ta_all, tshape, ta_all.strides(), ta_all.data());
    co.out = {ta};
    if (plan.unary) {
      f(ta, co);
    } else if (b_varies) {
      mb.offsets = offsets + 2 * first + 1;
      mb.count = n;
      cuda::at_moves::gather(mb);
      f(ta, restride(tb_all, tshape, tb_all.strides(), tb_all.data()), co);
    } else {
      f(ta, b_same, co);
    }
    cuda::at_moves::scatter(ma);
  }
  relay.reset();
  if ((deferred & relayed_kinds) != 0) fp_report(plan.fp_name, deferred & relayed_kinds);
}

}  // namespace

// Errors: indices were checked before this runs, so nothing is written for a bad
// index. Floating-point errors: every position is applied, then the policies apply,
// as NumPy (see at_rounds_path; a 'warn' may repeat when an index repeats). Integer
// power with a negative exponent: the serialized kernel leaves that element as it was
// and applies the others, then raises, as NumPy. In the rounds (a of another dtype than
// the loop) the rounds before the failing one stay applied, and that round and the
// later ones are not. Host-in/host-out copies the state back before the error leaves.
void device_at(const function& f, const array& a, const array& b, const at_plan& plan, const call_options& options) {
  const auto& t = plan.loop.types;
  const device_context ctx =
      context_of(f, "at", {&a, b.valid() ? &b : nullptr}, options.stream, plan.loop, plan.fp_name);
  const std::int64_t npos = shape_size(plan.index_shape);
  if (npos == 0 || shape_size(plan.sub_shape) == 0) return;
  if (plan.sub_shape.size() > static_cast<std::size_t>(max_ndim)) throw value_error("too many dimensions");
  const array ad = on_device(a, ctx);  // host-in/host-out: a C-ordered device copy
  dim_vector full = plan.index_shape;
  for (auto e : plan.sub_shape) full.push_back(e);
  // Byte offsets of every position into ad (its strides: ad is a's copy for host data).
  const std::size_t k = static_cast<std::size_t>(plan.index_ndim);
  std::vector<std::int64_t> a_offsets(static_cast<std::size_t>(npos), 0);
  for (std::size_t p = 0; p < a_offsets.size(); ++p)
    for (std::size_t j = 0; j < k; ++j) a_offsets[p] += plan.positions[p * k + j] * ad.strides()[j];
  const bool serialized = plan.loop.device_reduce != nullptr && t.input(0) == t.output(0) && ad.type() == t.input(0);
  try {
    if (serialized)
      at_serialized(ad, b, plan, ctx, a_offsets, full);
    else
      at_rounds_path(f, ad, b, plan, ctx, a_offsets, full);
  } catch (...) {
    if (ctx.host_io) {
      try {
        to_host(ad, ctx.s).copy_to(a);
      } catch (...) {  // the original error says more than a failing copy
      }
    }
    throw;
  }
  if (ctx.host_io) to_host(ad, ctx.s).copy_to(a);
}

}  // namespace ufunc::detail
