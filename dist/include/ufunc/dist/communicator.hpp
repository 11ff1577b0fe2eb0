// The ranks an array is split over: a non-owning handle of an MPI communicator.
//
//   ufunc::dist::communicator world;                       // MPI_COMM_WORLD
//   ufunc::dist::communicator rows(my_split_comm);          // any communicator
//   if (world.rank() == 0) std::printf("%d ranks\n", world.size());
//
// The handle sets the communicator's error handler to MPI_ERRORS_RETURN, so that every
// MPI call of the library can check its return code and throw mpi_error with MPI's
// message instead of aborting the job. ufunc::dist's collectives are ordinary MPI
// collectives on this communicator: every rank must call them in the same order.
#pragma once

#include <mpi.h>

#include <string_view>

namespace ufunc::dist {

/// Throws mpi_error naming `what` and MPI's error string unless `code` is MPI_SUCCESS.
void check_mpi(int code, std::string_view what);

class communicator {
 public:
  /// MPI_COMM_WORLD. MPI must be initialized (MPI_Init, or ufunc::dist::environment).
  communicator();
  /// Any communicator; it must stay valid while arrays on it are used.
  explicit communicator(MPI_Comm comm);

  [[nodiscard]] MPI_Comm get() const noexcept { return comm_; }
  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  /// MPI_Barrier, checked.
  void barrier() const;

  /// The same communicator handle (arrays of one call must share it).
  friend bool operator==(const communicator& a, const communicator& b) noexcept { return a.comm_ == b.comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace ufunc::dist
