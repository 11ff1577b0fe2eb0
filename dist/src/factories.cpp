#include <ufunc/dist/factories.hpp>

#include <string>

#include <ufunc/dist/error.hpp>

#include "agreement.hpp"
#include "exchange.hpp"

namespace ufunc::dist {

namespace {

std::string device_kind(ufunc::device d) { return d.is_host() ? "host" : "cuda"; }

}  // namespace

dist::distribution layout_for(const communicator& comm, const dim_vector& shape, const placement& where) {
  if (shape.empty()) throw distribution_error("ufunc::dist: a 0-d array has no axis to split (use replicate())");
  if (where.blocks) {
    const dist::distribution& d = *where.blocks;
    if (d.is_replicated()) return d;
    if (d.ranks() != comm.size())
      throw distribution_error("ufunc::dist: " + std::to_string(d.ranks()) + " blocks for a communicator of " +
                               std::to_string(comm.size()) + " ranks");
    if (static_cast<std::size_t>(d.axis()) >= shape.size() || d.extent() != shape[static_cast<std::size_t>(d.axis())])
      throw distribution_error("ufunc::dist: the blocks (" + d.str() + ") do not fit shape " +
                               ufunc::array::shape_string(shape));
    return d;
  }
  if (where.axis < 0 || static_cast<std::size_t>(where.axis) >= shape.size())
    throw distribution_error("ufunc::dist: split axis " + std::to_string(where.axis) +
                             " is out of bounds for an array of dimension " + std::to_string(shape.size()));
  return distribution::blocks(shape[static_cast<std::size_t>(where.axis)], comm.size(), where.axis);
}

namespace {

dim_vector block_shape(const dim_vector& shape, const dist::distribution& d, int rank) {
  dim_vector s = shape;
  if (!d.is_replicated()) s[static_cast<std::size_t>(d.axis())] = d.count(rank);
  return s;
}

}  // namespace

array empty(const communicator& comm, const dim_vector& shape, dtype type, const placement& where) {
  const dist::distribution d = layout_for(comm, shape, where);
  return array(ufunc::array::empty(block_shape(shape, d, comm.rank()), type, where.device), shape, d, comm);
}

array zeros(const communicator& comm, const dim_vector& shape, dtype type, const placement& where) {
  const dist::distribution d = layout_for(comm, shape, where);
  return array(ufunc::array::zeros(block_shape(shape, d, comm.rank()), type, where.device), shape, d, comm);
}

namespace detail {

std::int64_t arange_length(double start, double stop, double step) {
  // ufunc::arange's count, so that the ranks' rows together are its elements.
  const double n = (stop - start) / step;
  if (n != n) throw value_error("arange: cannot compute the length (NaN bound or step)");
  if (n >= 9.2233720368547758e18) throw overflow_error("arange: length " + std::to_string(n) + " overflows 64 bits");
  return n > 0 ? static_cast<std::int64_t>(n) + (n > static_cast<double>(static_cast<std::int64_t>(n))) : 0;
}

ufunc::array place(const ufunc::array& host, ufunc::device where) {
  return where.is_host() ? host : ufunc::to_device(host, where.index);
}

}  // namespace detail

array from_local(const communicator& comm, const ufunc::array& local, int axis) {
  std::string description;
  const auto failed = detail::attempt([&] {
    if (!local.valid()) throw value_error("from_local: the local array is a null array");
    if (axis < 0 || static_cast<std::size_t>(axis) >= local.ndim())
      throw distribution_error("from_local: split axis " + std::to_string(axis) +
                               " is out of bounds for an array of dimension " + std::to_string(local.ndim()));
    dim_vector others = local.shape();
    others[static_cast<std::size_t>(axis)] = -1;
    description = "from_local: " + std::string(local.type().name()) + " blocks of shape " +
                  ufunc::array::shape_string(others) + " (-1: any length) on " + device_kind(local.device());
  });
  detail::agree(comm, failed, description);
  const std::int64_t mine = local.shape()[static_cast<std::size_t>(axis)];
  std::vector<std::int64_t> counts(static_cast<std::size_t>(comm.size()));
  check_mpi(MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm.get()), "MPI_Allgather");
  const dist::distribution d = distribution::from_counts(counts, axis);
  dim_vector shape = local.shape();
  shape[static_cast<std::size_t>(axis)] = d.extent();
  return array(local, shape, d, comm);
}

array replicate(const communicator& comm, const ufunc::array& whole) {
  std::string description;
  const auto failed = detail::attempt([&] {
    if (!whole.valid()) throw value_error("replicate: the array is a null array");
    description = "replicate: " + std::string(whole.type().name()) + " array of shape " +
                  ufunc::array::shape_string(whole.shape()) + " on " + device_kind(whole.device());
  });
  detail::agree(comm, failed, description);
  return array(whole, whole.shape(), distribution::replicated(comm.size()), comm);
}

}  // namespace ufunc::dist
