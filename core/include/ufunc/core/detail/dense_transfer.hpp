// Host <-> device copies that keep a dense array's own strides, for the operands and
// results of host-in/host-out calls (core's device path) and methods (a device
// backend's): to_device and to_host lay their copies out in C order, so a result
// allocated in its inputs' order (layout.hpp) would come back with other strides than a
// host target gives it. Host side, no CUDA headers.
#pragma once

#include <ufunc/core/array.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/transfer.hpp>

namespace ufunc::detail {

/// `a` (on the host) on `device`: a dense array's bytes as they are, with its strides;
/// any other array as to_device copies it.
[[nodiscard]] inline array to_device_as_is(const array& a, int device, stream_ref s) {
  if (!a.device().is_host() || a.is_c_contiguous() || !is_dense(a)) return to_device(a, device, s);
  // Dense: its elements are the nbytes from data(), whatever the axis order.
  const array flat(a.data(), a.type(), {a.size()}, {}, a.owner());
  const array d = to_device(flat, device, s);
  return array(d.data(), d.type(), a.shape(), a.strides(), d.owner(), d.device());
}

/// A host copy of device array `a`: a dense array's bytes as they are, with its
/// strides; any other array as to_host copies it (C order). Waits for `s`.
[[nodiscard]] inline array to_host_as_is(const array& a, stream_ref s) {
  if (a.device().is_host() || a.size() == 0 || !is_dense(a)) return to_host(a, s);
  const array flat(a.data(), a.type(), {a.size()}, {}, a.owner(), a.device());
  const array h = to_host(flat, s);
  return array(h.data(), h.type(), a.shape(), a.strides(), h.owner());
}

}  // namespace ufunc::detail
