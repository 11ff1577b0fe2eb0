// The data movement under every distributed operation, in two forms: an all-to-all of
// array parts (MPI_Alltoallv; what scatter, gather, allgather and redistribute are) and
// an allgather of one equally shaped part per rank (what reductions and scans exchange).
// Host data goes to MPI directly (without a copy where the parts are contiguous pieces
// of one allocation); device data goes through NCCL in builds with it, else through
// host copies: MPI never sees a device pointer (Debian's Open MPI is not CUDA-aware).
// Callers have agreed (agreement.hpp) before they call these.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/core/array.hpp>
#include <ufunc/core/device_call.hpp>
#include <ufunc/dist/communicator.hpp>

namespace ufunc::dist::detail {

/// The MPI datatype of `itemsize` contiguous bytes (committed once per size): counts are
/// then element counts, which MPI's int holds up to 2^31 - 1 per message.
[[nodiscard]] MPI_Datatype element_type(std::size_t itemsize);

/// n as MPI's int count; value_error naming `what` beyond 2^31 - 1.
[[nodiscard]] int mpi_count(std::int64_t n, std::string_view what);

/// Every rank's string, in rank order.
[[nodiscard]] std::vector<std::string> allgather_strings(const communicator& comm, std::string_view mine);

/// `root`'s string on every rank (`mine` is read on root only).
[[nodiscard]] std::string broadcast_string(const communicator& comm, std::string_view mine, int root);

/// The all-to-all: sends[r] is what this rank sends rank r (a view of any strides, or
/// a null or empty array), recvs[r] the view it fills with what rank r sends it. Every
/// part has dtype `type` and lies on `where` (host or device; the same kind on every rank). sends[r] on rank q
/// and recvs[q] on rank r must have the same number of elements.
void exchange(const communicator& comm, dtype type, ufunc::device where, std::span<const ufunc::array> sends,
              std::span<const ufunc::array> recvs, stream_ref stream = {});

/// Every rank's `part` (the same shape and dtype on every rank), stacked in rank order
/// along a new first axis: a C-ordered array of shape (ranks, part's shape...) on the
/// device of this rank's part.
[[nodiscard]] ufunc::array allgather_parts(const communicator& comm, const ufunc::array& part, stream_ref stream = {});

/// The rows `ranks` of a stacked array (itself where they are all of its rows).
[[nodiscard]] ufunc::array rows_of_ranks(const ufunc::array& stacked, const std::vector<int>& ranks);

/// Point to point, for the rank-ordered pipelines of non-reorderable loops: `part`
/// (any strides, host or device) to rank `to`, with a status word before it so that a
/// rank whose local step failed still lets its successor go on (ok false: no data).
void send_part(const communicator& comm, int to, bool ok, const ufunc::array& part);
/// The matching receive into `into` (C-contiguous, its shape and dtype known to both
/// sides); returns the sender's status.
[[nodiscard]] bool recv_part(const communicator& comm, int from, const ufunc::array& into);

}  // namespace ufunc::dist::detail
