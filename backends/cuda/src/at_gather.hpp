// ufunc.at on target cuda, rounds of gather / call / scatter: moves of fixed-size
// elements between an array of any strides (positions given as byte offsets, plus a
// trailing subspace) and a C-ordered temporary of shape [count, subspace...].
// No CUDA headers: the method drivers (at.cpp) are compiled by the host compiler.
#pragma once

#include <cstddef>
#include <cstdint>

#include <ufunc/core/config.hpp>
#include <ufunc/core/device_call.hpp>

namespace ufunc::backends::cuda::at_moves {

/// The strided side of a move: its base, the subspace's extents and byte strides.
struct strided_side {
  std::byte* base = nullptr;
  int ndim = 0;
  std::int64_t shape[max_ndim] = {};
  std::int64_t strides[max_ndim] = {};
};

/// One move: `count` positions, the byte offset of position p into `side` at
/// offsets[p * offset_step] (device memory), elements of `itemsize` bytes.
struct move {
  strided_side side;
  std::byte* packed = nullptr;  // C-ordered [count, subspace...]
  const std::int64_t* offsets = nullptr;
  std::int64_t offset_step = 1;
  std::int64_t count = 0;
  std::int64_t itemsize = 0;
  std::uint64_t offset_bits = 0;  // every offset ORed together: their common alignment
  int device = 0;
  stream_ref stream;
};

/// packed = side at the positions (one launch).
void gather(const move& m);
/// side at the positions = packed (one launch); nothing else of side is written.
void scatter(const move& m);

}  // namespace ufunc::backends::cuda::at_moves
