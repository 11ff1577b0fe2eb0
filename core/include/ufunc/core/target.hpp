// Execution targets, named as Numba's: cpu (SIMD, one thread), parallel (all
// cores), cuda (an NVIDIA GPU), and automatic (the library picks). Targets are tag
// types for compile-time dispatch; parallel derives from cpu because it runs the
// cpu backend's loops, only split across threads.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace ufunc {

/// The library's targets. Other values are targets that a program gives a backend of
/// its own (ufunc::register_backend, core/backend.hpp), under a name of its choosing.
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

/// "cpu", "parallel", "cuda", "automatic", or the name a program's backend registered.
[[nodiscard]] std::string_view to_string(target_id t) noexcept;
/// Parses "cpu", "parallel", "cuda", "automatic" or a registered backend's name; throws
/// target_error otherwise.
[[nodiscard]] target_id target_from_string(std::string_view name);
/// Every target with a backend in this process, in id order (cpu first): the library's
/// compiled in, then those a program registered.
///
///     for (ufunc::target_id t : ufunc::registered_targets()) run_my_check(t);
[[nodiscard]] std::vector<target_id> registered_targets();
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
