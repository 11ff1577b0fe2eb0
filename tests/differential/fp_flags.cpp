// Which floating-point flags a case compares, and the policies a replay runs under.
#include "fp_flags.hpp"

#include <utility>

#include "tolerance.hpp"

namespace differential {
namespace {

// Whether the case runs a complex loop (the complex column of ulp_bound()).
bool complex_loop(const test_case& c) {
  if (!c.loop.empty()) return c.loop.substr(0, c.loop.find("->")).find_first_of("FD") != std::string::npos;
  bool cplx = c.out_dtype && c.out_dtype->is_complex();
  for (const auto& in : c.inputs) cplx |= in.is_scalar ? in.scalar.kind == 'c' : in.arr.type.is_complex();
  return cplx;
}

// The kind a warning or floating_point_error message names (errstate.cpp's texts).
unsigned flag_of_message(std::string_view m) {
  if (m.starts_with("divide by zero")) return 1;
  if (m.starts_with("overflow")) return 2;
  if (m.starts_with("underflow")) return 4;
  if (m.starts_with("invalid value")) return 8;
  return 0;
}

}  // namespace

std::string flag_names(unsigned flags) {
  static constexpr std::pair<unsigned, const char*> names[] = {
      {1, "divide"}, {2, "overflow"}, {4, "underflow"}, {8, "invalid"}};
  std::string s;
  for (const auto& [bit, name] : names)
    if (flags & bit) s += (s.empty() ? "" : ",") + std::string(name);
  return "{" + s + "}";
}

unsigned compared_flags(const test_case& c, std::string_view name) {
  if (!c.has_flags) return 0;
  unsigned free = c.flags_free;
  const tolerance tol = ulp_bound(name);
  if ((complex_loop(c) ? tol.complex_ulps : tol.real_ulps) != 0)
    free |= static_cast<unsigned>(ufunc::fp_flag::underflow);
  return all_fp_flags & ~free;
}

fp_replay::fp_replay(fp_mode mode, unsigned compared)
    : guard_(changes(mode, compared), [this](std::string_view, unsigned flags) { flags_ |= flags; }) {
  if (mode == fp_mode::warn)
    saved_handler_ = ufunc::set_warning_handler([this](std::string_view m) { warned_ |= flag_of_message(m); });
  warn_ = mode == fp_mode::warn;
}

fp_replay::~fp_replay() {
  if (warn_) ufunc::set_warning_handler(std::move(saved_handler_));
}

ufunc::fp_error_changes fp_replay::changes(fp_mode mode, unsigned compared) {
  const ufunc::fp_policy p = mode == fp_mode::call    ? ufunc::fp_policy::call
                             : mode == fp_mode::raise ? ufunc::fp_policy::raise
                                                      : ufunc::fp_policy::warn;
  auto pick = [&](ufunc::fp_flag k) {
    return mode == fp_mode::call || (compared & static_cast<unsigned>(k)) ? p : ufunc::fp_policy::ignore;
  };
  ufunc::fp_error_changes ch;
  ch.divide = pick(ufunc::fp_flag::divide);
  ch.over = pick(ufunc::fp_flag::overflow);
  ch.under = pick(ufunc::fp_flag::underflow);
  ch.invalid = pick(ufunc::fp_flag::invalid);
  return ch;
}

}  // namespace differential
