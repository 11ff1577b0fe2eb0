// Execution targets, named as Numba's: cpu (SIMD, one thread), parallel (all
// cores), cuda (an NVIDIA GPU), and automatic (the library picks). Targets are tag
// types for compile-time dispatch; parallel derives from cpu because it runs the
// cpu backend's loops, only split across threads.
#pragma once

#include <optional>
#include <string_view>

namespace ufunc {

enum class target_id : unsigned char { cpu, parallel, cuda, automatic };

namespace target {
struct cpu {
  static constexpr target_id id = target_id::cpu;
};
struct parallel : cpu {
  static constexpr target_id id = target_id::parallel;
};
struct cuda {
  static constexpr target_id id = target_id::cuda;
};
struct automatic {
  static constexpr target_id id = target_id::automatic;
};

// The build passes its default (CMake option UFUNC_DEFAULT_TARGET, set by each preset) as
// UFUNC_BUILD_DEFAULT_TARGET. A translation unit may define UFUNC_DEFAULT_TARGET itself to give its
// own vectorize<> objects another default: a C++ file of a cuda build, whose functors nvcc does not
// compile, can say cpu. Calls that name no target at run time go to the build's default regardless.
#if !defined(UFUNC_DEFAULT_TARGET)
#if defined(UFUNC_BUILD_DEFAULT_TARGET)
#define UFUNC_DEFAULT_TARGET UFUNC_BUILD_DEFAULT_TARGET
#else
#define UFUNC_DEFAULT_TARGET cpu
#endif
#endif
/// The default target of vectorize<> in this translation unit (see above).
using default_target = UFUNC_DEFAULT_TARGET;
}  // namespace target

[[nodiscard]] std::string_view to_string(target_id t) noexcept;
/// Parses "cpu", "parallel", "cuda" or "automatic"; throws target_error otherwise.
[[nodiscard]] target_id target_from_string(std::string_view name);
/// Whether the backend for `t` was compiled into this library.
[[nodiscard]] bool target_available(target_id t) noexcept;
/// Throws target_error, naming the preset that builds it, if `t` is not available.
void require_target(target_id t);
/// The target a call runs on when its options name `requested`: that one, else the
/// UFUNC_TARGET environment variable, else the build's default. Throws target_error as
/// the call would. `automatic` stays as it is: it chooses per call (host data: parallel,
/// or cpu without TBB; device data: cuda).
///
///     std::printf("runs on %s\n", std::string(ufunc::to_string(ufunc::call_target())).c_str());
[[nodiscard]] target_id call_target(std::optional<target_id> requested = {});

}  // namespace ufunc
