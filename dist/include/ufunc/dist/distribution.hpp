// How an array is split over the ranks: the split axis and each rank's block of it,
// as rows [bounds[r], bounds[r + 1]) of that axis. The default blocks are
// np.array_split's: the first extent % ranks ranks hold one row more.
//
//   auto d = ufunc::dist::distribution::blocks(10, 4);     // axis 0, bounds 0 3 6 8 10
//   d.offset(2);  // 6      d.count(2);  // 2      d.owner(7);  // 2
//   auto e = ufunc::dist::distribution::from_counts({5, 0, 5}, 1);   // along axis 1
//   auto r = ufunc::dist::distribution::replicated(4);    // every rank holds everything
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace ufunc::dist {

class distribution {
 public:
  /// One rank holding everything along axis 0 of an empty extent (a placeholder).
  distribution() = default;

  /// np.array_split's blocks of `extent` rows over `ranks` ranks, along `axis`.
  [[nodiscard]] static distribution blocks(std::int64_t extent, int ranks, int axis = 0);
  /// Blocks of the given row counts, one per rank, in rank order.
  [[nodiscard]] static distribution from_counts(std::span<const std::int64_t> counts, int axis = 0);
  [[nodiscard]] static distribution from_counts(std::initializer_list<std::int64_t> counts, int axis = 0) {
    return from_counts(std::span<const std::int64_t>(counts.begin(), counts.size()), axis);
  }
  /// Every rank holds the whole array (the result of a reduction over the split axis).
  [[nodiscard]] static distribution replicated(int ranks);

  [[nodiscard]] bool is_replicated() const noexcept { return axis_ < 0; }
  /// The split axis; -1 when replicated.
  [[nodiscard]] int axis() const noexcept { return axis_; }
  [[nodiscard]] int ranks() const noexcept { return ranks_; }
  /// The split axis' global length (0 when replicated).
  [[nodiscard]] std::int64_t extent() const noexcept { return bounds_.empty() ? 0 : bounds_.back(); }
  /// The first row of `rank`'s block, and how many rows it holds.
  [[nodiscard]] std::int64_t offset(int rank) const { return bounds_.at(static_cast<std::size_t>(rank)); }
  [[nodiscard]] std::int64_t count(int rank) const {
    return bounds_.at(static_cast<std::size_t>(rank) + 1) - bounds_.at(static_cast<std::size_t>(rank));
  }
  /// ranks + 1 boundaries (empty when replicated).
  [[nodiscard]] std::span<const std::int64_t> bounds() const noexcept { return bounds_; }
  /// The rank holding global row `row` of the split axis (the last of several ranks
  /// whose blocks start there, i.e. the one whose block is not empty).
  [[nodiscard]] int owner(std::int64_t row) const;
  /// The same bounds along another axis (where an operation moves the split axis).
  [[nodiscard]] distribution along(int axis) const;
  /// "axis 0, bounds [0, 3, 6, 8, 10]" or "replicated over 4 ranks".
  [[nodiscard]] std::string str() const;

  friend bool operator==(const distribution&, const distribution&) = default;

 private:
  int axis_ = 0;
  int ranks_ = 1;
  std::vector<std::int64_t> bounds_{0, 0};
};

}  // namespace ufunc::dist
