// Moving distributed data: from one rank's array to blocks (scatter), from blocks to one
// rank or to all (gather, allgather), and from one distribution to another
// (redistribute, through MPI_Alltoallv). Device blocks go through host copies (or NCCL
// where the library was built with it): device pointers are never handed to MPI.
//
//   ufunc::dist::communicator world;
//   ufunc::array whole;                                   // significant on rank 0 only
//   if (world.rank() == 0) whole = load_table();
//   auto t = ufunc::dist::scatter(world, whole);          // blocks of rows
//   auto back = ufunc::dist::gather(t);                   // the whole array on rank 0
//   auto cols = ufunc::dist::redistribute(t, ufunc::dist::distribution::blocks(t.global_shape()[1],
//                                                                            world.size(), 1));
#pragma once

#include <ufunc/core/array.hpp>
#include <ufunc/dist/array.hpp>
#include <ufunc/dist/factories.hpp>

namespace ufunc::dist {

/// Splits `whole`, which only `root` needs to pass (the others' argument is ignored),
/// into the blocks `where` asks for (its device is where the blocks go). Collective.
[[nodiscard]] array scatter(const communicator& comm, const ufunc::array& whole, int root = 0,
                            const placement& where = {});

/// The whole array on `root` (C order, on the device of root's block); a null array on
/// the other ranks. Collective.
[[nodiscard]] ufunc::array gather(const array& a, int root = 0);

/// The whole array on every rank (C order, on the device of each rank's block). Collective.
[[nodiscard]] ufunc::array allgather(const array& a);

/// The same array with the blocks of `to`, along the same split axis or another one,
/// or replicated: each rank sends every other rank the part of its block that the other
/// holds afterwards (one MPI_Alltoallv). From a replicated array no data moves. Collective.
[[nodiscard]] array redistribute(const array& a, const distribution& to);

}  // namespace ufunc::dist
