#include <ufunc/backends/cuda/rtc/library_headers.hpp>

namespace ufunc::cuda::rtc {

namespace {

// The standard headers the library's device code includes, for NVRTC: each is libcu++'s
// counterpart, with its names made visible in std (NVRTC compiles device code only, where
// std's host implementations are not usable anyway). <cfenv>'s functions are used in host
// code only (ops/common.hpp's raise_fp), which NVRTC does not compile.
#define UFUNC_STD_SHIM(name)                                                                                        \
  header {                                                                                                          \
    name, "#pragma once\n#include <cuda/std/" name ">\nnamespace std { using namespace ::cuda::std; }  // NOLINT\n" \
  }

const header std_shims[] = {
    UFUNC_STD_SHIM("bit"),     UFUNC_STD_SHIM("cmath"),     UFUNC_STD_SHIM("complex"), UFUNC_STD_SHIM("cstddef"),
    UFUNC_STD_SHIM("cstdint"), UFUNC_STD_SHIM("limits"),    UFUNC_STD_SHIM("tuple"),   UFUNC_STD_SHIM("type_traits"),
    UFUNC_STD_SHIM("utility"), {"cfenv", "#pragma once\n"},
};
#undef UFUNC_STD_SHIM

const header embedded[] = {
#include "embedded_headers.inc"
};

}  // namespace

const std::vector<header>& library_headers() {
  static const std::vector<header> all = [] {
    std::vector<header> v(std::begin(std_shims), std::end(std_shims));
    v.insert(v.end(), std::begin(embedded), std::end(embedded));
    return v;
  }();
  return all;
}

std::vector<std::string> library_header_options() { return {"--std=c++20"}; }

}  // namespace ufunc::cuda::rtc
