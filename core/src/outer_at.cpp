// ufunc.outer (a call on broadcast views) and ufunc.at (unbuffered indexed updates).
//
// at runs on the calling thread for the host targets: NumPy's semantics are that of
// applying the positions one after the other (a repeated index sees the result of the
// earlier update), for any functor; on the cuda target it runs serialized in index
// order for the same reason (backends/cuda/methods/at.hpp).
#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/errstate.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/iteration.hpp>
#include <ufunc/core/transfer.hpp>

#include <ufunc/core/detail/methods.hpp>

namespace ufunc {

namespace {

// NumPy converts the operands of outer and at with np.asarray: a Python scalar is a
// 0-d array of its default dtype there, not a weak scalar.
array strong(const operand& x) {
  if (!x.is_scalar()) return x.as_array();
  const weak_scalar& s = x.as_scalar();
  array a = array::empty({}, s.default_dtype());
  s.store(s.default_dtype(), a.data());
  return a;
}

// Whether NumPy has an indexed loop for ufunc `name` on dtype `t` (generate_umath.py's
// `indexed=`): the loops its trivial_at_loop runs.
bool numpy_indexed_loop(std::string_view name, dtype t) {
  if (name == "add" || name == "subtract" || name == "multiply") return t != bool_;
  if (name == "divide") return t.kind() == dtype_kind::floating;
  if (name == "floor_divide" || name == "maximum" || name == "minimum" || name == "fmax" || name == "fmin")
    return t != bool_ && !t.is_complex();
  return false;
}

}  // namespace

std::vector<array> function::outer_all(const operand& a, const operand& b, const call_options& options) const {
  if (nin() != 2)
    throw value_error("outer product only supported for binary functions (" + detail::method_label(*this, "outer") +
                      " takes " + std::to_string(nin()) + " input" + (nin() == 1 ? ")" : "s)"));
  const array x = strong(a), y = strong(b);
  if (!x.valid() || !y.valid()) throw value_error(detail::method_label(*this, "outer") + ": a null array operand");
  // a[..., newaxis * b.ndim]: the same memory, trailing axes of length 1.
  dim_vector shape = x.shape(), strides = x.strides();
  for (std::size_t d = 0; d < y.ndim(); ++d) {
    shape.push_back(1);
    strides.push_back(0);
  }
  const operand operands[] = {detail::restride(x, shape, strides, x.data()), y};
  return call(operands, options);
}

array function::outer(const operand& a, const operand& b, const call_options& options) const {
  if (nin() == 2 && nout() != 1)
    throw value_error(detail::method_label(*this, "outer") + " has " + std::to_string(nout()) +
                      " outputs; outer_all() returns all of them");
  return std::move(outer_all(a, b, options)[0]);
}

void function::at(const array& a, std::span<const array> indices, const operand& b, const call_options& options) const {
  at_impl(a, indices, &b, options);
}

void function::at(const array& a, std::span<const array> indices, const call_options& options) const {
  at_impl(a, indices, nullptr, options);
}

void function::at_impl(const array& a, std::span<const array> indices, const operand* b_operand,
                       const call_options& options) const {
  const std::string label = detail::method_label(*this, "at");
  if (nout() != 1) throw value_error(label + ": only single output ufuncs supported at this time");
  if (nin() > 2) throw value_error(label + ": at only supported for unary and binary ufuncs");
  if (nin() == 1 && b_operand != nullptr) throw value_error(label + ": second operand provided when ufunc is unary");
  if (nin() == 2 && b_operand == nullptr) throw value_error(label + ": second operand needed for ufunc");
  if (!a.valid()) throw value_error(label + ": a is a null array");
  if (!a.writeable()) throw overlap_error(label + ": a (" + a.describe() + ") is read-only");
  if (!options.out.empty()) throw value_error(label + ": at writes into a; it takes no out=");
  if (options.where.valid()) throw value_error(label + ": at takes no where=");
  const array b = b_operand ? strong(*b_operand) : array();
  if (b_operand && !b.valid()) throw value_error(label + ": b is a null array");

  // A C++ scalar b is a host 0-d array here; it goes wherever a is.
  const bool b_scalar = b_operand != nullptr && b_operand->is_scalar();
  const auto place = detail::place_method(*this, "at", options.target, {&a, b.valid() && !b_scalar ? &b : nullptr});

  // The loop for (a, b), results cast back into a (unsafe, as NumPy). NumPy resolves
  // it before it looks at the indices or at b's shape: np.ldexp.at(complex64, idx, b)
  // has no loop, whatever idx and b are.
  call_options resolve_opts;
  resolve_opts.dtype = options.dtype;
  resolve_opts.signature = options.signature;
  resolve_opts.casting = casting::unsafe;
  const dtype in_types[2] = {a.type(), b.valid() ? b.type() : a.type()};
  loop_entry resolved = resolve_loop(std::span<const dtype>(in_types, static_cast<std::size_t>(nin())), resolve_opts);

  // The index arrays: integers, or bools standing for their nonzero positions.
  std::vector<array> idx;
  std::size_t consumed = 0;
  for (const auto& i : indices) {
    if (!i.valid()) throw value_error(label + ": a null index array");
    const array hi = i.device().is_host() ? i : to_host(i, options.stream);
    if (hi.type() == bool_) {
      for (std::size_t d = 0; d < hi.ndim(); ++d)
        if (consumed + d >= a.ndim() || hi.shape()[d] != a.shape()[consumed + d])
          throw index_error(label + ": boolean index did not match indexed array along axis " +
                            std::to_string(consumed + d) + "; size of axis is " +
                            (consumed + d < a.ndim() ? std::to_string(a.shape()[consumed + d]) : std::string("-")) +
                            " but size of corresponding boolean axis is " + std::to_string(hi.shape()[d]));
      // np.nonzero: one int64 array per dimension of the mask, positions in C order.
      const auto flags = hi.to_vector<bool>();
      std::vector<std::vector<std::int64_t>> pos(std::max<std::size_t>(hi.ndim(), 1));
      for (std::size_t k = 0; k < flags.size(); ++k) {
        if (!flags[k]) continue;
        std::int64_t rem = static_cast<std::int64_t>(k);
        for (std::size_t d = hi.ndim(); d-- > 0;) {
          pos[d].push_back(rem % hi.shape()[d]);
          rem /= hi.shape()[d];
        }
      }
      for (std::size_t d = 0; d < hi.ndim(); ++d)
        idx.push_back(asarray<std::int64_t>(std::span<const std::int64_t>(pos[d])));
      consumed += hi.ndim();
      continue;
    }
    if (!hi.type().is_integer())
      throw index_error(label + ": arrays used as indices must be of integer (or boolean) type, not " +
                        std::string(hi.type().name()));
    idx.push_back(hi);
    ++consumed;
  }
  if (consumed > a.ndim())
    throw index_error(label + ": too many indices for array: array is " + std::to_string(a.ndim()) +
                      "-dimensional, but " + std::to_string(consumed) + " were indexed");

  detail::at_plan plan;
  plan.loop = std::move(resolved);
  {
    std::vector<dim_vector> shapes;
    for (const auto& i : idx) shapes.push_back(i.shape());
    try {
      plan.index_shape = broadcast_shapes(shapes);
    } catch (const broadcast_error&) {
      std::string msg = label + ": shape mismatch: indexing arrays could not be broadcast together with shapes";
      for (const auto& s : shapes) msg += " " + array::shape_string(s);
      throw index_error(msg);
    }
  }
  const std::size_t k = idx.size();
  for (std::size_t d = k; d < a.ndim(); ++d) {
    plan.sub_shape.push_back(a.shape()[d]);
    plan.sub_strides.push_back(a.strides()[d]);
  }
  // Every index is checked before anything is written.
  const std::int64_t npos = shape_size(plan.index_shape);
  plan.offsets.assign(static_cast<std::size_t>(npos), 0);
  plan.index_ndim = static_cast<int>(k);
  plan.positions.assign(static_cast<std::size_t>(npos) * k, 0);
  for (std::size_t j = 0; j < k; ++j) {
    const auto values = idx[j].broadcast_to(plan.index_shape).to_vector<std::int64_t>();
    std::vector<std::uint64_t> wide;
    if (idx[j].type() == uint64) wide = idx[j].broadcast_to(plan.index_shape).to_vector<std::uint64_t>();
    const std::int64_t extent = a.shape()[j];
    for (std::int64_t p = 0; p < npos; ++p) {
      std::int64_t v = values[static_cast<std::size_t>(p)];
      const bool too_big = !wide.empty() && wide[static_cast<std::size_t>(p)] > static_cast<std::uint64_t>(INT64_MAX);
      if (too_big || v < -extent || v >= extent)
        throw index_error(label + ": index " +
                          (too_big ? std::to_string(wide[static_cast<std::size_t>(p)]) : std::to_string(v)) +
                          " is out of bounds for axis " + std::to_string(j) + " with size " + std::to_string(extent));
      if (v < 0) v += extent;
      plan.offsets[static_cast<std::size_t>(p)] += v * a.strides()[j];
      plan.positions[static_cast<std::size_t>(p) * k + j] = v;
    }
  }

  // b broadcasts to the indexed shape (index shape + the trailing axes of a).
  dim_vector full = plan.index_shape;
  for (auto e : plan.sub_shape) full.push_back(e);
  array bb;
  if (b.valid()) {
    bool ok = b.ndim() <= full.size();
    if (ok) {
      try {
        const dim_vector shapes[] = {full, b.shape()};
        ok = broadcast_shapes(shapes) == full;
      } catch (const broadcast_error&) {
        ok = false;
      }
    }
    if (!ok)
      throw broadcast_error(label + ": array is not broadcastable to correct shape (b has shape " +
                            array::shape_string(b.shape()) + ", the indexed shape is " + array::shape_string(full) +
                            ")");
  }

  plan.unary = nin() == 1;
  const auto& t = plan.loop.types;
  const bool direct = t.input(0) == a.type() && t.output(0) == a.type() && (plan.unary || t.input(1) == b.type());
  // NumPy checks the flags once, after every position: under the ufunc's name where it
  // runs the loop's indexed variant (trivial_at_loop: no cast, a 1-d and b at most
  // 1-d, one index array, a loop that has one: np.add.at(float64s, [0], 1e308) is
  // "overflow encountered in add"), else under "at" (np.float_power.at, a cast, 2-d a).
  const bool trivial = direct && !plan.unary && numpy_indexed_loop(name(), a.type()) && a.ndim() == 1 &&
                       b.ndim() <= 1 && idx.size() == 1;
  plan.fp_name = trivial ? std::string_view(name()) : std::string_view("at");
  if (place.on_device) {
    detail::at_on_device(*this, a, b, plan, options);
    return;
  }
  if (npos == 0 || shape_size(plan.sub_shape) == 0) return;

  if (direct) {
    detail::fp_scope fp;
    // The loop straight on a's memory, position after position.
    bb = b.valid() ? b.broadcast_to(full) : array();
    dim_vector b_pos_strides, b_sub_strides;
    for (std::size_t d = 0; d < full.size() && bb.valid(); ++d)
      (d < plan.index_shape.size() ? b_pos_strides : b_sub_strides).push_back(bb.strides()[d]);
    const int nops = plan.unary ? 2 : 3;
    plan_operand ops[3];
    ops[0] = {a.data(), plan.sub_strides};
    if (plan.unary) {
      ops[1] = {a.data(), plan.sub_strides};
    } else {
      ops[1] = {bb.data(), b_sub_strides};
      ops[2] = {a.data(), plan.sub_strides};
    }
    const iteration_plan sub(plan.sub_shape, {ops, static_cast<std::size_t>(nops)}, /*allow_flip=*/true);
    std::int64_t pos_idx[max_ndim] = {};
    std::int64_t b_off = 0;
    const int pos_nd = static_cast<int>(plan.index_shape.size());
    // NumPy's at runs its scalar loop (the indexed loop; a unary loop in place on one
    // element): where that one differs in bits (complex multiply/square), it runs here.
    const inner_loop_fn at_fn = plan.loop.host_scalar ? plan.loop.host_scalar : plan.loop.host;
    const void* at_data = plan.loop.host_scalar ? plan.loop.host_scalar_data : plan.loop.host_data;
    if (plan.sub_shape.empty() && !plan.unary && plan.loop.reduce != nullptr && !plan.loop.host_scalar &&
        t.input(1) == a.type()) {
      // Single elements with a T(T, T) loop: its reduce fn folds one element, a scalar
      // call (the elementwise loop would fill SIMD lanes for one element).
      std::vector<std::int64_t> b_offsets(static_cast<std::size_t>(npos), 0);
      for (std::int64_t p = 0; p < npos; ++p) {
        b_offsets[static_cast<std::size_t>(p)] = b_off;
        for (int d = pos_nd - 1; d >= 0; --d) {
          b_off += b_pos_strides[static_cast<std::size_t>(d)];
          if (++pos_idx[d] < plan.index_shape[static_cast<std::size_t>(d)]) break;
          b_off -= plan.index_shape[static_cast<std::size_t>(d)] * b_pos_strides[static_cast<std::size_t>(d)];
          pos_idx[d] = 0;
        }
      }
      char* base = reinterpret_cast<char*>(a.data());
      const char* bbase = reinterpret_cast<const char*>(bb.data());
      for (std::int64_t p = 0; p < npos; ++p)
        plan.loop.reduce(base + plan.offsets[static_cast<std::size_t>(p)],
                         bbase + b_offsets[static_cast<std::size_t>(p)], 1, 0, plan.loop.host_data);
      fp.finish(plan.fp_name);
      return;
    }
    const bool single = plan.sub_shape.empty();
    const std::int64_t zero_steps[3] = {0, 0, 0};
    for (std::int64_t p = 0; p < npos; ++p) {
      const std::int64_t a_off = plan.offsets[static_cast<std::size_t>(p)];
      if (single) {  // one element per position: no plan walk
        char* ap = reinterpret_cast<char*>(a.data()) + a_off;
        char* args[3] = {ap, plan.unary ? ap : reinterpret_cast<char*>(bb.data()) + b_off, ap};
        at_fn(args, 1, zero_steps, at_data);
      } else {
        sub.for_each_run(0, sub.size(), [&](char* const* ptrs, std::int64_t n, const std::int64_t* steps) {
          char* args[3];
          if (plan.unary) {
            args[0] = ptrs[0] + a_off;
            args[1] = ptrs[1] + a_off;
          } else {
            args[0] = ptrs[0] + a_off;
            args[1] = ptrs[1] + b_off;
            args[2] = ptrs[2] + a_off;
          }
          at_fn(args, n, steps, at_data);
        });
      }
      // Next index position (C order), and b's offset there.
      for (int d = pos_nd - 1; d >= 0 && bb.valid(); --d) {
        b_off += b_pos_strides[static_cast<std::size_t>(d)];
        if (++pos_idx[d] < plan.index_shape[static_cast<std::size_t>(d)]) break;
        b_off -= plan.index_shape[static_cast<std::size_t>(d)] * b_pos_strides[static_cast<std::size_t>(d)];
        pos_idx[d] = 0;
      }
    }
    fp.finish(plan.fp_name);
  } else {
    // Casts: each position is a ufunc call on views, with the loop pinned and the
    // result written back into a (exact aliasing, so casts go through buffers). Their
    // flags, the casts' included, are gathered (every policy but ignore becomes call)
    // and reported once after the last position, as NumPy: a 'raise' finds every
    // position applied and names the first kind of the whole at.
    unsigned gathered = 0;
    std::optional<errstate> relay;
    if (detail::fp_checks_enabled()) {
      const fp_errors p = geterr();
      const auto to_call = [](fp_policy x) { return x == fp_policy::ignore ? x : fp_policy::call; };
      relay.emplace(fp_error_changes{.all = std::nullopt,
                                     .divide = to_call(p.divide),
                                     .over = to_call(p.over),
                                     .under = to_call(p.under),
                                     .invalid = to_call(p.invalid)},
                    [&gathered](std::string_view, unsigned flags) { gathered |= flags; });
    }
    const std::string sig = t.str();
    call_options call_opts;
    call_opts.signature = sig;
    call_opts.casting = casting::unsafe;
    call_opts.target = target_id::cpu;
    bb = b.valid() ? b.broadcast_to(full) : array();
    std::int64_t pos_idx[max_ndim] = {};
    const int pos_nd = static_cast<int>(plan.index_shape.size());
    dim_vector b_sub_strides;
    for (std::size_t d = plan.index_shape.size(); d < full.size() && bb.valid(); ++d)
      b_sub_strides.push_back(bb.strides()[d]);
    for (std::int64_t p = 0; p < npos; ++p) {
      const array a_sub =
          detail::restride(a, plan.sub_shape, plan.sub_strides, a.data() + plan.offsets[static_cast<std::size_t>(p)]);
      call_opts.out = {a_sub};
      if (plan.unary) {
        (*this)(a_sub, call_opts);
      } else {
        std::int64_t b_off = 0;
        for (int d = 0; d < pos_nd; ++d) b_off += pos_idx[d] * bb.strides()[static_cast<std::size_t>(d)];
        (*this)(a_sub, detail::restride(bb, plan.sub_shape, b_sub_strides, bb.data() + b_off), call_opts);
      }
      for (int d = pos_nd - 1; d >= 0; --d) {
        if (++pos_idx[d] < plan.index_shape[static_cast<std::size_t>(d)]) break;
        pos_idx[d] = 0;
      }
    }
    relay.reset();
    if (gathered != 0) detail::fp_report(plan.fp_name, gathered);
  }
}

}  // namespace ufunc
