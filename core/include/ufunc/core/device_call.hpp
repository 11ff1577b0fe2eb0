// What a device backend receives to run one loop: the coalesced iteration plan over
// device pointers, and the stream. Plain data, so the core needs no CUDA headers.
#pragma once

#include <cstddef>
#include <cstdint>

#include <ufunc/core/config.hpp>

namespace ufunc {

/// A CUDA stream, as an opaque handle (cudaStream_t); null means the library's
/// default stream for the calling thread (see backends/cuda/runtime.hpp).
struct stream_ref {
  void* handle = nullptr;
};

/// Where a device loop reports floating-point errors (errstate on the GPU, which
/// has no status flags: the kernels classify results as NumPy's host loops would
/// raise flags). `flags` is this call's slot in mapped pinned host memory, one byte
/// per kind (divide, overflow, underflow, invalid, a negative integer exponent), which
/// the host reads once the call has completed; `tag` is a word in device memory that
/// lets a kernel touch the host slot only once per new kind of error, tagged with
/// `seq` so that it needs no clearing between the calls that reuse it. Null
/// `flags`: the calling thread's policies ignore every kind, nothing is classified.
struct device_fp_sink {
  /// The kinds a slot holds, a byte each: fp_flag's four bits, then this one, which is
  /// not a floating-point kind: an integer power met a negative exponent (NumPy's
  /// ValueError; the device functor cannot throw, the call does).
  static constexpr unsigned negative_power = 16;
  static constexpr int kinds = 5;

  unsigned long long* flags = nullptr;
  unsigned long long* tag = nullptr;
  unsigned long long seq = 0;
  /// The fp_flag bits whose policy is not 'ignore' on the calling thread: a kernel may leave
  /// the other kinds unclassified (a fused kernel classifies its nodes only where a value is
  /// non-finite, unless underflow is wanted).
  unsigned long long active = 0;
};

struct device_call {
  int nin = 0;
  int nout = 0;
  bool has_where = false;  // operand nin + nout is a bool mask
  int ndim = 1;            // after coalescing; dimension 0 is the innermost
  int device = 0;
  std::int64_t size = 0;
  void* stream = nullptr;  // cudaStream_t
  device_fp_sink fp;
  // Only the first ndim entries (and the operands in use) are meaningful; left
  // uninitialized because zeroing 9 KB would cost more than a small call.
  std::int64_t shape[max_ndim];
  std::int64_t strides[max_operands + 1][max_ndim];  // bytes
  std::byte* base[max_operands + 1];
};

/// A device loop: launches the work of `call` on its stream, asynchronously.
/// `data` is the loop's functor (host copy; the launcher passes it by value).
using device_loop_fn = void (*)(const device_call& call, const void* data);

}  // namespace ufunc
