// Which floating-point flags a case compares, and the policies a replay runs under.
#include "fp_flags.hpp"

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

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

// Whether the elements hold a NaN (a NaN part), or an infinity (an infinite part).
struct nonfinite {
  bool nan = false, inf = false;
  void add(double x) {
    nan |= std::isnan(x);
    inf |= std::isinf(x);
  }
  void add_bytes(ufunc::dtype type, const std::vector<std::byte>& data) {
    const auto scan = [&]<class T>(T) {
      for (std::size_t k = 0; k + sizeof(T) <= data.size(); k += sizeof(T)) {
        T x;
        std::memcpy(&x, data.data() + k, sizeof(T));
        add(static_cast<double>(x));
      }
    };
    switch (type.type_id()) {
      case ufunc::dtype::id::float32:
      case ufunc::dtype::id::complex64:  // the parts in turn
        scan(float{});
        break;
      case ufunc::dtype::id::float64:
      case ufunc::dtype::id::complex128:
        scan(double{});
        break;
      case ufunc::dtype::id::float16:
        scan(ufunc::float16_t{});
        break;
      case ufunc::dtype::id::bfloat16:
        scan(ufunc::bfloat16_t{});
        break;
      default:
        break;
    }
  }
};

}  // namespace

unsigned device_compared_flags(const test_case& c, unsigned compared) {
  nonfinite in, out;
  for (const auto& i : c.inputs) {
    if (!i.is_scalar) {
      in.add_bytes(i.arr.type, i.arr.data);
    } else if (i.scalar.kind == 'f' || i.scalar.kind == 'c') {
      in.add(i.scalar.re);
      in.add(i.scalar.im);
    }
  }
  if (c.initial) in.add(c.initial->re), in.add(c.initial->im);
  for (const auto& o : c.outs)
    if (o.alias < 0) in.add_bytes(o.arr.type, o.arr.data);  // where= keeps an output's own values
  for (const auto& e : c.expected) out.add_bytes(e.type, e.data);
  constexpr auto divide = static_cast<unsigned>(ufunc::fp_flag::divide),
                 overflow = static_cast<unsigned>(ufunc::fp_flag::overflow),
                 underflow = static_cast<unsigned>(ufunc::fp_flag::underflow),
                 invalid = static_cast<unsigned>(ufunc::fp_flag::invalid);
  unsigned unseen = underflow;
  if (!(out.nan && !in.nan)) unseen |= invalid;
  if (!(out.inf && !in.inf))
    unseen |= divide | overflow;
  else if ((c.np_flags & (divide | overflow)) == (divide | overflow))
    unseen |= overflow;
  return compared & ~(unseen & c.np_flags);
}

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
