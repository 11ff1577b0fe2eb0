// Comparing a result of ours with NumPy's, element by element, within the tolerances of
// tolerance.hpp (docs/testing.md, "What is compared").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <ufunc/ufunc.hpp>

#include "case_file.hpp"
#include "tolerance.hpp"

namespace differential {

// "" when `got` (C-ordered bytes of dtype `type`, shape `shape`) matches; otherwise what differs.
std::string compare_result(const expected_result& e, dtype type, const ufunc::dim_vector& shape,
                           const std::vector<std::byte>& got, tolerance tol, bool complex_inputs,
                           const std::vector<double>& abs_tol, const std::string& what,
                           const condition_bound* cond = nullptr);

// A float32 (complex64) loop writing into a float64 (complex128) out= array: the loop's
// result is only accurate to float32's ulps, so both sides are compared as float32
// (complex64) with the bound in those ulps. Only where every element of ours that
// differs from NumPy's is a float32 value: a result computed in float64 instead stays
// a mismatch. Replaces
// `got` by the narrowed bytes and returns the narrowed expectation, or nothing.
std::optional<expected_result> at_loop_precision(const std::string& loop, std::size_t output, const expected_result& e,
                                                 dtype got_type, std::vector<std::byte>& got);

}  // namespace differential
