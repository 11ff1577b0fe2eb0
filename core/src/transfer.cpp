#include <ufunc/core/transfer.hpp>

#include <string>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc {

array to_device(const array& a, int device, stream_ref stream) {
  if (!a.valid()) throw value_error("to_device: null array");
  const auto where = ufunc::device::cuda(device);
  if (a.device() == where) return a;
  const backend* b = detail::device_backend();
  if (b == nullptr)
    throw target_error("to_device(cuda:" + std::to_string(device) +
                       "): this build has no CUDA backend; configure with the 'cuda' or 'all' preset");
  if (!a.device().is_host())
    throw target_error("to_device: copies between devices (" + a.device().str() + " to cuda:" + std::to_string(device) +
                       ") are not supported");
  const device_memory& memory = *b->memory;
  const array src = a.is_c_contiguous() ? a : a.copy();
  const stream_ref s{stream.handle ? stream.handle : memory.current_stream().handle};
  auto owner = memory.allocate(static_cast<std::size_t>(src.nbytes()), device, s);
  array out(owner.get(), src.type(), src.shape(), {}, owner, where);
  memory.copy_to_device(out.data(), src.data(), static_cast<std::size_t>(src.nbytes()), device, s);
  return out;
}

array to_host(const array& a, stream_ref stream) {
  if (!a.valid()) throw value_error("to_host: null array");
  if (a.device().is_host()) return a;
  const device_memory& memory = detail::memory_of(a.device());
  const stream_ref s{stream.handle ? stream.handle : memory.current_stream().handle};
  array src = a;
  if (!a.is_c_contiguous()) {  // gather on the device first: never a strided host round trip
    auto owner = memory.allocate(static_cast<std::size_t>(a.nbytes()), a.device().index, s);
    src = array(owner.get(), a.type(), a.shape(), {}, owner, a.device());
    try {
      memory.cast(a, src, s);
    } catch (const value_error&) {
      // More axes than the device kernels take after merging (12 axes of an F-ordered array
      // against C order, say). A dense array (any axis order) comes over as its bytes and is
      // put in C order on the host, which takes any number of axes; others cannot.
      if (!detail::is_dense(a)) throw;
      const auto bytes = array::empty({a.nbytes()}, uint8);
      memory.copy_to_host(bytes.data(), a.data(), static_cast<std::size_t>(a.nbytes()), a.device().index, s);
      return array(bytes.data(), a.type(), a.shape(), a.strides(), bytes.owner()).copy();
    }
  }
  auto out = array::empty(a.shape(), a.type());
  memory.copy_to_host(out.data(), src.data(), static_cast<std::size_t>(src.nbytes()), a.device().index, s);
  return out;
}

bool cuda_available() noexcept {
  const backend* b = detail::device_backend();
  return b != nullptr && b->id == target_id::cuda && b->memory->device_count() > 0;
}

}  // namespace ufunc
