// ufunc::function, the class: its loop table (registration, the flags that steer
// resolution) and its calls, which resolve a loop (resolution.cpp) and run it
// (run_loop.cpp).
#include <ufunc/core/function.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <ufunc/core/detail/execute.hpp>
#include <ufunc/core/detail/run_loop.hpp>
#include <ufunc/core/error.hpp>

#include "resolution.hpp"

namespace ufunc {

function::function(std::string name, int nin, int nout, std::optional<weak_scalar> identity, std::string doc)
    : state_(std::make_shared<detail::function_state>()) {
  // No outputs is allowed, as NumPy allows it (np.frompyfunc(f, 1, 0)): a loop with side
  // effects only, e.g. an elementwise_kernel whose outputs are all raw.
  if (nin < 1 || nout < 0 || nin + nout > max_operands)
    throw value_error("ufunc '" + name + "': needs at least one input, at most " + std::to_string(max_operands) +
                      " operands in all");
  state_->name = std::move(name);
  state_->doc = std::move(doc);
  state_->nin = nin;
  state_->nout = nout;
  state_->identity = identity;
  state_->stamp.store(detail::new_stamp(), std::memory_order_relaxed);
}

const std::string& function::name() const noexcept { return state_->name; }
const std::string& function::doc() const noexcept { return state_->doc; }
int function::nin() const noexcept { return state_->nin; }
int function::nout() const noexcept { return state_->nout; }
const std::optional<weak_scalar>& function::identity() const noexcept { return state_->identity; }

std::size_t function::ntypes() const {
  std::shared_lock lock(state_->mutex);
  return state_->loops.size();
}

std::vector<std::string> function::types() const {
  std::shared_lock lock(state_->mutex);
  std::vector<std::string> out;
  for (const auto& l : state_->loops) out.push_back(l.types.str());
  return out;
}

void function::add_loop(loop_entry loop) {
  if (loop.types.nin() != nin() || loop.types.nout() != nout())
    throw value_error("ufunc '" + name() + "' takes " + std::to_string(nin()) + " inputs and " +
                      std::to_string(nout()) + " outputs; loop " + loop.types.str() + " does not");
  if (loop.host == nullptr) throw value_error("ufunc '" + name() + "': loop " + loop.types.str() + " has no code");
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(detail::new_stamp(), std::memory_order_release);
  for (auto& l : state_->loops)
    if (l.types == loop.types) {
      if (l.keepalive) state_->retired.push_back(std::move(l.keepalive));
      l = std::move(loop);
      return;
    }
  state_->loops.push_back(std::move(loop));
}

void function::reject_inputs(std::vector<dtype> inputs, std::string reason) {
  if (static_cast<int>(inputs.size()) != nin())
    throw value_error("ufunc '" + name() + "' takes " + std::to_string(nin()) + " inputs; reject_inputs got " +
                      std::to_string(inputs.size()));
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(detail::new_stamp(), std::memory_order_release);
  state_->rejected.emplace_back(std::move(inputs), std::move(reason));
}

void function::set_exact_weak_integers() {
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(detail::new_stamp(), std::memory_order_release);
  state_->exact_weak_integers = true;
}

void function::set_truth_inputs() {
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(detail::new_stamp(), std::memory_order_release);
  state_->truth_inputs = true;
}

void function::set_type_resolver(type_resolver resolver) {
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(detail::new_stamp(), std::memory_order_release);
  state_->resolver = resolver;
}

namespace {

void check_input_count(const std::string& name, int nin, std::size_t given) {
  if (static_cast<int>(given) != nin)
    throw value_error("ufunc '" + name + "' takes " + std::to_string(nin) + " inputs, got " + std::to_string(given));
}

// What resolve() and resolve_loop() search with: array inputs of the given dtypes.
std::array<detail::resolver_input, max_operands> dtype_inputs(const function& f, std::span<const dtype> inputs) {
  check_input_count(f.name(), f.nin(), inputs.size());
  std::array<detail::resolver_input, max_operands> in{};
  for (std::size_t i = 0; i < inputs.size(); ++i) in[i] = {inputs[i], nullptr};
  return in;
}

// What a call (and resolve_loop on operands) searches with: arrays by their dtype, C++
// scalars weak, then NEP 50's promotion of the weak ones.
std::array<detail::resolver_input, max_operands> operand_inputs(const std::string& name,
                                                                std::span<const operand> inputs) {
  std::array<detail::resolver_input, max_operands> in{};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_scalar()) {
      in[i] = {dtype{}, &inputs[i].as_scalar()};
    } else {
      const auto& a = inputs[i].as_array();
      if (!a.valid()) throw value_error("ufunc '" + name + "': input " + std::to_string(i) + " is a null array");
      in[i] = {a.type(), nullptr};
    }
  }
  detail::apply_weak_promotion({in.data(), inputs.size()});
  return in;
}

