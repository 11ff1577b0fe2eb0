#include <ufunc/dist/transfer.hpp>

#include <string>
#include <vector>

#include <ufunc/core/config.hpp>
#include <ufunc/core/transfer.hpp>
#include <ufunc/dist/error.hpp>

#include "agreement.hpp"
#include "blocks.hpp"
#include "exchange.hpp"

namespace ufunc::dist {

namespace {

void check_fits(const dist::distribution& to, const dim_vector& shape, int ranks) {
  if (to.ranks() != ranks)
    throw distribution_error("redistribute: " + std::to_string(to.ranks()) + " blocks for a communicator of " +
                             std::to_string(ranks) + " ranks");
  if (to.is_replicated()) return;
  if (static_cast<std::size_t>(to.axis()) >= shape.size() || to.extent() != shape[static_cast<std::size_t>(to.axis())])
    throw distribution_error("redistribute: the blocks (" + to.str() + ") do not fit an array of global shape " +
                             ufunc::array::shape_string(shape));
}

// redistribute with the target worked out inside the agreed local step, so that a
// target that cannot be made (a bad root, a bad axis) is an error on every rank.
template <class MakeTarget>
array move(const array& a, MakeTarget make_target, const char* what) {
  const communicator& comm = a.comm();
  const int rank = comm.rank();
  std::string description;
  dist::distribution to;
  ufunc::array fresh;
  std::vector<ufunc::array> sends, recvs;
  bool moves = false;
  const auto failed = detail::attempt([&] {
    if (!a.valid()) throw value_error(std::string(what) + ": a null distributed array");
    to = make_target();
    check_fits(to, a.global_shape(), comm.size());
    description = std::string(what) + ": " + a.describe() + " to " + to.str();
    if (to == a.distribution()) return;
    const dim_vector& shape = a.global_shape();
    const detail::box dst = detail::held_by(to, rank, shape);
    if (a.is_replicated()) {  // every rank holds everything: each keeps its part
      fresh = detail::view_of(a.local(), dst).copy();
      return;
    }
    // Each rank sends every other the overlap of its block with the other's new block,
    // and receives the overlap of the other's block with its own new one.
    moves = true;
    const detail::box src = detail::held_by(a.distribution(), rank, shape);
    fresh = detail::empty_like_on(a.local(), dst.shape());
    sends.resize(static_cast<std::size_t>(comm.size()));
    recvs.resize(static_cast<std::size_t>(comm.size()));
    for (int r = 0; r < comm.size(); ++r) {
      const auto i = static_cast<std::size_t>(r);
      sends[i] =
          detail::view_of(a.local(), detail::shifted(detail::intersect(src, detail::held_by(to, r, shape)), src.lo));
      recvs[i] = detail::view_of(
          fresh, detail::shifted(detail::intersect(detail::held_by(a.distribution(), r, shape), dst), dst.lo));
    }
  });
  detail::agree(comm, failed, description);
  if (to == a.distribution()) return a;
  if (moves) detail::exchange(comm, a.type(), a.device(), sends, recvs);
  return array(fresh, a.global_shape(), to, comm);
}

dist::distribution all_on(const array& a, int root) {
  const int p = a.comm().size();
  if (root < 0 || root >= p)
    throw value_error("gather: root " + std::to_string(root) + " is not a rank of a communicator of " +
                      std::to_string(p) + " ranks");
  std::vector<std::int64_t> counts(static_cast<std::size_t>(p), 0);
  const int axis = a.is_replicated() ? 0 : a.distribution().axis();
  counts[static_cast<std::size_t>(root)] = a.ndim() == 0 ? 0 : a.global_shape()[static_cast<std::size_t>(axis)];
  if (a.is_replicated()) return distribution::replicated(p);  // nothing to move: root has it
  return distribution::from_counts(counts, axis);
}

}  // namespace

array redistribute(const array& a, const distribution& to) {
  return move(
      a, [&] { return to; }, "redistribute");
}

ufunc::array gather(const array& a, int root) {
  const array on_root = move(
      a, [&] { return all_on(a, root); }, "gather");
  return a.comm().rank() == root ? on_root.local() : ufunc::array();
}

ufunc::array allgather(const array& a) {
  return move(
             a, [&] { return distribution::replicated(a.comm().size()); }, "allgather")
      .local();
}

array scatter(const communicator& comm, const ufunc::array& whole, int root, const placement& where) {
  // root describes the array, the others learn its dtype and shape from it.
  std::vector<std::int64_t> meta(2 + static_cast<std::size_t>(max_ndim), 0);
  auto failed = detail::attempt([&] {
    if (root < 0 || root >= comm.size())
      throw value_error("scatter: root " + std::to_string(root) + " is not a rank of a communicator of " +
                        std::to_string(comm.size()) + " ranks");
    if (comm.rank() != root) return;
    if (!whole.valid()) throw value_error("scatter: the root's array is a null array");
    if (whole.ndim() == 0) throw distribution_error("scatter: a 0-d array has no axis to split (use replicate())");
    meta[0] = whole.type().index();
    meta[1] = static_cast<std::int64_t>(whole.ndim());
    for (std::size_t i = 0; i < whole.ndim(); ++i) meta[2 + i] = whole.shape()[i];
  });
  detail::agree(comm, failed, "scatter from root " + std::to_string(root));
  check_mpi(MPI_Bcast(meta.data(), static_cast<int>(meta.size()), MPI_INT64_T, root, comm.get()), "MPI_Bcast");
  const dtype type = dtype::from_index(static_cast<int>(meta[0]));
  const dim_vector shape(std::span<const std::int64_t>(meta.data() + 2, static_cast<std::size_t>(meta[1])));

  dist::distribution to;
  failed = detail::attempt([&] { to = layout_for(comm, shape, where); });
  detail::agree(comm, failed, "scatter to " + to.str());
  // Everything on root, along the split axis to be; moved on the host, then placed.
  const int axis = to.is_replicated() ? 0 : to.axis();
  std::vector<std::int64_t> counts(static_cast<std::size_t>(comm.size()), 0);
  counts[static_cast<std::size_t>(root)] = shape[static_cast<std::size_t>(axis)];
  dim_vector held = shape;
  if (comm.rank() != root) held[static_cast<std::size_t>(axis)] = 0;
  const ufunc::array source = comm.rank() == root ? ufunc::to_host(whole) : ufunc::array::empty(held, type);
  const array blocks = redistribute(array(source, shape, distribution::from_counts(counts, axis), comm), to);
  return array(detail::place(blocks.local(), where.device), shape, to, comm);
}

}  // namespace ufunc::dist
