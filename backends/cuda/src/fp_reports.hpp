// errstate on the cuda target, host side. Each device call made while the calling
// thread's policies want flags gets a slot in a ring of mapped pinned host memory
// (one ring per thread and device); the kernels set the slot's bits
// (backends/cuda/fp_flags.hpp). Calls stay asynchronous: the flags are read once the
// call has completed, when the library next waits for its stream on that thread
// (to_host, synchronize, a host-in/host-out call), and reported then under the
// policies the call was made with. A 'raise' or 'call' policy makes the call wait
// for its kernel, so that the exception or the function comes from that call, as
// in NumPy; so does a loop that refuses values (signed integer power: a negative
// exponent is a value_error, whatever the policies).
//
// The ufunc methods (reduce, accumulate, reduceat, at) launch through
// cuda::launch_method, which gives each launch a slot the same way. It does not see
// the ufunc, so the method's driver (reduce.cpp, accumulate.cpp, reduceat.cpp, at.cpp)
// names it first with begin_method. A method may take several launches (reduceat: one per segment); each
// kind is reported once per method, as the host checks its flags once after the
// whole method.
#pragma once

#include <string_view>

#include <ufunc/core/device_call.hpp>
#include <ufunc/core/errstate.hpp>
#include <ufunc/core/loop.hpp>

namespace ufunc::backends::cuda::fp_reports {

/// Whether the loop `types` of ufunc `name` can meet a value NumPy refuses: the one
/// built-in case is power of signed integers with a negative exponent (ops::power
/// gives 0 there and ufuncs/src/device_fp_rules.hpp reports it). Its calls and
/// methods wait for their kernels, so that the value_error comes from them.
inline bool refuses_values(std::string_view name, const type_signature& types) {
  return name == "power" && types.nin() == 2 && types.input(1).kind() == dtype_kind::signed_int;
}

/// One device call's flag gathering: construct it before the launch, put sink()
/// into the device_call, and call launched() once the launch succeeded.
class call_scope {
 public:
  /// `method`: begin_method's id for a launch of a device method (0 for a call).
  call_scope(std::string_view name, int device, void* stream, bool refuses_values = false,
             unsigned long long method = 0);
  [[nodiscard]] const device_fp_sink& sink() const noexcept { return sink_; }
  void launched();

 private:
  std::string_view name_;
  int device_;
  void* stream_;
  bool refuses_values_;
  unsigned long long method_;
  fp_errors policies_{};
  device_fp_sink sink_{};
  unsigned slot_ = 0;
};

/// The device method the calling thread runs from now on: its ufunc's name, whether
/// its loop refuses values (signed integer power), and an id that tells its launches
/// from those of the thread's next method.
struct method_info {
  std::string_view name;
  bool refuses_values = false;
  unsigned long long id = 0;
};
void begin_method(std::string_view name, bool refuses_values);
[[nodiscard]] method_info current_method() noexcept;

/// Reports the calling thread's calls on `stream` (all completed: the caller has
/// just waited for it), and those on other streams that have completed.
void report_completed(void* stream);

}  // namespace ufunc::backends::cuda::fp_reports