// The loop for `in` under the table's read lock (add_loop may run meanwhile).
loop_entry find_loop_locked(const detail::function_state& st, std::span<const detail::resolver_input> in,
                            const call_options& options) {
  const auto fixed = detail::fixed_from_options(options, st.nin, st.nout, st.name);
  std::shared_lock lock(st.mutex);
  return detail::find_loop(st, in, fixed, options.casting);
}

}  // namespace

type_signature function::resolve(std::span<const dtype> inputs, const call_options& options) const {
  const auto in = dtype_inputs(*this, inputs);
  const auto fixed = detail::fixed_from_options(options, nin(), nout(), name());
  return detail::find_loop_cached(*state_, {in.data(), inputs.size()}, fixed, options).types;
}

loop_entry function::resolve_loop(std::span<const dtype> inputs, const call_options& options) const {
  const auto in = dtype_inputs(*this, inputs);
  return find_loop_locked(*state_, {in.data(), inputs.size()}, options);
}

loop_entry function::resolve_loop(std::span<const operand> inputs, const call_options& options) const {
  check_input_count(name(), nin(), inputs.size());
  const auto in = operand_inputs(name(), inputs);
  return find_loop_locked(*state_, {in.data(), inputs.size()}, options);
}

array function::operator()(const operand& a, const call_options& options) const {
  const operand ops[] = {{operand::view_tag{}, a}};
  return call_single(ops, options);
}
array function::operator()(const operand& a, const operand& b, const call_options& options) const {
  const operand ops[] = {{operand::view_tag{}, a}, {operand::view_tag{}, b}};
  return call_single(ops, options);
}
array function::operator()(const operand& a, const operand& b, const operand& c, const call_options& options) const {
  const operand ops[] = {{operand::view_tag{}, a}, {operand::view_tag{}, b}, {operand::view_tag{}, c}};
  return call_single(ops, options);
}

array function::call_single(std::span<const operand> inputs, const call_options& options) const {
  if (nout() != 1)
    throw value_error("ufunc '" + name() + "' has " + std::to_string(nout()) +
                      " outputs; use call() to receive all of them");
  auto outs = call_list(inputs, options);
  return std::move(outs[0]);
}

std::vector<array> function::call(std::span<const operand> inputs, const call_options& options) const {
  return call_list(inputs, options).to_vector();
}

