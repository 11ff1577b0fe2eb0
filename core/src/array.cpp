#include <ufunc/core/array.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <numeric>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/memory.hpp>
#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/scalar.hpp>

namespace ufunc {

namespace {

std::int64_t checked_size(std::span<const std::int64_t> shape, std::size_t itemsize) {
  // As NumPy: the byte size of the non-zero extents must fit in int64 even when a
  // zero extent makes the array empty.
  std::int64_t n = 1;
  bool overflow = false, empty = false;
  for (auto e : shape) {
    if (e < 0) throw value_error("negative dimensions are not allowed: shape " + array::shape_string(shape));
    if (e == 0)
      empty = true;
    else
      overflow |= __builtin_mul_overflow(n, e, &n);
  }
  std::int64_t bytes = 0;
  overflow |= __builtin_mul_overflow(n, static_cast<std::int64_t>(itemsize), &bytes);
  if (overflow)
    throw overflow_error("array is too big: shape " + array::shape_string(shape) + " of " + std::to_string(itemsize) +
                         "-byte elements overflows 64-bit sizes");
  return empty ? 0 : n;
}

// Largest byte extent of a view. The iteration computes offsets up to about twice
// the extent (extent x stride products, strides of sliced views), and no address
// space holds 2^62 bytes, so this keeps every offset inside int64 without
// refusing any view of real memory.
constexpr std::int64_t max_view_bytes = std::int64_t{1} << 62;

// The bytes between a view's lowest and highest addressed element, which must stay
// below max_view_bytes: a raw-pointer view with huge strides (or a shape of
// 2^40 x 2^40 with stride 2^30) would otherwise overflow the offsets of every loop.
void check_byte_extent(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides,
                       std::size_t itemsize) {
  std::int64_t extent = static_cast<std::int64_t>(itemsize);
  bool overflow = false;
  for (std::size_t i = 0; i < shape.size() && !overflow; ++i) {
    std::int64_t span = 0;
    const std::int64_t stride = strides[i] == INT64_MIN ? INT64_MAX : std::abs(strides[i]);
    overflow = __builtin_mul_overflow(shape[i] - 1, stride, &span) || __builtin_add_overflow(extent, span, &extent);
  }
  if (overflow || extent >= max_view_bytes)
    throw overflow_error("view of shape " + array::shape_string(shape) + " and byte strides " +
                         array::shape_string(strides) + " spans " +
                         (overflow ? std::string("more than 2^63") : std::to_string(extent)) +
                         " bytes: at most 2^62 are supported");
}

dim_vector c_strides(std::span<const std::int64_t> shape, std::size_t itemsize) {
  dim_vector strides(shape.size());
  std::int64_t s = static_cast<std::int64_t>(itemsize);
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    // Saturate: a stride past int64 belongs to an array too big to exist (or an empty one),
    // and the size check that follows raises overflow_error for the former.
    if (i > 0 && __builtin_mul_overflow(s, std::max<std::int64_t>(shape[i], 1), &s))
      s = std::numeric_limits<std::int64_t>::max();
  }
  return strides;
}

// C strides for a new array: all zero when it is empty, as NumPy allocates (views keep
// c_strides, as NumPy's views keep theirs).
dim_vector new_c_strides(std::span<const std::int64_t> shape, std::size_t itemsize) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return dim_vector(shape.size(), 0);
  return c_strides(shape, itemsize);
}

void check_ndim(std::size_t ndim) {
  if (ndim > static_cast<std::size_t>(max_ndim))
    throw value_error("too many dimensions: " + std::to_string(ndim) + " (at most " + std::to_string(max_ndim) + ")");
}

std::int64_t normalize_index(std::int64_t i, std::int64_t extent, std::size_t axis) {
  const auto j = i < 0 ? i + extent : i;
  if (j < 0 || j >= extent)
    throw index_error("index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                      " with size " + std::to_string(extent));
  return j;
}

}  // namespace

