// The dense small call (detail/dense_loop.hpp): its loop search and its run.
#include <ufunc/core/detail/dense_loop.hpp>

#include <array>
#include <cstddef>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/detail/execute.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/run_loop.hpp>
#include <ufunc/core/detail/streaming.hpp>
#include <ufunc/core/function.hpp>

#include "resolution.hpp"

namespace ufunc {

detail::dense_loop function::find_dense_loop(std::span<const detail::dense_input> inputs, std::int64_t n,
                                             std::optional<target_id> target) const {
  const detail::function_state& st = *state_;
  if (static_cast<int>(inputs.size()) != st.nin) return {};
  // Whatever the general call would refuse or report (an unknown target, no loop) it reports in
  // its own words: here such a call only leaves the dense path.
  try {
    const target_id where_to_run = detail::resolve_target(target);
    // A device backend's calls take the device path (run_loop_device.cpp).
    if (const backend* b = detail::find_backend(where_to_run); b == nullptr || b->execute_device != nullptr) return {};
    if (!detail::runs_inline(where_to_run, n)) return {};
    static const call_options no_options;
    const auto fixed = detail::fixed_from_options(no_options, st.nin, st.nout, st.name);
    std::array<detail::resolver_input, max_operands> in;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      // A float scalar beside arrays converts straight into a float slot (function::call_list's
      // converted_directly); alone it is cast as an array would be: the general path.
      if (inputs[i].scalar != nullptr && (st.nin < 2 || inputs[i].scalar->value_kind() != weak_scalar::kind::floating))
        return {};
      in[i] = {inputs[i].scalar != nullptr ? dtype{} : inputs[i].type, inputs[i].scalar};
    }
    detail::apply_weak_promotion({in.data(), inputs.size()});
    const detail::resolved_loop loop = detail::find_loop_cached(st, {in.data(), inputs.size()}, fixed, no_options);
    if (loop.host == nullptr) return {};
    for (int i = 0; i < st.nin; ++i) {
      const auto& input = inputs[static_cast<std::size_t>(i)];
      const dtype t = loop.types.input(i);
      // Arrays without a cast; scalars into a float slot (a bool or complex slot converts otherwise).
      if (input.scalar != nullptr ? !t.is_floating() : t != input.type) return {};
    }
    return {loop.host, loop.host_data, loop.types};
  } catch (const error&) {
    return {};
  }
}

}  // namespace ufunc

namespace ufunc::detail {

void run_dense(inner_loop_fn fn, const void* data, char* const* args, std::int64_t n, const std::int64_t* steps,
               int nin, int nout) {
  if (n <= 0) return;
  std::int64_t out_bytes = 0;
  for (int o = 0; o < nout; ++o) out_bytes += steps[nin + o];
  const stream_stores_scope streaming(streams(n * out_bytes));  // large outputs: streaming stores
  fn(args, n, steps, data);
}

void run_dense_loop(const dense_loop& loop, std::string_view name, std::span<const dense_input> inputs,
                    char* const* args, std::int64_t n) {
  const int nin = loop.types.nin(), nargs = loop.types.nargs();
  std::int64_t steps[max_operands];
  char* operands[max_operands];
  for (int i = 0; i < nargs; ++i) {
    steps[i] = static_cast<std::int64_t>(loop.types[i].itemsize());
    operands[i] = args[i];
  }
  // Scalars as run_loop converts them: an overflow of the conversion is reported on its own, as
  // NumPy's cast; the flags of the stores themselves are dropped.
  alignas(16) std::byte scalar_storage[max_operands][16];
  for (int i = 0; i < nin; ++i) {
    const weak_scalar* w = inputs[static_cast<std::size_t>(i)].scalar;
    if (w == nullptr) continue;
    report_scalar_cast(*w, loop.types.input(i));
    w->store(loop.types.input(i), scalar_storage[i]);
    operands[i] = reinterpret_cast<char*>(scalar_storage[i]);
    steps[i] = 0;
  }
  fp_scope fp;  // after the stores: their flags are not the loop's
  run_dense(loop.fn, loop.data, operands, n, steps, nin, loop.types.nout());
  fp.finish(name);
}

}  // namespace ufunc::detail
