// DLPack, the array exchange protocol of the Python array libraries (__dlpack__,
// __dlpack_device__): its C structures as the specification defines them (version 1.0, with the
// unversioned tensor of 0.x that older producers send), the import of a producer's capsule as a
// ufunc::array, and the export of an array as a capsule.
#pragma once

#include <cstdint>
#include <optional>

#include <nanobind/nanobind.h>

#include <ufunc/core/array.hpp>

namespace ufunc::python {

namespace nb = nanobind;

namespace dlpack {

enum device_type : std::int32_t { cpu = 1, cuda = 2, cuda_host = 3, cuda_managed = 13 };
enum type_code : std::uint8_t { int_ = 0, uint = 1, float_ = 2, opaque = 3, bfloat = 4, complex = 5, bool_ = 6 };

struct device {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct data_type {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct tensor {
  void* data;
  dlpack::device device;
  std::int32_t ndim;
  data_type dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: C order
  std::uint64_t byte_offset;
};
struct managed_tensor {
  tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(managed_tensor* self);
};
struct version {
  std::uint32_t major;
  std::uint32_t minor;
};
struct managed_tensor_versioned {
  dlpack::version version;
  void* manager_ctx;
  void (*deleter)(managed_tensor_versioned* self);
  std::uint64_t flags;
  tensor dl_tensor;
};
inline constexpr std::uint64_t flag_read_only = 1;
inline constexpr std::uint32_t major_version = 1;
inline constexpr std::uint32_t minor_version = 0;

}  // namespace dlpack

/// The (device_type, device_id) pair of __dlpack_device__ for an array.
[[nodiscard]] dlpack::device dlpack_device_of(const ufunc::array& a);

/// A DLPack producer's bound __dlpack__ and __dlpack_device__, each looked up once.
struct dlpack_producer {
  nb::object dlpack;
  nb::object dlpack_device;
};

/// The DLPack methods of `object`, or nothing where it lacks either.
[[nodiscard]] std::optional<dlpack_producer> dlpack_producer_of(nb::handle object);

/// Imports a producer's array through its __dlpack__: the stream handshake passes `stream` (a
/// CUDA stream handle as the specification numbers it: 1 the legacy default stream), so that the
/// producer orders its pending work before it; versioned capsules first, the unversioned kind
/// where the producer does not take max_version. The array keeps the producer's memory alive.
[[nodiscard]] ufunc::array import_dlpack(const dlpack_producer& producer, std::int64_t stream);

/// A capsule ("dltensor_versioned" or, for consumers that asked no version, "dltensor") that
/// shares `a`'s memory and keeps it alive until the consumer's deleter runs, and with it
/// `stream_owner` (the Python stream the memory is freed in the order of; see device_array):
/// the memory goes first, then the stream.
[[nodiscard]] nb::object export_dlpack(const ufunc::array& a, bool versioned, nb::object stream_owner = {});

}  // namespace ufunc::python
