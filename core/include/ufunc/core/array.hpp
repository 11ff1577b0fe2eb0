// The n-d array: a dtype, a shape, byte strides, and a pointer into memory that is
// either shared (owning arrays, views of them) or borrowed (views over user memory).
//
//   auto a = ufunc::zeros<float>({3, 4});     // owning, 64-byte aligned, C order
//   auto f = ufunc::zeros<float>({3, 4}, ufunc::order::F);  // column-major, strides (4, 12)
//   std::vector<double> v(10);
//   auto w = ufunc::view(v);                  // borrows v, shape (10,)
//   auto r = w[{ufunc::slice{std::nullopt, std::nullopt, -2}}];  // v[::-2]
//   float x = a.at<float>(1, 2);
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <ufunc/core/device.hpp>
#include <ufunc/core/device_call.hpp>
#include <ufunc/core/dim_vector.hpp>
#include <ufunc/core/dtype.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/slice.hpp>

namespace ufunc {

/// The memory order of a new array, as NumPy's order= argument. Ufunc calls lay
/// their outputs out in the inputs' order (K) by default, as NumPy:
///
///   auto r = ufunc::add(a.transpose(), b.transpose());   // F-ordered, written contiguously
///   auto c = ufunc::add(a.transpose(), b.transpose(), {.order = ufunc::order::C});
enum class order : unsigned char {
  K,  ///< keep the operands' order as closely as possible (NumPy's rules for ufuncs and astype)
  A,  ///< F if the operands are all F-contiguous, else C
  C,  ///< row-major: the last axis varies fastest
  F,  ///< column-major (Fortran): the first axis varies fastest
};

class array;
namespace detail {
/// A new uninitialized array whose byte strides lay its elements out densely in some
/// axis order (those of core/detail/layout.hpp); `strides` is taken as it is. On a device
/// the allocation is ordered on `s` (null: the device's current stream), so that a call
/// running on a stream of its own allocates its outputs and temporaries there.
[[nodiscard]] array empty_strided(const dim_vector& shape, dim_vector strides, dtype type, ufunc::device where = {},
                                  stream_ref s = {});
}  // namespace detail

/// An n-d array with a run-time dtype. Copies are cheap and share memory, like
/// NumPy references; use copy() for a deep copy.
class array {
 public:
  /// A null array: no data. Every operation on it but valid() throws.
  array() = default;

  /// A non-owning view of `data` (byte strides; empty strides mean C order).
  /// `owner`, if given, is kept alive as long as any view of this memory. `data` and
  /// the strides of axes longer than 1 must be multiples of the element's alignment
  /// (value_error otherwise).
  array(void* data, dtype type, dim_vector shape, dim_vector byte_strides = {}, std::shared_ptr<void> owner = {},
        ufunc::device where = {});

  /// A new C-ordered array whose contents are uninitialized (as np.empty).
  [[nodiscard]] static array empty(const dim_vector& shape, dtype type, ufunc::device where = {});
  /// The same in order C or F (as np.empty(shape, dtype, order)); K and A are a value_error,
  /// as NumPy's "only 'C' or 'F' order is permitted".
  [[nodiscard]] static array empty(const dim_vector& shape, dtype type, ufunc::order layout, ufunc::device where = {});
  /// A new array of zeros.
  [[nodiscard]] static array zeros(const dim_vector& shape, dtype type, ufunc::device where = {});
  [[nodiscard]] static array zeros(const dim_vector& shape, dtype type, ufunc::order layout, ufunc::device where = {});

