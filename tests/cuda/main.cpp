// The CUDA test executable: runs where a CUDA device exists; elsewhere it reports
// itself skipped (ctest SKIP_RETURN_CODE), never passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include <ufunc/core/transfer.hpp>

int main(int argc, char** argv) {
  if (!ufunc::cuda_available()) {
    std::printf("SKIPPED: no CUDA device on this machine; the CUDA tests did not run\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
