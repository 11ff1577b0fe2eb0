// The hardware floating-point status flags around a ufunc call: the mechanism
// behind errstate (core/errstate.hpp), for the code that runs loops (run_loop,
// elementwise_task, the executors, reductions).
//
//   detail::fp_scope fp;            // clears this thread's flags if a policy needs them
//   ... run the loops; pieces on other threads report through elementwise_task ...
//   fp.finish(name, task.fp_flags());   // applies the policies; may throw
#pragma once

#include <string_view>

#include <ufunc/core/errstate.hpp>

namespace ufunc::detail {

/// Whether the calling thread's policies need the flags (not every one is ignore).
[[nodiscard]] bool fp_checks_enabled() noexcept;

/// Clears this thread's divide-by-zero, overflow, underflow and invalid flags.
void fp_clear() noexcept;

/// This thread's raised flags among those four, as ufunc::fp_flag bits.
[[nodiscard]] unsigned fp_read() noexcept;

/// Applies the calling thread's policies to `flags` (fp_flag bits) raised by the
/// loops of ufunc `name`, in NumPy's order (divide, over, under, invalid): warns,
/// prints, calls, or throws floating_point_error for the first kind set to raise.
void fp_report(std::string_view name, unsigned flags);
/// The same under the given policies: the cuda target reports a call's device flags
/// after the call has returned, under the policies the call was made with.
void fp_report(std::string_view name, unsigned flags, const fp_errors& policies);

/// One call's flag work on the calling thread: clears on construction when a policy
/// needs the flags, gathers, and reports once at the end. Does nothing when every
/// policy is ignore.
class fp_scope {
 public:
  fp_scope() noexcept : active_(fp_checks_enabled()) {
    if (active_) fp_clear();
  }
  [[nodiscard]] bool active() const noexcept { return active_; }
  /// Adds what this thread raised so far, and `more` (flags gathered elsewhere).
  void collect(unsigned more = 0) noexcept {
    if (active_) flags_ |= fp_read() | more;
  }
  /// Collects, then applies the policies to everything gathered.
  void finish(std::string_view name, unsigned more = 0) {
    collect(more);
    if (flags_ != 0) fp_report(name, flags_);
  }

 private:
  bool active_;
  unsigned flags_ = 0;
};

}  // namespace ufunc::detail
