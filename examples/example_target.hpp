// The target the examples run on: the preset's default (UFUNC_DEFAULT_TARGET), or,
// for the *_cuda builds of the examples that the all preset adds, the GPU.
#pragma once

#include <optional>
#include <string>

#include <ufunc/core/target.hpp>
#include <ufunc/ufuncs/builtins.hpp>

#if defined(UFUNC_EXAMPLE_ON_CUDA)
using example_target = ufunc::target::cuda;
// Calls of the built-in ufuncs name the GPU...
inline const std::optional<ufunc::target_id> example_call_target = ufunc::target_id::cuda;
#else
using example_target = ufunc::target::default_target;
// ...or name nothing: UFUNC_TARGET, else the preset's default, decides.
inline const std::optional<ufunc::target_id> example_call_target = std::nullopt;
#endif

// What the examples print about where a call ran: the target a call naming `requested`
// runs on, and for host data the instruction set of the built-in loops.
inline std::string describe_target(std::optional<ufunc::target_id> requested = example_call_target) {
  using ufunc::target_id;
  target_id t = ufunc::call_target(requested);
  std::string text(ufunc::to_string(t));
  if (t == target_id::automatic) {  // host arrays, as in the examples: parallel where it is built
    t = ufunc::target_available(target_id::parallel) ? target_id::parallel : target_id::cpu;
    text += " (host arrays: " + std::string(ufunc::to_string(t)) + ")";
  }
  if (t != target_id::cuda) text += ", SIMD " + std::string(ufunc::simd_arch());
  return text;
}
