// The errors of distributed calls. Every collective operation of ufunc::dist either
// succeeds on every rank or throws on every rank: the rank whose local part failed
// rethrows its own exception, the others throw remote_error with its message, so that
// no rank is left waiting in a collective that the failing rank never reaches.
//
//   try {
//     auto c = ufunc::dist::add(a, b);
//   } catch (const ufunc::dist::remote_error& e) {   // another rank's error
//     std::printf("rank %d failed: %s\n", e.rank(), e.what());
//   } catch (const ufunc::error& e) {                // this rank's own (index_error, ...)
//   }
#pragma once

#include <string>

#include <ufunc/core/error.hpp>

namespace ufunc::dist {

/// An MPI call that returned an error code: the call and MPI's error string.
class mpi_error : public ufunc::error {
 public:
  mpi_error(const std::string& what, int code) : error(what), code_(code) {}
  /// MPI's error code (MPI_ERR_*).
  [[nodiscard]] int code() const noexcept { return code_; }

 private:
  int code_;
};

/// Thrown on every rank but the failing one: "rank R: <its message>". Where several
/// ranks failed, the lowest one's message is the one every other rank reports.
class remote_error : public ufunc::error {
 public:
  remote_error(int rank, std::string kind, const std::string& message)
      : error("rank " + std::to_string(rank) + ": " + message), rank_(rank), kind_(std::move(kind)) {}
  /// The rank whose local part failed.
  [[nodiscard]] int rank() const noexcept { return rank_; }
  /// What it threw, as the library names its exceptions: "index_error", "floating_point_error",
  /// "std::bad_alloc", "std::exception" for others.
  [[nodiscard]] const std::string& kind() const noexcept { return kind_; }

 private:
  int rank_;
  std::string kind_;
};

/// Distributions that do not fit together or do not fit an array: operands split
/// along different axes, arrays of different communicators, a distribution whose
/// blocks do not cover the array, a method along the split axis that cannot be split.
class distribution_error : public ufunc::value_error {
 public:
  using value_error::value_error;
};

}  // namespace ufunc::dist
