// The seam between the ufunc methods' drivers (core/src/reduce.cpp, accumulate.cpp,
// outer_at.cpp) and the backends: NumPy's argument checks and messages, the loop
// resolution of reduce-like methods, the checked plans, and the device versions of
// the methods (through the device backend's table, core/backend.hpp; builds without
// one raise target_error). Not part of the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/core/array.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/loop.hpp>
#include <ufunc/core/methods.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc::detail {

/// "ufunc 'add'.reduce"
[[nodiscard]] std::string method_label(const function& f, const char* method);

/// NumPy's checks that a reduce-like method applies: two inputs, one output.
void require_reduce_like(const function& f, const char* method);

/// axis in [-ndim, ndim) made non-negative; throws index_error (NumPy's AxisError)
/// "axis 2 is out of bounds for array of dimension 2".
[[nodiscard]] int normalize_axis(int axis, int ndim, const function& f, const char* method);

/// The loop of a reduce-like method and the dtype it accumulates in, by NumPy's
/// rules: dtype= fixes the accumulator; else out= takes part in the resolution as
/// the first input; else add and multiply reduce bool and integers narrower than 64
/// bits in int64 (uint64 for unsigned); else the loop for (a, a). Casting is unsafe
/// for inputs and results, as NumPy's reductions. The loop's first input and output
/// must have one dtype, and for accumulate and reduceat its second input too.
struct reduce_like_loop {
  loop_entry loop;
  dtype type;  // the output's and first input's; reduce alone may have another second input
};
[[nodiscard]] reduce_like_loop resolve_reduce_like(const function& f, const char* method, dtype input,
                                                   std::optional<dtype> requested, const array* out);

/// Where a method runs: the target, and whether its data lives on a GPU. Throws
/// target_error for device data with a host target named, and for mixed placement.
struct method_placement {
  target_id target;
  bool on_device;
};
[[nodiscard]] method_placement place_method(const function& f, const char* method, std::optional<target_id> requested,
                                            std::initializer_list<const array*> arrays);

/// Throws target_error: `method` does not run on `t` in this build.
[[noreturn]] void method_not_on_target(const function& f, const char* method, target_id t);

/// A view of `a` with the same data, shape `shape` and byte strides `strides`.
[[nodiscard]] array restride(const array& a, const dim_vector& shape, const dim_vector& strides, std::byte* data);

/// A reduction after every NumPy check: which axes, the result's shape, the loop
/// and its dtype, the start value (initial= or the identity) if any.
struct reduce_plan {
  std::vector<bool> reduced;  // per axis of the input
  dim_vector shape;           // of the result (keepdims applied)
  loop_entry loop;
  dtype type;
  alignas(16) std::byte start[16] = {};
  bool has_start = false;
  /// Fold along the reduced axis even where it is not the innermost (reduceat's segments, as
  /// NumPy's reduceat runs its inner loop along each segment: a float16 sum rounds once).
  bool fold_along_reduced = false;
};
[[nodiscard]] reduce_plan plan_reduce(const function& f, const array& a, const reduce_options& options);

/// An accumulation or reduceat after the checks: the axis, the loop and its dtype.
struct accumulate_plan {
  int axis = 0;
  loop_entry loop;
  dtype type;
};

/// The indexed positions of ufunc.at, checked: byte offsets into `a` of each index
/// position (C order of the broadcast index arrays), the trailing subspace, and b
/// broadcast to (index shape + trailing shape).
struct at_plan {
  std::vector<std::int64_t> offsets;
  std::vector<std::int64_t> positions;  // the normalized indices, index_ndim per position
  dim_vector index_shape;
  dim_vector sub_shape;    // a.shape()[k:]
  dim_vector sub_strides;  // a.strides()[k:]
  int index_ndim = 0;      // k: the leading axes of a that are indexed
  loop_entry loop;
  bool unary = false;
  std::string_view fp_name;  // what its flags are reported under: the ufunc's name or "at" (at_impl)
};

/// The methods on device data, through the backend whose devices hold it
/// (core/backend.hpp); target_error (method_not_on_target) in a build without one.
array reduce_on_device(const function& f, const array& a, const reduce_options& options, const reduce_plan& plan);
array accumulate_on_device(const function& f, const array& a, const accumulate_options& options,
                           const accumulate_plan& plan);
array reduceat_on_device(const function& f, const array& a, std::span<const std::int64_t> indices,
                         const accumulate_options& options, const accumulate_plan& plan);
void at_on_device(const function& f, const array& a, const array& b, const at_plan& plan, const call_options& options);

class fp_scope;

/// The host part of a reduction: folds `a` into `acc` (already initialized). Its
/// floating-point flags are reported at the end, or gathered into `method_fp` where a
/// method runs several folds and reports once (reduceat's segments, as NumPy).
void run_reduce_folds(const function& f, target_id t, const reduce_plan& p, const array& a, const array& where,
                      const array& acc, bool keepdims, fp_scope* method_fp = nullptr);

}  // namespace ufunc::detail
