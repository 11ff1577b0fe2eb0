// New distributed arrays from a global shape, from each rank's block, or from one
// array that every rank holds. Factories with a shape need no communication (every
// rank works out the same blocks); from_local and replicate check collectively that
// the ranks agree.
//
//   ufunc::dist::communicator world;
//   auto a = ufunc::dist::zeros(world, {1000, 3}, ufunc::float64);            // rows split
//   auto b = ufunc::dist::empty(world, {4, 1000}, ufunc::float32, {.axis = 1});
//   auto g = ufunc::dist::arange<std::int64_t>(world, 0, 100, 3);            // 0 3 ... 99
//   auto d = ufunc::dist::zeros(world, {1000}, ufunc::float32,
//                               {.device = ufunc::dist::local_device(world)});   // a GPU per rank
//   auto m = ufunc::dist::from_local(world, my_rows);      // blocks of any lengths, stacked
//   auto r = ufunc::dist::replicate(world, table);         // the same array on every rank
#pragma once

#include <cstdint>
#include <optional>

#include <ufunc/core/array.hpp>
#include <ufunc/core/transfer.hpp>
#include <ufunc/dist/array.hpp>

namespace ufunc::dist {

/// How a new array is split and where its blocks live.
struct placement {
  /// The split axis (np.array_split's blocks along it).
  int axis = 0;
  /// Other blocks than np.array_split's (their axis is the split axis).
  std::optional<dist::distribution> blocks;
  /// Where each rank's block lives: the host, or this rank's GPU (local_device()).
  ufunc::device device{};
};

/// The distribution a factory gives an array of `shape` on `comm` (distribution_error
/// where `where` does not fit the shape).
[[nodiscard]] dist::distribution layout_for(const communicator& comm, const dim_vector& shape,
                                            const placement& where = {});

/// Uninitialized blocks, as np.empty.
[[nodiscard]] array empty(const communicator& comm, const dim_vector& shape, dtype type, const placement& where = {});
/// Zeros, as np.zeros.
[[nodiscard]] array zeros(const communicator& comm, const dim_vector& shape, dtype type, const placement& where = {});

namespace detail {
/// np.arange's length, as ufunc::arange computes it.
[[nodiscard]] std::int64_t arange_length(double start, double stop, double step);
/// Moves a block made on the host to `where` (a copy on a GPU; the host block itself otherwise).
[[nodiscard]] ufunc::array place(const ufunc::array& host, ufunc::device where);
}  // namespace detail

/// start, start + step, ... below stop, split as np.array_split: each rank computes its
/// own rows, with ufunc::arange's values.
template <class T>
[[nodiscard]] array arange(const communicator& comm, T start, T stop, T step = T(1), const placement& where = {}) {
  if (step == T(0)) throw value_error("arange: step must not be zero");
  const std::int64_t n =
      detail::arange_length(static_cast<double>(start), static_cast<double>(stop), static_cast<double>(step));
  const dim_vector shape{n};
  const dist::distribution layout = layout_for(comm, shape, where);
  const std::int64_t first = layout.offset(comm.rank());
  auto block = ufunc::empty<T>({layout.count(comm.rank())});
  for (std::int64_t i = 0; i < block.size(); ++i)
    block.data()[i] = static_cast<T>(start + static_cast<T>(first + i) * step);
  return array(detail::place(block, where.device), shape, layout, comm);
}
template <class T>
[[nodiscard]] array arange(const communicator& comm, T stop, const placement& where = {}) {
  return arange<T>(comm, T(0), stop, T(1), where);
}

/// The array whose blocks are the ranks' `local` arrays, stacked in rank order along
/// `axis` (as np.concatenate). Collective: the ranks' dtypes, devices and other extents
/// must agree (value_error naming the ranks otherwise); blocks may have any lengths, 0
/// included.
[[nodiscard]] array from_local(const communicator& comm, const ufunc::array& local, int axis = 0);

/// A replicated array: every rank passes the same `whole` array (collective: the ranks'
/// dtypes and shapes are checked, not the values).
[[nodiscard]] array replicate(const communicator& comm, const ufunc::array& whole);

}  // namespace ufunc::dist
