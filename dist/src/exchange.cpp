#include "exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <mutex>

#include <ufunc/core/error.hpp>
#include <ufunc/core/transfer.hpp>
#include <ufunc/dist/error.hpp>

#include "blocks.hpp"
#include "nccl.hpp"

namespace ufunc::dist::detail {

namespace {

// The pipelines' point-to-point messages: a status word, then the data.
constexpr int status_tag = 0x7523;
constexpr int data_tag = 0x7524;

// One side of an all-to-all: the base pointer MPI reads or writes, and each rank's
// element count and offset from it.
struct side {
  std::byte* base = nullptr;
  std::vector<int> counts;
  std::vector<int> displs;
  ufunc::array buffer;  // the packed parts, where they are not pieces of one allocation
};

side plan_side(std::span<const ufunc::array> parts, dtype type, bool sending) {
  const auto p = parts.size();
  const auto item = static_cast<std::int64_t>(type.itemsize());
  side s;
  s.counts.resize(p);
  s.displs.resize(p);
  // Without a copy where every part is a C-contiguous piece of one allocation (the rows
  // of an axis-0 block): offsets from the lowest of them.
  bool direct = true;
  const void* owner = nullptr;
  std::byte* lowest = nullptr;
  for (const auto& a : parts) {
    if (!a.valid() || a.size() == 0) continue;
    if (!a.is_c_contiguous() || a.owner() == nullptr || (owner != nullptr && a.owner().get() != owner)) {
      direct = false;
      break;
    }
    owner = a.owner().get();
    if (lowest == nullptr || a.data() < lowest) lowest = a.data();
  }
  std::int64_t total = 0;
  for (std::size_t r = 0; r < p; ++r) {
    const std::int64_t n = parts[r].valid() ? parts[r].size() : 0;
    s.counts[r] = mpi_count(n, "an all-to-all part");
    if (direct && n > 0) {
      const std::int64_t offset = (parts[r].data() - lowest) / item;
      if (offset > INT_MAX) direct = false;  // then packed below
      s.displs[r] = static_cast<int>(std::min<std::int64_t>(offset, INT_MAX));
    }
    total += n;
  }
  if (direct) {
    static std::byte nothing[16];
    s.base = lowest != nullptr ? lowest : nothing;
    return s;
  }
  (void)mpi_count(total, "the parts of an all-to-all on one rank");
  s.buffer = ufunc::array::empty({total}, type);
  s.base = s.buffer.data();
  std::int64_t at = 0;
  for (std::size_t r = 0; r < p; ++r) {
    s.displs[r] = static_cast<int>(at);
    if (sending && s.counts[r] > 0)
      parts[r].copy_to(ufunc::array(s.base + at * item, type, parts[r].shape(), {}, s.buffer.owner()));
    at += s.counts[r];
  }
  return s;
}

void unpack(const side& s, std::span<const ufunc::array> parts, dtype type) {
  if (!s.buffer.valid()) return;  // received in place
  const auto item = static_cast<std::int64_t>(type.itemsize());
  for (std::size_t r = 0; r < parts.size(); ++r)
    if (s.counts[r] > 0)
      ufunc::array(s.base + static_cast<std::int64_t>(s.displs[r]) * item, type, parts[r].shape(), {}, s.buffer.owner())
          .copy_to(parts[r]);
}

void exchange_host(const communicator& comm, dtype type, std::span<const ufunc::array> sends,
                   std::span<const ufunc::array> recvs) {
  const side out = plan_side(sends, type, true);
  const side in = plan_side(recvs, type, false);
  const MPI_Datatype t = element_type(type.itemsize());
  check_mpi(MPI_Alltoallv(out.base, out.counts.data(), out.displs.data(), t, in.base, in.counts.data(),
                          in.displs.data(), t, comm.get()),
            "MPI_Alltoallv");
  unpack(in, recvs, type);
}

#if defined(UFUNC_HAS_NCCL)
// The same on the GPU: parts packed into one device buffer per side, NCCL between them.
void exchange_nccl(const communicator& comm, dtype type, ufunc::device where, std::span<const ufunc::array> sends,
                   std::span<const ufunc::array> recvs, stream_ref stream) {
  const auto p = sends.size();
  const auto item = static_cast<std::int64_t>(type.itemsize());
  std::vector<std::int64_t> sc(p), sd(p), rc(p), rd(p);
  std::int64_t stotal = 0, rtotal = 0;
  for (std::size_t r = 0; r < p; ++r) {
    sc[r] = (sends[r].valid() ? sends[r].size() : 0) * item;
    sd[r] = stotal;
    stotal += sc[r];
    rc[r] = (recvs[r].valid() ? recvs[r].size() : 0) * item;
    rd[r] = rtotal;
    rtotal += rc[r];
  }
  auto sbuf = ufunc::array::empty({stotal / item}, type, where);
  auto rbuf = ufunc::array::empty({rtotal / item}, type, where);
  for (std::size_t r = 0; r < p; ++r)
    if (sc[r] > 0) sends[r].copy_to(ufunc::array(sbuf.data() + sd[r], type, sends[r].shape(), {}, sbuf.owner(), where));
  nccl_alltoallv(comm, where.index, sbuf.data(), sc, sd, rbuf.data(), rc, rd, stream);
  for (std::size_t r = 0; r < p; ++r)
    if (rc[r] > 0) ufunc::array(rbuf.data() + rd[r], type, recvs[r].shape(), {}, rbuf.owner(), where).copy_to(recvs[r]);
}
#endif

}  // namespace

MPI_Datatype element_type(std::size_t itemsize) {
  static std::mutex mutex;
  static std::map<std::size_t, MPI_Datatype> types;
  std::lock_guard lock(mutex);
  if (const auto it = types.find(itemsize); it != types.end()) return it->second;
  MPI_Datatype made;
  check_mpi(MPI_Type_contiguous(static_cast<int>(itemsize), MPI_BYTE, &made), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&made), "MPI_Type_commit");
  types.emplace(itemsize, made);
  return made;
}

