// The cuda backend's entry in core's backend table (core/backend.hpp): whole calls and
// methods on device data, and device memory.
#include <ufunc/backends/cuda/elementwise.hpp>
#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/backend.hpp>

#include "entry_points.hpp"

namespace ufunc::backends::cuda {

namespace {

void cast_all(const array& src, const array& dst, stream_ref s) { cast(src, dst, s); }

constexpr device_memory memory{&device_count, &require_device, &current_stream, &allocate,
                               &fill_zero,    &copy_to_device, &copy_to_host,   &cast_all};

constexpr device_methods methods{&detail::device_reduce, &detail::device_accumulate, &detail::device_reduceat,
                                 &detail::device_at};

}  // namespace

void register_backend() {
  backend b;
  b.id = target_id::cuda;
  b.execute_device = &execute;
  b.methods = &methods;
  b.memory = &memory;
  detail::register_backend(b);
}

}  // namespace ufunc::backends::cuda
