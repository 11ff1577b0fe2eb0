// Gather and scatter for ufunc.at on target cuda (see at_gather.hpp). Elements move
// as machine words as wide as the addresses allow (an array viewed over raw memory
// need not be aligned to its itemsize), one word per thread.
#include "at_gather.hpp"

#include <algorithm>

#include <cuda_runtime.h>

#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::backends::cuda::at_moves {

namespace {

// Kernel parameters: the subspace without the extents of 1, merged where the
// strided side is contiguous across axes (the packed side always is).
struct subspace {
  int ndim = 0;
  std::int64_t shape[max_ndim] = {};
  std::int64_t strides[max_ndim] = {};
};

template <class W, bool Gather>
__global__ void move_kernel(std::byte* strided, W* packed, const std::int64_t* offsets, std::int64_t offset_step,
                            std::int64_t total, std::int64_t sub_size, std::int64_t words, subspace sub) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const std::int64_t e = i / words;
    std::int64_t j = e % sub_size;
    std::int64_t off = offsets[(e / sub_size) * offset_step];
    for (int d = sub.ndim - 1; d >= 0; --d) {
      off += (j % sub.shape[d]) * sub.strides[d];
      j /= sub.shape[d];
    }
    W* s = reinterpret_cast<W*>(strided + off) + (i - e * words);
    if constexpr (Gather)
      packed[i] = *s;
    else
      *s = packed[i];
  }
}

template <class W, bool Gather>
void launch(const move& m, const subspace& sub, std::int64_t sub_size) {
  const std::int64_t words = m.itemsize / static_cast<std::int64_t>(sizeof(W));
  const std::int64_t total = m.count * sub_size * words;
  constexpr int threads = 256;
  // A grid-stride loop past this many blocks: enough to fill any current GPU.
  const std::int64_t blocks = std::min<std::int64_t>((total + threads - 1) / threads, std::int64_t{1} << 20);
  move_kernel<W, Gather><<<static_cast<unsigned>(blocks), threads, 0, static_cast<cudaStream_t>(m.stream.handle)>>>(
      m.side.base, reinterpret_cast<W*>(m.packed), m.offsets, m.offset_step, total, sub_size, words, sub);
  check(cudaGetLastError(), Gather ? "launching the at gather kernel" : "launching the at scatter kernel");
}

template <bool Gather>
void run(const move& m) {
  if (m.count == 0) return;
  subspace sub;
  std::int64_t sub_size = 1;
  for (int d = 0; d < m.side.ndim; ++d) {
    const std::int64_t n = m.side.shape[d];
    if (n == 0) return;
    sub_size *= n;
    if (n == 1) continue;
    if (sub.ndim > 0 && sub.strides[sub.ndim - 1] == n * m.side.strides[d]) {
      sub.shape[sub.ndim - 1] *= n;
      sub.strides[sub.ndim - 1] = m.side.strides[d];
      continue;
    }
    sub.shape[sub.ndim] = n;
    sub.strides[sub.ndim] = m.side.strides[d];
    ++sub.ndim;
  }
  std::uint64_t align =
      reinterpret_cast<std::uintptr_t>(m.side.base) | static_cast<std::uint64_t>(m.itemsize) | m.offset_bits;
  for (int d = 0; d < sub.ndim; ++d) align |= static_cast<std::uint64_t>(sub.strides[d]);
  check(cudaSetDevice(m.device), "cudaSetDevice");
  if (m.itemsize % 8 == 0 && align % 8 == 0)
    launch<std::uint64_t, Gather>(m, sub, sub_size);
  else if (m.itemsize % 4 == 0 && align % 4 == 0)
    launch<std::uint32_t, Gather>(m, sub, sub_size);
  else if (m.itemsize % 2 == 0 && align % 2 == 0)
    launch<std::uint16_t, Gather>(m, sub, sub_size);
  else
    launch<std::uint8_t, Gather>(m, sub, sub_size);
}

}  // namespace

void gather(const move& m) { run<true>(m); }
void scatter(const move& m) { run<false>(m); }

}  // namespace ufunc::backends::cuda::at_moves
