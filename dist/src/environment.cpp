#include <ufunc/dist/environment.hpp>

#include <mpi.h>

#include <ufunc/dist/communicator.hpp>

#include "nccl.hpp"

namespace ufunc::dist {

environment::environment(int& argc, char**& argv) {
  int initialized = 0;
  check_mpi(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized != 0) return;
  int provided = 0;
  check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  owns_ = true;
}

environment::environment() {
  int initialized = 0;
  check_mpi(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized != 0) return;
  int provided = 0;
  check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  owns_ = true;
}

environment::~environment() {
  if (!owns_) return;
  detail::release_nccl();  // NCCL's communicators go before MPI's (they were made through it)
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

}  // namespace ufunc::dist
