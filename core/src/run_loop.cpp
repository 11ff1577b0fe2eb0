// The call machinery behind every elementwise ufunc call (function::call and the
// typed path of vectorize): validating a resolved call's casts, shapes, outputs and
// overlap, allocating its outputs, and running its loop, through one inner-loop call
// where the operands allow (try_contiguous_call) or an iteration plan on the target.
#include <ufunc/core/detail/run_loop.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/dense_loop.hpp>
#include <ufunc/core/detail/execute.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/iteration.hpp>

#include "resolution.hpp"

namespace ufunc::detail {

namespace {

// Exactly the same elements in the same order: in-place operation is safe.
bool same_view(const array& in, std::span<const std::int64_t> in_strides, const array& out) {
  if (in.data() != out.data() || in.itemsize() != out.itemsize()) return false;
  for (std::size_t d = 0; d < out.ndim(); ++d)
    if (out.shape()[d] != 1 && in_strides[d] != out.strides()[d]) return false;
  return true;
}

}  // namespace

// out= arrays that are read-only (null ones are left to the caller's own message).
void check_outputs_writeable(std::string_view name, std::span<const array> out) {
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i].valid() && !out[i].writeable())
      throw overlap_error("ufunc '" + std::string(name) + "': out[" + std::to_string(i) + "] (" + out[i].describe() +
                          ") is read-only");
}

