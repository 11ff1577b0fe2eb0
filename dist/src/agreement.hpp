// How the ranks agree at the end of each collective step: the local part runs in a
// try/catch on every rank, then one MPI_Allreduce tells every rank whether any failed,
// whether the ranks described the same operation, and whether any raised
// floating-point flags. Where one failed, the lowest failing rank's message is
// broadcast and every other rank throws remote_error, so that no rank waits in a
// collective another will never reach.
//
// The rule that keeps the ranks in step: every ufunc::dist operation starts its
// communication with agree() (the same MPI_Allreduce of four integers everywhere), and
// chooses any later collective from agreed facts only. So ranks that were called with
// different arguments meet in that first agree(), see different descriptions, and all
// throw, whichever path each had planned.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include <ufunc/dist/communicator.hpp>

namespace ufunc::dist::detail {

class fp_capture;

/// What a rank was asked to do, for agree(): a hash of the facts every rank must share
/// (dtypes, global shapes, distributions, options), and the text the ranks print where
/// their hashes differ. Hot paths mix integers into the hash and give the text as a
/// function, called only then; others give the text, hashed as it is.
class description {
 public:
  description() = default;
  description(std::string text);                                     // NOLINT(google-explicit-constructor)
  description(const char* text) : description(std::string(text)) {}  // NOLINT(google-explicit-constructor)

  description& mix(std::uint64_t v) noexcept;
  description& mix(std::string_view s) noexcept;
  description& mix(std::span<const std::int64_t> v) noexcept;
  /// The text, where the ranks disagree; `make` must stay callable until agree() returns.
  void set_text(std::function<std::string()> make) { make_ = std::move(make); }

  [[nodiscard]] std::uint64_t hash() const noexcept { return hash_; }
  [[nodiscard]] std::string text() const { return make_ ? make_() : text_; }

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
  std::string text_;
  std::function<std::string()> make_;
};

/// Runs f (this rank's local part) and returns what it threw, if anything.
template <class F>
std::exception_ptr attempt(F&& f) noexcept {
  try {
    f();
    return {};
  } catch (...) {
    return std::current_exception();
  }
}

/// Collective. Throws on every rank if a rank passed a failure (the failing ranks
/// rethrow their own exceptions, the others throw remote_error), or if the ranks'
/// descriptions differ (value_error naming what each rank was asked); then applies the
/// caller's errstate to the floating-point flags every rank's `fp` captured (may throw
/// floating_point_error on every rank).
void agree(const communicator& comm, std::exception_ptr failure, const description& asked = {},
           const fp_capture* fp = nullptr);

/// "index_error", "std::bad_alloc", ...: the name remote_error::kind() reports.
[[nodiscard]] std::string error_kind(const std::exception_ptr& e);

}  // namespace ufunc::dist::detail