int mpi_count(std::int64_t n, std::string_view what) {
  if (n > INT_MAX)
    throw value_error("ufunc::dist: " + std::string(what) + " of " + std::to_string(n) +
                      " elements is more than one MPI message holds (2^31 - 1); use more ranks");
  return static_cast<int>(n);
}

std::vector<std::string> allgather_strings(const communicator& comm, std::string_view mine) {
  const auto p = static_cast<std::size_t>(comm.size());
  int length = mpi_count(static_cast<std::int64_t>(mine.size()), "a description");
  std::vector<int> lengths(p), displs(p);
  check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm.get()), "MPI_Allgather");
  std::int64_t total = 0;
  for (std::size_t r = 0; r < p; ++r) {
    displs[r] = mpi_count(total, "the descriptions");
    total += lengths[r];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  check_mpi(
      MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, comm.get()),
      "MPI_Allgatherv");
  std::vector<std::string> out(p);
  for (std::size_t r = 0; r < p; ++r)
    out[r] = all.substr(static_cast<std::size_t>(displs[r]), static_cast<std::size_t>(lengths[r]));
  return out;
}

std::string broadcast_string(const communicator& comm, std::string_view mine, int root) {
  int length = comm.rank() == root ? mpi_count(static_cast<std::int64_t>(mine.size()), "a message") : 0;
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, root, comm.get()), "MPI_Bcast");
  std::string s(comm.rank() == root ? std::string(mine) : std::string(static_cast<std::size_t>(length), '\0'));
  check_mpi(MPI_Bcast(s.data(), length, MPI_CHAR, root, comm.get()), "MPI_Bcast");
  return s;
}

void exchange(const communicator& comm, dtype type, ufunc::device where, std::span<const ufunc::array> sends,
              std::span<const ufunc::array> recvs, stream_ref stream) {
  if (where.is_host()) return exchange_host(comm, type, sends, recvs);
#if defined(UFUNC_HAS_NCCL)
  return exchange_nccl(comm, type, where, sends, recvs, stream);
#else
  (void)stream;
  // Through host copies: C-ordered copies of the parts to send, host buffers for the
  // parts to receive, then each received part copied to its place on the device.
  std::vector<ufunc::array> hs(sends.size()), hr(recvs.size());
  for (std::size_t r = 0; r < sends.size(); ++r)
    if (sends[r].valid() && sends[r].size() > 0) hs[r] = ufunc::to_host(sends[r]);
  for (std::size_t r = 0; r < recvs.size(); ++r)
    if (recvs[r].valid() && recvs[r].size() > 0) hr[r] = ufunc::array::empty(recvs[r].shape(), type);
  exchange_host(comm, type, hs, hr);
  for (std::size_t r = 0; r < recvs.size(); ++r)
    if (hr[r].valid()) ufunc::to_device(hr[r], where.index).copy_to(recvs[r]);
#endif
}

