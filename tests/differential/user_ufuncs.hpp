// The runner's user-defined ufuncs (ufunc::vectorize): diff_fma, diff_relu and diff_split,
// which generate_cases.py computes the same with NumPy.
#pragma once

#include <string_view>

#include <ufunc/ufunc.hpp>

namespace differential {

// The vectorize'd ufunc called `name`, or null.
const ufunc::function* user_ufunc(std::string_view name);

inline constexpr std::string_view user_names[] = {"diff_fma", "diff_relu", "diff_split"};

// Whether they have device loops besides their host loops: only where user_ufuncs.cpp was
// compiled as CUDA (a CUDA build).
bool user_device_loops();

}  // namespace differential
