#include "agreement.hpp"

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <ufunc/core/error.hpp>
#include <ufunc/dist/error.hpp>

#include "exchange.hpp"
#include "fp_capture.hpp"

namespace ufunc::dist::detail {

namespace {

std::string message_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

// Descriptions are short; a bad one should not make the error message unreadable.
std::string clip(const std::string& s) { return s.size() <= 400 ? s : s.substr(0, 400) + "..."; }

}  // namespace

description::description(std::string text) : text_(std::move(text)) { mix(std::string_view(text_)); }

// A word at a time (boost's hash_combine with a 64-bit constant): the same value on
// every rank for the same facts, nothing rank-specific (pointers, padding) mixed in.
description& description::mix(std::uint64_t v) noexcept {
  hash_ ^= v + 0x9e3779b97f4a7c15ull + (hash_ << 6) + (hash_ >> 2);
  return *this;
}

description& description::mix(std::string_view s) noexcept {
  for (const char c : s) {
    hash_ ^= static_cast<unsigned char>(c);
    hash_ *= 1099511628211ull;
  }
  return mix(static_cast<std::uint64_t>(s.size()));
}

description& description::mix(std::span<const std::int64_t> v) noexcept {
  for (const std::int64_t x : v) mix(static_cast<std::uint64_t>(x));
  return mix(static_cast<std::uint64_t>(v.size()));
}

std::string error_kind(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const remote_error&) {
    return "remote_error";
  } catch (const mpi_error&) {
    return "mpi_error";
  } catch (const distribution_error&) {
    return "distribution_error";
  } catch (const floating_point_error&) {
    return "floating_point_error";
  } catch (const broadcast_error&) {
    return "broadcast_error";
  } catch (const no_loop_error&) {
    return "no_loop_error";
  } catch (const casting_error&) {
    return "casting_error";
  } catch (const dtype_error&) {
    return "dtype_error";
  } catch (const overlap_error&) {
    return "overlap_error";
  } catch (const index_error&) {
    return "index_error";
  } catch (const overflow_error&) {
    return "overflow_error";
  } catch (const value_error&) {
    return "value_error";
  } catch (const target_error&) {
    return "target_error";
  } catch (const memory_error&) {
    return "memory_error";
  } catch (const ufunc::error&) {
    return "error";
  } catch (const std::bad_alloc&) {
    return "std::bad_alloc";
  } catch (const std::exception&) {
    return "std::exception";
  } catch (...) {
    return "unknown";
  }
}

void agree(const communicator& comm, std::exception_ptr failure, const description& asked, const fp_capture* fp) {
  const auto size = static_cast<std::uint64_t>(comm.size());
  const std::uint64_t h = asked.hash();
  // One MIN reduction decides everything: the lowest failing rank, the smallest and
  // (as the smallest complement) the largest description hash, and whether any rank
  // has floating-point events.
  std::uint64_t v[4] = {failure ? static_cast<std::uint64_t>(comm.rank()) : size, h, ~h,
                        fp != nullptr && fp->has_events() ? 0u : 1u};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_UINT64_T, MPI_MIN, comm.get()), "MPI_Allreduce");
  if (v[0] < size) {
    const int root = static_cast<int>(v[0]);
    const std::string mine = failure && comm.rank() == root ? error_kind(failure) + '\n' + message_of(failure) : "";
    const std::string got = broadcast_string(comm, mine, root);
    if (failure) std::rethrow_exception(failure);  // this rank's own error, its type kept
    const auto nl = got.find('\n');
    throw remote_error(root, got.substr(0, nl), nl == std::string::npos ? got : got.substr(nl + 1));
  }
  if (v[1] != ~v[2]) {
    // Only now (every rank sees the mismatch) is it worth sending the descriptions.
    const auto all = allgather_strings(comm, asked.text());
    std::string message =
        "ufunc::dist: the ranks were called with different arguments (every rank must pass the same dtypes, global "
        "shapes, distributions and options):";
    std::vector<bool> listed(all.size(), false);
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (listed[r]) continue;
      std::string ranks;
      for (std::size_t q = r; q < all.size(); ++q)
        if (!listed[q] && all[q] == all[r]) {
          listed[q] = true;
          ranks += (ranks.empty() ? "" : ", ") + std::to_string(q);
        }
      message +=
          "\n  rank" + std::string(ranks.find(',') != std::string::npos ? "s " : " ") + ranks + ": " + clip(all[r]);
    }
    throw value_error(message);
  }
  if (v[3] == 0 && fp != nullptr) fp->report(comm);
}

}  // namespace ufunc::dist::detail
