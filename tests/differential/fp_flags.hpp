// Floating-point flags (docs/testing.md, "Floating-point flags"): every case is
// replayed under the `call` policy, whose function records the flags our call
// raised, and they must be NumPy's in every kind the case compares (the generator
// leaves out, per case, the kinds whose NumPy flags are not a property of the
// operation: flags_free). Cases with flags, and every 8th, are replayed again under
// `raise` and `warn`, which must act on exactly NumPy's kinds.
#pragma once

#include <string>
#include <string_view>

#include <ufunc/core/errstate.hpp>
#include <ufunc/ufunc.hpp>

#include "case_file.hpp"

namespace differential {

// The policy a replay runs under (fp_replay).
enum class fp_mode { call, raise, warn };
constexpr unsigned all_fp_flags = 15;  // divide 1, overflow 2, underflow 4, invalid 8 (ufunc::fp_flag)

// "{divide,overflow}": the kinds of `flags` (ufunc::fp_flag bits), for messages.
std::string flag_names(unsigned flags);

// The kinds compared for case `c` of ufunc `name`: all four, less those the generator leaves
// out for this case (flags_free), less underflow where the loop is not correctly rounded (its
// ulp bound is not 0): an approximation raises underflow in its intermediate steps, or not,
// as its polynomial goes (NumPy's own differ between its AVX-512 and baseline loops: float32
// cos of a tiny argument underflows in the former), and complex products and quotients
// underflow in parts the formula chooses.
unsigned compared_flags(const test_case& c, std::string_view name);

// On the GPU there are no status flags: a kernel reads each element's kinds from its inputs and
// result (backends/cuda/fp_flags.hpp), so a kind that NumPy's host loop raises in an
// intermediate step that the results do not show cannot be seen there (an `invalid` from
// comparing a NaN input, an `overflow` of x - y inside logaddexp's finite result, an
// underflow of an inexact step). Of the kinds NumPy raised, a device case compares those the
// results show: `invalid` where an output has a NaN and no input does, `divide` and `overflow`
// where an output has an infinity and no input does (`divide` alone where NumPy raised both);
// never underflow. Kinds NumPy did not raise stay compared: the device may not raise them.
unsigned device_compared_flags(const test_case& c, unsigned compared);

// The policies of a replay, and what they saw. `call`: every kind calls the recording
// function (the kinds not compared too, so that a failure can show them); `raise` and
// `warn`: the compared kinds only, the others are ignored.
class fp_replay {
 public:
  fp_replay(fp_mode mode, unsigned compared);
  ~fp_replay();
  fp_replay(const fp_replay&) = delete;
  fp_replay& operator=(const fp_replay&) = delete;
  [[nodiscard]] unsigned flags() const { return flags_; }
  [[nodiscard]] unsigned warned() const { return warned_; }

 private:
  static ufunc::fp_error_changes changes(fp_mode mode, unsigned compared);
  unsigned flags_ = 0, warned_ = 0;
  bool warn_ = false;
  ufunc::warning_handler saved_handler_;
  ufunc::errstate guard_;
};

}  // namespace differential
