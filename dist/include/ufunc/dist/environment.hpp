// MPI's lifetime for a program's main: initializes MPI (unless already done) and
// finalizes it at the end of the scope if it initialized it.
//
//   int main(int argc, char** argv) {
//     ufunc::dist::environment mpi(argc, argv);
//     ufunc::dist::communicator world;
//     ...
//   }
#pragma once

namespace ufunc::dist {

class environment {
 public:
  /// MPI_Init_thread with MPI_THREAD_FUNNELED (the library calls MPI from the calling
  /// thread only; the parallel target's worker threads never do).
  environment(int& argc, char**& argv);
  environment();
  ~environment();
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

 private:
  bool owns_ = false;
};

}  // namespace ufunc::dist
