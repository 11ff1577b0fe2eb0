// What the unit tests that compile with NVRTC (test suite "nvrtc", ctest unit.nvrtc) share.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <ufunc/backends/cuda/rtc/compiler.hpp>

#include <doctest/doctest.h>

namespace ufunc_test {

// The NVRTC tests need the CUDA Toolkit's NVRTC (not a GPU). Where it is missing they
// say SKIPPED (ctest reports unit.nvrtc as skipped), except under CI, whose machine has
// the toolkit: there a missing NVRTC fails.
inline bool nvrtc_or_skip() {
  if (ufunc::cuda::rtc::nvrtc_available()) return true;
  if (const char* ci = std::getenv("CI"); ci != nullptr && *ci != '\0') {
    FAIL("NVRTC (libnvrtc from the CUDA Toolkit) cannot be loaded, and CI must run the run-time compile tests");
  }
  std::printf("SKIPPED: NVRTC (libnvrtc from the CUDA Toolkit) cannot be loaded here; set UFUNC_CUDA_PATH\n");
  return false;
}

// Options for a compile that is checked, never launched: NVRTC's fastest setting. Its front
// end is the same, so every error a source can have in C++ still shows; the sweeps of every
// loop took 2.5 minutes on the 2-core machine without it.
inline void compile_check_only(ufunc::cuda::rtc::compile_request& r) { r.options.emplace_back("--Ofast-compile=max"); }

}  // namespace ufunc_test
