#include <ufunc/core/detail/memory.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <ufunc/core/config.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::detail {

namespace {

// The test hook's state: `armed` is all that allocations read when it is off; the
// two counts change together, under the mutex.
struct injected_failures {
  std::atomic<bool> armed{false};
  std::mutex mutex;
  int skip = 0;
  int fail = 0;
};
injected_failures& injection() {
  static injected_failures state;
  return state;
}

bool take_injected_failure() noexcept {
  auto& s = injection();
  if (!s.armed.load(std::memory_order_relaxed)) return false;
  const std::lock_guard lock(s.mutex);
  if (s.skip > 0) {
    --s.skip;
    return false;
  }
  if (s.fail == 0) return false;
  if (--s.fail == 0) s.armed.store(false, std::memory_order_relaxed);
  return true;
}

// The owner record (shared_ptr's control block) of a host buffer lives in front of
// the buffer, in the same malloc block: one allocation per array instead of two. The
// block is freed when the record goes (after the last owner and any weak_ptr).
constexpr std::size_t owner_record_bytes = 64;

template <class T>
struct owner_record_allocator {
  using value_type = T;
  void* block;
  explicit owner_record_allocator(void* b) noexcept : block(b) {}
  template <class U>
  owner_record_allocator(const owner_record_allocator<U>& other) noexcept : block(other.block) {}  // NOLINT
  T* allocate(std::size_t n) noexcept {
    static_assert(sizeof(T) <= owner_record_bytes && alignof(T) <= alignof(std::max_align_t),
                  "shared_ptr's control block does not fit in front of the buffer");
    (void)n;  // 1: shared_ptr allocates its control block once
    return static_cast<T*>(block);
  }
  void deallocate(T*, std::size_t) noexcept { std::free(block); }
  template <class U>
  friend bool operator==(const owner_record_allocator& a, const owner_record_allocator<U>& b) noexcept {
    return a.block == b.block;
  }
};

// The deleter of such a buffer: the record's allocator frees the whole block.
struct leave_to_record {
  void operator()(void*) const noexcept {}
};

}  // namespace

void inject_host_allocation_failures(int count, int after) noexcept {
  auto& s = injection();
  const std::lock_guard lock(s.mutex);
  s.skip = std::max(after, 0);
  s.fail = std::max(count, 0);
  s.armed.store(s.fail > 0, std::memory_order_relaxed);
}

int pending_host_allocation_failures() noexcept {
  auto& s = injection();
  const std::lock_guard lock(s.mutex);
  return s.fail;
}

std::shared_ptr<void> allocate_host(std::size_t bytes) {
  // malloc and align by hand: glibc's aligned_alloc costs several times malloc's
  // fast path, which matters for small calls that allocate their result. At least
  // one line is allocated so that empty arrays still have a valid, distinct pointer.
  const std::size_t rounded = std::max<std::size_t>((bytes + host_alignment - 1) / host_alignment, 1) * host_alignment;
  if (rounded < bytes || rounded > SIZE_MAX - host_alignment - owner_record_bytes)
    throw memory_error("unable to allocate " + std::to_string(bytes) + " bytes of host memory: size overflows");
  void* block = take_injected_failure() ? nullptr : std::malloc(owner_record_bytes + rounded + host_alignment);
  if (block == nullptr) throw memory_error("unable to allocate " + std::to_string(bytes) + " bytes of host memory");
  const auto address =
      (reinterpret_cast<std::uintptr_t>(block) + owner_record_bytes + host_alignment - 1) & ~(host_alignment - 1);
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
  return std::shared_ptr<void>(p, leave_to_record{}, owner_record_allocator<char>(block));
}

}  // namespace ufunc::detail
