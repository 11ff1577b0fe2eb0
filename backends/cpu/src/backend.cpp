// The cpu backend's entry in core's backend table (core/backend.hpp).
#include <cstdint>
#include <limits>

#include <ufunc/backends/cpu/elementwise.hpp>
#include <ufunc/backends/cpu/methods.hpp>
#include <ufunc/core/backend.hpp>

namespace ufunc::backends::cpu {

void register_backend() {
  backend b;
  b.id = target_id::cpu;
  b.execute = &execute;
  b.execute_units = &execute_units;
  // Every call may take the contiguous fast path on this thread (execute would run it
  // there in one piece anyway).
  b.inline_limit = [] { return std::numeric_limits<std::int64_t>::max(); };
  detail::register_backend(b);
}

}  // namespace ufunc::backends::cpu