array::array(void* data, dtype type, dim_vector shape, dim_vector byte_strides, std::shared_ptr<void> owner,
             ufunc::device where)
    : owner_(std::move(owner)),
      data_(static_cast<std::byte*>(data)),
      shape_(std::move(shape)),
      strides_(std::move(byte_strides)),
      dtype_(type),
      device_(where),
      valid_(true) {
  if (shape_.size() > static_cast<std::size_t>(max_ndim))
    throw value_error("too many dimensions: " + std::to_string(shape_.size()) + " (at most " +
                      std::to_string(max_ndim) + ")");
  size_ = checked_size(shape_, dtype_.itemsize());
  if (strides_.empty() && !shape_.empty()) strides_ = c_strides(shape_, dtype_.itemsize());
  if (strides_.size() != shape_.size())
    throw value_error("strides " + shape_string(strides_) + " do not match shape " + shape_string(shape_));
  if (size_ > 1) check_byte_extent(shape_, strides_, dtype_.itemsize());
  if (data_ == nullptr && size_ != 0) throw value_error("null data pointer for a non-empty array");
  // Every loop reads elements through typed pointers (scalar code and SIMD gathers), so
  // a misaligned element is UB (found by fuzzing views of raw memory). NumPy copies
  // unaligned arrays through buffers; ufunc refuses them instead.
  if (size_ > 0) {
    const auto align = visit_dtype(dtype_, [](auto t) { return static_cast<std::int64_t>(alignof(decltype(t))); });
    bool aligned = reinterpret_cast<std::uintptr_t>(data_) % static_cast<std::uintptr_t>(align) == 0;
    for (std::size_t d = 0; d < shape_.size(); ++d) aligned = aligned && (shape_[d] < 2 || strides_[d] % align == 0);
    if (!aligned)
      throw value_error("misaligned view: the data pointer and the strides " + shape_string(strides_) + " of " +
                        std::string(dtype_.name()) + " elements must be multiples of " + std::to_string(align) +
                        " bytes (unaligned arrays are not supported; copy the data into an aligned buffer)");
  }
}

array array::empty(const dim_vector& shape, dtype type, ufunc::device where) {
  return detail::empty_strided(shape, new_c_strides(shape, type.itemsize()), type, where);
}

array array::empty(const dim_vector& shape, dtype type, ufunc::order layout, ufunc::device where) {
  if (layout == order::C) return empty(shape, type, where);
  if (layout != order::F) throw value_error("empty: only 'C' or 'F' order is permitted");
  check_ndim(shape.size());
  dim_vector axes = detail::c_order_axes(shape.size());
  std::reverse(axes.begin(), axes.end());
  return detail::empty_strided(shape, detail::dense_strides(shape, axes, type.itemsize()), type, where);
}

array array::zeros(const dim_vector& shape, dtype type, ufunc::device where) {
  return zeros(shape, type, order::C, where);
}

array array::zeros(const dim_vector& shape, dtype type, ufunc::order layout, ufunc::device where) {
  auto a = empty(shape, type, layout, where);
  // Dense in either order: its bytes are the nbytes from data().
  if (where.is_host()) {
    std::memset(a.data_, 0, static_cast<std::size_t>(a.nbytes()));
  } else {
    const device_memory& memory = detail::memory_of(where);  // empty() allocated there: it exists
    memory.fill_zero(a.data_, static_cast<std::size_t>(a.nbytes()), where.index, memory.current_stream());
  }
  return a;
}

