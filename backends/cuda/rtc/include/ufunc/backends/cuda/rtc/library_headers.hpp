// The library's device code for kernels generated at run time: the built-in operations
// (ufunc::ops), their floating-point rules on the device and the device casts, embedded in
// the library as text at build time and given to NVRTC in memory, with the few standard
// headers they include mapped onto libcu++ (NVRTC has no host standard library). A fused
// expression's kernel calls the very operations of the built-in device loops.
//
//   rtc::compile_request r;
//   r.source = "#include <ufunc/ufuncs/ops.hpp>\n...";
//   r.headers = rtc::library_headers();
//   r.options = rtc::library_header_options();   // C++20, as the headers need
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ufunc::cuda::rtc {

/// A header NVRTC finds by `name` (as `#include <name>` spells it), with its text.
struct header {
  std::string_view name;
  std::string_view text;
};

/// The embedded library headers and the standard-header shims (static storage).
[[nodiscard]] const std::vector<header>& library_headers();

/// The NVRTC options code that includes library_headers() needs (after the defaults).
[[nodiscard]] std::vector<std::string> library_header_options();

}  // namespace ufunc::cuda::rtc
