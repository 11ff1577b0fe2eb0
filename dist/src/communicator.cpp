#include <ufunc/dist/communicator.hpp>

#include <string>

#include <ufunc/dist/error.hpp>

namespace ufunc::dist {

void check_mpi(int code, std::string_view what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  std::string message = std::string(what) + " failed: ";
  if (MPI_Error_string(code, text, &length) == MPI_SUCCESS && length > 0)
    message.append(text, static_cast<std::size_t>(length));
  else
    message += "MPI error code " + std::to_string(code);
  throw mpi_error(message, code);
}

communicator::communicator() : communicator(MPI_COMM_WORLD) {}

communicator::communicator(MPI_Comm comm) : comm_(comm) {
  if (comm == MPI_COMM_NULL) {  // the handle of a null dist::array
    size_ = 0;
    return;
  }
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized == 0 || finalized != 0)
    throw mpi_error(
        "ufunc::dist::communicator: MPI is not initialized (call MPI_Init, or create a ufunc::dist::environment, "
        "first)",
        MPI_ERR_OTHER);
  // Errors as return codes, so that each call's failure becomes an mpi_error with MPI's
  // message where the default handler would abort every rank.
  check_mpi(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
}

void communicator::barrier() const { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

}  // namespace ufunc::dist
