// The options of NumPy's ufunc methods: reduce, accumulate, reduceat (outer and at
// take the call options). The methods themselves are members of ufunc::function.
//
//   ufunc::add.reduce(a);                                        // np.add.reduce(a), axis 0
//   ufunc::add.reduce(a, {.axis = {0, 2}, .keepdims = true});    // several axes
//   ufunc::maximum.reduce(a, {.axis = ufunc::all_axes, .initial = 0});   // axis=None
//   ufunc::add.accumulate(a, {.axis = 1, .dtype = ufunc::float64});
//   ufunc::add.reduceat(a, ufunc::asarray<std::int64_t>({0, 4, 1}));
//   ufunc::multiply.outer(a, b);                                 // shape a.shape + b.shape
//   ufunc::add.at(a, idx, 1.0);                                  // a[idx] += 1, repeats accumulate
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include <ufunc/core/array.hpp>
#include <ufunc/core/device_call.hpp>
#include <ufunc/core/dtype.hpp>
#include <ufunc/core/scalar.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc {

struct all_axes_t {
  explicit constexpr all_axes_t() = default;
};
/// Every axis: NumPy's axis=None.
inline constexpr all_axes_t all_axes{};

/// NumPy's axis= of a reduction: one axis (the default, 0), a list of axes, or
/// every axis. Negative axes count from the end.
class axes {
 public:
  axes() = default;                               // axis 0
  axes(int axis) : list_{axis}, single_(true) {}  // NOLINT(google-explicit-constructor)
  axes(std::initializer_list<int> list) : list_(list), single_(false) {}
  axes(std::vector<int> list) : list_(std::move(list)), single_(false) {}  // NOLINT(google-explicit-constructor)
  axes(all_axes_t) : list_(), single_(false), all_(true) {}                // NOLINT(google-explicit-constructor)
  /// No axis at all (axis=()): every element is its own result.
  [[nodiscard]] static axes none() { return axes(std::vector<int>{}); }

  [[nodiscard]] bool all() const noexcept { return all_; }
  /// Given as a single integer (axis=0 rather than axis=(0,)): NumPy accepts 0 and
  /// -1 for 0-d arrays only in that form.
  [[nodiscard]] bool single() const noexcept { return single_; }
  [[nodiscard]] std::span<const int> list() const noexcept { return list_; }

 private:
  std::vector<int> list_{0};
  bool single_ = true;
  bool all_ = false;
};

/// NumPy's keyword arguments of ufunc.reduce.
struct reduce_options {
  ufunc::axes axis;
  /// The dtype the reduction computes in (and returns); by default the input's, except
  /// that add and multiply reduce bool and integers narrower than 64 bits in int64
  /// (uint64 for unsigned), as NumPy does.
  std::optional<ufunc::dtype> dtype;
  /// Where to write the result (its shape must be the result's); cast to its dtype.
  std::optional<array> out;
  /// Keep the reduced axes with length 1.
  bool keepdims = false;
  /// The start value of every result (NumPy's initial=); defaults to the ufunc's
  /// identity. Needed for empty reductions and with where= when there is no identity.
  std::optional<weak_scalar> initial;
  /// A bool mask broadcast to the input's shape: only selected elements are reduced.
  array where;
  std::optional<target_id> target;
  stream_ref stream;
};

/// NumPy's keyword arguments of ufunc.accumulate and ufunc.reduceat.
struct accumulate_options {
  int axis = 0;
  std::optional<ufunc::dtype> dtype;
  std::optional<array> out;
  std::optional<target_id> target;
  stream_ref stream;
};

}  // namespace ufunc