namespace {

// A Python float given for an input that signature= fixes to an integer dtype is
// converted as NumPy does it, by Python's int() (truncation), and then checked like a
// Python int: np.remainder(-21.9, a, signature='II->I') is "Python integer -21 out of
// bounds for uint32", np.left_shift(a, 2.5, signature='ii->i') shifts by 2. Under
// 'equiv' NumPy refuses the float instead (the usual scalar cast check), and the sole
// scalar of a unary ufunc is cast like an array (float64 -> int16 refused). Returns the
// inputs, or `storage` holding them with such floats replaced.
std::span<const operand> fixed_float_scalars(std::span<const operand> inputs, const detail::fixed_types& fixed,
                                             std::vector<operand>& storage, const std::string& name) {
  auto float_for_integer = [&](std::size_t i) {
    return inputs[i].is_scalar() && inputs[i].as_scalar().value_kind() == weak_scalar::kind::floating &&
           fixed.slot[i] && fixed.slot[i]->is_integer();
  };
  bool any = false;
  for (std::size_t i = 0; i < inputs.size(); ++i) any |= float_for_integer(i);
  if (!any) return inputs;
  storage.assign(inputs.begin(), inputs.end());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!float_for_integer(i)) continue;
    double v = 0;
    inputs[i].as_scalar().store(float64, &v);
    if (std::isnan(v)) throw value_error("ufunc '" + name + "': cannot convert float NaN to integer");
    if (std::isinf(v)) throw overflow_error("ufunc '" + name + "': cannot convert float infinity to integer");
    v = std::trunc(v);
    // Beyond 64 bits no integer dtype holds the value: NumPy's own message there is
    // "Python int too large to convert to C long".
    if (v >= 0x1p64 || v < -0x1p63)
      throw overflow_error("ufunc '" + name + "': Python integer " + inputs[i].as_scalar().str() +
                           " out of bounds for " + std::string(fixed.slot[i]->name()));
    if (v >= 0x1p63)
      storage[i] = static_cast<std::uint64_t>(v);
    else
      storage[i] = static_cast<std::int64_t>(v);
  }
  return storage;
}

}  // namespace

detail::result_list function::call_list(std::span<const operand> inputs, const call_options& options) const {
  const detail::function_state& st = *state_;
  const int nin = st.nin, nout = st.nout;
  check_input_count(st.name, nin, inputs.size());
  if (!options.out.empty() && static_cast<int>(options.out.size()) != nout)
    throw value_error("ufunc '" + st.name + "' has " + std::to_string(nout) + " outputs, but out= names " +
                      std::to_string(options.out.size()));

  // NumPy refuses a read-only out= while it parses the arguments, before any loop is
  // resolved: np.gcd(1j, 2, out=read_only) says read-only, not "no loop".
  detail::check_outputs_writeable(st.name, options.out);

  const target_id where_to_run = detail::resolve_target(options.target);

  const auto fixed = detail::fixed_from_options(options, nin, nout, st.name);

  // 1. Resolve the loop.
  const auto rin = operand_inputs(st.name, inputs);
  const detail::resolved_loop loop =
      detail::find_loop_cached(st, {rin.data(), static_cast<std::size_t>(nin)}, fixed, options);
  const type_signature& types = loop.types;

  // After the loop search: a signature without a loop is refused first, whatever the scalars.
  std::vector<operand> converted;
  if (!options.signature.empty() && options.casting != casting::equiv && nin > 1)
    inputs = fixed_float_scalars(inputs, fixed, converted, st.name);
  dtype input_types[max_operands];
  // A scalar for a bool slot is converted by its truth, never through the dtype it was
  // promoted to (np.logical_or(zeros_float32, 1e-310j) is true; complex64 flushes it).
  // With several inputs NumPy converts a Python scalar straight into an inexact slot
  // too, not through a cast: np.add(1e-300, 1.0, dtype='f') raises no underflow
  // (report_scalar_overflow in run_loop).
  auto converted_directly = [&](int i) {
    if (!inputs[i].is_scalar()) return false;
    const dtype t = types.input(i);
    return t == bool_ ||
           (nin > 1 &&
            (t.is_complex() || (t.is_floating() && inputs[i].as_scalar().value_kind() != weak_scalar::kind::complex)));
  };
  for (int i = 0; i < nin; ++i) input_types[i] = rin[i].weak || converted_directly(i) ? types.input(i) : rin[i].type;
  return detail::run_loop({st.name,
                           types,
                           loop.host,
                           loop.host_data,
                           loop.devices,
                           inputs,
                           {input_types, static_cast<std::size_t>(nin)},
                           options,
                           where_to_run,
                           options.target.has_value(),
                           st.truth_inputs,
                           st.exact_weak_integers});
}
}  // namespace ufunc