  [[nodiscard]] bool valid() const noexcept { return valid_; }
  [[nodiscard]] dtype type() const noexcept { return dtype_; }
  [[nodiscard]] std::size_t ndim() const noexcept { return shape_.size(); }
  [[nodiscard]] const dim_vector& shape() const noexcept { return shape_; }
  /// Strides in bytes, as NumPy's ndarray.strides.
  [[nodiscard]] const dim_vector& strides() const noexcept { return strides_; }
  [[nodiscard]] std::int64_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t itemsize() const noexcept { return dtype_.itemsize(); }
  [[nodiscard]] std::int64_t nbytes() const noexcept { return size_ * static_cast<std::int64_t>(itemsize()); }
  [[nodiscard]] ufunc::device device() const noexcept { return device_; }
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  /// The shared owner of the memory; null for views over borrowed memory.
  [[nodiscard]] const std::shared_ptr<void>& owner() const noexcept { return owner_; }
  [[nodiscard]] bool writeable() const noexcept { return writeable_; }
  [[nodiscard]] bool is_c_contiguous() const noexcept;
  [[nodiscard]] bool is_f_contiguous() const noexcept;

  /// Typed pointer to the first element; throws dtype_error if T is not the dtype.
  template <class T>
  [[nodiscard]] T* data_as() const {
    check_element_type(dtype_of<T>);
    return reinterpret_cast<T*>(data_);
  }
  /// Element at a multi-index (negative indices count from the end); checks the
  /// dtype, the number of indices, the bounds, and that the data is on the host.
  template <class T, class... I>
  [[nodiscard]] T& at(I... indices) const {
    static_assert((std::is_integral_v<I> && ...), "array::at takes integer indices");
    const std::int64_t idx[] = {static_cast<std::int64_t>(indices)..., 0};
    return *reinterpret_cast<T*>(element_pointer(dtype_of<T>, {idx, sizeof...(I)}));
  }
  /// The single element of a size-1 array, as np.ndarray.item().
  template <class T>
  [[nodiscard]] T item() const {
    if (size_ != 1) throw value_error("item(): array of size " + std::to_string(size_) + " is not a single element");
    return *reinterpret_cast<T*>(element_pointer(dtype_of<T>, {}, /*any_ndim=*/true));
  }
  /// The elements in C order, converted to T (a cast under unsafe rules, as astype).
  template <class T>
  [[nodiscard]] std::vector<T> to_vector() const {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
      const auto bytes = astype(bool_, order::C);
      std::vector<bool> out(static_cast<std::size_t>(size_));
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = reinterpret_cast<const bool*>(bytes.data())[i];
      return out;
    } else {
      std::vector<T> out(static_cast<std::size_t>(size_));
      copy_to(array(out.data(), dtype_of<T>, shape_));
      return out;
    }
  }

  /// NumPy basic indexing: integers drop a dimension, slices keep it, newaxis adds
  /// one; missing trailing indices mean ':'. Returns a view.
  array operator[](std::initializer_list<index> indices) const;
  /// Reverses the axes (as .T).
  [[nodiscard]] array transpose() const;
  /// Permutes the axes; `axes` must be a permutation of 0..ndim-1.
  [[nodiscard]] array transpose(std::span<const std::int64_t> axes) const;
  [[nodiscard]] array transpose(std::initializer_list<std::int64_t> axes) const {
    return transpose(std::span<const std::int64_t>(axes.begin(), axes.size()));
  }
  /// A view with the new shape when the memory layout allows it, else a C-ordered
  /// copy (as np.reshape). One extent may be -1.
  [[nodiscard]] array reshape(const dim_vector& shape) const;
  /// A read-only view broadcast to `shape` with stride 0 along new or size-1 axes.
  [[nodiscard]] array broadcast_to(const dim_vector& shape) const;
  /// A copy in dtype `type` (unsafe casting), laid out as ndarray.astype: by default
  /// (K) in this array's axis order (C when it is C-contiguous or 1-d, F when
  /// F-contiguous, else its axes sorted by stride), or in order A, C or F.
  ///   a.transpose().astype(ufunc::float64).strides()   // a of shape (rows, cols): F, (8, 8 * cols)
  [[nodiscard]] array astype(dtype type, ufunc::order layout = ufunc::order::K) const;
  /// A deep copy, C-ordered by default (as ndarray.copy()).
  [[nodiscard]] array copy(ufunc::order layout = ufunc::order::C) const { return astype(dtype_, layout); }
  /// Copies (and casts) every element into `dst`, which must have this shape or one this broadcasts to.
  void copy_to(const array& dst) const;
  /// The same view, marked read-only.
  [[nodiscard]] array as_readonly() const {
    array r = *this;
    r.writeable_ = false;
    return r;
  }