namespace detail {

array empty_strided(const dim_vector& shape, dim_vector strides, dtype type, ufunc::device where, stream_ref s) {
  const std::int64_t size = checked_size(shape, type.itemsize());
  check_ndim(shape.size());
  const auto bytes = static_cast<std::size_t>(size) * type.itemsize();
  std::shared_ptr<void> owner;
  if (where.is_host()) {
    owner = detail::allocate_host(bytes);
    // Built field by field: a new dense, aligned buffer passes every check of the view
    // constructor, which would compute the size again (every allocating ufunc call
    // comes here).
    array a;
    a.data_ = static_cast<std::byte*>(owner.get());
    a.owner_ = std::move(owner);
    a.shape_ = shape;
    a.strides_ = std::move(strides);
    a.size_ = size;
    a.dtype_ = type;
    a.device_ = where;
    a.valid_ = true;
    return a;
  }
  const device_memory& memory = memory_of(where);
  owner = memory.allocate(bytes, where.index, s.handle != nullptr ? s : memory.current_stream());
  void* p = owner.get();
  return array(p, type, shape, std::move(strides), std::move(owner), where);
}

}  // namespace detail

bool array::is_c_contiguous() const noexcept {
  if (size_ == 0) return true;
  std::int64_t expected = static_cast<std::int64_t>(itemsize());
  for (std::size_t i = ndim(); i-- > 0;) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

bool array::is_f_contiguous() const noexcept {
  if (size_ == 0) return true;
  std::int64_t expected = static_cast<std::int64_t>(itemsize());
  for (std::size_t i = 0; i < ndim(); ++i) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

void array::check_element_type(dtype expected) const {
  if (!valid_) throw value_error("operation on a null array");
  if (expected != dtype_)
    throw dtype_error("element type " + std::string(expected.name()) + " requested from an array of dtype " +
                      std::string(dtype_.name()));
}

std::byte* array::element_pointer(dtype expected, std::span<const std::int64_t> idx, bool any_ndim) const {
  check_element_type(expected);
  if (!device_.is_host())
    throw target_error("element access to an array on " + device_.str() + "; copy it to the host first");
  if (any_ndim) {
    std::int64_t off = 0;  // size-1 array: every index is 0
    return data_ + off;
  }
  if (idx.size() != ndim())
    throw index_error("expected " + std::to_string(ndim()) + " indices for an array of shape " + shape_string(shape_) +
                      ", got " + std::to_string(idx.size()));
  // Wrapping sums: an empty array may have any strides (see operator[]); one of its
  // indices is out of range and throws, possibly after a product that overflows
  // (found by fuzzing). For a non-empty array every offset lies inside its bytes.
  std::uint64_t off = 0;
  for (std::size_t d = 0; d < idx.size(); ++d)
    off += static_cast<std::uint64_t>(normalize_index(idx[d], shape_[d], d)) * static_cast<std::uint64_t>(strides_[d]);
  return data_ + static_cast<std::int64_t>(off);
}

array array::operator[](std::initializer_list<index> indices) const {
  check_element_type(dtype_);
  std::size_t consumed = 0;
  for (const auto& i : indices) consumed += std::holds_alternative<newaxis_t>(i) ? 0 : 1;
  if (consumed > ndim())
    throw index_error("too many indices for array: array is " + std::to_string(ndim()) + "-dimensional, but " +
                      std::to_string(consumed) + " were indexed");
  array r = *this;
  r.shape_.clear();
  r.strides_.clear();
  // Offsets wrap instead of overflowing: an empty array may have extents up to 2^62
  // with any strides (found by fuzzing: a[:, ::-2**61] of an empty int8 array), and
  // the data pointer of its views is never used. For a non-empty array every offset
  // lies inside its bytes, whose extent the constructor bounds: nothing wraps.
  std::uint64_t offset = 0;
  std::size_t axis = 0;
  auto take_slice = [&](const slice& s) {
    const auto n = shape_[axis];
    const auto step = s.step;
    if (step == 0) throw value_error("slice step cannot be zero");
    // Python's slice.indices(n).
    auto clamp = [&](std::optional<std::int64_t> v, std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
      if (!v) return dflt;
      auto x = *v < 0 ? *v + n : *v;
      return std::clamp(x, lo, hi);
    };
    const auto start = step > 0 ? clamp(s.start, 0, 0, n) : clamp(s.start, n - 1, -1, n - 1);
    const auto stop = step > 0 ? clamp(s.stop, n, 0, n) : clamp(s.stop, -1, -1, n - 1);
    // 128-bit arithmetic: steps near the int64 limits must not overflow.
    const detail::int128 wide_step = step, distance = step > 0 ? stop - start : start - stop;
    const detail::int128 magnitude = wide_step < 0 ? -wide_step : wide_step;
    const auto len = distance > 0 ? static_cast<std::int64_t>((distance - 1) / magnitude + 1) : std::int64_t{0};
    if (len > 0) offset += static_cast<std::uint64_t>(start) * static_cast<std::uint64_t>(strides_[axis]);
    r.shape_.push_back(len);
    // With fewer than two elements the stride is never used; keep it finite. The
    // product overflows only for empty arrays (see above), where it is unused too.
    std::int64_t stride = strides_[axis];
    if (len > 1 && __builtin_mul_overflow(strides_[axis], step, &stride)) stride = strides_[axis];
    r.strides_.push_back(stride);
    ++axis;
  };
  for (const auto& i : indices) {
    if (const auto* k = std::get_if<std::int64_t>(&i)) {
      offset += static_cast<std::uint64_t>(normalize_index(*k, shape_[axis], axis)) *
                static_cast<std::uint64_t>(strides_[axis]);
      ++axis;
    } else if (const auto* s = std::get_if<slice>(&i)) {
      take_slice(*s);
    } else {
      r.shape_.push_back(1);
      r.strides_.push_back(0);
    }
  }
  while (axis < ndim()) take_slice(slice{});
  if (r.shape_.size() > static_cast<std::size_t>(max_ndim))
    throw index_error("number of dimensions must be within [0, " + std::to_string(max_ndim) +
                      "], indexing result would have " + std::to_string(r.shape_.size()));
  r.size_ = shape_size(r.shape_);
  r.data_ = size_ == 0 ? data_ : data_ + static_cast<std::int64_t>(offset);
  return r;
}

array array::transpose() const {
  dim_vector axes(ndim());
  for (std::size_t i = 0; i < ndim(); ++i) axes[i] = static_cast<std::int64_t>(ndim() - 1 - i);
  return transpose(axes);
}

array array::transpose(std::span<const std::int64_t> axes) const {
  check_element_type(dtype_);
  if (axes.size() != ndim()) throw value_error("axes don't match array: " + shape_string(axes) + " for " + describe());
  std::vector<bool> seen(ndim(), false);
  array r = *this;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    auto a = axes[i] < 0 ? axes[i] + static_cast<std::int64_t>(ndim()) : axes[i];
    if (a < 0 || a >= static_cast<std::int64_t>(ndim()))
      throw index_error("axis " + std::to_string(axes[i]) + " is out of bounds for array of dimension " +
                        std::to_string(ndim()));
    if (seen[a]) throw value_error("repeated axis in transpose: " + shape_string(axes));
    seen[a] = true;
    r.shape_[i] = shape_[a];
    r.strides_[i] = strides_[a];
  }
  return r;
}

array array::reshape(const dim_vector& new_shape_in) const {
  check_element_type(dtype_);
  dim_vector shape = new_shape_in;
  int unknown = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0) throw value_error("can only specify one unknown dimension");
      unknown = static_cast<int>(i);
    } else if (shape[i] < 0) {
      throw value_error("negative dimensions are not allowed: " + shape_string(new_shape_in));
    }
  }
  {
    // As NumPy (np.zeros(0).reshape(2**40, 2**40, 0) is "array is too big"): the
    // given extents must make a valid shape before the product below is taken.
    dim_vector given = shape;
    if (unknown >= 0) given[static_cast<std::size_t>(unknown)] = 1;
    known = checked_size(given, itemsize());
  }
  if (unknown >= 0) {
    if (known == 0 || size_ % known != 0)
      throw value_error("cannot reshape array of size " + std::to_string(size_) + " into shape " +
                        shape_string(new_shape_in));
    shape[unknown] = size_ / known;
  }
  if (shape_size(shape) != size_)
    throw value_error("cannot reshape array of size " + std::to_string(size_) + " into shape " +
                      shape_string(new_shape_in));
  if (shape.size() > static_cast<std::size_t>(max_ndim))
    throw value_error("maximum supported dimension for an array is " + std::to_string(max_ndim) + ", found " +
                      std::to_string(shape.size()));
  if (is_c_contiguous()) {
    array r = *this;
    r.strides_ = c_strides(shape, itemsize());
    r.shape_ = shape;
    return r;
  }
  return copy().reshape(shape);
}

