#include <ufunc/backends/cuda/runtime.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <ufunc/core/error.hpp>

#include "fp_reports.hpp"

namespace ufunc::backends::cuda {

void check(int status, const char* what) {
  const auto err = static_cast<cudaError_t>(status);
  if (err == cudaSuccess) return;
  const std::string msg =
      std::string("CUDA error in ") + what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  if (err == cudaErrorMemoryAllocation) throw memory_error(msg);
  throw target_error(msg);
}

namespace {

// The device count is asked once: devices do not come and go while a process
// runs, and the query costs more than a small ufunc call may.
struct device_census {
  int count = 0;
  cudaError_t status = cudaSuccess;
  device_census() {
    status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      count = 0;
    }
  }
};
const device_census& census() {
  static const device_census c;
  return c;
}

}  // namespace

void require_device(int device) {
  const auto& c = census();
  if (c.status != cudaSuccess)
    throw target_error(std::string("target 'cuda': no usable CUDA device (") + cudaGetErrorName(c.status) + ": " +
                       cudaGetErrorString(c.status) + "); the cpu and parallel targets still work");
  if (device < 0 || device >= c.count)
    throw target_error("target 'cuda': device " + std::to_string(device) + " does not exist (" +
                       std::to_string(c.count) + " CUDA device(s) found)");
}

namespace {
thread_local stream_ref current{};
thread_local int selected_device = -1;  // what this thread last made current

void select_device(int device) {
  if (device == selected_device) return;
  check(cudaSetDevice(device), "cudaSetDevice");
  selected_device = device;
}

// Keep freed blocks in the pool instead of returning them to the driver after each
// synchronization: repeated calls then never reach cudaMalloc.
void configure_pool(int device) {
  static std::once_flag flags[64];
  std::call_once(flags[device % 64], [device] {
    cudaMemPool_t pool;
    check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
    std::uint64_t threshold = UINT64_MAX;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), "cudaMemPoolSetAttribute");
  });
}
}  // namespace

int device_count() noexcept { return census().count; }

stream_ref current_stream() noexcept { return current; }
void set_current_stream(stream_ref s) noexcept { current = s; }

void synchronize(stream_ref s) {
  const auto stream = static_cast<cudaStream_t>(s.handle ? s.handle : current.handle);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  fp_reports::report_completed(stream);
}

std::shared_ptr<void> allocate(std::size_t bytes, int device, stream_ref s) {
  require_device(device);
  select_device(device);
  configure_pool(device);
  const auto stream = static_cast<cudaStream_t>(s.handle ? s.handle : current.handle);
  void* p = nullptr;
  const std::size_t request = std::max<std::size_t>(bytes, 1);
  auto err = cudaMallocAsync(&p, request, stream);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    // Give cached blocks back and try once more before reporting.
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      (void)cudaStreamSynchronize(stream);
      (void)cudaMemPoolTrimTo(pool, 0);
    }
    err = cudaMallocAsync(&p, request, stream);
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    throw memory_error("unable to allocate " + std::to_string(bytes) + " bytes on cuda:" + std::to_string(device) +
                       " (" + cudaGetErrorString(err) + ")");
  }
  return std::shared_ptr<void>(p, [stream, device](void* q) {
    // Stream-ordered free: after the work already enqueued on the allocation stream.
    if (device != selected_device && cudaSetDevice(device) == cudaSuccess) selected_device = device;
    (void)cudaFreeAsync(q, stream);
  });
}

namespace {

// Pinned staging for pageable host memory: two buffers per thread, so the CPU
// fills one while the DMA engine drains the other.
constexpr std::size_t staging_bytes = std::size_t{8} << 20;
constexpr std::size_t direct_copy_limit = std::size_t{1} << 16;

struct staging {
  void* buffer[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};
  staging() {
    for (int i = 0; i < 2; ++i) {
      check(cudaMallocHost(&buffer[i], staging_bytes), "cudaMallocHost (staging)");
      check(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming), "cudaEventCreate");
    }
  }
  ~staging() {
    for (int i = 0; i < 2; ++i) {
      if (done[i]) (void)cudaEventDestroy(done[i]);
      if (buffer[i]) (void)cudaFreeHost(buffer[i]);
    }
  }
};

