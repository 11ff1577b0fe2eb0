// Floating-point error handling, as NumPy's np.errstate / np.seterr: what a ufunc
// call does when its loop divided by zero, overflowed, underflowed or produced an
// invalid value (NaN from non-NaN inputs, a float to integer cast out of range).
//
//   {
//     ufunc::errstate guard({.divide = ufunc::fp_policy::raise});
//     ufunc::divide(x, 0.0);                    // throws floating_point_error
//   }                                           // the previous policies again
//   ufunc::seterr({.divide = ufunc::fp_policy::ignore, .invalid = ufunc::fp_policy::ignore});
//
// As in NumPy, the hardware status flags are cleared before a call's loops run and
// read after they finished (on every thread that ran a piece of the call), and the
// calling thread then applies its policies once per call. The settings are per
// thread (NumPy keeps them in a context variable); a new thread starts with NumPy's
// defaults. On cuda the device classifies its results into the same four kinds (the
// GPU has no status flags); raise and call wait for the call's kernel, warn and print
// apply when the library next waits for the stream (docs/design.md).
#pragma once

#include <functional>
#include <optional>
#include <string_view>

namespace ufunc {

/// What to do about one kind of floating-point error (np.seterr's values; NumPy's
/// 'log' is `call` here, with a function that logs).
enum class fp_policy : unsigned char {
  ignore,  ///< nothing
  warn,    ///< a RuntimeWarning through the warning handler (set_warning_handler)
  raise,   ///< throw floating_point_error
  call,    ///< call the function set by seterrcall
  print,   ///< write "Warning: <message>" to stderr
};

/// The kinds of floating-point error as bits, NumPy's NPY_FPE_* values: the
/// `flags` a seterrcall function and floating_point_error::flags() report.
enum class fp_flag : unsigned { divide = 1, overflow = 2, underflow = 4, invalid = 8 };

/// One policy per kind of error; the member defaults are NumPy's.
struct fp_errors {
  fp_policy divide = fp_policy::warn;
  fp_policy over = fp_policy::warn;
  fp_policy under = fp_policy::ignore;
  fp_policy invalid = fp_policy::warn;
  friend bool operator==(const fp_errors&, const fp_errors&) = default;
};

/// A change of some policies, as np.errstate's keywords: empty fields keep the
/// current policy, `all` sets every kind that is not named on its own.
struct fp_error_changes {
  std::optional<fp_policy> all;
  std::optional<fp_policy> divide;
  std::optional<fp_policy> over;
  std::optional<fp_policy> under;
  std::optional<fp_policy> invalid;
};

/// Sets the calling thread's policies; returns the previous ones (np.seterr).
fp_errors seterr(const fp_errors& policies) noexcept;
/// The calling thread's policies (np.geterr).
[[nodiscard]] fp_errors geterr() noexcept;

/// The function that the `call` policy calls, on the calling thread, once per kind
/// of error that occurred: `what` is the message ("divide by zero encountered in
/// divide"; NumPy passes only "divide by zero"), `flags` every fp_flag the call
/// raised. It may throw; the exception leaves the ufunc call.
using fp_call_handler = std::function<void(std::string_view what, unsigned flags)>;
/// Sets the calling thread's function for `call`; returns the previous one
/// (np.seterrcall). A call that needs it while none is set throws value_error.
fp_call_handler seterrcall(fp_call_handler handler);
[[nodiscard]] fp_call_handler geterrcall();

/// Where `warn` sends its message ("divide by zero encountered in divide"), for the
/// whole process, as Python's warnings module. The default writes
/// "RuntimeWarning: <message>" to stderr, each distinct message once per process
/// (Python's default filter shows a warning once per place in the code). A handler
/// may throw (as Python's -W error turns warnings into errors). An empty handler
/// restores the default. Returns the previous handler (empty for the default).
using warning_handler = std::function<void(std::string_view message)>;
warning_handler set_warning_handler(warning_handler handler);

/// Changes the calling thread's policies (and optionally its call function) for a
/// scope, as `with np.errstate(...)`, and restores them on exit.
class errstate {
 public:
  explicit errstate(const fp_error_changes& changes);
  errstate(const fp_error_changes& changes, fp_call_handler call);
  ~errstate();
  errstate(const errstate&) = delete;
  errstate& operator=(const errstate&) = delete;

 private:
  fp_errors saved_;
  std::optional<fp_call_handler> saved_call_;
};

}  // namespace ufunc
