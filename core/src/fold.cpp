#include "fold.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/detail/value_source.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/iteration.hpp>

namespace ufunc::detail {

namespace {

constexpr std::int64_t cast_chunk = 1024;
constexpr std::size_t max_itemsize = 16;

// Room for the values a source produces for one fold: a block of a reorderable fold, a
// chunk of mode map, or a piece of an in-order fold (which continues from its
// accumulator, so its pieces may be of any length), at twice the item size (produced
// strided where the array's run is strided: see fold_selected). Per thread: folds run
// on the executor's threads.
constexpr std::int64_t produce_chunk = 4096;
std::byte* produce_buffer() {
  alignas(64) thread_local std::byte buf[produce_chunk * 2 * max_itemsize];
  return buf;
}

std::int64_t magnitude(std::int64_t s) noexcept { return s < 0 ? -s : s; }

bool selected(const std::byte* mask, std::int64_t i, std::int64_t step) noexcept {
  return *reinterpret_cast<const unsigned char*>(mask + i * step) != 0;
}

}  // namespace

fold_task::fold_task(const fold_view& v, const fold_loop& loop) : loop_(loop) {
  itemsize_ = loop.type.itemsize();
  x_itemsize_ = loop.input.itemsize();
  if (v.x_type != loop.input) cast_ = get_cast_loop(v.x_type, loop.input);
  has_mask_ = v.mask != nullptr;
  // A source's values have no address: the plan gets no pointer for x (its strides are a
  // dense layout's, positive, so no axis of x is flipped and offsets start at 0).
  source_ = v.source;
  const plan_operand ops[3] = {{v.acc, v.acc_strides},
                               {const_cast<std::byte*>(source_ ? nullptr : v.x), v.x_strides},
                               {const_cast<std::byte*>(v.mask), v.mask_strides}};
  // Reduced axes may be walked backwards only when the loop may regroup.
  const iteration_plan plan(v.shape, {ops, has_mask_ ? 3u : 2u}, loop.reorderable);
  size_ = plan.size();
  if (size_ == 0) {
    units_ = 0;
    return;
  }
  acc_base_ = plan.base(0);
  x_origin_ = source_ ? nullptr : plan.base(1);
  x_base_ = source_ ? v.x_offset : 0;
  mask_base_ = has_mask_ ? plan.base(2) : nullptr;

  const int nd = plan.ndim();
  dim dims[max_ndim] = {};
  bool reduced[max_ndim] = {};
  for (int d = 0; d < nd; ++d) {
    dims[d] = {plan.extent(d), plan.stride(0, d), plan.stride(1, d), has_mask_ ? plan.stride(2, d) : 0};
    reduced[d] = dims[d].acc == 0;
  }
  // The run: the innermost dimension, unless it is short and the other mode has a
  // long dimension (a reduction over a short inner axis maps across outputs; a
  // reduction of a few columns folds along the reduced axis instead).
  auto longest_match = [&](bool want_reduced) {
    int best = -1;
    for (int d = 0; d < nd; ++d) {
      if (reduced[d] != want_reduced || dims[d].extent < 64) continue;
      const auto key = [&](int e) { return magnitude(want_reduced ? dims[e].x : dims[e].acc); };
      if (best < 0 || key(d) < key(best)) best = d;
    }
    return best;
  };
  int run = 0;
  if (v.fold_along_reduced && !reduced[0]) {
    for (int d = 0; d < nd; ++d)
      if (reduced[d]) {
        run = d;
        break;
      }
  } else if (dims[0].extent < 8) {
    const int other = longest_match(!reduced[0]);
    if (other >= 0) run = other;
  }
  run_ = dims[run];
  fold_mode_ = reduced[run];
  std::int64_t kept_count = 1;
  for (int d = 0; d < nd; ++d) {
    if (d == run) continue;
    if (reduced[d]) {
      reduced_[nreduced_++] = dims[d];
      reduced_count_ *= dims[d].extent;
    } else {
      kept_[nkept_++] = dims[d];
      kept_count *= dims[d].extent;
    }
  }
  if (fold_mode_) {
    units_ = kept_count;
    // A run shorter than a block with no other reduced position folds straight into its
    // accumulator, as NumPy's inner loop does (acc + the run's sum, one rounding for a
    // loop that sums in a wider type: float16's); longer reductions sum fixed blocks.
    if (loop.reorderable && !(run_.extent < block_elements && reduced_count_ == 1)) {
      partials_ = true;
      const std::int64_t len = run_.extent;
      if (len >= block_elements) {
        pieces_per_run_ = (len + block_elements - 1) / block_elements;
        blocks_ = pieces_per_run_ * reduced_count_;
      } else {
        runs_per_block_ = std::max<std::int64_t>(1, block_elements / len);
        blocks_ = (reduced_count_ + runs_per_block_ - 1) / runs_per_block_;
      }
    }
  } else {
    chunks_ = (run_.extent + map_chunk - 1) / map_chunk;
    units_ = kept_count * chunks_;
  }
}

fold_task::position fold_task::unit_position(std::int64_t unit) const noexcept {
  position p{acc_base_, x_base_, mask_base_, run_.extent};
  static_assert(fold_task::block_elements <= produce_chunk && fold_task::map_chunk <= produce_chunk);
  std::int64_t k = unit;
  if (!fold_mode_) {
    const std::int64_t c = k % chunks_;
    k /= chunks_;
    const std::int64_t off = c * map_chunk;
    p.acc += off * run_.acc;
    p.x += off * run_.x;
    p.mask += off * run_.mask;
    p.n = std::min(map_chunk, run_.extent - off);
  }
  for (int i = 0; i < nkept_; ++i) {
    const std::int64_t idx = k % kept_[i].extent;
    k /= kept_[i].extent;
    p.acc += idx * kept_[i].acc;
    p.x += idx * kept_[i].x;
    p.mask += idx * kept_[i].mask;
  }
  return p;
}

void fold_task::offset_reduced(std::int64_t r, const position& p, std::int64_t& x,
                               const std::byte*& mask) const noexcept {
  x = p.x;
  mask = p.mask;
  for (int i = 0; i < nreduced_; ++i) {
    const std::int64_t idx = r % reduced_[i].extent;
    r /= reduced_[i].extent;
    x += idx * reduced_[i].x;
    mask += idx * reduced_[i].mask;
  }
}

void fold_task::fold_n(std::byte* acc, const std::byte* x, std::int64_t n, std::int64_t step) const {
  if (n <= 0) return;
  if (loop_.scalar) {
    char* args[3] = {reinterpret_cast<char*>(acc), const_cast<char*>(reinterpret_cast<const char*>(x)),
                     reinterpret_cast<char*>(acc)};
    const std::int64_t steps[3] = {0, step, 0};
    loop_.scalar(args, n, steps, loop_.scalar_data);
    return;
  }
  if (loop_.reduce) {
    loop_.reduce(reinterpret_cast<char*>(acc), reinterpret_cast<const char*>(x), n, step, loop_.data);
    return;
  }
  // No reduce fn: the elementwise loop, one element at a time.
  char* args[3] = {reinterpret_cast<char*>(acc), nullptr, reinterpret_cast<char*>(acc)};
  const std::int64_t steps[3] = {0, 0, 0};
  for (std::int64_t i = 0; i < n; ++i) {
    args[1] = const_cast<char*>(reinterpret_cast<const char*>(x + i * step));
    loop_.elementwise(args, 1, steps, loop_.data);
  }
}

void fold_task::fold_plain(std::byte* acc, bool& started, const std::byte* x, std::int64_t n, std::int64_t step) const {
  if (n <= 0) return;
  if (!started) {  // a block's partial starts from its first element
    std::memcpy(acc, x, itemsize_);
    started = true;
    x += step;
    --n;
  }
  fold_n(acc, x, n, step);
}

void fold_task::produce(std::int64_t x, std::int64_t n, std::byte* to, std::int64_t to_step) const {
  const std::int64_t item = static_cast<std::int64_t>(source_->type().itemsize());
  if (!gather_fp()) {
    source_->produce(x / item, run_.x / item, n, to, to_step);
    return;
  }
  // The flags the fold raised so far on this thread stay the fold's (fp_flags(), gathered
  // by the executor or read by the caller); what producing raises is reported apart.
  const unsigned before = fp_read();
  fp_clear();
  source_->produce(x / item, run_.x / item, n, to, to_step);
  if (const unsigned produced = fp_read()) produced_fp_.fetch_or(produced, std::memory_order_relaxed);
  fp_clear();
  if (before != 0) add_fp_flags(before);
}

void fold_task::fold_selected(std::byte* acc, bool& started, std::int64_t x, std::int64_t n) const {
  if (!source_) {
    fold_read(acc, started, x_origin_ + x, n, run_.x);
    return;
  }
  // The values of each piece are produced into a buffer and folded as read from the array:
  // a block of a reorderable fold whole (so the sums keep their grouping), contiguous where
  // the array's run is (the reduce fns take SIMD lanes on contiguous runs only, the scalar
  // form otherwise), pieces of an in-order fold one after the other.
  const std::int64_t item = static_cast<std::int64_t>(source_->type().itemsize());
  const std::int64_t step = run_.x == item ? item : 2 * item;
  std::byte* buf = produce_buffer();
  for (std::int64_t done = 0; done < n; done += produce_chunk) {
    const std::int64_t m = std::min(produce_chunk, n - done);
    produce(x + done * run_.x, m, buf, step);
    fold_read(acc, started, buf, m, step);
  }
}

void fold_task::fold_read(std::byte* acc, bool& started, const std::byte* x, std::int64_t n, std::int64_t step) const {
  if (!cast_) {
    fold_plain(acc, started, x, n, step);
    return;
  }
  alignas(64) std::byte buf[cast_chunk * max_itemsize];
  const auto item = static_cast<std::int64_t>(x_itemsize_);
  for (std::int64_t done = 0; done < n; done += cast_chunk) {
    const std::int64_t m = std::min(cast_chunk, n - done);
    cast_(x + done * step, step, buf, item, m);
    fold_plain(acc, started, buf, m, item);
  }
}

void fold_task::fold_segment(std::byte* acc, bool& started, std::int64_t x, const std::byte* mask,
                             std::int64_t n) const {
  if (!has_mask_) {
    fold_selected(acc, started, x, n);
    return;
  }
  const std::int64_t sm = run_.mask;
  std::int64_t i = 0;
  while (i < n) {
    while (i < n && !selected(mask, i, sm)) ++i;
    std::int64_t j = i;
    while (j < n && selected(mask, j, sm)) ++j;
    if (j > i) fold_selected(acc, started, x + i * run_.x, j - i);
    i = j;
  }
}

void fold_task::map_run(const position& p, std::int64_t x, const std::byte* mask) const {
  const std::int64_t n = p.n;
  char* acc = reinterpret_cast<char*>(p.acc);
  const std::byte* values;
  std::int64_t sx = run_.x;
  if (source_) {  // elementwise per output: the values' layout does not matter
    std::byte* buf = produce_buffer();
    sx = static_cast<std::int64_t>(source_->type().itemsize());
    produce(x, n, buf, sx);
    values = buf;
  } else {
    values = x_origin_ + x;
  }
  const char* src = reinterpret_cast<const char*>(values);
  const std::int64_t sa = run_.acc;
  alignas(64) std::byte buf[map_chunk * max_itemsize];
  if (cast_) {
    cast_(values, sx, buf, static_cast<std::int64_t>(x_itemsize_), n);
    src = reinterpret_cast<const char*>(buf);
    sx = static_cast<std::int64_t>(x_itemsize_);
  }
  const std::int64_t steps[3] = {sa, sx, sa};
  if (!has_mask_) {
    char* args[3] = {acc, const_cast<char*>(src), acc};
    loop_.elementwise(args, n, steps, loop_.data);
    return;
  }
  std::int64_t i = 0;
  while (i < n) {
    while (i < n && !selected(mask, i, run_.mask)) ++i;
    std::int64_t j = i;
    while (j < n && selected(mask, j, run_.mask)) ++j;
    if (j > i) {
      char* args[3] = {acc + i * sa, const_cast<char*>(src + i * sx), acc + i * sa};
      loop_.elementwise(args, j - i, steps, loop_.data);
    }
    i = j;
  }
}

void fold_task::block_partials(std::int64_t unit, std::int64_t first, std::int64_t last, std::byte* partials,
                               bool* nonempty) const {
  const position p = unit_position(unit);
  std::int64_t x;
  const std::byte* mask;
  for (std::int64_t b = first; b < last; ++b) {
    std::byte* acc = partials + b * static_cast<std::int64_t>(itemsize_);
    bool started = false;
    if (pieces_per_run_ > 0) {
      const std::int64_t r = b / pieces_per_run_, piece = b % pieces_per_run_;
      offset_reduced(r, p, x, mask);
      const std::int64_t start = piece * block_elements;
      fold_segment(acc, started, x + start * run_.x, mask + start * run_.mask,
                   std::min(block_elements, run_.extent - start));
    } else {
      const std::int64_t r1 = std::min(reduced_count_, (b + 1) * runs_per_block_);
      for (std::int64_t r = b * runs_per_block_; r < r1; ++r) {
        offset_reduced(r, p, x, mask);
        fold_segment(acc, started, x, mask, run_.extent);
      }
    }
    nonempty[b] = started;
  }
}

void fold_task::combine(std::int64_t unit, std::byte* partials, const bool* nonempty) const {
  const auto item = static_cast<std::int64_t>(itemsize_);
  std::int64_t m = 0;
  for (std::int64_t b = 0; b < blocks_; ++b) {
    if (!nonempty[b]) continue;
    if (m != b) std::memmove(partials + m * item, partials + b * item, itemsize_);
    ++m;
  }
  fold_n(unit_position(unit).acc, partials, m, item);
}

void fold_task::run_units(std::int64_t first, std::int64_t last) const {
  if (first >= last) return;
  if (partials_) {
    std::vector<std::byte> partials(static_cast<std::size_t>(blocks_) * itemsize_);
    std::unique_ptr<bool[]> nonempty(new bool[static_cast<std::size_t>(blocks_)]);
    for (std::int64_t u = first; u < last; ++u) {
      block_partials(u, 0, blocks_, partials.data(), nonempty.get());
      combine(u, partials.data(), nonempty.get());
    }
    return;
  }
  if (!fold_mode_) {
    // Mode map: the chunks of one run that fall in [first, last) together, each
    // reduced position (innermost fastest) over all of them, so memory is read row by
    // row. Results do not depend on the grouping (elementwise per output).
    for (std::int64_t u = first; u < last;) {
      const std::int64_t group_end = std::min(last, (u / chunks_ + 1) * chunks_);
      const position p = unit_position(u);
      std::int64_t idx[max_ndim] = {};
      std::int64_t x = p.x;
      const std::byte* mask = p.mask;
      for (std::int64_t r = 0; r < reduced_count_; ++r) {
        position q = p;
        for (std::int64_t c = u; c < group_end; ++c) {
          const std::int64_t off = (c - u) * map_chunk;
          q.acc = p.acc + off * run_.acc;
          q.n = std::min(map_chunk, run_.extent - (c % chunks_) * map_chunk);
          map_run(q, x + off * run_.x, mask + off * run_.mask);
        }
        for (int i = 0; i < nreduced_; ++i) {
          x += reduced_[i].x;
          mask += reduced_[i].mask;
          if (++idx[i] < reduced_[i].extent) break;
          x -= reduced_[i].extent * reduced_[i].x;
          mask -= reduced_[i].extent * reduced_[i].mask;
          idx[i] = 0;
        }
      }
      u = group_end;
    }
    return;
  }
  for (std::int64_t u = first; u < last; ++u) {
    const position p = unit_position(u);
    if (fold_mode_) {
      // In order: one reduced dimension (the run) for loops that may not regroup.
      std::int64_t x;
      const std::byte* mask;
      for (std::int64_t r = 0; r < reduced_count_; ++r) {
        offset_reduced(r, p, x, mask);
        bool started = true;
        fold_segment(p.acc, started, x, mask, run_.extent);
      }
    }
  }
}

void execute_units(target_id t, const unit_task& task) {
  const backend& b = host_backend(t);
  if (b.execute_units != nullptr)
    b.execute_units(task);
  else
    task.run_units(0, task.units());  // in order on this thread
}

}  // namespace ufunc::detail
