// cuda backend, host side: devices, streams, stream-ordered allocation, copies
// and device-side casts. No CUDA headers: code compiled by g++ alone can use it.
#pragma once

#include <cstddef>
#include <memory>

#include <ufunc/core/array.hpp>  // complete: cast()'s default argument constructs one
#include <ufunc/core/device_call.hpp>
#include <ufunc/core/device_method.hpp>

namespace ufunc::backends::cuda {

/// Number of CUDA devices; 0 when there is no GPU or no driver (never throws).
[[nodiscard]] int device_count() noexcept;
/// Throws target_error naming the reason when `device` cannot be used.
void require_device(int device);

/// The stream calls of this thread enqueue on when they name none: the legacy
/// default stream unless set_current_stream() chose another.
[[nodiscard]] stream_ref current_stream() noexcept;
void set_current_stream(stream_ref s) noexcept;
/// Waits for everything enqueued on `s` (default: the current stream).
void synchronize(stream_ref s = {});

/// `bytes` on `device`, stream-ordered from the device's memory pool (no
/// cudaMalloc on the hot path); freed on the same stream when the last owner goes.
/// On out-of-memory the pool is trimmed and the allocation retried once before
/// memory_error is thrown.
[[nodiscard]] std::shared_ptr<void> allocate(std::size_t bytes, int device, stream_ref s);

/// Host <-> device copies of whole contiguous buffers, staged through pinned
/// host memory for large pageable buffers. Device-to-host copies complete before
/// returning; host-to-device copies may still be in flight (the source may be
/// reused at once: it has been staged).
void copy_to_device(void* dst, const void* src, std::size_t bytes, int device, stream_ref s);
void copy_to_host(void* dst, const void* src, std::size_t bytes, int device, stream_ref s);

/// Sets `bytes` at `dst` on `device` to zero, stream-ordered.
void fill_zero(void* dst, std::size_t bytes, int device, stream_ref s);

/// dst = src converted to dst's dtype, on the device (src broadcasts to dst's shape);
/// with a `where` mask (bool, broadcast to dst's shape), only where it is true.
void cast(const array& src, const array& dst, stream_ref s, const array& where = {});

/// Runs a device loop and checks the launch.
void launch(device_loop_fn fn, const void* data, const device_call& call);
/// Runs a device method launcher (reduce, accumulate, at) on call.device.
void launch_method(device_method_fn fn, const void* data, const device_method_call& call);

/// Throws target_error (or memory_error for out-of-memory) if `status` is not
/// cudaSuccess; `what` names the operation. `status` is a cudaError_t.
void check(int status, const char* what);

}  // namespace ufunc::backends::cuda
