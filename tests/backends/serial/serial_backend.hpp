// The test suite's fourth backend (serial_backend.cpp): target "serial".
#pragma once

#include <ufunc/core/target.hpp>

namespace ufunc::testing {

/// The id the serial backend registers under (any id the library does not use).
inline constexpr target_id serial_target{16};

}  // namespace ufunc::testing
