#include <ufunc/core/detail/memory.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <ufunc/core/config.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::detail {

std::shared_ptr<void> allocate_host(std::size_t bytes) {
  // malloc and align by hand: glibc's aligned_alloc costs several times malloc's
  // fast path, which matters for small calls that allocate their result. At least
  // one line is allocated so that empty arrays still have a valid, distinct pointer.
  const std::size_t rounded = std::max<std::size_t>((bytes + host_alignment - 1) / host_alignment, 1) * host_alignment;
  if (rounded < bytes || rounded > SIZE_MAX - host_alignment)
    throw memory_error("unable to allocate " + std::to_string(bytes) + " bytes of host memory: size overflows");
  void* block = std::malloc(rounded + host_alignment);
  if (block == nullptr) throw memory_error("unable to allocate " + std::to_string(bytes) + " bytes of host memory");
  const auto address = (reinterpret_cast<std::uintptr_t>(block) + host_alignment - 1) & ~(host_alignment - 1);
  void* p = reinterpret_cast<void*>(address);
#if defined(__linux__)
  // Large buffers on transparent huge pages, as NumPy asks for them: first touch of
  // a 64 MiB result then takes 32 page faults instead of 16384.
  constexpr std::size_t huge_page_threshold = std::size_t{4} << 20;
  if (rounded >= huge_page_threshold) {
    const auto page = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{4095};
    (void)madvise(reinterpret_cast<void*>(page), rounded + (reinterpret_cast<std::uintptr_t>(p) - page), MADV_HUGEPAGE);
  }
#endif
  try {
    return std::shared_ptr<void>(p, [block](void*) { std::free(block); });  // frees block itself if it throws
  } catch (const std::bad_alloc&) {
    throw memory_error("unable to allocate the owner record of a " + std::to_string(bytes) + "-byte host buffer");
  }
}

}  // namespace ufunc::detail
