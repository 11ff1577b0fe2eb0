// ufunc::dist::array: an n-d array split in blocks along one axis over the ranks of an
// MPI communicator. Each rank holds its block as an ordinary ufunc::array (on the host,
// or on its GPU), so every local operation of the library applies to it.
//
//   ufunc::dist::communicator world;
//   auto x = ufunc::dist::arange<float>(world, 10.0f);    // rank r holds its rows of 0..9
//   x.local();          // this rank's block, a ufunc::array
//   x.global_shape();   // (10,)
//   x.distribution();   // axis 0, np.array_split's blocks
//   ufunc::array whole = ufunc::dist::allgather(x);       // every rank: the whole array
#pragma once

#include <string>

#include <ufunc/core/array.hpp>
#include <ufunc/dist/communicator.hpp>
#include <ufunc/dist/distribution.hpp>

namespace ufunc::dist {

class array {
 public:
  /// A null array (valid() is false).
  array() = default;
  /// This rank's block of an array of `global_shape` split as `layout` over `comm`: the
  /// block's extent along the split axis must be layout.count(rank) and its other
  /// extents the global ones (distribution_error otherwise). No communication: every
  /// rank must pass the same global shape and distribution (from_local() works them
  /// out collectively instead).
  array(ufunc::array local, dim_vector global_shape, dist::distribution layout, communicator comm);

  [[nodiscard]] bool valid() const noexcept { return local_.valid(); }
  /// This rank's block (the whole array where the distribution is replicated).
  [[nodiscard]] const ufunc::array& local() const noexcept { return local_; }
  [[nodiscard]] const dim_vector& global_shape() const noexcept { return shape_; }
  [[nodiscard]] const dist::distribution& distribution() const noexcept { return layout_; }
  [[nodiscard]] const communicator& comm() const noexcept { return comm_; }
  [[nodiscard]] dtype type() const noexcept { return local_.type(); }
  [[nodiscard]] std::size_t ndim() const noexcept { return shape_.size(); }
  /// The number of elements of the whole array.
  [[nodiscard]] std::int64_t size() const noexcept { return shape_size(shape_); }
  [[nodiscard]] ufunc::device device() const noexcept { return local_.device(); }
  [[nodiscard]] bool is_replicated() const noexcept { return layout_.is_replicated(); }
  /// A copy in another dtype with the same distribution (each rank casts its block).
  [[nodiscard]] array astype(ufunc::dtype type) const;
  /// "float32 array of global shape (10, 4), axis 0, bounds [0, 3, 6, 8, 10] on cpu"
  [[nodiscard]] std::string describe() const;

 private:
  ufunc::array local_;
  dim_vector shape_;
  dist::distribution layout_;
  communicator comm_{MPI_COMM_NULL};
};

}  // namespace ufunc::dist
