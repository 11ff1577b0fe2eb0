#include "nccl.hpp"

#if defined(UFUNC_HAS_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <ufunc/core/backend.hpp>
#include <ufunc/dist/error.hpp>
#endif

namespace ufunc::dist::detail {

#if defined(UFUNC_HAS_NCCL)

namespace {

struct registry {
  std::mutex mutex;
  std::map<std::pair<MPI_Comm, int>, ncclComm_t> comms;
};
registry& nccl_registry() {
  static registry r;
  return r;
}

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw mpi_error(std::string(what) + " failed: " + ncclGetErrorString(r), MPI_ERR_OTHER);
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw mpi_error(std::string(what) + " failed: " + cudaGetErrorString(e), MPI_ERR_OTHER);
}

// Made on first use by every rank at once (each rank reaches it through the same
// agreed exchange): rank 0's unique id goes to the others through MPI.
ncclComm_t comm_for(const communicator& comm, int device) {
  auto& reg = nccl_registry();
  std::lock_guard lock(reg.mutex);
  const auto key = std::make_pair(comm.get(), device);
  if (const auto it = reg.comms.find(key); it != reg.comms.end()) return it->second;
  // NCCL refuses two ranks of one communicator on one GPU; every rank learns whether any
  // host has that (ranks beyond its GPUs), and all say so in the same words.
  int shared = 0;
  {
    MPI_Comm node = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    int n = 0;
    MPI_Comm_size(node, &n);
    std::vector<int> devices(static_cast<std::size_t>(n));
    const int got = MPI_Allgather(&device, 1, MPI_INT, devices.data(), 1, MPI_INT, node);
    MPI_Comm_free(&node);
    check_mpi(got, "MPI_Allgather");
    std::sort(devices.begin(), devices.end());
    shared = std::adjacent_find(devices.begin(), devices.end()) != devices.end() ? 1 : 0;
  }
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT, MPI_MAX, comm.get()), "MPI_Allreduce");
  if (shared != 0)
    throw distribution_error(
        "ufunc::dist: NCCL needs one GPU per rank, and ranks on one host share a GPU: start at most as many ranks per "
        "host as it has GPUs, or build with UFUNC_ENABLE_NCCL=OFF (device data through host copies)");
  ncclUniqueId id{};
  if (comm.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  check_mpi(MPI_Bcast(&id, static_cast<int>(sizeof id), MPI_BYTE, 0, comm.get()), "MPI_Bcast");
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  ncclComm_t c = nullptr;
  check_nccl(ncclCommInitRank(&c, comm.size(), id, comm.rank()), "ncclCommInitRank");
  reg.comms.emplace(key, c);
  return c;
}

// The stream the library's calls use unless told otherwise, so that NCCL's work is
// ordered after the local calls that produced the data and before those that use it.
cudaStream_t stream_of(stream_ref s) {
  if (s.handle == nullptr)
    if (const auto* b = ufunc::detail::device_backend(); b != nullptr && b->memory != nullptr)
      s = b->memory->current_stream();
  return static_cast<cudaStream_t>(s.handle);
}

}  // namespace

void nccl_alltoallv(const communicator& comm, int device, const std::byte* send, std::span<const std::int64_t> scounts,
                    std::span<const std::int64_t> sdispls, std::byte* recv, std::span<const std::int64_t> rcounts,
                    std::span<const std::int64_t> rdispls, stream_ref stream) {
  ncclComm_t c = comm_for(comm, device);
  // NCCL has no all-to-all: grouped sends and receives, one pair per peer, as NCCL's
  // documentation builds it.
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < comm.size(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (scounts[i] > 0)
      check_nccl(ncclSend(send + sdispls[i], static_cast<std::size_t>(scounts[i]), ncclChar, r, c, stream_of(stream)),
                 "ncclSend");
    if (rcounts[i] > 0)
      check_nccl(ncclRecv(recv + rdispls[i], static_cast<std::size_t>(rcounts[i]), ncclChar, r, c, stream_of(stream)),
                 "ncclRecv");
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
}

void nccl_allgather(const communicator& comm, int device, const void* send, void* recv, std::size_t bytes,
                    stream_ref stream) {
  ncclComm_t c = comm_for(comm, device);
  check_nccl(ncclAllGather(send, recv, bytes, ncclChar, c, stream_of(stream)), "ncclAllGather");
}

void release_nccl() noexcept {
  auto& reg = nccl_registry();
  std::lock_guard lock(reg.mutex);
  for (auto& [key, c] : reg.comms) ncclCommDestroy(c);
  reg.comms.clear();
}

#else

void release_nccl() noexcept {}

#endif

}  // namespace ufunc::dist::detail
