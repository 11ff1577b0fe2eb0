#include "device_array.hpp"

#include <string>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <ufunc/core/error.hpp>
#include <ufunc/core/transfer.hpp>

#include "dlpack.hpp"
#include "dtypes.hpp"
#include "results.hpp"

#if UFUNC_HAS_CUDA
#include <cuda_runtime_api.h>

#include <ufunc/backends/cuda/runtime.hpp>
#endif

namespace ufunc::python {

namespace {

nb::tuple shape_tuple(const dim_vector& d) {
  nb::list l;
  for (auto v : d) l.append(v);
  return nb::tuple(l);
}

#if UFUNC_HAS_CUDA
void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw ufunc::error(std::string(what) + " failed: " + cudaGetErrorString(status));
}
#endif

}  // namespace

const ufunc::array* device_array_of(nb::handle object) {
  if (!nb::isinstance<device_array>(object)) return nullptr;
  return &nb::cast<const device_array&>(object).array;
}

void order_consumer_stream(std::int64_t consumer_stream, int device) {
#if UFUNC_HAS_CUDA
  if (consumer_stream == -1) return;  // the consumer asked for no synchronization
  cudaStream_t consumer = nullptr;
  if (consumer_stream == 2) {
    consumer = cudaStreamPerThread;
  } else if (consumer_stream > 2) {
    consumer = reinterpret_cast<cudaStream_t>(static_cast<std::uintptr_t>(consumer_stream));
  }
  const auto ours = static_cast<cudaStream_t>(ufunc::backends::cuda::current_stream().handle);
  if (ours == consumer) return;
  int previous = 0;
  check_cuda(cudaGetDevice(&previous), "cudaGetDevice");
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  cudaEvent_t done = nullptr;
  check_cuda(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  const auto record = cudaEventRecord(done, ours);
  const auto wait = record == cudaSuccess ? cudaStreamWaitEvent(consumer, done, 0) : record;
  cudaEventDestroy(done);  // released once the wait has passed it
  cudaSetDevice(previous);
  check_cuda(wait, "ordering the consumer's stream after ufunc's (DLPack stream handshake)");
#else
  (void)consumer_stream;
  (void)device;
#endif
}

void bind_device_array(nb::module_& m) {
  nb::class_<device_array>(m, "device_array",
                           "An array in CUDA device memory made by a ufunc call. It shares its memory without a "
                           "copy through DLPack (cupy.from_dlpack(r), torch.from_dlpack(r)) and "
                           "__cuda_array_interface__; r.get() copies it to a NumPy array.")
      .def_prop_ro("shape", [](const device_array& d) { return shape_tuple(d.array.shape()); })
      .def_prop_ro("strides", [](const device_array& d) { return shape_tuple(d.array.strides()); })
      .def_prop_ro("ndim", [](const device_array& d) { return d.array.ndim(); })
      .def_prop_ro("size", [](const device_array& d) { return d.array.size(); })
      .def_prop_ro("nbytes", [](const device_array& d) { return d.array.nbytes(); })
      .def_prop_ro("dtype", [](const device_array& d) { return to_numpy_dtype(d.array.type()); })
      .def_prop_ro("device", [](const device_array& d) { return d.array.device().index; })
      .def("__dlpack_device__",
           [](const device_array& d) {
             const auto where = dlpack_device_of(d.array);
             return nb::make_tuple(where.device_type, where.device_id);
           })
      .def(
          "__dlpack__",
          [](const device_array& d, nb::handle stream, std::optional<nb::tuple> max_version, nb::handle dl_device,
             nb::handle copy) {
            if (!copy.is_none() && nb::cast<bool>(copy))
              throw nb::buffer_error("ufunc.device_array exports its memory as it is (copy=True is not supported)");
            if (!dl_device.is_none()) {
              const auto where = dlpack_device_of(d.array);
              const auto asked = nb::cast<nb::tuple>(dl_device);
              if (nb::cast<int>(asked[0]) != where.device_type || nb::cast<int>(asked[1]) != where.device_id)
                throw nb::buffer_error("ufunc.device_array cannot export to another device");
            }
            if (!d.array.device().is_host()) {
              // None means the legacy default stream (the specification's default for CUDA).
              order_consumer_stream(stream.is_none() ? 1 : nb::cast<std::int64_t>(stream), d.array.device().index);
            }
            const bool versioned = max_version.has_value() && nb::cast<int>((*max_version)[0]) >= 1;
            return export_dlpack(d.array, versioned, d.stream_owner);
          },
          nb::kw_only(), nb::arg("stream").none() = nb::none(), nb::arg("max_version").none() = nb::none(),
          nb::arg("dl_device").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def_prop_ro("__cuda_array_interface__",
                   [](const device_array& d) {
                     nb::dict cai;
                     nb::object descr = to_numpy_dtype(d.array.type());
                     cai["shape"] = shape_tuple(d.array.shape());
                     cai["typestr"] = descr.attr("str");
                     cai["data"] =
                         nb::make_tuple(reinterpret_cast<std::uintptr_t>(d.array.data()), !d.array.writeable());
                     cai["strides"] = shape_tuple(d.array.strides());
                     cai["version"] = 3;
                     // Version 3's stream: the consumer synchronizes with it before use.
                     std::uintptr_t ours = 1;
#if UFUNC_HAS_CUDA
                     if (auto* s = ufunc::backends::cuda::current_stream().handle)
                       ours = reinterpret_cast<std::uintptr_t>(s);
#endif
                     cai["stream"] = ours;
                     return cai;
                   })
      .def(
          "get", [](const device_array& d) { return host_result(ufunc::to_host(d.array)); },
          "A copy in host memory, as a NumPy array (waits for the stream).")
      .def(
          "__array__",
          [](const device_array& d, nb::handle dtype, nb::handle copy) {
            if (!copy.is_none() && !nb::cast<bool>(copy))
              throw nb::value_error("a device array cannot be seen by NumPy without a copy (copy=False)");
            nb::object r = host_result(ufunc::to_host(d.array));
            return dtype.is_none() ? r : r.attr("astype")(dtype);
          },
          nb::arg("dtype").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def("__repr__", [](const device_array& d) { return "ufunc.device_array(" + d.array.describe() + ")"; });
}

}  // namespace ufunc::python
