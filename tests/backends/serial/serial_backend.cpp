// A fourth backend, written and registered from this folder only: target "serial".
//
// It runs every elementwise task one element at a time, last element first (calls of
// more than 2^20 elements in pieces of 65,537), and every
// method's units one at a time, last unit first, through their per-block partial
// results where a unit has blocks (the path the parallel backend takes for long
// reductions). No SIMD batch forms (the loops see n = 1), and no other backend splits
// or orders a call this way, so the unit suite and the differential set on it
// (unit.serial, numpy_differential.serial) check two things: that a backend needs
// nothing but its own folder and the registration below, and that results do not
// depend on how a backend splits a call. docs/adding_a_backend.md walks through it.
#include "serial_backend.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/detail/method_task.hpp>
#include <ufunc/core/elementwise.hpp>

namespace ufunc::testing {
namespace {

void execute(const elementwise_task& task) {
  // Calls of more than 2^20 elements (the unit suite's 2^31-element one) in pieces of a
  // prime count, which no batch width divides: one element at a time would take minutes.
  const std::int64_t piece_size = task.size() > (std::int64_t{1} << 20) ? 65537 : 1;
  for (std::int64_t last = task.size(); last > 0; last -= piece_size)
    task.run(std::max<std::int64_t>(0, last - piece_size), last);
}

void execute_units(const detail::unit_task& task) {
  const std::int64_t blocks = task.blocks();
  std::vector<std::byte> partials(blocks > 1 ? static_cast<std::size_t>(blocks) * task.partial_size() : 0);
  std::unique_ptr<bool[]> nonempty(new bool[static_cast<std::size_t>(blocks)]);
  for (std::int64_t u = task.units(); u-- > 0;) {
    if (blocks <= 1) {
      task.run_piece([&] { task.run_units(u, u + 1); });
      continue;
    }
    for (std::int64_t b = blocks; b-- > 0;)
      task.run_piece([&] { task.block_partials(u, b, b + 1, partials.data(), nonempty.get()); });
    task.run_piece([&] { task.combine(u, partials.data(), nonempty.get()); });
  }
}

// An object file linked into the program (not a static library's member), so this
// initializer runs: registration needs nothing outside this folder.
const bool registered = [] {
  backend b;
  b.id = serial_target;
  b.name = "serial";
  b.execute = &execute;
  b.execute_units = &execute_units;
  // inline_limit unset: every call comes to execute(), none takes the fast path inline.
  register_backend(b);
  return true;
}();

}  // namespace
}  // namespace ufunc::testing