  /// "(3, 4)" as NumPy prints shapes.
  [[nodiscard]] static std::string shape_string(std::span<const std::int64_t> shape);
  [[nodiscard]] std::string describe() const;  // "float32 array of shape (3, 4) on cpu"

 protected:
  void check_element_type(dtype expected) const;
  std::byte* element_pointer(dtype expected, std::span<const std::int64_t> idx, bool any_ndim = false) const;

 private:
  std::shared_ptr<void> owner_;
  std::byte* data_ = nullptr;
  dim_vector shape_;
  dim_vector strides_;
  std::int64_t size_ = 0;
  dtype dtype_{};
  ufunc::device device_{};
  bool writeable_ = true;
  bool valid_ = false;

  friend array detail::empty_strided(const dim_vector& shape, dim_vector strides, dtype type, ufunc::device where,
                                     stream_ref s);
};

/// An array whose dtype is fixed at compile time; the operands of the typed
/// (compile-time) vectorize path. Converting from an array checks the dtype.
template <class T>
class array_t : public array {
  static_assert(is_element_type<T>, "array_t<T>: T must be a ufunc element type");

 public:
  using value_type = T;
  array_t() = default;
  explicit array_t(const array& a) : array(a) {
    if (a.valid()) check_element_type(dtype_of<T>);
  }
  array_t(T* data, dim_vector shape, dim_vector byte_strides = {}, std::shared_ptr<void> owner = {})
      : array(data, dtype_of<T>, std::move(shape), std::move(byte_strides), std::move(owner)) {}

  [[nodiscard]] T* data() const noexcept { return reinterpret_cast<T*>(array::data()); }
  /// Element access; the element type defaults to T (a.at(i, j)), and naming it
  /// (a.at<T>(i, j)) works as on an untyped array.
  template <class U = T, class... I>
  [[nodiscard]] U& at(I... indices) const {
    return array::at<U>(indices...);
  }
  template <class U = T>
  [[nodiscard]] U item() const {
    return array::item<U>();
  }
  template <class U = T>
  [[nodiscard]] std::vector<U> to_vector() const {
    return array::to_vector<U>();
  }
  array_t operator[](std::initializer_list<index> indices) const { return array_t(array::operator[](indices)); }
  [[nodiscard]] array_t transpose() const { return array_t(array::transpose()); }
  [[nodiscard]] array_t transpose(std::span<const std::int64_t> axes) const { return array_t(array::transpose(axes)); }
  [[nodiscard]] array_t transpose(std::initializer_list<std::int64_t> axes) const {
    return array_t(array::transpose(axes));
  }
  [[nodiscard]] array_t reshape(const dim_vector& shape) const { return array_t(array::reshape(shape)); }
  [[nodiscard]] array_t broadcast_to(const dim_vector& shape) const { return array_t(array::broadcast_to(shape)); }
  [[nodiscard]] array_t copy(ufunc::order layout = ufunc::order::C) const { return array_t(array::copy(layout)); }
};

