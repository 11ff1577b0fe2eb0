// The gufunc call: NumPy's PyUFunc_GeneralizedFunctionInternal in the library's terms. The
// loop dimensions run as an elementwise task (core's plan and the host executors: cpu runs
// them in order, parallel splits them), whose "element" for each operand is the origin of
// its core sub-array; the core dimensions travel beside it (core_layout). On a device
// target the same plan, over device pointers, goes to the loop's device launcher as a
// device_call, the core dimensions by value (device_core_layout).
#include <ufunc/gufunc/gufunc.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/casting.hpp>
#include <ufunc/core/detail/device_plan.hpp>
#include <ufunc/core/detail/execute.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/iteration.hpp>
#include <ufunc/core/target.hpp>
#include <ufunc/core/transfer.hpp>

namespace ufunc::gufunc {
namespace {

struct registered_loop {
  type_signature types;
  loop_fn run;
  const void* fn;
  std::shared_ptr<const void> keepalive;
  device_loop_fn device = nullptr;
};

// The table's loops are never called elementwise: the table is the gufunc's own, for type
// resolution only.
void not_elementwise(char* const*, std::int64_t, const std::int64_t*, const void*) {}

// What the elementwise task's loop needs to call the gufunc's loop on a run of elements.
struct run_data {
  const registered_loop* loop;
  const core_layout* core;
};

void run_elements(char* const* args, std::int64_t n, const std::int64_t* steps, const void* data) {
  const auto& d = *static_cast<const run_data*>(data);
  d.loop->run(args, n, steps, *d.core, d.loop->fn);
}

// The plan over device pointers as a device_call, the core dimensions by value, launched by
// the loop's device code.
void launch_on_device(device_loop_fn device, const void* fn, const iteration_plan& plan, int nin, int nout,
                      const core_layout& core, int device_index, stream_ref stream) {
  const int nop = nin + nout;
  device_core_layout layout;
  for (int p = 0; p < nop; ++p) {
    if (core.ndim[p] > max_device_core_dims)
      throw value_error("gufunc: an operand with " + std::to_string(core.ndim[p]) + " core dimensions; at most " +
                        std::to_string(max_device_core_dims) + " run on a device");
    layout.ndim[p] = core.ndim[p];
    for (int d = 0; d < core.ndim[p]; ++d) {
      layout.extents[p][d] = core.extents[p][d];
      layout.strides[p][d] = core.strides[p][d];
    }
  }
  const device_call call = detail::device_call_of(plan, nin, nout, false, device_index, stream);
  device(call, layout, fn);
}

// Splitting an output's core over the loop (function::set_independent_output_elements) pays
// where the loop alone cannot occupy a GPU (65536 threads) and every loop element's output
// core is large enough that its own loop is not worth more (the host's unrolled 3x3 products,
// the GPU's staged cores of small matrices), or where the loop is shorter still. The loop
// stays within the 8 dimensions a device kernel takes.
bool splits_output_core(std::int64_t loop_size, std::size_t loop_ndim, std::int64_t core_size, std::size_t core_ndim) {
  constexpr std::int64_t short_loop = 65536, large_core = 64, very_short_loop = 256;
  constexpr std::size_t most_loop_dims = 8;
  return core_size >= 2 && loop_ndim + core_ndim <= most_loop_dims && loop_size < short_loop &&
         (core_size >= large_core || loop_size < very_short_loop);
}

// Runs output `out`'s core dimensions as the innermost loop dimensions: each operand steps along
// them by its core strides of the same names (their sum where a name repeats: a diagonal) and
// sees those core dimensions with extent 1. An operand without a name stays put along it.
void loop_over_output_core(const signature& sig, int out, dim_vector& loop_shape, std::vector<dim_vector>& loop_strides,
                           std::vector<dim_vector>& core_extents, const std::vector<dim_vector>& core_strides) {
  const auto& names = sig.operands[std::size_t(out)];
  for (std::size_t k = 0; k < names.size(); ++k) {
    loop_shape.push_back(core_extents[std::size_t(out)][k]);
    for (std::size_t p = 0; p < sig.operands.size(); ++p) {
      std::int64_t stride = 0;
      for (std::size_t d = 0; d < sig.operands[p].size(); ++d)
        if (sig.operands[p][d] == names[k]) stride += core_strides[p][d];
      loop_strides[p].push_back(stride);
    }
  }
  for (std::size_t p = 0; p < sig.operands.size(); ++p)
    for (std::size_t d = 0; d < sig.operands[p].size(); ++d)
      if (std::find(names.begin(), names.end(), sig.operands[p][d]) != names.end()) core_extents[p][d] = 1;
}
}  // namespace

struct function::state {
  std::string name, text;
  gufunc::signature sig;
  ufunc::function table;
  std::vector<std::shared_ptr<registered_loop>> loops;  // in registration order
  std::optional<target_id> default_target;
  bool independent_outputs = false;