void validate_loop_call(const loop_call& c) {
  const auto& types = c.types;
  const auto& options = c.options;
  // Messages are built only when something is wrong: this runs on every call.
  auto ufunc_name = [&] { return "ufunc '" + std::string(c.name) + "'"; };
  // NumPy checks that outputs are writeable before any cast.
  for (int i = 0; i < static_cast<int>(options.out.size()); ++i)
    if (!options.out[i].valid()) throw value_error(ufunc_name() + ": out[" + std::to_string(i) + "] is a null array");
  check_outputs_writeable(c.name, options.out);
  // Scalars are weak (NEP 50) where there is something to be weak against: the sole
  // input of a unary ufunc is converted to its default dtype first and then cast like
  // an array (np.sqrt(127, casting='no') refuses int64 -> float64; np.trunc(2**32,
  // signature='i->i') wraps), as NumPy does.
  const bool weak_scalars = types.nin() > 1;
  // signature= fixes every input: NumPy then converts each Python scalar to its slot's
  // dtype, bypassing the logical ufuncs' truth test and the comparisons' exact Python
  // int loops (np.not_equal(3, 256, signature='BB->?') is an OverflowError).
  const bool signature_fixed = !options.signature.empty();
  auto is_weak_integer = [&](int i) {
    return c.inputs[i].is_scalar() && c.inputs[i].as_scalar().value_kind() == weak_scalar::kind::integer;
  };
  // NumPy 2 compares a Python int with an integer array through loops of its own that
  // take any value and cast nothing, under every casting rule
  // (np.less_equal(uint16_array, -1, casting='equiv') is all false).
  bool exact_int_comparison = false;
  if (c.exact_weak_integers && !signature_fixed && weak_scalars)
    for (int i = 0; i < types.nin(); ++i) exact_int_comparison |= is_weak_integer(i) && types.input(i).is_integer();
  auto exempt_scalar = [&](int i) {
    return !signature_fixed && ((c.truth_inputs && types.input(i) == bool_) ||
                                (c.exact_weak_integers && is_weak_integer(i) && types.input(i).is_integer()));
  };
  auto exempt_array = [&](int i) {
    return (c.truth_inputs && types.input(i) == bool_) ||
           (exact_int_comparison && c.input_types[i].is_integer() && types.input(i).is_integer());
  };
  // NumPy converts Python integers to the loop's integer dtype before it checks any
  // cast: np.bitwise_xor(256, bools, dtype='uint8') is an OverflowError, whatever the rule.
  for (int i = 0; i < types.nin() && weak_scalars; ++i) {
    if (!c.inputs[i].is_scalar() || exempt_scalar(i)) continue;
    const auto& w = c.inputs[i].as_scalar();
    if (w.value_kind() == weak_scalar::kind::integer)
      check_python_int(std::string(c.name), i, w, types.input(i), options.casting, types.input(i));
  }
  for (int i = 0; i < types.nin(); ++i) {
    // Weak scalars convert as NumPy's Python scalars do. Under 'equiv', only into their
    // default dtype (int64, float64, complex128, bool); under 'no', into any dtype of
    // their kind or a higher one, bool only into bool (NumPy 2's rules, measured).
    // Otherwise a scalar of a higher kind than the loop's input (6.87 into an int8
    // loop, forced by dtype= or signature=) is cast from its default dtype. A bool
    // slot fixed by signature= takes any scalar's truth value but under 'equiv'
    // (np.add(2.5, bools, signature='??->?') is bool).
    if (c.inputs[i].is_scalar() && !exempt_scalar(i)) {
      const auto& w = c.inputs[i].as_scalar();
      const dtype t = types.input(i);
      const bool is_bool = w.value_kind() == weak_scalar::kind::boolean;
      bool refused = false;
      if (!weak_scalars)
        refused = !can_cast(w.default_dtype(), t, options.casting);
      else if (options.casting == casting::equiv)
        refused = t != w.default_dtype();
      else if (signature_fixed && t == bool_)
        refused = false;
      else if (options.casting == casting::no)
        refused = kind_rank(w.value_kind()) > kind_rank(t.kind()) || is_bool != (t == bool_);
      else
        refused = kind_rank(w.value_kind()) > kind_rank(t.kind()) && !can_cast(w.default_dtype(), t, options.casting);
      if (refused)
        throw casting_error("Cannot cast " + ufunc_name() + " input " + std::to_string(i) + " from Python " +
                            std::string(w.default_dtype().name()) + " scalar to " + std::string(types.input(i).name()) +
                            " with casting rule '" + std::string(to_string(options.casting)) + "'");
    }
    // A dtype casts to itself under every rule: the common case skips can_cast.
    if (!c.inputs[i].is_scalar() && c.input_types[i] != types.input(i) && !exempt_array(i) &&
        !can_cast(c.input_types[i], types.input(i), options.casting))
      throw casting_error("Cannot cast " + ufunc_name() + " input " + std::to_string(i) + " from " +
                          std::string(c.input_types[i].name()) + " to " + std::string(types.input(i).name()) +
                          " with casting rule '" + std::string(to_string(options.casting)) + "'");
  }
  for (int i = 0; i < static_cast<int>(options.out.size()); ++i) {  // valid and writeable: checked first
    const auto& o = options.out[i];
    if (types.output(i) != o.type() && !can_cast(types.output(i), o.type(), options.casting))
      throw casting_error("Cannot cast " + ufunc_name() + " output " + std::to_string(i) + " from " +
                          std::string(types.output(i).name()) + " to " + std::string(o.type().name()) +
                          " with casting rule '" + std::string(to_string(options.casting)) + "'");
  }
  if (options.where.valid() && options.where.type() != bool_)
    throw dtype_error(ufunc_name() + ": where= must be a bool array, not " + options.where.describe());
}

dim_vector broadcast_call_shape(const loop_call& c) {
  // Outputs take part so that inputs broadcast up to a given out, but an out must
  // already have the full shape.
  const auto& options = c.options;
  dim_vector shapes[max_operands + 1];
  int nshapes = 0;
  for (const auto& in : c.inputs)
    if (!in.is_scalar()) shapes[nshapes++] = in.as_array().shape();
  if (options.where.valid()) shapes[nshapes++] = options.where.shape();
  for (const auto& o : options.out) shapes[nshapes++] = o.shape();
  dim_vector shape = broadcast_shapes({shapes, static_cast<std::size_t>(nshapes)});
  for (std::size_t i = 0; i < options.out.size(); ++i)
    if (!(options.out[i].shape() == shape))
      throw broadcast_error("ufunc '" + std::string(c.name) + "': non-broadcastable output operand with shape " +
                            array::shape_string(options.out[i].shape()) + " doesn't match the broadcast shape " +
                            array::shape_string(shape));
  return shape;
}

