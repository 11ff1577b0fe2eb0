#include <ufunc/dist/array.hpp>

#include <ufunc/dist/error.hpp>

namespace ufunc::dist {

array::array(ufunc::array local, dim_vector global_shape, dist::distribution layout, communicator comm)
    : local_(std::move(local)), shape_(std::move(global_shape)), layout_(std::move(layout)), comm_(comm) {
  const auto fail = [&](const std::string& why) {
    throw distribution_error("dist::array: " + why + " (global shape " + ufunc::array::shape_string(shape_) + ", " +
                             layout_.str() + ")");
  };
  if (!local_.valid()) fail("the local block is a null array");
  if (comm_.get() == MPI_COMM_NULL) fail("the communicator is MPI_COMM_NULL");
  if (layout_.ranks() != comm_.size())
    fail("the distribution has " + std::to_string(layout_.ranks()) + " blocks for a communicator of " +
         std::to_string(comm_.size()) + " ranks");
  if (layout_.is_replicated()) {
    if (local_.shape() != shape_)
      fail("a replicated array's local array has shape " + ufunc::array::shape_string(local_.shape()));
    return;
  }
  const auto axis = static_cast<std::size_t>(layout_.axis());
  if (axis >= shape_.size())
    fail("the split axis " + std::to_string(axis) + " is out of bounds for an array of dimension " +
         std::to_string(shape_.size()));
  if (layout_.extent() != shape_[axis])
    fail("the blocks cover " + std::to_string(layout_.extent()) + " rows of an axis of length " +
         std::to_string(shape_[axis]));
  dim_vector expected = shape_;
  expected[axis] = layout_.count(comm_.rank());
  if (local_.shape() != expected)
    fail("rank " + std::to_string(comm_.rank()) + "'s block has shape " + ufunc::array::shape_string(local_.shape()) +
         ", not " + ufunc::array::shape_string(expected));
}

array array::astype(ufunc::dtype type) const { return array(local_.astype(type), shape_, layout_, comm_); }

std::string array::describe() const {
  if (!valid()) return "null distributed array";
  return std::string(type().name()) + " array of global shape " + ufunc::array::shape_string(shape_) + ", " +
         layout_.str() + " on " + (device().is_host() ? std::string("cpu") : std::string("cuda"));
}

}  // namespace ufunc::dist