  state(std::string n, std::string_view t)
      : name(std::move(n)), text(t), sig(parse_signature(t)), table(name, sig.nin, sig.nout) {}
};

function::function(std::string name, std::string_view signature)
    : state_(std::make_shared<state>(std::move(name), signature)) {}

const std::string& function::name() const noexcept { return state_->name; }
const gufunc::signature& function::signature() const noexcept { return state_->sig; }
const std::string& function::signature_text() const noexcept { return state_->text; }
int function::nin() const noexcept { return state_->sig.nin; }
int function::nout() const noexcept { return state_->sig.nout; }
std::vector<std::string> function::types() const { return state_->table.types(); }

void function::add_loop(const type_signature& types, loop_fn loop, const void* fn,
                        std::shared_ptr<const void> keepalive) {
  if (types.nin() != nin() || types.nout() != nout())
    throw value_error("gufunc '" + name() + "': loop " + types.str() + " does not have " + std::to_string(nin()) +
                      " inputs and " + std::to_string(nout()) + " outputs (signature " + signature_text() + ")");
  auto r = std::make_shared<registered_loop>(registered_loop{types, loop, fn, std::move(keepalive)});
  state_->loops.push_back(r);
  loop_entry e;
  e.types = types;
  e.host = &not_elementwise;
  e.host_data = r.get();
  e.keepalive = r;
  state_->table.add_loop(std::move(e));
}

void function::add_device_loop(const type_signature& types, device_loop_fn device) {
  for (auto& r : state_->loops)
    if (r->types == types) {
      r->device = device;
      return;
    }
  throw value_error("gufunc '" + name() + "': no loop " + types.str() + " to give device code to");
}

void function::set_default_target(std::optional<target_id> target) { state_->default_target = target; }
void function::set_independent_output_elements(bool independent) {
  // One output whose core names are distinct: each of its core dimensions becomes one loop dimension.
  const auto& sig = state_->sig;
  const auto& names = sig.operands[std::size_t(sig.nin)];
  const bool distinct =
      std::all_of(names.begin(), names.end(), [&](int ix) { return std::count(names.begin(), names.end(), ix) == 1; });
  state_->independent_outputs = independent && sig.nout == 1 && distinct;
}

std::vector<array> function::call_last_axes(std::span<const operand> inputs, const call_options& options) const {
  const state& st = *state_;
  const auto& sig = st.sig;
  const int nin = sig.nin, nout = sig.nout, nop = nin + nout;
  const std::string& name = st.name;
  if (static_cast<int>(inputs.size()) != nin)
    throw value_error("gufunc '" + name + "' takes " + std::to_string(nin) + " inputs, not " +
                      std::to_string(inputs.size()));
  if (!options.out.empty() && static_cast<int>(options.out.size()) != nout)
    throw value_error("gufunc '" + name + "': out= needs " + std::to_string(nout) + " arrays, not " +
                      std::to_string(options.out.size()));
  if (options.where.valid())
    throw value_error("gufunc '" + name + "': where= is not supported by generalized ufuncs (as in NumPy)");
  if (nop > max_operands) throw value_error("gufunc '" + name + "': too many operands");

  // Where it runs: a host target's executor on host data, or a device backend (a device
  // target, or data on a device under automatic or a default nobody named) on data all on
  // one device, or all on the host (copied there and back, as ufunc calls do).
  const std::optional<target_id> requested = options.target ? options.target : st.default_target;
  const target_id target = call_target(requested);
  const backend* named_backend = target == target_id::automatic ? nullptr : detail::find_backend(target);
  const array* first_on_device = nullptr;
  bool any_host = false;
  auto place = [&](const array& a, const std::string& what) {
    if (!a.valid()) throw value_error("gufunc '" + name + "': " + what + " is a null array");
    if (a.device().is_host()) {
      any_host = true;
    } else if (first_on_device == nullptr) {
      first_on_device = &a;
    } else if (a.device() != first_on_device->device()) {
      throw target_error("gufunc '" + name + "': " + what + " is on " + a.device().str() +
                         " but another operand is on " + first_on_device->device().str());
    }
  };
  for (int i = 0; i < nin; ++i)
    if (!inputs[static_cast<std::size_t>(i)].is_scalar())
      place(inputs[static_cast<std::size_t>(i)].as_array(), "input " + std::to_string(i));
  for (int o = 0; o < static_cast<int>(options.out.size()); ++o)
    place(options.out[static_cast<std::size_t>(o)], "output " + std::to_string(o));
  const backend* device_side = nullptr;
  if (named_backend != nullptr && named_backend->execute == nullptr && named_backend->memory != nullptr)
    device_side = named_backend;
  else if ((target == target_id::automatic || !requested) && first_on_device != nullptr)
    device_side = detail::device_backend();
  const backend* host = nullptr;
  if (device_side == nullptr) {
    host = target == target_id::automatic ? &detail::host_backend(target) : named_backend;
    if (host == nullptr || host->execute == nullptr)
      throw target_error("gufunc '" + name + "' cannot run on target " + std::string(to_string(target)));
    if (first_on_device != nullptr)
      throw target_error("gufunc '" + name + "': an operand is on " + first_on_device->device().str() +
                         ", but target '" + std::string(to_string(target)) +
                         "' runs on the host; use a device target or to_host()");
  } else if (first_on_device != nullptr && any_host) {
    throw target_error("gufunc '" + name +
                       "': mixed host and device operands; move them with ufunc::to_device() or ufunc::to_host() "
                       "first (calls never copy device data implicitly)");
  }
  const bool host_in_host_out = device_side != nullptr && first_on_device == nullptr;
  const stream_ref stream = device_side == nullptr  ? stream_ref{}
                            : options.stream.handle ? options.stream
                                                    : device_side->memory->current_stream();
  // A new C-ordered array on `at`: on a device, allocated in the call's stream order, so that
  // the call's kernels and copies (which may run on a stream of the caller's) use it before
  // its release, which that order also waits for.
  auto new_array = [&](const dim_vector& shape, dtype t, ufunc::device at) {
    if (at.is_host()) return array::empty(shape, t);
    auto owner =
        device_side->memory->allocate(static_cast<std::size_t>(shape_size(shape)) * t.itemsize(), at.index, stream);
    return array(owner.get(), t, shape, detail::dense_strides(shape, detail::c_order_axes(shape.size()), t.itemsize()),
                 owner, at);
  };
  // A new array of a's shape in dtype t holding a's values (a new copy also where the dtype
  // is a's): on the host, or on a's device in the call's stream.
  auto converted = [&](const array& a, dtype t) {
    if (a.device().is_host()) return a.astype(t);
    array r = new_array(a.shape(), t, a.device());
    device_side->memory->cast(a, r, stream);
    return r;
  };

  // The loop, by the ufuncs' type resolution.
  const loop_entry entry = st.table.resolve_loop(inputs, options);
  const type_signature& types = entry.types;
  const auto& loop = *static_cast<const registered_loop*>(entry.host_data);
  const std::string rule(to_string(options.casting));
  if (device_side != nullptr && loop.device == nullptr)
    throw target_error("gufunc '" + name + "': loop " + types.str() +
                       " has no device code (make the gufunc with gvectorize<Sigs, ufunc::target::cuda> in a CUDA "
                       "translation unit)");

  // Inputs in the loop's dtypes: scalars as 0-d arrays, other dtypes converted.
  std::vector<array> in(static_cast<std::size_t>(nin));
  for (int i = 0; i < nin; ++i) {
    const operand& op = inputs[static_cast<std::size_t>(i)];
    const dtype want = types.input(i);
    if (op.is_scalar()) {
      in[static_cast<std::size_t>(i)] = array::empty({}, want);
      op.as_scalar().store(want, in[static_cast<std::size_t>(i)].data());
      continue;
    }
    const array& a = op.as_array();
    if (a.type() != want && !can_cast(a.type(), want, options.casting))
      throw casting_error("Cannot cast ufunc '" + name + "' input " + std::to_string(i) + " from " +
                          std::string(a.type().name()) + " to " + std::string(want.name()) + " with casting rule '" +
                          rule + "'");
    in[static_cast<std::size_t>(i)] = a.type() == want ? a : converted(a, want);
  }
  for (int o = 0; o < static_cast<int>(options.out.size()); ++o) {
    const array& out = options.out[static_cast<std::size_t>(o)];
    if (out.type() != types.output(o) && !can_cast(types.output(o), out.type(), options.casting))
      throw casting_error("Cannot cast ufunc '" + name + "' output " + std::to_string(o) + " from " +
                          std::string(types.output(o).name()) + " to " + std::string(out.type().name()) +
                          " with casting rule '" + rule + "'");
  }
  auto operand_array = [&](int p) -> const array* {
    if (p < nin) return &in[static_cast<std::size_t>(p)];
    return options.out.empty() ? nullptr : &options.out[static_cast<std::size_t>(p - nin)];
  };
  auto label = [&](int p) {
    return std::string(p < nin ? "Input" : "Output") + " operand " + std::to_string(p < nin ? p : p - nin);
  };

  // NumPy's _validate_num_dims: an operand with too few dimensions may lack optional ones,
  // which are then missing everywhere.
  std::vector<int> core_ndim(static_cast<std::size_t>(nop));
  for (int p = 0; p < nop; ++p) core_ndim[std::size_t(p)] = static_cast<int>(sig.operands[std::size_t(p)].size());
  std::vector<bool> optional_left(sig.dims.size()), missing(sig.dims.size(), false);
  for (std::size_t d = 0; d < sig.dims.size(); ++d) optional_left[d] = sig.dims[d].optional;
  for (int p = 0; p < nop; ++p) {
    const array* a = operand_array(p);
    if (a == nullptr) continue;
    const int ndim = static_cast<int>(a->ndim());
    if (ndim >= core_ndim[std::size_t(p)]) continue;
    for (int ix : sig.operands[std::size_t(p)]) {
      if (!optional_left[std::size_t(ix)]) continue;
      missing[std::size_t(ix)] = true;
      optional_left[std::size_t(ix)] = false;
      for (int q = 0; q < nop; ++q)
        for (int jx : sig.operands[std::size_t(q)]) core_ndim[std::size_t(q)] -= jx == ix ? 1 : 0;
      if (ndim == core_ndim[std::size_t(p)]) break;
    }
    if (ndim < core_ndim[std::size_t(p)])
      throw value_error(name + ": " + label(p) + " does not have enough dimensions (has " + std::to_string(ndim) +
                        ", gufunc core with signature " + st.text + " requires " +
                        std::to_string(core_ndim[std::size_t(p)]) + ")");
  }

  // NumPy's _get_coredim_sizes: one size per named dimension, frozen sizes as written.
  std::vector<std::int64_t> size(sig.dims.size());
  for (std::size_t d = 0; d < sig.dims.size(); ++d) size[d] = sig.dims[d].size;
  for (int p = 0; p < nop; ++p) {
    const array* a = operand_array(p);
    if (a == nullptr) continue;
    const int start = static_cast<int>(a->ndim()) - core_ndim[std::size_t(p)];
    int delta = 0;
    const auto& dims = sig.operands[std::size_t(p)];
    for (int k = 0; k < static_cast<int>(dims.size()); ++k) {
      const auto ix = static_cast<std::size_t>(dims[std::size_t(k)]);
      std::int64_t extent = 1;
      if (missing[ix])
        ++delta;
      else
        extent = a->shape()[static_cast<std::size_t>(start + k - delta)];
      if (size[ix] < 0) {
        size[ix] = extent;
      } else if (extent != size[ix]) {
        throw value_error(name + ": " + label(p) + " has a mismatch in its core dimension " +
                          std::to_string(k - delta) + ", with gufunc signature " + st.text + " (size " +
                          std::to_string(extent) + " is different from " + std::to_string(size[ix]) + ")");
      }
    }
  }
  for (int p = nin; p < nop; ++p) {
    const auto& dims = sig.operands[std::size_t(p)];
    for (int k = 0; k < static_cast<int>(dims.size()); ++k)
      if (size[std::size_t(dims[std::size_t(k)])] < 0)
        throw value_error(name + ": Output operand " + std::to_string(p - nin) + " has core dimension " +
                          std::to_string(k) + " unspecified, with gufunc signature " + st.text);
  }

  // The loop dimensions: the leading axes of every operand given, broadcast together.
  std::vector<dim_vector> loop_shapes;
  for (int p = 0; p < nop; ++p)
    if (const array* a = operand_array(p))
      loop_shapes.emplace_back(
          std::span<const std::int64_t>(a->shape().data(), a->ndim() - std::size_t(core_ndim[std::size_t(p)])));
  dim_vector loop_shape;
  try {
    loop_shape = broadcast_shapes(loop_shapes);
  } catch (const broadcast_error& e) {
    throw broadcast_error(name +
                          ": the loop dimensions (the axes before each operand's core dimensions) do not "
                          "broadcast: " +
                          e.what());
  }
  for (int o = 0; o < static_cast<int>(options.out.size()); ++o) {
    const array& out = options.out[std::size_t(o)];
    const std::span<const std::int64_t> lead(out.shape().data(),
                                             out.ndim() - std::size_t(core_ndim[std::size_t(nin + o)]));
    if (!std::equal(lead.begin(), lead.end(), loop_shape.begin(), loop_shape.end()))
      throw broadcast_error(name + ": output operand " + std::to_string(o) + " has loop dimensions " +
                            array::shape_string(lead) + ", not the broadcast loop shape " +
                            array::shape_string(loop_shape));
  }

  // On a device: scalars and host inputs (converted on the host above) copied to it, once the
  // call is known to be valid (the shapes checked above are the copies' too).
  const int device_index = first_on_device != nullptr ? first_on_device->device().index : 0;
  if (device_side != nullptr)
    for (auto& a : in) a = to_device(a, device_index, stream);
  if (device_side != nullptr && in.empty() && first_on_device == nullptr)
    throw value_error("gufunc '" + name + "': a call with no inputs runs on the host only");
  const ufunc::device where = first_on_device != nullptr ? first_on_device->device()
                              : device_side != nullptr   ? in.front().device()
                                                         : ufunc::device{};

  // Outputs: the given ones (through a loop-dtype temporary where their dtype differs, or
  // where they are host arrays of a device call), or new C-ordered arrays of the loop shape
  // and their core dimensions (on the device of a device call).
  std::vector<array> results(static_cast<std::size_t>(nout)), targets(static_cast<std::size_t>(nout));
  for (int o = 0; o < nout; ++o) {
    dim_vector shape = loop_shape;
    for (int ix : sig.operands[std::size_t(nin + o)])
      if (!missing[std::size_t(ix)]) shape.push_back(size[std::size_t(ix)]);
    if (options.out.empty()) {
      results[std::size_t(o)] = targets[std::size_t(o)] = new_array(shape, types.output(o), where);
      continue;
    }
    const array& out = options.out[std::size_t(o)];
    results[std::size_t(o)] = out;
    targets[std::size_t(o)] =
        out.type() == types.output(o) && out.device() == where ? out : new_array(out.shape(), types.output(o), where);
    // An input that shares memory with an output is read from a copy (NumPy copies too).
    for (auto& a : in)
      if (detail::may_share_memory(a, targets[std::size_t(o)])) a = converted(a, a.type());
  }

  // The plan over the loop dimensions; each operand's core dimensions beside it.
  std::vector<dim_vector> loop_strides(static_cast<std::size_t>(nop));
  std::vector<dim_vector> core_extents(static_cast<std::size_t>(nop)), core_strides(static_cast<std::size_t>(nop));
  auto operand = [&](int p) -> const array& { return p < nin ? in[std::size_t(p)] : targets[std::size_t(p - nin)]; };
  for (int p = 0; p < nop; ++p) {
    const array& a = operand(p);
    const std::size_t lead = a.ndim() - std::size_t(core_ndim[std::size_t(p)]);
    loop_strides[std::size_t(p)] = broadcast_strides({a.shape().data(), lead}, {a.strides().data(), lead}, loop_shape);
    // A missing optional dimension has extent 1 and stride 0, as NumPy's loops see it: the
    // function sees every dimension of the signature.
    std::size_t axis = lead;
    for (int ix : sig.operands[std::size_t(p)]) {
      const bool absent = missing[std::size_t(ix)];
      core_extents[std::size_t(p)].push_back(absent ? 1 : a.shape()[axis]);
      core_strides[std::size_t(p)].push_back(absent ? 0 : a.strides()[axis]);
      axis += absent ? 0 : 1;
    }
  }
  // The serial cpu target gains nothing from more, smaller loop elements (it would lose the
  // loops' own blocking, the unrolled 3x3 products); devices and the other host targets spread them.
  const bool spreads = device_side != nullptr || host->id != target_id::cpu;
  if (st.independent_outputs && spreads &&
      splits_output_core(shape_size(loop_shape), loop_shape.size(), shape_size(core_extents[std::size_t(nin)]),
                         sig.operands[std::size_t(nin)].size()))
    loop_over_output_core(sig, nin, loop_shape, loop_strides, core_extents, core_strides);
  plan_operand ops[max_operands];
  core_layout core;
  for (int p = 0; p < nop; ++p) {
    ops[p] = {operand(p).data(), loop_strides[std::size_t(p)]};
    core.ndim[p] = static_cast<int>(sig.operands[std::size_t(p)].size());
    core.extents[p] = core_extents[std::size_t(p)].data();
    core.strides[p] = core_strides[std::size_t(p)].data();
  }
  const iteration_plan plan(loop_shape, {ops, static_cast<std::size_t>(nop)});
  if (device_side != nullptr) {
    if (plan.size() > 0) launch_on_device(loop.device, loop.fn, plan, nin, nout, core, where.index, stream);
    for (int o = 0; o < nout; ++o) {
      const array& computed = targets[std::size_t(o)];
      if (options.out.empty()) {
        results[std::size_t(o)] = host_in_host_out ? to_host(computed, stream) : computed;
      } else if (computed.data() != results[std::size_t(o)].data()) {
        const array& out = results[std::size_t(o)];
        if (out.device().is_host())
          detail::copy_cast(to_host(computed, stream), out);
        else
          device_side->memory->cast(computed, out, stream);
      }
    }
    return results;
  }
  dtype operand_types[max_operands];
  for (int p = 0; p < nop; ++p) operand_types[p] = p < nin ? types.input(p) : types.output(p - nin);
  const run_data data{&loop, &core};
  detail::fp_scope fp;
  elementwise_task task(plan, nin, nout, false, &run_elements, &data, {operand_types, static_cast<std::size_t>(nop)},
                        types);
  // Each loop element is its cores' work: the parallel target's pieces hold a grain of it.
  std::int64_t core_elements = 0;
  for (const dim_vector& extents : core_extents) core_elements += shape_size(extents);
  task.set_work_per_element(core_elements / nop);
  task.gather_fp_flags(fp.active());
  host->execute(task);
  fp.finish(name, task.fp_flags());
  for (int o = 0; o < static_cast<int>(options.out.size()); ++o)
    if (targets[std::size_t(o)].data() != results[std::size_t(o)].data())
      detail::copy_cast(targets[std::size_t(o)], results[std::size_t(o)]);
  return results;
}

namespace {

// `axes` of an array of `ndim` dimensions made non-negative (NumPy's AxisError, and its
// message for a repeated axis, naming operand `item`).
std::vector<std::int64_t> normalized(const std::vector<int>& axes, std::size_t ndim, int item) {
  std::vector<std::int64_t> out;
  const auto n = static_cast<std::int64_t>(ndim);
  for (int a : axes) {
    if (a < -n || a >= n)
      throw index_error("axis " + std::to_string(a) + " is out of bounds for array of dimension " + std::to_string(n));
    const std::int64_t v = a < 0 ? a + n : a;
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw value_error("axes item " + std::to_string(item) + " has value " + std::to_string(v) + " repeated");
    out.push_back(v);
  }
  return out;
}

// The permutation that moves `core` (normalized axes) to the end, in their order.
std::vector<std::int64_t> core_last(std::size_t ndim, const std::vector<std::int64_t>& core) {
  std::vector<std::int64_t> perm;
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(ndim); ++d)
    if (std::find(core.begin(), core.end(), d) == core.end()) perm.push_back(d);
  perm.insert(perm.end(), core.begin(), core.end());
  return perm;
}

std::vector<std::int64_t> inverse(const std::vector<std::int64_t>& perm) {
  std::vector<std::int64_t> inv(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k) inv[static_cast<std::size_t>(perm[k])] = static_cast<std::int64_t>(k);
  return inv;
}

// `a` without its last `n` axes, which have extent 1 (a view).
array drop_last(const array& a, std::size_t n) {
  const std::size_t keep = a.ndim() - n;
  return array(const_cast<std::byte*>(a.data()), a.type(), dim_vector(std::span(a.shape().data(), keep)),
               dim_vector(std::span(a.strides().data(), keep)), a.owner(), a.device());
}

}  // namespace

