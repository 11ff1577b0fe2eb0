#include <ufunc/dist/distribution.hpp>

#include <algorithm>

#include <ufunc/dist/error.hpp>

namespace ufunc::dist {

distribution distribution::blocks(std::int64_t extent, int ranks, int axis) {
  if (ranks < 1) throw distribution_error("distribution: at least one rank is needed, not " + std::to_string(ranks));
  if (extent < 0) throw distribution_error("distribution: negative extent " + std::to_string(extent));
  // np.array_split: extent // ranks rows each, one more for the first extent % ranks.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), extent / ranks);
  for (std::int64_t r = 0; r < extent % ranks; ++r) ++counts[static_cast<std::size_t>(r)];
  return from_counts(counts, axis);
}

distribution distribution::from_counts(std::span<const std::int64_t> counts, int axis) {
  if (counts.empty()) throw distribution_error("distribution: at least one rank is needed, not 0");
  if (axis < 0) throw distribution_error("distribution: the split axis must be >= 0, not " + std::to_string(axis));
  distribution d;
  d.axis_ = axis;
  d.ranks_ = static_cast<int>(counts.size());
  d.bounds_.assign(1, 0);
  for (const std::int64_t c : counts) {
    if (c < 0) throw distribution_error("distribution: negative block length " + std::to_string(c));
    d.bounds_.push_back(d.bounds_.back() + c);
  }
  return d;
}

distribution distribution::replicated(int ranks) {
  if (ranks < 1) throw distribution_error("distribution: at least one rank is needed, not " + std::to_string(ranks));
  distribution d;
  d.axis_ = -1;
  d.ranks_ = ranks;
  d.bounds_.clear();
  return d;
}

int distribution::owner(std::int64_t row) const {
  if (is_replicated()) throw distribution_error("distribution::owner: a replicated array has no owner of a row");
  if (row < 0 || row >= extent())
    throw index_error("distribution::owner: row " + std::to_string(row) + " is out of bounds for extent " +
                      std::to_string(extent()));
  // The last boundary <= row starts the (non-empty) block holding it.
  const auto it = std::upper_bound(bounds_.begin(), bounds_.end(), row);
  return static_cast<int>(it - bounds_.begin()) - 1;
}

distribution distribution::along(int axis) const {
  if (is_replicated()) return *this;
  if (axis < 0) throw distribution_error("distribution: the split axis must be >= 0, not " + std::to_string(axis));
  distribution d = *this;
  d.axis_ = axis;
  return d;
}

std::string distribution::str() const {
  if (is_replicated()) return "replicated over " + std::to_string(ranks_) + (ranks_ == 1 ? " rank" : " ranks");
  std::string s = "axis " + std::to_string(axis_) + ", bounds [";
  for (std::size_t i = 0; i < bounds_.size(); ++i) s += (i ? ", " : "") + std::to_string(bounds_[i]);
  return s + "]";
}

}  // namespace ufunc::dist
