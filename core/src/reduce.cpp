// ufunc.reduce on the host targets (the engine is fold.cpp); device data goes to the
// cuda backend (backends/cuda/src/reduce.cpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/function.hpp>

#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/detail/value_source.hpp>

#include "fold.hpp"

namespace ufunc {

namespace detail {

namespace {

// plan_reduce of an operand of `a_shape` and `a_type` (an array, or a value_source).
reduce_plan plan_reduce_of(const function& f, const dim_vector& a_shape, dtype a_type, const reduce_options& o) {
  reduce_plan p;
  const int nd = static_cast<int>(a_shape.size());
  p.reduced.assign(static_cast<std::size_t>(nd), false);
  const auto& ax = o.axis;
  int naxes = 0;
  if (ax.all()) {
    for (int d = 0; d < nd; ++d) p.reduced[d] = true;
    naxes = nd;
  } else if (nd == 0 && ax.single() && (ax.list()[0] == 0 || ax.list()[0] == -1)) {
    // NumPy accepts axis=0 and axis=-1 (as integers) for 0-d arrays: nothing to reduce.
  } else {
    for (int axis : ax.list()) {
      const int d = normalize_axis(axis, nd, f, "reduce");
      if (p.reduced[d]) throw value_error(method_label(f, "reduce") + ": duplicate value in 'axis'");
      p.reduced[d] = true;
      ++naxes;
    }
  }
  const auto rl = resolve_reduce_like(f, "reduce", a_type, o.dtype, o.out ? &*o.out : nullptr);
  p.loop = rl.loop;
  p.type = rl.type;
  // NumPy: a ufunc with an identity (or a reorderable loop, here) may reduce several axes.
  if (naxes > 1 && !(p.loop.reorderable || f.identity()))
    throw value_error(method_label(f, "reduce") + ": reduction operation '" + f.name() +
                      "' is not reorderable, so at most one axis may be specified");

  if (o.where.valid()) {
    if (o.where.type() != bool_)
      throw dtype_error(method_label(f, "reduce") + ": where= must be a bool array, not " + o.where.describe());
    if (!o.initial && !f.identity())
      throw value_error(method_label(f, "reduce") + ": reduction operation '" + f.name() +
                        "' does not have an identity, so to use a where mask one has to specify 'initial'");
    const dim_vector shapes[] = {a_shape, o.where.shape()};
    bool ok = o.where.ndim() <= a_shape.size();
    if (ok) {
      try {
        ok = broadcast_shapes(shapes) == a_shape;
      } catch (const broadcast_error&) {
        ok = false;
      }
    }
    if (!ok)
      throw broadcast_error(method_label(f, "reduce") + ": where= of shape " + array::shape_string(o.where.shape()) +
                            " does not broadcast to the input's shape " + array::shape_string(a_shape));
  }

  if (o.initial) {
    const auto& init = *o.initial;
    // Into bool, any Python scalar converts by its truth (logical_or.reduce(complex, initial=0.5j)).
    if (init.value_kind() == weak_scalar::kind::complex && !p.type.is_complex() && p.type != bool_)
      throw casting_error(method_label(f, "reduce") + ": initial=" + init.str() + " cannot be converted to " +
                          std::string(p.type.name()));
    if (!init.fits(p.type))
      throw overflow_error(method_label(f, "reduce") + ": Python integer " + init.str() + " out of bounds for " +
                           std::string(p.type.name()));
    // NumPy converts a Python float initial for an integer reduction by int(), then
    // checks the bounds: fmin.reduce(x, dtype='uint64', initial=-5.5) is an OverflowError.
    if (init.value_kind() == weak_scalar::kind::floating && p.type.is_integer()) {
      double v = 0;
      init.store(float64, &v);
      v = std::trunc(v);
      const double lo = p.type.kind() == dtype_kind::unsigned_int ? 0.0 : -std::ldexp(1.0, p.type.itemsize() * 8 - 1);
      const double hi = std::ldexp(1.0, p.type.itemsize() * 8 - (p.type.kind() == dtype_kind::unsigned_int ? 0 : 1));
      if (!std::isfinite(v) || v < lo || v >= hi)
        throw overflow_error(method_label(f, "reduce") + ": Python integer " + init.str() + " out of bounds for " +
                             std::string(p.type.name()));
    }
    // As a call's Python scalar (report_scalar_overflow, run_loop.cpp): NumPy reports
    // an overflow of the conversion, "overflow encountered in cast", and no underflow.
    if (init.overflows(p.type)) fp_report("cast", static_cast<unsigned>(fp_flag::overflow));
    init.store(p.type, p.start);
    p.has_start = true;
  } else if (f.identity()) {
    f.identity()->store(p.type, p.start);  // unsigned: -1 is all ones, as NumPy
    p.has_start = true;
  }

  bool empty_axis = false;
  for (int d = 0; d < nd; ++d) {
    if (p.reduced[d]) {
      empty_axis |= a_shape[d] == 0;
      if (o.keepdims) p.shape.push_back(1);
    } else {
      p.shape.push_back(a_shape[d]);
    }
  }
  // NumPy refuses a reduced axis of length 0 without a start value even where the result is empty
  // (fmin.reduce(empty((0, 0)), axis=0)); reduced axes of nonzero length over an empty array are fine
  // (fmin.reduce(empty((0, 3)), axis=1) is empty).
  if (empty_axis && !p.has_start)
    throw value_error(method_label(f, "reduce") + ": zero-size array to reduction operation " + f.name() +
                      " which has no identity");

  if (o.out) {
    const array& out = *o.out;
    if (!out.valid()) throw value_error(method_label(f, "reduce") + ": out is a null array");
    if (out.ndim() != p.shape.size())
      throw value_error(method_label(f, "reduce") + ": output parameter for reduction operation " + f.name() +
                        " has the wrong number of dimensions: Found " + std::to_string(out.ndim()) + " but expected " +
                        std::to_string(p.shape.size()) +
                        (o.keepdims ? " (must match the operand's when keepdims=True)" : ""));
    if (!(out.shape() == p.shape))
      throw broadcast_error(method_label(f, "reduce") + ": out has shape " + array::shape_string(out.shape()) +
                            ", but the reduction of shape " + array::shape_string(a_shape) + " has shape " +
                            array::shape_string(p.shape));
    if (!out.writeable())
      throw overlap_error(method_label(f, "reduce") + ": out (" + out.describe() + ") is read-only");
  }
  return p;
}

}  // namespace

reduce_plan plan_reduce(const function& f, const array& a, const reduce_options& o) {
  require_reduce_like(f, "reduce");
  if (!a.valid()) throw value_error(method_label(f, "reduce") + ": the input is a null array");
  return plan_reduce_of(f, a.shape(), a.type(), o);
}

namespace {

// Byte strides over a's shape of a result array laid out as p.shape (0 along reduced axes).
dim_vector spread_strides(const reduce_plan& p, const array& result, bool keepdims) {
  dim_vector s(p.reduced.size(), 0);
  std::size_t j = 0;
  for (std::size_t d = 0; d < p.reduced.size(); ++d) {
    if (p.reduced[d]) {
      if (keepdims) ++j;
      continue;
    }
    s[d] = result.strides()[j++];
  }
  return s;
}

bool has_zero_stride(const array& a) {
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.shape()[d] > 1 && a.strides()[d] == 0) return true;
  return false;
}

// What a reduction folds: an array's elements, or the values a source computes (its
// strides then say where each value would be).
struct fold_operand {
  const dim_vector& shape;
  const dim_vector& strides;
  dtype type;
  const std::byte* data = nullptr;
  const value_source* source = nullptr;
};

// Folds `a` (and the mask) into `acc`, which has been initialized: one box when a start
// value exists, else the boxes that leave out the element copied first. Returns the flags
// raised while producing a source's values (gathered where errstate looks at flags).
unsigned fold_boxes(target_id t, const reduce_plan& p, const fold_operand& a, const array& where, const array& acc,
                    bool keepdims, fp_scope& fp) {
  const dim_vector acc_strides = spread_strides(p, acc, keepdims);
  dim_vector where_strides;
  if (where.valid()) where_strides = broadcast_strides(where.shape(), where.strides(), a.shape);
  fold_loop fl;
  fl.elementwise = p.loop.host;
  fl.data = p.loop.host_data;
  fl.type = p.type;
  fl.input = p.loop.types.input(1);
  // A T(T, U) loop (ldexp) folds element by element, in order.
  const bool uniform = fl.input == fl.type;
  fl.reduce = uniform ? p.loop.reduce : nullptr;
  fl.reorderable = uniform && p.loop.reorderable;
  if (uniform && !fl.reorderable) {
    fl.scalar = p.loop.host_scalar;
    fl.scalar_data = p.loop.host_scalar_data;
  }
  unsigned produced = 0;
  // A box starting `offset` bytes into a.
  auto run_box = [&](const dim_vector& shape, std::int64_t offset, const std::byte* mask) {
    fold_view v;
    v.shape = shape;
    v.acc = acc.data();
    v.acc_strides = acc_strides;
    v.x_strides = a.strides;
    v.x_type = a.type;
    if (a.source)
      v.x_offset = offset;
    else
      v.x = a.data + offset;
    v.source = a.source;
    v.mask = mask;
    v.mask_strides = where_strides;
    v.fold_along_reduced = p.fold_along_reduced;
    fold_task task(v, fl);
    task.set_gather_fp(fp.active());
    execute_units(t, task);
    fp.collect(task.fp_flags());
    produced |= task.produced_fp_flags();
  };
  if (p.has_start) {
    run_box(a.shape, 0, where.valid() ? where.data() : nullptr);
  } else {
    // Without a start value the first element along the reduced axes was copied in;
    // the rest is a union of boxes: [1:] along the first reduced axis; 0 along it and
    // [1:] along the second; and so on. They run last box first, which walks a
    // C-ordered array in memory order as NumPy does: the order decides which NaN a
    // complex maximum returns (the first).
    dim_vector shape = a.shape;
    std::vector<std::pair<dim_vector, std::size_t>> boxes;  // shape, the axis it starts at 1 along
    for (std::size_t d = 0; d < p.reduced.size(); ++d) {
      if (!p.reduced[d]) continue;
      if (shape[d] > 1) {
        boxes.emplace_back(shape, d);
        boxes.back().first[d] -= 1;
      }
      shape[d] = 1;
    }
    for (auto b = boxes.rbegin(); b != boxes.rend(); ++b) run_box(b->first, a.strides[b->second], nullptr);
  }
  return produced;
}

// The byte strides of the first element along every reduced axis, over the result's shape.
dim_vector first_element_strides(const reduce_plan& p, const dim_vector& a_strides, bool keepdims) {
  dim_vector first_strides;
  for (std::size_t d = 0; d < p.reduced.size(); ++d) {
    if (!p.reduced[d])
      first_strides.push_back(a_strides[d]);
    else if (keepdims)
      first_strides.push_back(0);
  }
  return first_strides;
}

// Writes the source's values at `strides` (bytes, over `shape`) from its origin into
// `to`, C-contiguous: one produce() per innermost run.
void produce_view(const value_source& src, const dim_vector& shape, const dim_vector& strides, std::byte* to) {
  const std::int64_t item = static_cast<std::int64_t>(src.type().itemsize());
  std::int64_t count = 1;
  for (const auto e : shape) count *= e;
  if (count == 0) return;
  const std::size_t nd = shape.size();
  const std::int64_t inner = nd == 0 ? 1 : shape[nd - 1];
  const std::int64_t inner_step = nd == 0 ? 0 : strides[nd - 1] / item;
  dim_vector idx(nd, 0);
  for (std::int64_t done = 0; done < count; done += inner) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d + 1 < nd; ++d) offset += idx[d] * strides[d];
    src.produce(offset / item, inner_step, inner, to + done * item, item);
    // The odometer over every axis but the innermost (none for a 0-d or 1-d view).
    for (std::size_t d = nd == 0 ? 0 : nd - 1; d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

void run_reduce_folds(const function& /*f: the plan has its loop*/, target_id t, const reduce_plan& p, const array& a,
                      const array& where, const array& acc, bool keepdims, fp_scope* method_fp) {
  fp_scope own;
  fp_scope& fp = method_fp != nullptr ? *method_fp : own;
  (void)fold_boxes(t, p, {a.shape(), a.strides(), a.type(), a.data()}, where, acc, keepdims, fp);
  if (method_fp == nullptr) fp.finish("reduce");  // NumPy: "overflow encountered in reduce"
}

array reduce_produced(const function& f, const value_source& src, const reduce_options& o, target_id t) {
  require_reduce_like(f, "reduce");
  if (o.where.valid()) throw value_error(method_label(f, "reduce") + ": where= does not apply to computed values");
  const reduce_plan p = plan_reduce_of(f, src.shape(), src.type(), o);
  const array* out = o.out ? &*o.out : nullptr;
  if (out != nullptr && !out->device().is_host())
    throw target_error(method_label(f, "reduce") + ": out= is on a device; the values are computed on the host");
  const bool direct = out != nullptr && out->type() == p.type && !src.may_share_memory(*out) && !has_zero_stride(*out);
  const dim_vector result_strides =
      reduce_result_strides(src.shape(), src.strides(), array(), p.reduced, o.keepdims, p.type.itemsize());
  const array acc = direct ? *out : empty_strided(p.shape, result_strides, p.type);
  if (acc.size() == 0) return out != nullptr ? *out : acc;
  unsigned produced = 0;
  if (p.has_start) {
    copy_cast(array(const_cast<std::byte*>(p.start), p.type, {}), acc);
  } else {
    // The first element along every reduced axis, computed into a temporary of the
    // result's size (the flags it raises are the source's).
    const array first = array::empty(p.shape, src.type());
    const bool separate = fp_checks_enabled();
    if (separate) fp_clear();
    produce_view(src, p.shape, first_element_strides(p, src.strides(), o.keepdims), first.data());
    if (separate) {
      produced |= fp_read();
      fp_clear();
    }
    copy_cast(first, acc);
  }
  if (out != nullptr && !direct && out->type() != p.type) {
    copy_cast(acc, *out);
    copy_cast(*out, acc);
  }
  {
    fp_scope fp;
    produced |= fold_boxes(t, p, {src.shape(), src.strides(), src.type(), nullptr, &src}, array(), acc, o.keepdims, fp);
    // The chain reports its calls' flags before its reduction's.
    if (produced != 0 && fp.active()) fp_report(src.name(), produced);
    fp.finish("reduce");
  }
  if (out == nullptr) return acc;
  if (!direct) copy_cast(acc, *out);
  return *out;
}

}  // namespace detail

array function::reduce(const array& a, const reduce_options& o) const {
  const auto place = detail::place_method(*this, "reduce", o.target, {&a, o.out ? &*o.out : nullptr, &o.where});
  const detail::reduce_plan p = detail::plan_reduce(*this, a, o);
  if (place.on_device) return detail::reduce_on_device(*this, a, o, p);

  const array* out = o.out ? &*o.out : nullptr;
  // Accumulate in `out` directly when it has the loop's dtype and shares nothing
  // with the inputs; otherwise in a temporary, cast into `out` at the end.
  const bool direct = out != nullptr && out->type() == p.type && !detail::may_share_memory(*out, a) &&
                      !(o.where.valid() && detail::may_share_memory(*out, o.where)) && !detail::has_zero_stride(*out);
  // NumPy lays the result out in the input's order (its iterator's order='K').
  const dim_vector result_strides = detail::reduce_result_strides(a, o.where, p.reduced, o.keepdims, p.type.itemsize());
  const array acc = direct ? *out : detail::empty_strided(p.shape, result_strides, p.type);
  if (acc.size() > 0) {
    if (p.has_start) {
      detail::copy_cast(array(const_cast<std::byte*>(p.start), p.type, {}), acc);
    } else {
      // The first element along every reduced axis.
      detail::copy_cast(
          detail::restride(a, p.shape, detail::first_element_strides(p, a.strides(), o.keepdims), a.data()), acc);
    }
    // NumPy writes the start values into `out` itself and buffers it back in the
    // loop's dtype: a start value that out's dtype cannot hold is rounded there.
    if (out != nullptr && !direct && out->type() != p.type) {
      detail::copy_cast(acc, *out);
      detail::copy_cast(*out, acc);
    }
    detail::run_reduce_folds(*this, place.target, p, a, o.where, acc, o.keepdims);
  }
  if (out == nullptr) return acc;
  if (!direct) detail::copy_cast(acc, *out);
  return *out;
}

}  // namespace ufunc