std::vector<array> function::call(std::span<const operand> inputs, const call_options& options,
                                  const core_axes& where_core) const {
  if (where_core.axes.empty() && !where_core.axis && !where_core.keepdims) return call_last_axes(inputs, options);
  const state& st = *state_;
  const auto& sig = st.sig;
  const int nin = sig.nin, nout = sig.nout, nop = nin + nout;
  const std::string& name = st.name;
  if (static_cast<int>(inputs.size()) != nin) return call_last_axes(inputs, options);  // its message
  auto core_count = [&](int p) { return static_cast<int>(sig.operands[static_cast<std::size_t>(p)].size()); };

  // NumPy's _parse_axis_arg and _parse_axes_arg: one list of core axes per operand.
  std::vector<std::vector<int>> axes(static_cast<std::size_t>(nop));
  std::vector<bool> given(static_cast<std::size_t>(nop), false);
  if (where_core.axis && !where_core.axes.empty()) throw value_error(name + ": cannot specify both axis= and axes=");
  if (where_core.axis) {
    if (sig.dims.size() != 1)
      throw value_error(name + ": axis can only be used with a single shared core dimension, not with the " +
                        std::to_string(sig.dims.size()) + " distinct ones implied by signature " + st.text + ".");
    for (int p = 0; p < nop; ++p)
      if (core_count(p) == 1) axes[std::size_t(p)] = {*where_core.axis}, given[std::size_t(p)] = true;
  } else if (!where_core.axes.empty()) {
    const int n = static_cast<int>(where_core.axes.size());
    bool output_cores = false;
    for (int o = nin; o < nop; ++o) output_cores |= core_count(o) > 0;
    if (n != nop && !(n == nin && !output_cores))
      throw value_error("axes should be a list with an entry for all " + std::to_string(nop) +
                        " inputs and outputs; entries for outputs can only be omitted if none of them has core axes.");
    for (int p = 0; p < n; ++p) {
      const auto& a = where_core.axes[std::size_t(p)];
      if (static_cast<int>(a.size()) != core_count(p))
        throw index_error(name + ": operand " + std::to_string(p) + " has " + std::to_string(core_count(p)) +
                          " core dimensions, but " + std::to_string(a.size()) +
                          " dimensions are specified by axes tuple.");
      axes[std::size_t(p)] = a;
      given[std::size_t(p)] = true;
    }
  }
  int kept = 0;  // keepdims: the core dimensions of each input, kept in the outputs with extent 1
  if (where_core.keepdims) {
    kept = nin > 0 ? core_count(0) : 0;
    std::string why;
    for (int o = nin; o < nop && why.empty(); ++o)
      if (core_count(o) != 0)
        why = "output " + std::to_string(o - nin) + " to have " + std::to_string(core_count(o)) + " core dimensions";
    for (int i = 1; i < nin && why.empty(); ++i)
      if (core_count(i) != kept)
        why = "input " + std::to_string(i) + " to have " + std::to_string(core_count(i)) + " core dimensions";
    if (!why.empty())
      throw value_error(name + " does not support keepdims: its signature " + st.text + " requires " + why +
                        ", but keepdims can only be used when all inputs have the same number of core dimensions "
                        "and all outputs have no core dimensions.");
    // The outputs' kept axes: axis= where given, else the last ones (as NumPy, also when
    // axes= places the inputs' core axes elsewhere and leaves the outputs out).
    for (int o = nin; o < nop; ++o) {
      if (where_core.axis) {
        axes[std::size_t(o)].assign(std::size_t(kept), *where_core.axis);
      } else if (!given[std::size_t(o)] || axes[std::size_t(o)].empty()) {
        axes[std::size_t(o)].clear();
        for (int k = kept; k > 0; --k) axes[std::size_t(o)].push_back(-k);
      }
      given[std::size_t(o)] = true;
    }
  }

  // Inputs and given outputs with their core axes moved last (views).
  std::vector<operand> moved;
  moved.reserve(inputs.size());
  for (int i = 0; i < nin; ++i) {
    const operand& op = inputs[std::size_t(i)];
    if (!given[std::size_t(i)] || (op.is_scalar() && axes[std::size_t(i)].empty())) {
      moved.push_back(op);
      continue;
    }
    const std::size_t ndim = op.is_scalar() ? 0 : op.as_array().ndim();
    const auto core = normalized(axes[std::size_t(i)], ndim, i);
    moved.emplace_back(op.as_array().transpose(core_last(ndim, core)));
  }
  call_options moved_options = options;
  for (int o = 0; o < static_cast<int>(options.out.size()); ++o) {
    const array& out = options.out[std::size_t(o)];
    if (!given[std::size_t(nin + o)]) continue;
    const auto core = normalized(axes[std::size_t(nin + o)], out.ndim(), nin + o);
    array last = out.transpose(core_last(out.ndim(), core));
    if (where_core.keepdims) {
      for (std::size_t k = out.ndim() - core.size(); k < out.ndim(); ++k)
        if (last.shape()[k] != 1)
          throw value_error(name + ": output operand " + std::to_string(o) +
                            " must have extent 1 on the kept axes (keepdims), not " + std::to_string(last.shape()[k]));
      last = drop_last(last, core.size());
    }
    moved_options.out[std::size_t(o)] = last;
  }
  auto results = call_last_axes(moved, moved_options);
  if (!options.out.empty()) {
    for (int o = 0; o < nout; ++o) results[std::size_t(o)] = options.out[std::size_t(o)];
    return results;
  }
  // New outputs: their core axes (or kept ones) moved to where axes= puts them.
  for (int o = 0; o < nout; ++o) {
    array& r = results[std::size_t(o)];
    if (!given[std::size_t(nin + o)]) continue;
    if (where_core.keepdims) {
      dim_vector shape = r.shape();
      for (int k = 0; k < kept; ++k) shape.push_back(1);
      r = r.reshape(shape);
    }
    const auto core = normalized(axes[std::size_t(nin + o)], r.ndim(), nin + o);
    r = r.transpose(inverse(core_last(r.ndim(), core)));
  }
  return results;
}

array function::operator()(const operand& a, const call_options& options, const core_axes& axes) const {
  return call(std::span<const operand>(&a, 1), options, axes).front();
}
array function::operator()(const operand& a, const operand& b, const call_options& options,
                           const core_axes& axes) const {
  const operand in[] = {a, b};
  return call(in, options, axes).front();
}
array function::operator()(const operand& a, const operand& b, const operand& c, const call_options& options,
                           const core_axes& axes) const {
  const operand in[] = {a, b, c};
  return call(in, options, axes).front();
}

}  // namespace ufunc::gufunc
