// Replaying a case: running it through ufunc on one target and comparing the outcome
// (results, exception, untouched bytes, floating-point flags) with NumPy's.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include <ufunc/ufunc.hpp>

#include "case_file.hpp"
#include "fp_flags.hpp"

namespace differential {

// What a replay of one case on one target came to.
struct run_result {
  enum class kind { pass, fail, skip } k = kind::pass;
  std::string detail;  // failure description or skip reason
  unsigned flags = 0;  // fp_flag bits our call raised (fp_mode::call)
};

inline run_result skip(std::string why) { return {run_result::kind::skip, std::move(why)}; }
inline run_result fail(std::string why) { return {run_result::kind::fail, std::move(why)}; }

// The library class of `e`, by the names generate_cases.py maps NumPy's exceptions to
// ("no_loop_error", ..., "ufunc::error", "std::exception").
std::string class_of(const std::exception& e);

// Case `c` of ufunc `f` on `target` under the floating-point policy `mode`. `user`: `f` is
// one of the runner's vectorize'd ufuncs (user_ufuncs.hpp). Throws where the runner
// cannot build the case's operands.
run_result run_case(const test_case& c, const ufunc::function& f, ufunc::target_id target, bool user,
                    fp_mode mode = fp_mode::call);

// A call case of a gufunc (matmul, vecdot, matvec, vecmat) on `target`, under 'call'.
run_result replay_gufunc(const test_case& c, const ufunc::gufunc::function& g, ufunc::target_id target);

// Case `c` as the differential test checks it: run_case under `call`, then, where flags
// matter, again under `raise` and `warn` while it passes; a case the runner cannot build
// fails.
run_result replay_case(const test_case& c, const ufunc::function& f, ufunc::target_id target, bool user);

// A reduce case of `f` with `reduce` in f.reduce's place (fused.cpp: a fused function that
// ends in that reduction), checked as replay_case checks.
using reduce_through = std::function<ufunc::array(const ufunc::array&, const ufunc::reduce_options&)>;
run_result replay_reduce_case(const test_case& c, const ufunc::function& f, const reduce_through& reduce,
                              ufunc::target_id target, bool user);

}  // namespace differential
