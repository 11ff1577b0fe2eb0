// What a generalized ufunc's function sees of one operand at one loop element: its core
// dimensions, in place (byte strides; operands are never copied to make them contiguous).
//
//   [](ufunc::core_view<const float> x, ufunc::core_view<const float> y, ufunc::core_view<float> out) {
//     float s = 0;
//     for (std::int64_t i = 0; i < x.extent(0); ++i) s += x(i) * y(i);
//     out() = s;                                    // "(n),(n)->()": out has no core dimension
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <ufunc/core/config.hpp>

namespace ufunc {

template <class T>
class core_view {
 public:
  using element_type = T;

  UFUNC_HOST_DEVICE core_view(T* data, int ndim, const std::int64_t* extents, const std::int64_t* strides) noexcept
      : data_(data), ndim_(ndim), extents_(extents), strides_(strides) {}

  /// Core dimensions of this operand (0 for "()").
  [[nodiscard]] UFUNC_HOST_DEVICE int ndim() const noexcept { return ndim_; }
  /// The extent of core dimension d, outermost first, as in the signature.
  [[nodiscard]] UFUNC_HOST_DEVICE std::int64_t extent(int d) const noexcept { return extents_[d]; }
  /// The byte stride of core dimension d.
  [[nodiscard]] UFUNC_HOST_DEVICE std::int64_t stride(int d) const noexcept { return strides_[d]; }
  /// The number of elements.
  [[nodiscard]] UFUNC_HOST_DEVICE std::int64_t size() const noexcept {
    std::int64_t n = 1;
    for (int d = 0; d < ndim_; ++d) n *= extents_[d];
    return n;
  }

  /// The element at these core indices (as many as ndim(); none for a scalar core).
  template <class... I>
  [[nodiscard]] UFUNC_HOST_DEVICE T& operator()(I... index) const noexcept {
    static_assert((std::is_integral_v<I> && ...), "ufunc::core_view: indices are integers");
    std::int64_t offset = 0;
    int d = 0;
    ((offset += static_cast<std::int64_t>(index) * strides_[d++]), ...);
    return *reinterpret_cast<T*>(reinterpret_cast<byte_type*>(data_) + offset);
  }
  /// The element at index i of a one-dimensional core.
  [[nodiscard]] UFUNC_HOST_DEVICE T& operator[](std::int64_t i) const noexcept { return (*this)(i); }

 private:
  using byte_type = std::conditional_t<std::is_const_v<T>, const std::byte, std::byte>;
  T* data_;
  int ndim_;
  const std::int64_t* extents_;
  const std::int64_t* strides_;
};

}  // namespace ufunc
