// The fused mode of the differential runner: a call case replayed through a one-node
// ufunc::fuse of its ufunc (named as the ufunc, so that errstate's messages compare as
// they are), on target cpu or cuda (a kernel generated from the graph), against NumPy's outcome; a reduce case
// through a fused function that ends in that reduction (on cpu, folded as the graph computes). Cases fusion does
// not take (methods other than reduce, C++ scalars as arguments, signature=, dtype= and casting= of a call, where=
// of a reduction) are skipped with the reason.
#pragma once

#include <ufunc/ufunc.hpp>

#include "case_file.hpp"
#include "replay.hpp"

namespace differential {

run_result replay_fused(const test_case& c, const ufunc::function& f, ufunc::target_id target, bool user);

}  // namespace differential
