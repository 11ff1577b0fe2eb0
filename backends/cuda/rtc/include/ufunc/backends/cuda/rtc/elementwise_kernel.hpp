// ufunc::cuda::elementwise_kernel: CuPy's ElementwiseKernel for C++. A kernel body written
// as a string, compiled at run time (NVRTC) for the dtypes of each call, and run as a ufunc
// on the GPU: broadcasting, out=, where=, casting and streams as for any ufunc call.
//
//   ufunc::cuda::elementwise_kernel hyp("T x, T y", "T z", "z = sqrt(x * x + y * y);", "hyp");
//   auto z = hyp(a_dev, b_dev);                 // T = a_dev's dtype; compiled on first use
//   hyp(a_dev, 2.0f, {.out = {a_dev}});          // a scalar takes its placeholder's dtype
//   hyp.ufunc().types();                         // the loops compiled so far: {"ff->f"}
//   hyp.source({ufunc::float64, ufunc::float64}); // what NVRTC compiles for those dtypes
//
// The placeholders bind from the first argument that has them (parameters.hpp); the
// call then runs the loop of exactly those dtypes. Calls go to target cuda unless the
// options name another; a build without the cuda backend, or a machine without a GPU,
// raises target_error. Compiled kernels are cached in memory and on disk
// (kernel_cache.hpp).
//
// Raw inputs ("raw T table") are passed as they are, not broadcast: the body indexes them
// with a flat C-order index (table[i % table.size()]); they must be device arrays of
// exactly their parameter's dtype (no_loop_error otherwise; raw arrays are not cast) on
// the call's GPU. Raw outputs ("raw T y") are the caller's arrays, written where the body
// chooses (scatters, histograms with atomicAdd): a call with one names every output in out=
// (a raw output is never allocated), and gets them all back in the parameters' order. The
// call's shape is the broadcast parameters' alone; a kernel whose outputs are all raw is a
// ufunc without outputs (nout() == 0). As in CuPy, nothing orders the threads' writes to a
// raw output, and no overlap check covers it.
//
//   ufunc::cuda::elementwise_kernel histogram("T x", "raw int32 bins", "atomicAdd(&bins[(int)x], 1);", "hist");
//   histogram(values_dev, {.out = {bins_dev}});
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/backends/cuda/rtc/parameters.hpp>
#include <ufunc/core/function.hpp>

namespace ufunc::cuda {

struct kernel_options {
  /// Code placed before the kernel: device functions and constants the body uses.
  std::string preamble;
  /// NVRTC options after the defaults (rtc::default_options()), e.g. "--fmad=false".
  std::vector<std::string> compile_options;
};

class elementwise_kernel {
 public:
  /// Parses the parameter lists (value_error on a bad one); compiles nothing yet.
  elementwise_kernel(std::string_view in_params, std::string_view out_params, std::string_view operation,
                     std::string_view name = "kernel", kernel_options options = {});

  /// Runs the kernel: inputs as given, outputs through options.out (allocated otherwise).
  std::vector<array> call(std::span<const operand> inputs, const call_options& options = {}) const;
  array operator()(const operand& a, const call_options& options = {}) const;
  array operator()(const operand& a, const operand& b, const call_options& options = {}) const;
  array operator()(const operand& a, const operand& b, const operand& c, const call_options& options = {}) const;

  /// The ufunc behind the kernel: its name, arity and the loops compiled so far.
  [[nodiscard]] const function& ufunc() const noexcept;
  [[nodiscard]] const rtc::parameter_list& parameters() const noexcept;
  /// The CUDA source generated for inputs of these dtypes (outputs' placeholders bind
  /// from the inputs); no_loop_error where they do not bind.
  [[nodiscard]] std::string source(std::span<const dtype> input_types) const;

  struct state;

 private:
  array run(std::span<const operand> inputs, const call_options& options, std::vector<array>* all) const;
  const std::string& resolve(std::span<const operand> inputs, const out_arrays& outs) const;
  std::shared_ptr<state> state_;
};

}  // namespace ufunc::cuda
