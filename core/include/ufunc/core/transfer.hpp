// Moving arrays between the host and CUDA devices, explicitly. Ufunc calls never
// move device data to the host behind the user's back.
//
//   auto d = ufunc::to_device(host_array);        // cuda:0, C order
//   auto r = ufunc::sin(d);                        // runs on the GPU, stays there
//   auto h = ufunc::to_host(r);                    // waits for the stream, copies back
#pragma once

#include <ufunc/core/array.hpp>
#include <ufunc/core/device_call.hpp>

namespace ufunc {

/// A C-ordered copy of host array `a` on CUDA device `device`, enqueued on `stream`.
/// An array already on that device is returned as it is. Large pageable buffers are
/// staged through pinned memory, so `a` may be reused as soon as this returns.
[[nodiscard]] array to_device(const array& a, int device = 0, stream_ref stream = {});

/// A C-ordered host copy of device array `a`; waits for `stream`. A host array is
/// returned as it is.
[[nodiscard]] array to_host(const array& a, stream_ref stream = {});

/// Whether this build has the CUDA backend and a usable CUDA device.
[[nodiscard]] bool cuda_available() noexcept;

}  // namespace ufunc