staging& thread_staging() {
  thread_local staging s;
  return s;
}

bool is_pinned(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace

void copy_to_device(void* dst, const void* src, std::size_t bytes, int device, stream_ref s) {
  select_device(device);
  const auto stream = static_cast<cudaStream_t>(s.handle ? s.handle : current.handle);
  if (bytes <= direct_copy_limit || is_pinned(src)) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (to device)");
    return;
  }
  auto& st = thread_staging();
  int slot = 0;
  for (std::size_t done = 0; done < bytes; done += staging_bytes, slot ^= 1) {
    const std::size_t n = std::min(staging_bytes, bytes - done);
    check(cudaEventSynchronize(st.done[slot]), "cudaEventSynchronize (staging)");
    std::memcpy(st.buffer[slot], static_cast<const char*>(src) + done, n);
    check(cudaMemcpyAsync(static_cast<char*>(dst) + done, st.buffer[slot], n, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync (to device)");
    check(cudaEventRecord(st.done[slot], stream), "cudaEventRecord (staging)");
  }
}

void copy_to_host(void* dst, const void* src, std::size_t bytes, int device, stream_ref s) {
  select_device(device);
  const auto stream = static_cast<cudaStream_t>(s.handle ? s.handle : current.handle);
  if (bytes <= direct_copy_limit || is_pinned(dst)) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync (to host)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (to host)");
    fp_reports::report_completed(stream);
    return;
  }
  auto& st = thread_staging();
  // Chunk k lands in buffer k % 2; the CPU copies chunk k out while chunk k + 1 is in flight.
  std::vector<std::size_t> offsets;
  for (std::size_t done = 0; done < bytes; done += staging_bytes) offsets.push_back(done);
  auto enqueue = [&](std::size_t k) {
    const std::size_t n = std::min(staging_bytes, bytes - offsets[k]);
    check(cudaMemcpyAsync(st.buffer[k % 2], static_cast<const char*>(src) + offsets[k], n, cudaMemcpyDeviceToHost,
                          stream),
          "cudaMemcpyAsync (to host)");
    check(cudaEventRecord(st.done[k % 2], stream), "cudaEventRecord (staging)");
  };
  enqueue(0);
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    if (k + 1 < offsets.size()) enqueue(k + 1);
    check(cudaEventSynchronize(st.done[k % 2]), "cudaEventSynchronize (staging)");
    const std::size_t n = std::min(staging_bytes, bytes - offsets[k]);
    std::memcpy(static_cast<char*>(dst) + offsets[k], st.buffer[k % 2], n);
    // Buffer k % 2 is free again only after this memcpy; chunk k + 2 is enqueued
    // on the next iteration, after it.
  }
  fp_reports::report_completed(stream);
}

void fill_zero(void* dst, std::size_t bytes, int device, stream_ref s) {
  select_device(device);
  const auto stream = static_cast<cudaStream_t>(s.handle ? s.handle : current.handle);
  check(cudaMemsetAsync(dst, 0, bytes, stream), "cudaMemsetAsync");
}

void launch(device_loop_fn fn, const void* data, const device_call& call) {
  select_device(call.device);
  fn(call, data);
}

// Every method launch gets the calling thread's flag slot here, so that no driver
// (reduce, accumulate, reduceat, at) has to; under all-ignore policies there is none
// and the kernels classify nothing. A driver that attached a sink itself keeps it.
void launch_method(device_method_fn fn, const void* data, const device_method_call& call) {
  select_device(call.device);
  if (call.fp.flags != nullptr) {
    fn(call, data);
    return;
  }
  const fp_reports::method_info m = fp_reports::current_method();
  fp_reports::call_scope fp(m.name, call.device, call.stream, m.refuses_values, m.id);
  if (fp.sink().flags == nullptr) {
    fn(call, data);
    return;
  }
  device_method_call with_sink = call;
  with_sink.fp = fp.sink();
  fn(with_sink, data);
  fp.launched();
}

}  // namespace ufunc::backends::cuda
