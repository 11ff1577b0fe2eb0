// ufunc.at on target cuda (methods.hpp): one serialized launch where the loop's device
// method code applies to a's dtype, else rounds of gather / call / scatter
// (at_gather.hpp), each round a set of distinct elements.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/errstate.hpp>
#include <ufunc/core/transfer.hpp>
#include "at_gather.hpp"
#include "entry_points.hpp"
#include "methods.hpp"

namespace ufunc::detail {

using namespace cuda_methods;  // the drivers' shared helpers (methods.hpp)

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
  launch_method(plan.loop, c);
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
  const bool serialized = method_code(plan.loop) != nullptr && t.input(0) == t.output(0) && ad.type() == t.input(0);
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
