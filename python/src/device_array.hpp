// ufunc.device_array: what a call on device memory returns, when its operands gave no array of
// their own kind to return (out=). It holds the library's device buffer and hands it on without a
// copy: __dlpack__ (with the stream handshake) for cupy.from_dlpack and torch.from_dlpack,
// __cuda_array_interface__ for Numba; .get() copies it to a NumPy array.
#pragma once

#include <nanobind/nanobind.h>

#include <ufunc/core/array.hpp>

namespace ufunc::python {

namespace nb = nanobind;

struct device_array {
  /// What the memory's stream needs alive (the stream= object of the call that made it): the
  /// library frees device memory in the order of the stream it was allocated on. Declared
  /// first, so destroyed last: the memory is freed while its stream still exists.
  nb::object stream_owner = {};
  ufunc::array array;
};

/// The array inside a ufunc.device_array, or null for any other object.
[[nodiscard]] const ufunc::array* device_array_of(nb::handle object);

/// Makes the consumer's stream (DLPack's numbering: 1 legacy default, 2 per-thread default, -1
/// none) wait for the work the library enqueued on its current stream.
void order_consumer_stream(std::int64_t consumer_stream, int device);

void bind_device_array(nb::module_& m);

}  // namespace ufunc::python
