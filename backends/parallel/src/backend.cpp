// The parallel (oneTBB) backend's entry in core's backend table (core/backend.hpp).
#include <ufunc/backends/parallel/elementwise.hpp>
#include <ufunc/backends/parallel/methods.hpp>
#include <ufunc/core/backend.hpp>

namespace ufunc::backends::parallel {

void register_backend() {
  backend b;
  b.id = target_id::parallel;
  b.execute = &execute;
  b.execute_units = &execute_units;
  b.inline_limit = &inline_limit;
  detail::register_backend(b);
}

}  // namespace ufunc::backends::parallel
