#include "fp_capture.hpp"

#include <ufunc/core/detail/fp_status.hpp>

#include "exchange.hpp"

namespace ufunc::dist::detail {

namespace {

constexpr std::string_view encountered = " encountered in ";

// The kind of one reported message ("overflow encountered in add"), as NumPy names them.
unsigned kind_of(std::string_view what) {
  if (what.starts_with("divide by zero")) return static_cast<unsigned>(fp_flag::divide);
  if (what.starts_with("overflow")) return static_cast<unsigned>(fp_flag::overflow);
  if (what.starts_with("underflow")) return static_cast<unsigned>(fp_flag::underflow);
  if (what.starts_with("invalid value")) return static_cast<unsigned>(fp_flag::invalid);
  return 0;
}

void add_event(std::vector<fp_capture::event>& events, std::string_view name, unsigned flags) {
  for (auto& e : events)
    if (e.name == name) {
      e.flags |= flags;
      return;
    }
  events.push_back({std::string(name), flags});
}

}  // namespace

fp_capture::fp_capture() {
  saved_ = geterr();
  if (saved_ == fp_errors{fp_policy::ignore, fp_policy::ignore, fp_policy::ignore, fp_policy::ignore}) return;
  active_ = true;
  // A pointer: the handler stays small enough for std::function to hold without allocating.
  saved_handler_ = seterrcall([events = &events_](std::string_view what, unsigned flags) {
    const auto at = what.find(encountered);
    const unsigned kind = kind_of(what);
    add_event(*events, at == std::string_view::npos ? std::string_view("ufunc") : what.substr(at + encountered.size()),
              kind != 0 ? kind : flags);
  });
  seterr({fp_policy::call, fp_policy::call, fp_policy::call, fp_policy::call});
}

fp_capture::~fp_capture() { stop(); }

void fp_capture::stop() noexcept {
  if (!active_) return;
  active_ = false;
  seterr(saved_);
  seterrcall(std::move(saved_handler_));
}

void fp_capture::rename(std::string_view from, std::string_view to) {
  std::vector<event> renamed;
  for (const auto& e : events_) add_event(renamed, e.name == from ? to : e.name, e.flags);
  events_ = std::move(renamed);
}

void fp_capture::apply(const communicator& comm, const std::vector<event>& events) const {
  fp_errors policies = saved_;
  // One warning per call for the whole job: rank 0's.
  if (comm.rank() != 0) {
    for (fp_policy* p : {&policies.divide, &policies.over, &policies.under, &policies.invalid})
      if (*p == fp_policy::warn || *p == fp_policy::print) *p = fp_policy::ignore;
  }
  for (const auto& e : events) ufunc::detail::fp_report(e.name, e.flags, policies);
}

void fp_capture::report(const communicator& comm) const {
  std::string mine;
  for (const auto& e : events_) mine += e.name + '\x1f' + std::to_string(e.flags) + '\x1e';
  std::vector<event> merged;
  // In rank order, so that every rank reports the same kinds under the same names in the same order.
  for (const std::string& s : allgather_strings(comm, mine)) {
    std::size_t at = 0;
    while (at < s.size()) {
      const auto sep = s.find('\x1f', at);
      const auto end = s.find('\x1e', sep);
      add_event(merged, std::string_view(s).substr(at, sep - at),
                static_cast<unsigned>(std::stoul(s.substr(sep + 1, end - sep - 1))));
      at = end + 1;
    }
  }
  apply(comm, merged);
}

void fp_capture::report_local(const communicator& comm) const { apply(comm, events_); }

}  // namespace ufunc::dist::detail
