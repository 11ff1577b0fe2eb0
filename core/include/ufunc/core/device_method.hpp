// What a device backend receives to run one step of a ufunc method (reduce,
// accumulate, reduceat, at) with a loop's functor. Plain data, so the core needs no
// CUDA headers; the launcher (backends/cuda/methods.hpp) is compiled by nvcc.
#pragma once

#include <cstddef>
#include <cstdint>

#include <ufunc/core/config.hpp>
#include <ufunc/core/device_call.hpp>

namespace ufunc {

enum class device_method : unsigned char {
  /// acc[p] = f(acc[p], x[p, r]) for every element of x: `acc` has stride 0 along the
  /// reduced dimensions. The accumulator is already initialized. Reorderable loops
  /// regroup in a fixed order (block reductions); others fold each output in order
  /// along the single reduced dimension.
  reduce,
  /// Along dimension `axis`: out[0] is already written; out[i] = f(out[i-1], x[i]).
  accumulate,
  /// a[index[k]] = f(a[index[k]], b[k]) for k in order (serialized: NumPy's semantics
  /// for repeated indices and any functor); `nin` 1 or 2.
  at,
};

struct device_method_call {
  device_method kind = device_method::reduce;
  bool reorderable = false;
  bool has_mask = false;  // reduce: operand 2 is a bool mask
  /// reduce: acc is not initialized; every output starts from `start` (the loop's
  /// dtype), so the host need not fill it first. With a fixed K > 0 and R > 0 every
  /// output is written exactly once.
  bool has_start = false;
  alignas(16) unsigned char start[16] = {};
  int nin = 2;   // at: 1 for unary ufuncs (b unused)
  int ndim = 1;  // dimensions after coalescing; 0 is the innermost
  int axis = 0;  // accumulate: the accumulated dimension
  int device = 0;
  void* stream = nullptr;  // cudaStream_t
  std::int64_t shape[max_ndim];
  // reduce: 0 acc, 1 x, 2 mask. accumulate: 0 out, 1 x. at: 0 a (over the trailing
  // subspace), 1 b (over index positions then the trailing subspace).
  std::int64_t strides[3][max_ndim];
  std::byte* base[3];
  // at: `count` index positions, byte offsets into a (device memory, int64); the
  // trailing subspace is shape[0..ndim) with strides[0] for a and strides[1] for b,
  // and b steps by `b_position_stride` bytes from one index position to the next.
  const std::int64_t* offsets = nullptr;
  std::int64_t count = 0;
  std::int64_t b_position_stride = 0;
  /// Where the kernels report floating-point errors (and integer power's negative
  /// exponents); null flags: nothing is classified. Drivers leave it empty:
  /// cuda::launch_method attaches the calling thread's sink.
  device_fp_sink fp;
};

/// A device method launcher: enqueues the work of `call` on its stream. `data` is
/// the loop's functor (host copy, passed by value to kernels).
using device_method_fn = void (*)(const device_method_call& call, const void* data);

}  // namespace ufunc
