// A ten-line distributed program (ufunc::dist over MPI): a million float64 values split
// over the ranks, an elementwise call on every rank's block, a sum across the ranks and
// the whole result gathered on rank 0, which checks it against one process's sum.
//   mpirun -np 4 ./distributed
#include <cmath>
#include <cstdio>

#include <ufunc/dist/dist.hpp>

int main(int argc, char** argv) {
  ufunc::dist::environment mpi(argc, argv);                          // MPI_Init ... MPI_Finalize
  ufunc::dist::communicator world;                                   // MPI_COMM_WORLD
  auto x = ufunc::dist::arange<double>(world, 1e6);                  // 0 .. 999999, in blocks of rows
  auto y = ufunc::dist::multiply(ufunc::dist::sin(x), x);            // each rank on its own block
  double total = ufunc::dist::add.reduce(y).local().item<double>();  // the sum, on every rank
  ufunc::array whole = ufunc::dist::gather(y);                       // all of y on rank 0
  if (world.rank() != 0) return 0;
  const double one = ufunc::add.reduce(whole).item<double>();  // one process's sum
  std::printf("%d ranks: sum of x sin x = %.6f (one process: %.6f), y[999999] = %.6f\n", world.size(), total, one,
              whole.at<double>(999999));
  return std::abs(total - one) <= 1e-9 * ufunc::add.reduce(ufunc::absolute(whole)).item<double>() ? 0 : 1;
}
