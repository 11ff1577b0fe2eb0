// Ufunc calls on distributed arrays. Each rank runs the ordinary call on its blocks,
// after the operands are brought to the output's blocks:
//
// * distributed operands with the output's blocks are used as they are (no communication);
// * operands split along the same axis in other blocks are redistributed (MPI_Alltoallv);
// * operands that broadcast along the split axis (length 1 there, or fewer axes) and
//   are distributed are gathered on every rank: they are the small ones;
// * ordinary arrays are replicated operands: each rank takes its rows of them;
// * operands split along another axis are a distribution_error (redistribute them first).
//
// out=, where=, dtype=, signature=, casting=, order= and target= are those of a local
// call. Floating-point errors are reported once, collectively: the flags the ranks
// raised are OR-ed and the caller's errstate applied on every rank (raise throws on all
// of them; warn warns on rank 0 only). An error on one rank is an error on all.
//
//   auto z = ufunc::dist::call(ufunc::add, x, y);                 // any ufunc::function
//   auto w = ufunc::dist::add(x, 2.0f);                           // the built-ins' handles
//   ufunc::dist::multiply(x, y, {.out = {x}, .where = mask});     // in place, masked
//   auto qr = ufunc::dist::call(ufunc::divmod, {x, 3});          // every output
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <ufunc/core/casting.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/dist/array.hpp>
#include <ufunc/dist/operand.hpp>

namespace ufunc::dist {

/// NumPy's keyword arguments to a ufunc call, distributed.
struct call_options {
  /// Distributed outputs (nout of them, or none to allocate). Their distribution is the
  /// call's: the inputs are brought to it.
  std::vector<dist::array> out;
  /// A bool mask: distributed, or an ordinary array (replicated).
  operand where;
  std::optional<ufunc::dtype> dtype;
  std::string_view signature;
  ufunc::casting casting = ufunc::casting::same_kind;
  ufunc::order order = ufunc::order::K;
  /// The target of each rank's local call (cpu, parallel, cuda for device blocks).
  std::optional<target_id> target;
  stream_ref stream;
};

/// The general call: any arity, every output returned.
std::vector<dist::array> call(const ufunc::function& f, std::span<const operand> inputs,
                              const call_options& options = {});
inline std::vector<dist::array> call(const ufunc::function& f, std::initializer_list<operand> inputs,
                                     const call_options& options = {}) {
  return call(f, std::span<const operand>(inputs.begin(), inputs.size()), options);
}
/// A call's first output (f of one, two or three inputs).
dist::array call(const ufunc::function& f, const operand& a, const call_options& options = {});
dist::array call(const ufunc::function& f, const operand& a, const operand& b, const call_options& options = {});
dist::array call(const ufunc::function& f, const operand& a, const operand& b, const operand& c,
                 const call_options& options = {});

}  // namespace ufunc::dist
