// CUDA C++ source to a CUBIN at run time, through NVRTC, loaded when first used
// (dlopen of libnvrtc from the CUDA Toolkit): a program that never compiles a kernel
// runs without the toolkit.
//
//   ufunc::cuda::rtc::compile_request r;
//   r.source = "extern \"C\" __global__ void twice(float* x) { x[threadIdx.x] *= 2; }";
//   r.name = "twice.cu";
//   r.architecture = 90;                       // sm_90: a CUBIN for exactly that GPU
//   auto out = ufunc::cuda::rtc::compile(r);   // out.cubin; compile_error with the log on failure
#pragma once

#include <string>
#include <vector>

#include <ufunc/backends/cuda/rtc/library_headers.hpp>

namespace ufunc::cuda::rtc {

struct compile_request {
  std::string source;
  /// The program's name in the log ("hyp.cu").
  std::string name = "kernel.cu";
  /// Options added to the defaults (see default_options()), as nvcc spells them.
  std::vector<std::string> options;
  /// Template instantiations or overloads whose mangled names the caller needs
  /// ("kernel<float, 1>"); compile_result::lowered_names has them in the same order.
  std::vector<std::string> name_expressions;
  /// The GPU's compute capability as major * 10 + minor (90 for sm_90).
  int architecture = 0;
  /// Headers given to NVRTC in memory, by the name `#include <...>` uses (the library's
  /// own: library_headers()); the texts must outlive the call. A cache key covers them.
  std::vector<header> headers;
};

struct compile_result {
  std::string cubin;
  std::vector<std::string> lowered_names;
  /// NVRTC's log (warnings), empty when it had nothing to say.
  std::string log;
};

/// The options every compile gets before the request's: C++17, the toolkit's include
/// folders (NVRTC has none of its own), and the floating-point flags the library's
/// built-in device loops are compiled with (nvcc's defaults), spelled out so that a
/// kernel body computes what the built-in loop of the same expression computes: no
/// flush-to-zero, IEEE division and square root, and a * b + c contracted to a fused
/// multiply-add as nvcc does (--fmad=false in the request's options turns that off, for
/// NumPy's two roundings).
[[nodiscard]] std::vector<std::string> default_options();

/// Compiles `r` to a CUBIN. An option of the request that sets what a default sets
/// ("--std=c++20", "--fmad=false") replaces that default. Throws compile_error (NVRTC's log and the source with line
/// numbers) when the source does not compile, target_error when NVRTC cannot be loaded
/// (naming the libraries and folders tried, and UFUNC_CUDA_PATH), value_error for an
/// architecture NVRTC does not support.
[[nodiscard]] compile_result compile(const compile_request& r);

/// NVRTC's version as major * 1000 + minor * 10 (13000 for 13.0); target_error where it
/// cannot be loaded.
[[nodiscard]] int nvrtc_version();

/// What identifies the NVRTC that compile() uses, part of every kernel cache key: the
/// toolkit's libnvrtc file with its size and modification time, found without loading it
/// (so that a disk cache hit does not load NVRTC), or NVRTC's version where the library
/// comes from the loader's search path.
[[nodiscard]] std::string compiler_identity();

/// Whether NVRTC can be loaded here (tests that compile skip themselves otherwise).
[[nodiscard]] bool nvrtc_available() noexcept;

/// `source` with its line numbers ("  12 | z = x + y;"), for error messages.
[[nodiscard]] std::string numbered_source(const std::string& source);

}  // namespace ufunc::cuda::rtc
