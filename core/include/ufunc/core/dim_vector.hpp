// A small vector of int64 for shapes and strides: arrays of up to `inline_dims`
// dimensions keep them inline, so creating an array costs no allocation for them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>

#include <ufunc/core/config.hpp>

namespace ufunc {

class dim_vector {
 public:
  static constexpr std::size_t inline_dims = 6;
  using value_type = std::int64_t;
  using iterator = std::int64_t*;
  using const_iterator = const std::int64_t*;

  dim_vector() noexcept = default;
  explicit dim_vector(std::size_t n, std::int64_t value = 0) { assign(n, value); }
  dim_vector(std::initializer_list<std::int64_t> values) { assign(values.begin(), values.size()); }
  dim_vector(std::span<const std::int64_t> values) { assign(values.data(), values.size()); }
  template <std::input_iterator It>
  dim_vector(It first, It last) {
    resize(static_cast<std::size_t>(std::distance(first, last)));
    std::copy(first, last, data());
  }
  // Inline extents are copied as one fixed-size block: a copy of every array (and
  // there are several in each ufunc call) would otherwise call memmove twice.
  dim_vector(const dim_vector& other) {
    if (other.heap_) {
      assign(other.data(), other.size());
    } else {
      std::memcpy(inline_, other.inline_, sizeof(inline_));
      size_ = other.size_;
    }
  }
  dim_vector(dim_vector&& other) noexcept : heap_(std::move(other.heap_)), size_(other.size_) {
    if (heap_)
      capacity_ = other.capacity_;
    else
      std::memcpy(inline_, other.inline_, sizeof(inline_));
    other.size_ = 0;
    other.capacity_ = inline_dims;
  }
  dim_vector& operator=(const dim_vector& other) {
    if (this == &other) return *this;
    if (!heap_ && !other.heap_) {
      std::memcpy(inline_, other.inline_, sizeof(inline_));
      size_ = other.size_;
    } else {
      assign(other.data(), other.size());
    }
    return *this;
  }
  dim_vector& operator=(dim_vector&& other) noexcept {
    if (this == &other) return *this;
    if (other.heap_) {
      heap_ = std::move(other.heap_);
      capacity_ = other.capacity_;
    } else {
      heap_.reset();
      capacity_ = inline_dims;
      std::memcpy(inline_, other.inline_, sizeof(inline_));
    }
    size_ = other.size_;
    other.size_ = 0;
    other.capacity_ = inline_dims;
    return *this;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::int64_t* data() noexcept { return heap_ ? heap_.get() : inline_; }
  [[nodiscard]] const std::int64_t* data() const noexcept { return heap_ ? heap_.get() : inline_; }
  std::int64_t& operator[](std::size_t i) noexcept { return data()[i]; }
  const std::int64_t& operator[](std::size_t i) const noexcept { return data()[i]; }
  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size_; }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size_; }
  std::int64_t& back() noexcept { return data()[size_ - 1]; }
  [[nodiscard]] std::int64_t back() const noexcept { return data()[size_ - 1]; }
  operator std::span<const std::int64_t>() const noexcept { return {data(), size_}; }

  void resize(std::size_t n, std::int64_t value = 0) {
    reserve(n);
    for (std::size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    auto grown = std::make_unique<std::int64_t[]>(n);
    std::copy(data(), data() + size_, grown.get());
    heap_ = std::move(grown);
    capacity_ = n;
  }
  void push_back(std::int64_t v) {
    if (size_ == capacity_) reserve(std::max<std::size_t>(2 * capacity_, 8));
    data()[size_++] = v;
  }
  void insert(std::size_t pos, std::int64_t v) {
    push_back(v);
    std::rotate(begin() + pos, end() - 1, end());
  }
  void erase(std::size_t pos) {
    std::copy(begin() + pos + 1, end(), begin() + pos);
    --size_;
  }
  void clear() noexcept { size_ = 0; }

  friend bool operator==(const dim_vector& a, const dim_vector& b) noexcept {
    if (a.size_ != b.size_) return false;
    // A loop, not std::equal: that is a call to memcmp, slower for a few extents.
    const std::int64_t* x = a.data();
    const std::int64_t* y = b.data();
    for (std::size_t i = 0; i < a.size_; ++i)
      if (x[i] != y[i]) return false;
    return true;
  }

 private:
  void assign(std::size_t n, std::int64_t value) {
    size_ = 0;
    resize(n, value);
  }
  void assign(const std::int64_t* values, std::size_t n) {
    size_ = 0;
    reserve(n);
    std::copy(values, values + n, data());
    size_ = n;
  }

  std::int64_t inline_[inline_dims] = {};
  std::unique_ptr<std::int64_t[]> heap_;
  std::size_t size_ = 0;
  std::size_t capacity_ = inline_dims;
};

/// Product of the extents; 1 for a 0-d shape.
[[nodiscard]] inline std::int64_t shape_size(std::span<const std::int64_t> shape) noexcept {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

}  // namespace ufunc
