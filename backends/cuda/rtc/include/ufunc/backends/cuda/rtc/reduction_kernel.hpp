// ufunc::cuda::reduction_kernel: CuPy's ReductionKernel for C++. A map expression over the
// inputs' elements, a reduce expression combining two values `a` and `b`, a post-map
// expression writing the output from the reduced `a`, and the identity, compiled at run time
// (NVRTC) for the dtypes of each call and run over the chosen axes on the GPU.
//
//   ufunc::cuda::reduction_kernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
//   auto n = l2norm(x_dev);                                   // every axis: a 0-d device array
//   auto rows = l2norm(x_dev, {.axis = {1}, .keepdims = true}); // per row, shape (rows, 1)
//
// The inputs (device arrays) broadcast together; the placeholders bind from their dtypes as
// for elementwise_kernel; there is one output, whose dtype is its parameter's; `a` and `b`
// have the reduce type (the output's unless options.reduce_type names another). The
// reduction splits the reduced elements over thread blocks (partial results, then one more
// pass per output), so its order is a tree's: the reduce expression must be associative
// and commutative, as for CuPy. Raw parameters are not supported (value_error).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/backends/cuda/rtc/parameters.hpp>
#include <ufunc/core/array.hpp>
#include <ufunc/core/device_call.hpp>

namespace ufunc::cuda {

struct reduction_kernel_options {
  /// The type of `a` and `b` (CuPy's reduce_type); empty: the output's dtype.
  std::optional<dtype> reduce_type;
  /// Code placed before the kernels: device functions the expressions call.
  std::string preamble;
  /// NVRTC options after the defaults.
  std::vector<std::string> compile_options;
};

struct reduction_call_options {
  /// The axes reduced (negative ones count from the end); empty: every axis.
  std::vector<int> axis;
  /// Keep the reduced axes with extent 1.
  bool keepdims = false;
  /// The stream (default: the library's current stream).
  stream_ref stream;
};

class reduction_kernel {
 public:
  /// Parses the parameter lists and checks the names; compiles nothing yet.
  reduction_kernel(std::string_view in_params, std::string_view out_params, std::string map_expr,
                   std::string reduce_expr, std::string post_map_expr, std::string identity,
                   std::string_view name = "reduce", reduction_kernel_options options = {});

  /// Reduces the inputs (device arrays of one GPU) over options.axis into a new device array.
  [[nodiscard]] array call(std::span<const array> inputs, const reduction_call_options& options = {}) const;
  [[nodiscard]] array operator()(const array& a, const reduction_call_options& options = {}) const;
  [[nodiscard]] array operator()(const array& a, const array& b, const reduction_call_options& options = {}) const;

  /// The CUDA source generated for inputs of these dtypes.
  [[nodiscard]] std::string source(std::span<const dtype> input_types) const;
  [[nodiscard]] const rtc::parameter_list& parameters() const noexcept;

  struct state;

 private:
  std::shared_ptr<state> state_;
};

}  // namespace ufunc::cuda