// Factories, as np.empty / np.zeros / np.full / np.arange / np.asarray; empty, zeros
// and full take NumPy's order= (C or F).
template <class T>
[[nodiscard]] array_t<T> empty(const dim_vector& shape, order layout = order::C) {
  return array_t<T>(array::empty(shape, dtype_of<T>, layout));
}
template <class T>
[[nodiscard]] array_t<T> zeros(const dim_vector& shape, order layout = order::C) {
  return array_t<T>(array::zeros(shape, dtype_of<T>, layout));
}
template <class T>
[[nodiscard]] array_t<T> full(const dim_vector& shape, T value, order layout = order::C) {
  auto a = empty<T>(shape, layout);
  std::fill(a.data(), a.data() + a.size(), value);  // dense in either order
  return a;
}
/// start, start+step, ... below stop (as np.arange).
template <class T>
[[nodiscard]] array_t<T> arange(T start, T stop, T step = T(1)) {
  if (step == T(0)) throw value_error("arange: step must not be zero");
  const double n = (static_cast<double>(stop) - static_cast<double>(start)) / static_cast<double>(step);
  if (n != n) throw value_error("arange: cannot compute the length (NaN bound or step)");
  // The conversion below is undefined beyond int64; empty() refuses what fits but is too big.
  if (n >= 9.2233720368547758e18) throw overflow_error("arange: length " + std::to_string(n) + " overflows 64 bits");
  const auto count = n > 0 ? static_cast<std::int64_t>(n) + (n > static_cast<double>(static_cast<std::int64_t>(n))) : 0;
  auto a = empty<T>({count});
  for (std::int64_t i = 0; i < count; ++i) a.data()[i] = static_cast<T>(start + static_cast<T>(i) * step);
  return a;
}
template <class T>
[[nodiscard]] array_t<T> arange(T stop) {
  return arange<T>(T(0), stop);
}
/// A new array holding a copy of `values`, reshaped to `shape` (default: 1-d).
template <class T>
[[nodiscard]] array_t<T> asarray(std::span<const T> values, dim_vector shape = {}) {
  if (shape.empty()) shape = {static_cast<std::int64_t>(values.size())};
  if (shape_size(shape) != static_cast<std::int64_t>(values.size()))
    throw value_error("asarray: " + std::to_string(values.size()) + " values do not fill shape " +
                      array::shape_string(shape));
  auto a = empty<T>(shape);
  std::copy(values.begin(), values.end(), a.data());
  return a;
}
template <class T>
[[nodiscard]] array_t<T> asarray(std::initializer_list<T> values, dim_vector shape = {}) {
  return asarray<T>(std::span<const T>(values.begin(), values.size()), std::move(shape));
}
/// A 0-d array: a strongly typed scalar (C++ scalars passed directly are weak, as
/// Python scalars under NEP 50).
template <class T>
[[nodiscard]] array_t<T> scalar(T value) {
  auto a = empty<T>({});
  *a.data() = value;
  return a;
}

/// Non-owning views over user memory.
template <class T>
[[nodiscard]] array_t<T> view(std::span<T> values) {
  return array_t<T>(values.data(), {static_cast<std::int64_t>(values.size())});
}
template <class T>
[[nodiscard]] array_t<T> view(std::vector<T>& values) {
  return view(std::span<T>(values));
}
namespace detail {
/// Whether the bytes two arrays address may overlap (a conservative test on their
/// extents: interleaved views count as overlapping).
[[nodiscard]] bool may_share_memory(const array& a, const array& b) noexcept;
/// Throws index_error unless every element addressed by (shape, byte_strides) from
/// offset 0 lies inside a buffer of `bytes` bytes.
void check_view_extent(std::span<const std::int64_t> shape, std::span<const std::int64_t> byte_strides,
                       std::size_t itemsize, std::size_t bytes);
}  // namespace detail

/// A view of `values` with any shape and byte strides; throws index_error if an
/// addressed element would lie outside `values`.
template <class T>
[[nodiscard]] array_t<T> view(std::span<T> values, dim_vector shape, dim_vector byte_strides = {}) {
  array_t<T> a(values.data(), std::move(shape), std::move(byte_strides));
  detail::check_view_extent(a.shape(), a.strides(), sizeof(T), values.size_bytes());
  return a;
}
/// A view of raw memory; the caller guarantees that every addressed element lies
/// inside one allocation (use the span overload to have that checked).
template <class T>
[[nodiscard]] array_t<T> view(T* data, dim_vector shape, dim_vector byte_strides = {}) {
  return array_t<T>(data, std::move(shape), std::move(byte_strides));
}

}  // namespace ufunc
