// A reduction over values that are computed where the reduction reads them instead of
// read from an array: a fused function ending in ufunc.reduce (fusion/) produces the
// reduced operand piece by piece, in the pieces and order the fold reads an array in
// (core/src/fold.cpp), so no temporary of the operand's size is written and the sums
// keep their grouping: the result is that of ufunc.reduce over the materialized array,
// bit for bit. Not part of the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <ufunc/core/array.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/methods.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc::detail {

/// The values of an array of `shape()`, `type()` and `strides()` that is never written:
/// dense in some axis order (core/detail/layout.hpp), as the call computing them would
/// allocate it, since the fold's grouping follows the layout.
class value_source {
 public:
  value_source() = default;
  value_source(const value_source&) = delete;
  value_source& operator=(const value_source&) = delete;
  virtual ~value_source() = default;

  [[nodiscard]] virtual const dim_vector& shape() const noexcept = 0;
  [[nodiscard]] virtual dtype type() const noexcept = 0;
  /// Byte strides, positive.
  [[nodiscard]] virtual const dim_vector& strides() const noexcept = 0;
  /// Whether `a` may share memory with what the values are computed from (out= of the
  /// reduction then accumulates apart and is written at the end).
  [[nodiscard]] virtual bool may_share_memory(const array& a) const = 0;
  /// What the floating-point flags raised while producing are reported under (errstate):
  /// the fused function's name; the reduction's own flags stay "reduce".
  [[nodiscard]] virtual const std::string& name() const noexcept = 0;
  /// Writes the elements at element offsets first + k * step (in the strides() layout), k < n, to
  /// to + k * to_step bytes. Called concurrently from the threads of a parallel target.
  virtual void produce(std::int64_t first, std::int64_t step, std::int64_t n, std::byte* to,
                       std::int64_t to_step) const = 0;
};

/// function::reduce over the values `source` produces, on host target `t`: NumPy's checks,
/// the loop, the grouping of the sums and the result are those of `f.reduce(a, options)`
/// with `a` holding the values (options.where and device arrays are not taken). The
/// flags raised while producing are reported under source.name() before the reduction's.
[[nodiscard]] array reduce_produced(const function& f, const value_source& source, const reduce_options& options,
                                    target_id t);

}  // namespace ufunc::detail