void check_out_overlap(const loop_call& c, std::span<const dim_vector> in_strides) {
  // An output may be an input exactly (in-place operation), nothing else.
  auto ufunc_name = [&] { return "ufunc '" + std::string(c.name) + "'"; };
  const auto& outs = c.options.out;
  for (std::size_t o = 0; o < outs.size(); ++o) {
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      if (c.inputs[i].is_scalar()) continue;
      const auto& a = c.inputs[i].as_array();
      if (may_share_memory(a, outs[o]) && !same_view(a, in_strides[i], outs[o]))
        throw overlap_error(ufunc_name() + ": out[" + std::to_string(o) + "] partially overlaps input " +
                            std::to_string(i) + "; pass a copy of the input or a separate output");
    }
    for (std::size_t p = 0; p < o; ++p)
      if (may_share_memory(outs[p], outs[o]))
        throw overlap_error(ufunc_name() + ": out[" + std::to_string(p) + "] and out[" + std::to_string(o) +
                            "] overlap");
    if (c.options.where.valid() && may_share_memory(c.options.where, outs[o]))
      throw overlap_error(ufunc_name() + ": out[" + std::to_string(o) + "] overlaps the where mask");
  }
}

dim_vector output_axes(const loop_call& c, std::span<const std::int64_t> shape) {
  if (shape.size() <= 1) return c_order_axes(shape.size());
  const auto& types = c.types;
  const auto& options = c.options;
  layout_operand ops[max_operands + 1];
  std::size_t n = 0;
  for (int i = 0; i < types.nin(); ++i) {
    if (c.inputs[i].is_scalar()) continue;  // NumPy's 0-d arrays: no stride to compare
    const array& a = c.inputs[i].as_array();
    ops[n++] = {a.shape(), a.strides(), a.itemsize(), a.type() != types.input(i)};
  }
  for (std::size_t o = 0; o < options.out.size(); ++o) {
    const array& a = options.out[o];
    ops[n++] = {a.shape(), a.strides(), a.itemsize(), a.type() != types.output(static_cast<int>(o)), true};
  }
  if (options.where.valid())
    ops[n++] = {options.where.shape(), options.where.strides(), options.where.itemsize(), false};
  return call_output_axes(shape, options.order, {ops, n}, types.nout(), options.where.valid());
}

