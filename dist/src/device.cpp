#include <ufunc/dist/device.hpp>

#include <ufunc/core/backend.hpp>

namespace ufunc::dist {

ufunc::device local_device(const communicator& comm) {
  // The rank among those on the same host: GPUs are counted per host.
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int node_rank = 0;
  const int got = MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  check_mpi(got, "MPI_Comm_rank");
  const auto* b = ufunc::detail::device_backend();
  const int count = b != nullptr && b->memory != nullptr ? b->memory->device_count() : 0;
  if (count <= 0) return ufunc::device::host();
  return ufunc::device::cuda(node_rank % count);
}

bool uses_nccl() noexcept {
#if defined(UFUNC_HAS_NCCL)
  return true;
#else
  return false;
#endif
}

}  // namespace ufunc::dist
