// One GPU per rank: the device a rank's blocks should live on.
//
//   ufunc::dist::communicator world;
//   auto x = ufunc::dist::zeros(world, {1 << 20}, ufunc::float32,
//                               {.device = ufunc::dist::local_device(world)});
//   auto y = ufunc::dist::sin(x);   // each rank on its own GPU
#pragma once

#include <ufunc/core/device.hpp>
#include <ufunc/dist/communicator.hpp>

namespace ufunc::dist {

/// cuda:(node rank % GPUs on this node), where node rank is the rank among those of
/// `comm` on the same host (MPI_Comm_split_type); the host where this build or machine
/// has no GPU. Collective (it splits the communicator once per call).
[[nodiscard]] ufunc::device local_device(const communicator& comm);

/// Whether collectives on device blocks run through NCCL (a build with UFUNC_ENABLE_NCCL);
/// otherwise device data is staged through host copies.
[[nodiscard]] bool uses_nccl() noexcept;

}  // namespace ufunc::dist