namespace {

// may_share_memory for two dense host arrays: each spans its nbytes from data()
// (extents of 1 may have any stride, and add nothing).
bool contiguous_overlap(const array& a, const array& b) noexcept {
  if (a.size() == 0 || b.size() == 0) return false;
  return a.data() < b.data() + b.nbytes() && b.data() < a.data() + a.nbytes();
}

// The common call: host data, no mask, no casts, every array operand C-ordered (or
// every one F-ordered) with the result's shape (scalars aside), run on this thread.
// One inner-loop call, none of the broadcasting and planning machinery. Returns false
// if it does not apply.
bool try_contiguous_call(const loop_call& c, result_list& outs) {
  const auto& types = c.types;
  const auto& options = c.options;
  const int nin = types.nin(), nout = types.nout();
  if (options.where.valid()) return false;
  const array* first = nullptr;
  bool all_c = true, all_f = true;
  for (int i = 0; i < nin; ++i) {
    if (c.inputs[i].is_scalar()) {
      if (c.input_types[i] != types.input(i)) return false;  // converted, then cast: the general path
      continue;
    }
    const auto& a = c.inputs[i].as_array();
    if (a.type() != types.input(i) || !a.device().is_host()) return false;
    all_c = all_c && a.is_c_contiguous();
    all_f = all_f && a.is_f_contiguous();
    if (!all_c && !all_f) return false;
    if (first == nullptr)
      first = &a;
    else if (!(a.shape() == first->shape()))
      return false;
  }
  if (first == nullptr) return false;  // only scalars: the general path handles 0-d results
  // The outputs are laid out as NumPy's single-loop path does (layout.hpp): C for
  // C-contiguous inputs, else F, unless order= forces one. Several outputs take NumPy's
  // iterator instead, whose order='K' differs from F along axes of length 1.
  bool f_order = false;
  switch (options.order) {
    case order::C:
      if (!all_c) return false;
      break;
    case order::F:
      if (!all_f) return false;
      f_order = true;
      break;
    case order::K:
    case order::A:
      f_order = !all_c;
      if (f_order && nout != 1) return false;
      break;
  }
  for (int o = 0; o < static_cast<int>(options.out.size()); ++o) {
    const auto& out = options.out[o];
    if (out.type() != types.output(o) || !out.device().is_host() ||
        !(f_order ? out.is_f_contiguous() : out.is_c_contiguous()) || !(out.shape() == first->shape()))
      return false;
    // Same shape and both dense in one order: any overlap other than the same start is partial.
    for (int i = 0; i < nin; ++i)
      if (!c.inputs[i].is_scalar() && c.inputs[i].as_array().data() != out.data() &&
          contiguous_overlap(c.inputs[i].as_array(), out))
        return false;  // let the general path raise the overlap error
    for (int p = 0; p < o; ++p)
      if (contiguous_overlap(options.out[p], out)) return false;
  }
  const std::int64_t n = first->size();
  if (!runs_inline(c.target, n)) return false;

  alignas(16) std::byte scalar_storage[max_operands][16];
  char* args[max_operands];
  std::int64_t steps[max_operands];
  bool stored = false;
  for (int i = 0; i < nin; ++i) {
    if (c.inputs[i].is_scalar()) {
      c.inputs[i].as_scalar().store(types.input(i), scalar_storage[i]);
      stored = true;
      args[i] = reinterpret_cast<char*>(scalar_storage[i]);
      steps[i] = 0;
    } else {
      args[i] = reinterpret_cast<char*>(c.inputs[i].as_array().data());
      steps[i] = static_cast<std::int64_t>(types.input(i).itemsize());
    }
  }
  if (stored && fp_checks_enabled()) fp_clear();  // not the loop's flags: see report_scalar_overflow
  for (int o = 0; o < nout; ++o) {
    if (options.out.empty())
      outs.push_back(array::empty(first->shape(), types.output(o), f_order ? order::F : order::C));
    else
      outs.push_back(options.out[o]);
    args[nin + o] = reinterpret_cast<char*>(outs[o].data());
    steps[nin + o] = static_cast<std::int64_t>(types.output(o).itemsize());
  }
  run_dense(c.fn, c.data, args, n, steps, nin, nout);
  return true;
}

void report_scalar_overflow(const loop_call& c) {
  for (int i = 0; i < c.types.nin(); ++i)
    if (c.inputs[i].is_scalar()) report_scalar_cast(c.inputs[i].as_scalar(), c.input_types[i]);
}

}  // namespace

// NumPy converts each Python scalar into the loop's dtype before the loop runs and
// checks that conversion for overflow only, reported on its own under "cast":
// np.add(float32_array, 1e300) warns "overflow encountered in cast" (even for an
// empty array), np.add(float32_array, 1e-300) raises nothing. So the flags of the
// library's stores are dropped, and this reports the overflow (once per scalar, as NumPy).
void report_scalar_cast(const weak_scalar& w, dtype t) {
  if (fp_checks_enabled() && w.overflows(t)) fp_report("cast", static_cast<unsigned>(fp_flag::overflow));
}

