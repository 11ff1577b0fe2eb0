#include <ufunc/core/transfer.hpp>

#include <ufunc/core/error.hpp>
#if defined(UFUNC_HAS_CUDA)
#include <ufunc/backends/cuda/runtime.hpp>
#endif

namespace ufunc {

#if defined(UFUNC_HAS_CUDA)

array to_device(const array& a, int device, stream_ref stream) {
  if (!a.valid()) throw value_error("to_device: null array");
  if (a.device() == ufunc::device::cuda(device)) return a;
  if (!a.device().is_host())
    throw target_error("to_device: copies between devices (" + a.device().str() + " to cuda:" + std::to_string(device) +
                       ") are not supported");
  const array src = a.is_c_contiguous() ? a : a.copy();
  const stream_ref s{stream.handle ? stream.handle : backends::cuda::current_stream().handle};
  auto owner = backends::cuda::allocate(static_cast<std::size_t>(src.nbytes()), device, s);
  array out(owner.get(), src.type(), src.shape(), {}, owner, ufunc::device::cuda(device));
  backends::cuda::copy_to_device(out.data(), src.data(), static_cast<std::size_t>(src.nbytes()), device, s);
  return out;
}

array to_host(const array& a, stream_ref stream) {
  if (!a.valid()) throw value_error("to_host: null array");
  if (a.device().is_host()) return a;
  const stream_ref s{stream.handle ? stream.handle : backends::cuda::current_stream().handle};
  array src = a;
  if (!a.is_c_contiguous()) {  // gather on the device first: never a strided host round trip
    auto owner = backends::cuda::allocate(static_cast<std::size_t>(a.nbytes()), a.device().index, s);
    src = array(owner.get(), a.type(), a.shape(), {}, owner, a.device());
    backends::cuda::cast(a, src, s);
  }
  auto out = array::empty(a.shape(), a.type());
  backends::cuda::copy_to_host(out.data(), src.data(), static_cast<std::size_t>(src.nbytes()), a.device().index, s);
  return out;
}

bool cuda_available() noexcept { return backends::cuda::device_count() > 0; }

#else

array to_device(const array&, int device, stream_ref) {
  throw target_error("to_device(cuda:" + std::to_string(device) +
                     "): this build has no CUDA backend; configure with the 'cuda' or 'all' preset");
}

array to_host(const array& a, stream_ref) {
  if (!a.valid()) throw value_error("to_host: null array");
  return a;  // without CUDA every array is on the host
}

bool cuda_available() noexcept { return false; }

#endif

}  // namespace ufunc
