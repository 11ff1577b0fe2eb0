// The output arrays of a call: the type of call_options::out (function.hpp, which
// includes this header) and the base of detail::result_list, a call's results.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include <ufunc/core/array.hpp>

namespace ufunc {

/// call_options::out: the output arrays, used as a std::vector<array> (and converting
/// to and from one). Up to two are held inline, so that building a call's options,
/// `{.out = {c}}`, allocates nothing.
class out_arrays {
 public:
  using value_type = array;
  using iterator = array*;
  using const_iterator = const array*;

  out_arrays() noexcept {}  // NOLINT(modernize-use-equals-default): the union is left unconstructed
  out_arrays(std::initializer_list<array> arrays) { append(arrays.begin(), arrays.size()); }
  out_arrays(const std::vector<array>& arrays) { append(arrays.data(), arrays.size()); }  // NOLINT
  out_arrays(std::vector<array>&& arrays) noexcept  // NOLINT(google-explicit-constructor)
      : heap_(std::move(arrays)), size_(heap_.size()), on_heap_(true) {}
  out_arrays(const out_arrays& other) { append(other.data(), other.size()); }
  out_arrays(out_arrays&& other) noexcept { take(std::move(other)); }
  out_arrays& operator=(const out_arrays& other) {
    if (this != &other) {
      out_arrays copy(other);
      clear();
      take(std::move(copy));
    }
    return *this;
  }
  out_arrays& operator=(out_arrays&& other) noexcept {
    if (this != &other) {
      clear();
      take(std::move(other));
    }
    return *this;
  }
  ~out_arrays() { clear(); }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] array* data() noexcept { return on_heap_ ? heap_.data() : inline_; }
  [[nodiscard]] const array* data() const noexcept { return on_heap_ ? heap_.data() : inline_; }
  array& operator[](std::size_t i) noexcept { return data()[i]; }
  const array& operator[](std::size_t i) const noexcept { return data()[i]; }
  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size_; }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size_; }
  array& front() noexcept { return data()[0]; }
  const array& front() const noexcept { return data()[0]; }
  array& back() noexcept { return data()[size_ - 1]; }
  const array& back() const noexcept { return data()[size_ - 1]; }

  void push_back(const array& a) {
    if (!on_heap_ && size_ < inline_count) {
      new (&inline_[size_]) array(a);
    } else {
      array copy = a;  // `a` may be one of ours, which to_heap moves
      to_heap(size_ + 1);
      heap_.push_back(std::move(copy));
    }
    ++size_;
  }
  void push_back(array&& a) {
    if (!on_heap_ && size_ < inline_count) {
      new (&inline_[size_]) array(std::move(a));
    } else {
      array moved = std::move(a);
      to_heap(size_ + 1);
      heap_.push_back(std::move(moved));
    }
    ++size_;
  }
  template <class... Args>
  array& emplace_back(Args&&... args) {
    push_back(array(std::forward<Args>(args)...));
    return back();
  }
  void reserve(std::size_t n) {
    if (n > inline_count || on_heap_) to_heap(n);
  }
  void clear() noexcept {
    if (on_heap_)
      heap_.clear();
    else
      std::destroy_n(inline_, size_);
    size_ = 0;
    on_heap_ = false;
  }
  operator std::vector<array>() const { return {begin(), end()}; }  // NOLINT(google-explicit-constructor)

 private:
  static constexpr std::size_t inline_count = 2;

  void append(const array* arrays, std::size_t n) {
    if (!on_heap_ && size_ + n <= inline_count) {
      for (std::size_t i = 0; i < n; ++i) new (&inline_[size_ + i]) array(arrays[i]);
      size_ += n;
      return;
    }
    to_heap(size_ + n);
    heap_.insert(heap_.end(), arrays, arrays + n);
    size_ += n;
  }
  // Moves the inline arrays to the heap (a vector keeps every output contiguous).
  void to_heap(std::size_t capacity) {
    if (!on_heap_) {
      heap_.clear();
      heap_.reserve(std::max(capacity, 2 * inline_count));
      for (std::size_t i = 0; i < size_; ++i) heap_.push_back(std::move(inline_[i]));
      std::destroy_n(inline_, size_);
      on_heap_ = true;
    } else {
      heap_.reserve(capacity);
    }
  }
  void take(out_arrays&& other) noexcept {
    if (other.on_heap_) {
      heap_ = std::move(other.heap_);
      on_heap_ = true;
    } else {
      for (std::size_t i = 0; i < other.size_; ++i) new (&inline_[i]) array(std::move(other.inline_[i]));
      std::destroy_n(other.inline_, other.size_);
    }
    size_ = other.size_;
    other.size_ = 0;
    other.on_heap_ = false;
  }

  std::vector<array> heap_;
  std::size_t size_ = 0;
  bool on_heap_ = false;
  union {
    array inline_[inline_count];
  };
};

}  // namespace ufunc