array array::broadcast_to(const dim_vector& shape) const {
  check_element_type(dtype_);
  auto strides = broadcast_strides(shape_, strides_, shape);
  array r(data_, dtype_, shape, std::move(strides), owner_, device_);
  r.writeable_ = false;
  return r;
}

array array::astype(dtype type, ufunc::order layout) const {
  check_element_type(dtype_);
  auto r = detail::empty_strided(shape_, detail::like_strides(*this, layout, type.itemsize()), type, device_);
  copy_to(r);
  return r;
}

void array::copy_to(const array& dst) const {
  check_element_type(dtype_);
  if (!device_.is_host() || !dst.device().is_host()) {
    const device_memory& memory = detail::memory_of(device_.is_host() ? dst.device() : device_);
    if (device_ != dst.device())
      throw target_error("copy_to from " + device_.str() + " to " + dst.device().str() +
                         ": use to_device() / to_host() to move data between host and device");
    if (!dst.writeable()) throw overlap_error("copy destination " + dst.describe() + " is read-only");
    if (detail::may_share_memory(*this, dst)) {
      memory.cast(copy(), dst, memory.current_stream());
    } else {
      memory.cast(*this, dst, memory.current_stream());
    }
    return;
  }
  // Overlapping views (a[::-1] into a) would read what the copy already wrote:
  // go through a temporary, as np.copyto does.
  if (detail::may_share_memory(*this, dst))
    detail::copy_cast(copy(), dst);
  else
    detail::copy_cast(*this, dst);
}

