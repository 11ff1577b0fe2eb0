// run_loop on a device backend: placement rules, the device operands and outputs
// (casts into the loop's dtypes, temporaries for outputs of another dtype, masks),
// host-in/host-out calls, and the backend's execute_device. The backend only enqueues
// the planned task; everything here is the same for any device backend.
#include <algorithm>
#include <span>
#include <string>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/dense_transfer.hpp>
#include <ufunc/core/detail/device_plan.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/run_loop.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/iteration.hpp>
#include <ufunc/core/transfer.hpp>

namespace ufunc::detail {

namespace {

// A new device array of `shape` laid out densely in `axes` (fastest first).
array device_empty(const dim_vector& shape, std::span<const std::int64_t> axes, dtype t, int device, stream_ref s) {
  return empty_strided(shape, dense_strides(shape, axes, t.itemsize()), t, ufunc::device::cuda(device), s);
}

// A device array for `a` converted to `t`, in a's own order (as astype), so that the loop
// then reads it as it would read a.
array cast_target(const array& a, dtype t, stream_ref s) {
  return empty_strided(a.shape(), like_strides(a, order::K, t.itemsize()), t, a.device(), s);
}

// The common device call: every operand an array on one device, of the loop's dtype,
// all C-ordered (or all F-ordered) and of one shape, no mask. Skips broadcasting and
// planning. The result is laid out as on the host (try_contiguous_call in run_loop.cpp):
// C for C-contiguous inputs, else F, unless order= forces one.
bool try_contiguous_device_call(const loop_call& c, const backend& b, const device_code& code, stream_ref s,
                                result_list& results) {
  const auto& types = c.types;
  const auto& options = c.options;
  const int nin = types.nin(), nout = types.nout();
  if (options.where.valid() || nout != 1) return false;
  const array* first = nullptr;
  bool all_c = true, all_f = true;
  for (int i = 0; i < nin; ++i) {
    if (c.inputs[i].is_scalar()) return false;
    const auto& a = c.inputs[i].as_array();
    if (a.device().is_host() || a.type() != types.input(i)) return false;
    all_c = all_c && a.is_c_contiguous();
    all_f = all_f && a.is_f_contiguous();
    if (!all_c && !all_f) return false;
    if (first == nullptr)
      first = &a;
    else if (a.device() != first->device() || !(a.shape() == first->shape()))
      return false;
  }
  const bool f_order = options.order == order::F || (options.order != order::C && !all_c);
  if (f_order ? !all_f : !all_c) return false;
  array out;
  if (!options.out.empty()) {
    out = options.out[0];
    if (out.device() != first->device() || out.type() != types.output(0) ||
        !(f_order ? out.is_f_contiguous() : out.is_c_contiguous()) || !(out.shape() == first->shape()))
      return false;
    for (int i = 0; i < nin; ++i)
      if (c.inputs[i].as_array().data() != out.data() && may_share_memory(c.inputs[i].as_array(), out)) return false;
  } else {
    dim_vector axes = c_order_axes(first->ndim());
    if (f_order) std::reverse(axes.begin(), axes.end());
    out = device_empty(first->shape(), axes, types.output(0), first->device().index, s);
  }
  device_call call;
  call.nin = nin;
  call.nout = 1;
  call.ndim = 1;
  call.size = first->size();
  call.device = first->device().index;
  call.stream = s.handle;
  call.shape[0] = call.size;
  for (int i = 0; i < nin; ++i) {
    call.base[i] = c.inputs[i].as_array().data();
    call.strides[i][0] = static_cast<std::int64_t>(types.input(i).itemsize());
  }
  call.base[nin] = out.data();
  call.strides[nin][0] = static_cast<std::int64_t>(types.output(0).itemsize());
  if (call.size > 0) b.execute_device({c.name, types, code, call.device, s, {}, &call, {}});
  results.push_back(std::move(out));
  return true;
}

}  // namespace

// Placement rule: if every array operand is on the host, the call is host-in /
// host-out (inputs are copied to the device, results copied back, and the call
// waits). Otherwise every array operand must be on the same device: mixing host and
// device arrays is an error, so no transfer ever happens unasked.
result_list run_loop_on_device(const loop_call& c, const backend& b) {
  const auto& types = c.types;
  const auto& options = c.options;
  const device_memory& memory = *b.memory;
  const int nin = types.nin(), nout = types.nout(), nargs = nin + nout;
  const bool has_where = options.where.valid();

  // Messages are built only on the error paths: this runs on every call.
  const array* first_on_device = nullptr;
  bool any_host = false;
  auto operand_name = [&](int k) {
    if (k < nin) return "input " + std::to_string(k);
    if (k < nargs) return "out[" + std::to_string(k - nin) + "]";
    return std::string("where");
  };
  auto place = [&](const array& a, int k) {
    if (a.device().is_host()) {
      any_host = true;
    } else if (first_on_device == nullptr) {
      first_on_device = &a;
    } else if (first_on_device->device() != a.device()) {
      throw target_error("ufunc '" + std::string(c.name) + "': " + operand_name(k) + " is on " + a.device().str() +
                         " but another operand is on " + first_on_device->device().str());
    }
  };
  for (int i = 0; i < nin; ++i)
    if (!c.inputs[i].is_scalar()) place(c.inputs[i].as_array(), i);
  for (std::size_t i = 0; i < options.out.size(); ++i) place(options.out[i], nin + static_cast<int>(i));
  if (has_where) place(options.where, nargs);
  if (first_on_device != nullptr && any_host)
    throw target_error("ufunc '" + std::string(c.name) +
                       "': mixed host and device operands; move them with ufunc::to_device() or "
                       "ufunc::to_host() first (calls never copy device data implicitly)");
  const bool host_in_host_out = first_on_device == nullptr;
  const int device = first_on_device != nullptr ? first_on_device->device().index : 0;
  memory.require_device(device);
  const device_code* code = c.devices.find(b.id);
  if (code == nullptr || code->elementwise == nullptr)
    throw target_error("ufunc '" + std::string(c.name) + "': loop " + types.str() + " has no code for target '" +
                       std::string(to_string(b.id)) +
                       "' (for cuda: make the ufunc with vectorize<Sig, target::cuda> in a .cu file)");
  const stream_ref s{options.stream.handle ? options.stream.handle : memory.current_stream().handle};
  if (!host_in_host_out) {
    result_list fast;
    if (try_contiguous_device_call(c, b, *code, s, fast)) return fast;
  }

  const dim_vector shape = broadcast_call_shape(c);
  const bool empty = shape_size(shape) == 0;
  // From the operands as the caller gave them (host ones included), as on the host.
  const dim_vector axes = output_axes(c, shape);
  {
    dim_vector in_strides[max_operands];
    for (int i = 0; i < nin; ++i)
      if (!c.inputs[i].is_scalar()) {
        const auto& a = c.inputs[i].as_array();
        in_strides[i] = broadcast_strides(a.shape(), a.strides(), shape);
      }
    check_out_overlap(c, {in_strides, static_cast<std::size_t>(nin)});
  }

  // Device operands in the loop's dtypes. Scalars go to the device as 0-d arrays;
  // arrays of another dtype through a cast into a temporary (casts_in).
  array dev[max_operands + 1];
  array given_in[max_operands];
  device_cast_step casts_in[max_operands];
  int ncasts_in = 0;
  for (int i = 0; i < nin; ++i) {
    if (c.inputs[i].is_scalar()) {
      alignas(16) std::byte value[16];
      c.inputs[i].as_scalar().store(types.input(i), value);
      dev[i] = to_device(array(value, types.input(i), {}), device, s);
      continue;
    }
    given_in[i] = c.inputs[i].as_array();
    if (host_in_host_out) given_in[i] = to_device_as_is(given_in[i], device, s);
    if (given_in[i].type() == types.input(i)) {
      dev[i] = given_in[i];
    } else {
      dev[i] = cast_target(given_in[i], types.input(i), s);
      casts_in[ncasts_in++] = {&given_in[i], &dev[i], nullptr};
    }
  }
  if (has_where) dev[nargs] = host_in_host_out ? to_device(options.where, device, s) : options.where;

  // Outputs: written in place when they are device arrays of the loop's dtype;
  // otherwise through a device temporary in the loop's dtype, converted into `out`
  // afterwards under the mask (so unselected elements keep their exact values).
  // Host outputs of a masked call travel to the device and back whole.
  array out_on_device[max_operands];
  const bool given = !options.out.empty();
  for (int o = 0; o < nout; ++o) {
    const dtype t = types.output(o);
    if (given) out_on_device[o] = host_in_host_out && has_where ? to_device(options.out[o], device, s) : options.out[o];
    if (given && (!host_in_host_out || has_where) && options.out[o].type() == t) {
      dev[nin + o] = out_on_device[o];
      continue;
    }
    dev[nin + o] = device_empty(shape, axes, t, device, s);
    if (has_where && !given)
      memory.fill_zero(dev[nin + o].data(), static_cast<std::size_t>(dev[nin + o].nbytes()), device, s);
  }

  // Results back where the caller wants them: the device casts into out first, so that
  // they report with the call (and out is written before a 'raise', as NumPy writes it),
  // then the copies to host outs, which wait for the stream.
  array to_copy[max_operands];
  device_cast_step casts_out[max_operands];
  int ncasts_out = 0;
  for (int o = 0; o < nout && given; ++o) {
    const array& computed = dev[nin + o];
    const array& target = options.out[o];
    if (computed.data() == target.data()) continue;
    if (host_in_host_out && has_where) {
      if (computed.data() != out_on_device[o].data())
        casts_out[ncasts_out++] = {&computed, &out_on_device[o], &dev[nargs]};
      to_copy[o] = out_on_device[o];
    } else if (host_in_host_out) {
      // Converted on the device, so that the cast's flags are the call's; the host copy
      // then only lays it out as the caller's out.
      to_copy[o] = computed;
      if (computed.type() != target.type()) {
        to_copy[o] = device_empty(computed.shape(), axes, target.type(), device, s);
        casts_out[ncasts_out++] = {&computed, &to_copy[o], nullptr};
      }
    } else {
      casts_out[ncasts_out++] = {&computed, &target, has_where ? &dev[nargs] : nullptr};
    }
  }

  // One task for the whole call: its input casts, its loop and its casts into out report
  // together, once, under the ufunc's name, as on the host targets. An empty call casts
  // nothing on the host either.
  if (!empty) {
    dim_vector strides[max_operands + 1];
    plan_operand ops[max_operands + 1];
    const int nops = nargs + (has_where ? 1 : 0);
    for (int k = 0; k < nops; ++k) {
      strides[k] = broadcast_strides(dev[k].shape(), dev[k].strides(), shape);
      ops[k] = {dev[k].data(), strides[k]};
    }
    const iteration_plan plan(shape, {ops, static_cast<std::size_t>(nops)});
    device_call call = device_call_of(plan, nin, nout, has_where, device, s);
    b.execute_device({c.name,
                      types,
                      *code,
                      device,
                      s,
                      {casts_in, static_cast<std::size_t>(ncasts_in)},
                      &call,
                      {casts_out, static_cast<std::size_t>(ncasts_out)}});
  }

  result_list results;
  for (int o = 0; o < nout; ++o) {
    const array& computed = dev[nin + o];
    if (given) {
      const array& target = options.out[o];
      if (to_copy[o].valid()) to_host(to_copy[o], s).copy_to(target);
      results.push_back(target);
    } else {
      results.push_back(host_in_host_out ? to_host_as_is(computed, s) : computed);
    }
  }
  return results;
}

}  // namespace ufunc::detail
