// How the operands of a distributed operation reach its output's blocks: the plan is
// made from global facts only (shapes, distributions), so every rank makes the same one,
// and only the routes that move data communicate.
//
//   as_is          a distributed operand with the output's blocks: its local block
//   rows_of        a replicated operand spanning the split axis: this rank's rows of it
//   whole          an operand that broadcasts along the split axis: all of it on every
//                  rank (gathered where it is distributed), or a replicated one as it is
//   redistribute   split along the same axis in other blocks: MPI_Alltoallv to ours
//   scalar         a weak C++ scalar
//
// A distributed operand split along another axis than the output's is a
// distribution_error that says how to bring it over (redistribute()).
#pragma once

#include <span>
#include <string>

#include <ufunc/core/function.hpp>
#include <ufunc/dist/array.hpp>
#include <ufunc/dist/operand.hpp>

#include "agreement.hpp"

namespace ufunc::dist::detail {

/// The output of a distributed operation: its global shape, distribution, communicator.
struct target_layout {
  dim_vector shape;
  dist::distribution layout;
  communicator comm{MPI_COMM_NULL};
};

struct route {
  enum kind_t : unsigned char { scalar, as_is, rows_of, whole, redistribute };
  kind_t kind = scalar;
  int axis = -1;          // rows_of: the operand's axis along the output's split axis
  dist::distribution to;  // redistribute: the blocks it gets
  [[nodiscard]] bool communicates(const operand& op) const noexcept;
};

/// The route of `op` to the blocks of `t` (no communication). `what` names the
/// operation in errors ("ufunc 'add'").
[[nodiscard]] route route_for(const operand& op, const target_layout& t, const std::string& what);

/// This rank's local operand: collective where the route communicates.
[[nodiscard]] ufunc::operand localize(const operand& op, const route& r, const target_layout& t);
[[nodiscard]] ufunc::array localize_array(const operand& op, const route& r, const target_layout& t);

/// The global shape of an array operand (a distributed array's, or a replicated one's).
[[nodiscard]] const dim_vector& global_shape_of(const operand& op);

/// The communicator of the first distributed operand; value_error where none is
/// distributed, distribution_error where two use different communicators.
[[nodiscard]] communicator common_comm(std::span<const operand* const> ops, const std::string& what);

/// One operand for a description (agreement.hpp): its kind, dtype, global shape,
/// distribution and device kind; scalars by their kind only (values may differ).
[[nodiscard]] std::string describe(const operand& op);
/// The same facts mixed into a description's hash.
void mix(description& d, const operand& op);
void mix(description& d, const dist::distribution& layout);

}  // namespace ufunc::dist::detail
