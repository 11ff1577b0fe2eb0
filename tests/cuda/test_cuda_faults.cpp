// Faults in the middle of a stream of asynchronous device calls: the failing call
// throws, the work queued before it completes with the right values, and the calls
// after it succeed. The fault is one the CUDA runtime recovers from: an allocation
// larger than the device (cudaErrorMemoryAllocation is not sticky). Errors raised
// inside a kernel (an illegal address in a user functor) are sticky: they poison the
// process's CUDA context, so no test can continue after one (docs/errors.md).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "../test_support.hpp"

namespace {

constexpr auto cuda = ufunc::target_id::cuda;

// A stream owned by the test.
struct user_stream {
  cudaStream_t handle = nullptr;
  user_stream() { REQUIRE(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking) == cudaSuccess); }
  user_stream(const user_stream&) = delete;
  user_stream& operator=(const user_stream&) = delete;
  ~user_stream() {
    cudaStreamSynchronize(handle);
    cudaStreamDestroy(handle);
  }
  [[nodiscard]] ufunc::stream_ref ref() const { return ufunc::stream_ref{handle}; }
};

}  // namespace

TEST_CASE("cuda faults: out of device memory in the middle of queued calls surfaces at that call only") {
  const user_stream s;
  const ufunc::call_options on{.target = cuda, .stream = s.ref()};
  const std::int64_t n = 1 << 20;
  const auto host = ufunc::arange<float>(static_cast<float>(n));
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    // Queued, not waited for: x + 1, then (x + 1) * 2.
    const auto x = ufunc::to_device(host, 0, s.ref());
    const ufunc::array y = ufunc::add(x, 1.0f, on);
    const ufunc::array z = ufunc::multiply(y, 2.0f, on);
    // 1 PiB on the same stream: memory_error here, not later.
    CHECK_THROWS_AS((void)ufunc::array::empty({std::int64_t{1} << 50}, ufunc::float32, ufunc::device::cuda(0)),
                    ufunc::memory_error);
    // The error is not left pending for the next CUDA call to report.
    CHECK(cudaGetLastError() == cudaSuccess);
    // Work queued before the failure completes; calls after it succeed.
    const ufunc::array w = ufunc::subtract(z, 2.0f, on);
    const auto back = ufunc::to_host(w, s.ref()).to_vector<float>();
    REQUIRE(back.size() == static_cast<std::size_t>(n));
    int bad = 0;
    for (std::int64_t i = 0; i < n; ++i) bad += back[static_cast<std::size_t>(i)] != 2.0f * static_cast<float>(i);
    CHECK(bad == 0);
    // Read back on the stream the reduction ran on (the current stream is not ordered with it).
    CHECK(ufunc::to_host(ufunc::add.reduce(x, {.target = cuda, .stream = s.ref()}), s.ref()).item<float>() > 0.0f);
  }
}

TEST_CASE("cuda faults: a call the device backend refuses leaves the stream usable") {
  const user_stream s;
  const ufunc::call_options on{.target = cuda, .stream = s.ref()};
  const auto x = ufunc::to_device(ufunc::arange<double>(4096.0), 0, s.ref());
  const ufunc::array before = ufunc::multiply(x, 3.0, on);
  // 12 axes of extent 2 in Fortran order into a C-ordered out=: no two axes merge, which
  // is more dimensions than the device kernels take (value_error), raised before anything
  // is launched. (An allocated result would follow the input's order, and merge.)
  ufunc::dim_vector shape(std::size_t{12}, 2), strides(std::size_t{12});
  for (std::size_t d = 0; d < 12; ++d) strides[d] = static_cast<std::int64_t>(sizeof(double)) << d;
  const ufunc::array scrambled(x.data(), ufunc::float64, shape, strides, x.owner(), x.device());
  const ufunc::array c_ordered = ufunc::to_device(ufunc::zeros<double>(shape), 0, s.ref());
  CHECK_THROWS_WITH_AS((void)ufunc::add(scrambled, 1.0, {.out = {c_ordered}, .target = cuda, .stream = s.ref()}),
                       doctest::Contains("dimensions after merging"), ufunc::value_error);
  // The same operands with an allocated result run (in the input's order): element (i0, ..., i11)
  // is x[i0 + 2 i1 + ... + 2^11 i11] + 1, and x is arange.
  const auto f_ordered = ufunc::to_host(ufunc::add(scrambled, 1.0, on), s.ref());
  REQUIRE(f_ordered.shape() == shape);
  const auto values = f_ordered.copy().to_vector<double>();  // C order of the 12 axes
  int bad = 0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::size_t flat = 0;  // the C-order position's offset in x, in elements
    for (std::size_t d = 0; d < 12; ++d) flat |= ((k >> (11 - d)) & 1u) << d;
    bad += values[k] != static_cast<double>(flat) + 1.0;
  }
  CHECK(bad == 0);
  CHECK(cudaGetLastError() == cudaSuccess);
  // A host array on an explicit device call with no transfer allowed: target_error.
  CHECK_THROWS_AS((void)ufunc::add(ufunc::arange<double>(3.0), x, on), ufunc::target_error);
  const auto back = ufunc::to_host(ufunc::add(before, 1.0, on), s.ref());
  CHECK(back.at<double>(4095) == 3.0 * 4095.0 + 1.0);
}
