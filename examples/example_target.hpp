// The target the examples run on: the preset's default (UFUNC_DEFAULT_TARGET), or,
// for the *_cuda builds of the examples that the cuda and all presets add, the GPU.
#pragma once

#include <optional>

#include <ufunc/core/target.hpp>

#if defined(UFUNC_EXAMPLE_ON_CUDA)
using example_target = ufunc::target::cuda;
// Calls of the built-in ufuncs name the GPU...
inline const std::optional<ufunc::target_id> example_call_target = ufunc::target_id::cuda;
#else
using example_target = ufunc::target::default_target;
// ...or name nothing: UFUNC_TARGET, else the preset's default, decides.
inline const std::optional<ufunc::target_id> example_call_target = std::nullopt;
#endif
