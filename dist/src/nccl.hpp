// NCCL for device blocks (one GPU per rank), in builds with UFUNC_ENABLE_NCCL: the
// collectives of device data run on the GPUs, on the calls' stream, instead of through
// host copies. One NCCL communicator per MPI communicator and device, made collectively
// (rank 0's ncclUniqueId broadcast through MPI) on the first exchange that needs it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <ufunc/core/device_call.hpp>
#include <ufunc/dist/communicator.hpp>

namespace ufunc::dist::detail {

/// Destroys the NCCL communicators made so far (environment's destructor, before
/// MPI_Finalize); nothing in builds without NCCL.
void release_nccl() noexcept;

#if defined(UFUNC_HAS_NCCL)
/// The all-to-all of byte ranges of device memory on `device` (counts and offsets in bytes).
void nccl_alltoallv(const communicator& comm, int device, const std::byte* send, std::span<const std::int64_t> scounts,
                    std::span<const std::int64_t> sdispls, std::byte* recv, std::span<const std::int64_t> rcounts,
                    std::span<const std::int64_t> rdispls, stream_ref stream);
/// Every rank's `bytes` bytes at `send`, in rank order at `recv` (device memory).
void nccl_allgather(const communicator& comm, int device, const void* send, void* recv, std::size_t bytes,
                    stream_ref stream);
#endif

}  // namespace ufunc::dist::detail