ufunc::array allgather_parts(const communicator& comm, const ufunc::array& part, stream_ref stream) {
  const auto p = comm.size();
  dim_vector shape = part.shape();
  shape.insert(0, p);
  const int n = mpi_count(part.size(), "a partial result");
  ufunc::array all;
  if (part.device().is_host()) {
    const ufunc::array mine = part.is_c_contiguous() ? part : part.copy();
    all = ufunc::array::empty(shape, part.type());
    const MPI_Datatype t = element_type(part.itemsize());
    check_mpi(MPI_Allgather(mine.data(), n, t, all.data(), n, t, comm.get()), "MPI_Allgather");
  } else {
#if defined(UFUNC_HAS_NCCL)
    const ufunc::array mine = part.is_c_contiguous() ? part : part.copy();
    all = ufunc::array::empty(shape, part.type(), part.device());
    nccl_allgather(comm, part.device().index, mine.data(), all.data(), static_cast<std::size_t>(part.nbytes()), stream);
#else
    (void)stream;
    const ufunc::array mine = ufunc::to_host(part);
    ufunc::array host = ufunc::array::empty(shape, part.type());
    const MPI_Datatype t = element_type(part.itemsize());
    check_mpi(MPI_Allgather(mine.data(), n, t, host.data(), n, t, comm.get()), "MPI_Allgather");
    all = ufunc::to_device(host, part.device().index);
#endif
  }
  return all;
}

ufunc::array rows_of_ranks(const ufunc::array& stacked, const std::vector<int>& ranks) {
  if (static_cast<std::int64_t>(ranks.size()) == stacked.shape()[0]) return stacked;
  dim_vector shape = stacked.shape();
  shape[0] = static_cast<std::int64_t>(ranks.size());
  ufunc::array picked = ufunc::array::empty(shape, stacked.type(), stacked.device());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::int64_t r = ranks[i];
    dim_vector lo(shape.size(), 0);
    dim_vector hi = stacked.shape();
    lo[0] = r;
    hi[0] = r + 1;
    dim_vector plo(shape.size(), 0);
    dim_vector phi = shape;
    plo[0] = static_cast<std::int64_t>(i);
    phi[0] = static_cast<std::int64_t>(i) + 1;
    view_of(stacked, {lo, hi}).copy_to(view_of(picked, {plo, phi}));
  }
  return picked;
}

void send_part(const communicator& comm, int to, bool ok, const ufunc::array& part) {
  int status = ok ? 1 : 0;
  check_mpi(MPI_Send(&status, 1, MPI_INT, to, status_tag, comm.get()), "MPI_Send");
  if (!ok) return;
  // Host copies for device parts: the pipelines are the slow path of non-reorderable loops.
  const ufunc::array host = ufunc::to_host(part);
  const ufunc::array dense = host.is_c_contiguous() ? host : host.copy();
  check_mpi(MPI_Send(dense.data(), mpi_count(dense.size(), "a pipeline's part"), element_type(dense.itemsize()), to,
                     data_tag, comm.get()),
            "MPI_Send");
}

bool recv_part(const communicator& comm, int from, const ufunc::array& into) {
  int status = 0;
  check_mpi(MPI_Recv(&status, 1, MPI_INT, from, status_tag, comm.get(), MPI_STATUS_IGNORE), "MPI_Recv");
  if (status == 0) return false;
  ufunc::array host = into.device().is_host() ? into : ufunc::array::empty(into.shape(), into.type());
  check_mpi(MPI_Recv(host.data(), mpi_count(host.size(), "a pipeline's part"), element_type(host.itemsize()), from,
                     data_tag, comm.get(), MPI_STATUS_IGNORE),
            "MPI_Recv");
  if (!into.device().is_host()) ufunc::to_device(host, into.device().index).copy_to(into);
  return true;
}

}  // namespace ufunc::dist::detail
