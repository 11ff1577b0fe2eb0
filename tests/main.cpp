// The single doctest executable of the unit tests.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <ufunc/ufuncs/builtins.hpp>

// ctest's SKIP_RETURN_CODE: the run asked for an instruction set this CPU lacks.
constexpr int skipped = 77;

int main(int argc, char** argv) {
  if (const char* want = std::getenv("UFUNC_SIMD_ARCH"); want && *want && ufunc::simd_arch() != want) {
    std::printf("SKIPPED: UFUNC_SIMD_ARCH=%s requested, but this CPU runs '%.*s' at best\n", want,
                static_cast<int>(ufunc::simd_arch().size()), ufunc::simd_arch().data());
    return skipped;
  }
  std::printf("built-in ufunc loops: %.*s\n", static_cast<int>(ufunc::simd_arch().size()), ufunc::simd_arch().data());
  doctest::Context context(argc, argv);
  return context.run();
}
