// The CUDA source of an elementwise kernel: the body of a ufunc::cuda::elementwise_kernel
// run over tiles of the broadcast operands, one instantiation per
// dimension count and mask, for NVRTC (compiler.hpp).
//
//   auto p = parse_parameters("T x, T y", "T z");
//   auto s = elementwise_source(p, {ufunc::float32}, "z = sqrt(x * x + y * y);", "hyp", "");
//   s.source                 // what NVRTC compiles (inspectable without a GPU)
//   s.name_expressions[k]    // "_ufunc_elementwise<1, false>", ...: the kernels to launch
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/backends/cuda/rtc/parameters.hpp>
#include <ufunc/core/dtype.hpp>

namespace ufunc::cuda::rtc {

/// The dimension counts a kernel is instantiated for: a call whose coalesced iteration
/// has ndim dimensions runs the first instantiation with at least that many. 0 is one
/// contiguous dimension (every operand's stride its element's size, the operand_bytes of
/// its program): the offsets are the flat index times constants (no strides to multiply),
/// which took add at 2^20 float32 elements from 10.3-10.7 us to 10.0-10.3 on the H200 (the
/// built-in contiguous kernel's shape: 9.7-10.0; bench/rtc_generated_probe.cu).
inline constexpr int elementwise_dims[] = {0, 1, 2, 3, 64};

/// A generated kernel's block: elementwise_block_threads threads, each taking
/// elementwise_items_per_thread elements (a block's tile is their product).
inline constexpr int elementwise_block_threads = 256;
inline constexpr int elementwise_items_per_thread = 4;

/// The launch ABI of a generated kernel (what the launcher passes, by value, in order):
///   1. `_ufunc::call<max(ND, 1), B>`: { long long size; long long shape[ND]; long long strides[B][ND];
///      char* base[B]; } over the B broadcast operands: the non-raw inputs, the non-raw
///      outputs, then the bool mask where the instantiation has one. Dimension 0 is the
///      innermost; strides are in bytes.
///   2. `_ufunc::fp_sink`: { unsigned long long* flags; unsigned long long* tag;
///      unsigned long long seq; }, the call's device_fp_sink (core/device_call.hpp); where
///      flags is set (errstate gathers), the kernel reports `invalid` for a NaN result of
///      non-NaN inputs and `overflow` for an infinite result of finite inputs, the rule of
///      every user functor on the cuda target.
///   3. one `_ufunc::raw<T>` per raw parameter, in declaration order:
///      { char* data; long long size; int ndim; long long shape[64]; long long strides[64]; },
///      indexed by the body with a flat C-order index (x[k]).
struct elementwise_program {
  std::string source;
  /// "_ufunc_elementwise<ND, WHERE>" for each ND of elementwise_dims, WHERE false then true.
  std::vector<std::string> name_expressions;
  /// Broadcast operands (non-raw parameters), without the mask.
  int broadcast_operands = 0;
  /// The element size of each broadcast operand, then the mask's (1): the strides of a call
  /// that the contiguous instantiation (ND 0) runs. 0 for an input read once
  /// (source_options::read_once), whose strides are all 0.
  std::vector<long long> operand_bytes;
  /// Whether the source includes the library's headers (float16 and bfloat16 parameters):
  /// compile it with library_headers() and library_header_options() (library_headers.hpp).
  bool library_headers = false;
};

/// The CUDA C++ type of a dtype in generated code ("float", "_ufunc::complex64").
[[nodiscard]] std::string_view device_type_name(ufunc::dtype t) noexcept;

/// The type a body computes values of `t` in: float for float16 and bfloat16, else
/// device_type_name(t). What a placeholder bound to `t` names.
[[nodiscard]] std::string_view computed_type_name(ufunc::dtype t) noexcept;

/// What generated code declares before its kernels: libcu++'s complex types where a
/// parameter's dtype (or one of `extra`) is complex, then each placeholder as a typedef of
/// its bound dtype ("typedef float T;").
[[nodiscard]] std::string type_prelude(const parameter_list& p, std::span<const ufunc::dtype> bound,
                                       std::span<const ufunc::dtype> extra = {});

/// How elementwise_source generates a kernel beyond its parameters and body.
struct source_options {
  /// The body classifies its own floating-point flags, or-ing fp_flag bits into
  /// `unsigned _flags` where `_fp.flags` is set (a fused expression applies each node's rule),
  /// instead of the generic rule of the launch ABI above.
  bool body_flags = false;
  /// float16 and bfloat16 parameters: the body computes in float, as NumPy does float16:
  /// such an input is a `const float`, an output (and a raw parameter's element) a
  /// `_ufunc::half_ref` that reads as float and rounds each value assigned to it once, and a
  /// placeholder bound to them names float. Off (a fused expression, whose steps convert
  /// themselves), they are the library's float16_t / bfloat16_t values.
  bool widen_half = true;
  /// Per parameter (empty: none): a non-raw input that every call passes as a 0-d operand
  /// (a fused function's C++ scalar argument), which the kernel reads once, before its
  /// elements, instead of once per element. Its operand_bytes is 0, so a call whose other
  /// operands are contiguous runs the contiguous instantiation; the launcher refuses a call
  /// where such an operand has a nonzero stride. Its name is bound once, in the kernel's
  /// scope, before `prologue`.
  std::vector<bool> read_once;
  /// Code each thread runs once, before its elements (after the read-once inputs, which it
  /// sees by their names): what it declares, the body sees. A fused expression computes
  /// there its steps whose operands are all constants or read-once inputs, so that no
  /// element repeats them, nor keeps their wider operands live.
  std::string prologue;
};

/// Generates the kernel for `p` with its placeholders bound to `bound`. The body sees each
/// non-raw input as a const value of its type, each non-raw output as a reference, each
/// raw parameter as a `_ufunc::raw<T>`, `i` (the flat index), `_ind.size()` (the number of
/// elements), and the placeholders as type names; `preamble` goes before the kernel
/// (device functions the body calls). `name` must be a C identifier (value_error).
[[nodiscard]] elementwise_program elementwise_source(const parameter_list& p, std::span<const ufunc::dtype> bound,
                                                     std::string_view body, std::string_view name,
                                                     std::string_view preamble, const source_options& options = {});

}  // namespace ufunc::cuda::rtc