result_list run_loop(const loop_call& c) {
  validate_loop_call(c);
  report_scalar_overflow(c);
  // A device backend takes the calls on its target, and, under automatic or a default
  // target nobody named, the calls on its devices' data.
  if (const backend* b = find_backend(c.target); b != nullptr && b->execute_device != nullptr)
    return run_loop_on_device(c, *b);
  if (c.target == target_id::automatic || !c.target_named) {
    if (const backend* d = device_backend(); d != nullptr && d->execute_device != nullptr) {
      bool on_device = c.options.where.valid() && !c.options.where.device().is_host();
      for (const auto& in : c.inputs) on_device |= !in.is_scalar() && !in.as_array().device().is_host();
      for (const auto& o : c.options.out) on_device |= !o.device().is_host();
      if (on_device) return run_loop_on_device(c, *d);
    }
  }
  // errstate: the flags are cleared here and checked once the loops finished (on
  // every thread that ran a piece: the task gathers them); the policies apply once.
  fp_scope fp;
  result_list outs;
  if (try_contiguous_call(c, outs)) {
    fp.finish(c.name);
    return outs;
  }

  const auto& types = c.types;
  const auto& options = c.options;
  const auto& inputs = c.inputs;
  const int nin = types.nin(), nout = types.nout(), nargs = nin + nout;
  const bool has_where = options.where.valid();

  auto check_host = [&](const array& a, auto label) {
    if (!a.device().is_host())
      throw target_error("ufunc '" + std::string(c.name) + "': " + label() + " is on " + a.device().str() +
                         ", but target '" + std::string(to_string(c.target)) +
                         "' runs on the host; use target cuda or to_host()");
  };
  for (int i = 0; i < nin; ++i)
    if (!inputs[i].is_scalar()) check_host(inputs[i].as_array(), [i] { return "input " + std::to_string(i); });
  for (std::size_t i = 0; i < options.out.size(); ++i)
    check_host(options.out[i], [i] { return "out[" + std::to_string(i) + "]"; });
  if (has_where) check_host(options.where, [] { return std::string("where"); });

  const dim_vector shape = broadcast_call_shape(c);
  dim_vector in_strides[max_operands];
  for (int i = 0; i < nin; ++i)
    if (!inputs[i].is_scalar()) {
      const auto& a = inputs[i].as_array();
      in_strides[i] = broadcast_strides(a.shape(), a.strides(), shape);
    }
  check_out_overlap(c, {in_strides, static_cast<std::size_t>(nin)});

  if (!options.out.empty()) {
    for (int i = 0; i < nout; ++i) outs.push_back(options.out[i]);
  } else {
    const dim_vector axes = output_axes(c, shape);
    for (int i = 0; i < nout; ++i) {
      const dtype t = types.output(i);
      outs.push_back(empty_strided(shape, dense_strides(shape, axes, t.itemsize()), t));
      // Dense: its bytes are the nbytes from data().
      if (has_where) std::memset(outs.back().data(), 0, static_cast<std::size_t>(outs.back().nbytes()));
    }
  }
  if (shape_size(shape) == 0) return outs;

  // Scalars become 0-d operands in the loop's dtype, stored on the stack.
  alignas(16) std::byte scalar_storage[max_operands][16];
  dim_vector zero_strides(shape.size(), 0);
  dtype operand_types[max_operands + 1];
  plan_operand ops[max_operands + 1];
  for (int i = 0; i < nin; ++i) {
    if (inputs[i].is_scalar()) {
      const dtype t = c.input_types[i];
      inputs[i].as_scalar().store(t, scalar_storage[i]);
      operand_types[i] = t;
      ops[i] = {scalar_storage[i], zero_strides};
    } else {
      operand_types[i] = inputs[i].as_array().type();
      ops[i] = {inputs[i].as_array().data(), in_strides[i]};
    }
  }
  for (int o = 0; o < nout; ++o) {
    operand_types[nin + o] = outs[o].type();
    ops[nin + o] = {outs[o].data(), outs[o].strides()};
  }
  dim_vector where_strides;
  if (has_where) {
    where_strides = broadcast_strides(options.where.shape(), options.where.strides(), shape);
    ops[nargs] = {options.where.data(), where_strides};
  }

  const iteration_plan plan(shape, {ops, static_cast<std::size_t>(nargs + (has_where ? 1 : 0))});
  elementwise_task task(plan, nin, nout, has_where, c.fn, c.data, {operand_types, static_cast<std::size_t>(nargs)},
                        types);
  task.gather_fp_flags(fp.active());
  if (fp.active()) fp_clear();  // what storing the scalars raised: see report_scalar_overflow
  execute(c.target, task);
  fp.finish(c.name, task.fp_flags());
  return outs;
}
}  // namespace ufunc::detail
