// ThreadSanitizer annotations for the parallel backend's calls.
//
// Debian's libtbb is not built with ThreadSanitizer, which therefore cannot see the
// synchronization TBB does when it hands out and joins tasks. A call states it
// instead: the caller's writes happen before every piece, and every piece happens
// before the caller goes on after the join. Pieces are not ordered with each other,
// so races between pieces (or between concurrent calls) stay visible. Without
// ThreadSanitizer every member is empty and compiles away.
#pragma once

#include <memory>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace ufunc::backends::parallel {

// The two addresses one call synchronizes on: `start` (the caller releases it, each
// piece acquires it) and `end` (each piece releases it, the caller acquires it), so
// that pieces do not synchronize with each other. Fresh heap bytes per call, so that no other call, another user
// thread's or a later one, shares them: freeing them clears ThreadSanitizer's state for them.
class tsan_sync {
 public:
  /// What a piece needs, by value: a piece must not read the caller's memory (this
  /// object included) before it has acquired.
  struct tokens {
#if defined(__SANITIZE_THREAD__)
    char* start;
    char* end;
#endif
  };
  [[nodiscard]] tokens piece_tokens() const noexcept {
#if defined(__SANITIZE_THREAD__)
    return {bytes_.get(), bytes_.get() + 1};
#else
    return {};
#endif
  }

  /// The caller: everything written so far happens before the pieces that follow.
  void publish() const noexcept {
#if defined(__SANITIZE_THREAD__)
    __tsan_release(bytes_.get());
#endif
  }
  /// The caller, after a join: every piece that ran happens before what follows.
  void join() const noexcept {
#if defined(__SANITIZE_THREAD__)
    __tsan_acquire(bytes_.get() + 1);
#endif
  }

  /// One piece's scope: sees the caller's writes; publishes its own on exit, also
  /// when it throws.
  class piece_scope {
   public:
    explicit piece_scope(tokens t) noexcept : tokens_(t) {
#if defined(__SANITIZE_THREAD__)
      __tsan_acquire(tokens_.start);
#endif
    }
    ~piece_scope() {
#if defined(__SANITIZE_THREAD__)
      __tsan_release(tokens_.end);
#endif
    }
    piece_scope(const piece_scope&) = delete;
    piece_scope& operator=(const piece_scope&) = delete;

   private:
    [[maybe_unused]] tokens tokens_;
  };

  /// The caller's side of a whole call: publishes now, joins on exit (also when a
  /// piece threw).
  class call_scope {
   public:
    explicit call_scope(const tsan_sync& s) noexcept : sync_(s) { sync_.publish(); }
    ~call_scope() { sync_.join(); }
    call_scope(const call_scope&) = delete;
    call_scope& operator=(const call_scope&) = delete;

   private:
    const tsan_sync& sync_;
  };

 private:
#if defined(__SANITIZE_THREAD__)
  std::unique_ptr<char[]> bytes_ = std::make_unique<char[]>(2);  // start, end
#endif
};

}  // namespace ufunc::backends::parallel
