// Building a case's operands (case_file.hpp's array_spec) as ufunc arrays, on the host or
// the device, and reading back what a call left in them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <ufunc/ufunc.hpp>

#include "case_file.hpp"

namespace differential {

using ufunc::array;

// An operand and what it was built from, so that a replay can check that nothing outside
// the views a call may write changed.
struct built_array {
  array base;                       // where the data lives (host or device)
  array view;                       // the operand
  std::vector<std::byte> original;  // the base's bytes before the call
};

// The array `s` describes: its base on the device when `on_device`, else on the host.
built_array build(const array_spec& s, bool on_device);

// The bytes of `a` in C order, on the host.
std::vector<std::byte> host_bytes(const array& a);

// Byte offsets (from the base's start) of every element of `view`, a view of `base`.
std::vector<std::int64_t> element_offsets(const array& base, const array& view);

}  // namespace differential
