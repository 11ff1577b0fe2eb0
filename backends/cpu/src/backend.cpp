// The cpu backend's entry in core's backend table (core/backend.hpp).
#include <ufunc/backends/cpu/execute.hpp>
#include <ufunc/core/backend.hpp>

namespace ufunc::backends::cpu {

void register_backend() {
  backend b;
  b.id = target_id::cpu;
  b.execute = &execute;
  // execute_units and inline_limit unset: methods run their units in order here, and
  // every call may take the contiguous fast path on this thread.
  detail::register_backend(b);
}

}  // namespace ufunc::backends::cpu
