// errstate across ranks. For the local part of a collective call, the calling thread's
// policies are switched to 'call' with a handler that records what the call reports
// (each kind of error and the name it is reported under: "divide", "reduce", "cast").
// After the ranks agree, the events of every rank are OR-ed and the caller's own
// policies applied once on every rank, with NumPy's messages: raise throws
// floating_point_error on all ranks, call calls each rank's handler, warn and print
// report on rank 0 only (one warning per call, as one process).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <ufunc/core/errstate.hpp>
#include <ufunc/dist/communicator.hpp>

namespace ufunc::dist::detail {

class fp_capture {
 public:
  /// Starts recording, unless every policy of the calling thread is ignore.
  fp_capture();
  ~fp_capture();
  fp_capture(const fp_capture&) = delete;
  fp_capture& operator=(const fp_capture&) = delete;

  /// Restores the caller's policies and handler (the destructor does it too).
  void stop() noexcept;
  [[nodiscard]] bool has_events() const noexcept { return !events_.empty(); }
  /// Reports events recorded under `from` under `to` instead (a method's combining calls
  /// report as the method, as NumPy names them).
  void rename(std::string_view from, std::string_view to);
  /// Every rank's events applied under the caller's policies. Collective: every rank
  /// calls it when agree() found that some rank has events.
  void report(const communicator& comm) const;
  /// Applies this rank's own events under the caller's policies: for steps that every
  /// rank runs on the same data, whose flags are the same everywhere. Not collective.
  void report_local(const communicator& comm) const;

  struct event {
    std::string name;
    unsigned flags;
  };

 private:
  void apply(const communicator& comm, const std::vector<event>& events) const;

  bool active_ = false;
  fp_errors saved_{};
  fp_call_handler saved_handler_;
  // Filled by the handler, which holds its address: the capture neither moves nor copies.
  std::vector<event> events_;
};

}  // namespace ufunc::dist::detail
