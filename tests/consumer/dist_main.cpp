// Links the installed ufunc::dist (distributed arrays over MPI), as an MPI application
// would: built by the consumer test where the package has it.
#include <cstdio>

#include <ufunc/dist/dist.hpp>

int main(int argc, char** argv) {
  ufunc::dist::environment mpi(argc, argv);
  ufunc::dist::communicator world;
  auto x = ufunc::dist::arange<float>(world, 100.0f);
  const float total = ufunc::dist::add.reduce(ufunc::dist::multiply(x, 2.0f)).local().item<float>();
  if (world.rank() == 0) std::printf("consumer_dist: sum(2 * arange(100)) = %g on %d ranks\n", total, world.size());
  return total == 9900.0f ? 0 : 1;
}
