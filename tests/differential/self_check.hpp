// ufunc_differential --self-check: the comparison on synthetic cases, no NumPy needed.
#pragma once

namespace differential {

// Checks the condition-aware bound (what it accepts and rejects) and that a difference in
// floating-point flags fails under each policy; prints each wrong verdict and a summary.
// Returns the exit status: 0 when every check holds, else 1.
int self_check();

}  // namespace differential
