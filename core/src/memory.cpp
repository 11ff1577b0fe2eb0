#include <ufunc/core/detail/memory.hpp>

#include <cstdlib>
#include <new>
#include <string>

#include <ufunc/core/config.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::detail {

std::shared_ptr<void> allocate_host(std::size_t bytes) {
  // Round up so aligned_alloc's size rule holds; allocate at least one line so
  // that empty arrays still have a distinct, valid pointer.
  const std::size_t rounded = (bytes + host_alignment - 1) / host_alignment * host_alignment;
  void* p = std::aligned_alloc(host_alignment, rounded == 0 ? host_alignment : rounded);
  if (p == nullptr) throw memory_error("unable to allocate " + std::to_string(bytes) + " bytes of host memory");
  try {
    return std::shared_ptr<void>(p, &std::free);  // frees p itself if it throws
  } catch (const std::bad_alloc&) {
    throw memory_error("unable to allocate the owner record of a " + std::to_string(bytes) + "-byte host buffer");
  }
}

}  // namespace ufunc::detail