std::string array::shape_string(std::span<const std::int64_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string array::describe() const {
  return std::string(dtype_.name()) + " array of shape " + shape_string(shape_) + " on " + device_.str();
}

namespace detail {

namespace {
std::byte* lowest_byte(const array& a) {
  std::byte* p = a.data();
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.strides()[d] < 0) p += (a.shape()[d] - 1) * a.strides()[d];
  return p;
}
std::byte* end_byte(const array& a) {  // one past the last byte addressed
  std::byte* p = a.data();
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.strides()[d] > 0) p += (a.shape()[d] - 1) * a.strides()[d];
  return p + a.itemsize();
}
}  // namespace

bool may_share_memory(const array& a, const array& b) noexcept {
  if (a.size() == 0 || b.size() == 0 || a.device() != b.device()) return false;
  return lowest_byte(a) < end_byte(b) && lowest_byte(b) < end_byte(a);
}

void check_view_extent(std::span<const std::int64_t> shape, std::span<const std::int64_t> byte_strides,
                       std::size_t itemsize, std::size_t bytes) {
  std::int64_t lo = 0, hi = 0;
  bool overflow = false;  // then the view certainly leaves the buffer
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return;  // addresses nothing
    std::int64_t span = 0;
    overflow |= __builtin_mul_overflow(shape[i] - 1, byte_strides[i], &span);
    overflow |= __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi);
  }
  if (overflow || lo < 0 || hi > static_cast<std::int64_t>(bytes) - static_cast<std::int64_t>(itemsize))
    throw index_error("view of shape " + array::shape_string(shape) + " and strides " +
                      array::shape_string(byte_strides) + " reaches bytes [" + std::to_string(lo) + ", " +
                      std::to_string(hi + static_cast<std::int64_t>(itemsize)) + ") of a " + std::to_string(bytes) +
                      "-byte buffer");
}

}  // namespace detail

}  // namespace ufunc
