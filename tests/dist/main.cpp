// The distributed tests: one doctest executable that every rank of an mpirun runs
// (tests/dist/CMakeLists.txt registers dist.np1 to dist.np4). Every test case is
// collective: the ranks run the same cases in the same order, and checks never stop a
// case early (CHECK, not REQUIRE), so that no rank leaves a collective the others are in.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include <ufunc/dist/dist.hpp>

int main(int argc, char** argv) {
  ufunc::dist::environment mpi(argc, argv);
  const ufunc::dist::communicator world;
  doctest::Context context(argc, argv);
  // Rank 0 reports as usual; the others report their failures only.
  if (world.rank() != 0) {
    context.setOption("minimal", true);
    context.setOption("no-intro", true);
  } else {
    std::printf("ufunc::dist tests on %d rank%s (device collectives: %s)\n", world.size(), world.size() == 1 ? "" : "s",
                ufunc::dist::uses_nccl() ? "NCCL" : "host staging");
  }
  const int failed = context.run();
  // One verdict for the job: a rank whose checks failed fails mpirun too, but make sure
  // every rank is done before any of them finalizes.
  int any = failed != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, world.get());
  if (world.rank() == 0 && any != 0) std::printf("ufunc::dist tests: a rank had failures\n");
  return any;
}
