// Device-side dtype conversions: every pair of the 13 dtypes, through the generic
// kernels (contiguous or strided source, broadcast allowed), with the values and the
// floating-point flags of the host target's cast loops (core/src/casting.cpp).
#include <complex>
#include <type_traits>

#include <ufunc/backends/cuda/device_cast.hpp>
#include <ufunc/backends/cuda/loops.hpp>
#include <ufunc/core/array.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/convert.hpp>
#include <ufunc/core/detail/device_plan.hpp>
#include <ufunc/core/iteration.hpp>
#include "casts.hpp"
#include "fp_reports.hpp"

namespace ufunc::backends::cuda {

namespace {

// The element conversion in device types (convert_op, device_cast.hpp).
template <class To, class From>
using device_convert = convert_op<detail::device_t<To>, detail::device_t<From>>;
template <class From, class To>
constexpr bool may_raise_v = cast_traits::may_raise_v<detail::device_t<From>, detail::device_t<To>>;

template <class From, class To>
void cast_pair(const device_call& c, cudaStream_t stream) {
  device_call call = c;
  if constexpr (!may_raise_v<From, To>) call.fp = {};
  detail::device_loop<device_convert<To, From>, To(From)>::launch_generic(device_convert<To, From>{}, call, stream);
}

bool may_raise(dtype from, dtype to) {
  return visit_dtype(
      from, [&](auto f) { return visit_dtype(to, [&](auto t) { return may_raise_v<decltype(f), decltype(t)>; }); });
}

device_call plan_cast(const array& src, const array& dst, stream_ref s, const array& where) {
  if (src.device() != dst.device() || src.device().is_host())
    throw target_error("cuda cast: both arrays must be on the same CUDA device (" + src.device().str() + ", " +
                       dst.device().str() + ")");
  const bool masked = where.valid();
  const auto in_strides = broadcast_strides(src.shape(), src.strides(), dst.shape());
  const auto where_strides = masked ? broadcast_strides(where.shape(), where.strides(), dst.shape()) : dim_vector{};
  const plan_operand ops[] = {
      {src.data(), in_strides}, {dst.data(), dst.strides()}, {masked ? where.data() : nullptr, where_strides}};
  const int nops = masked ? 3 : 2;
  const iteration_plan plan(dst.shape(), std::span<const plan_operand>(ops, static_cast<std::size_t>(nops)));
  device_call c =
      ufunc::detail::device_call_of(plan, 1, 1, masked, dst.device().index, s.handle ? s : current_stream());
  check(cudaSetDevice(c.device), "cudaSetDevice");
  return c;
}

void launch_cast(const device_call& c, dtype from, dtype to) {
  visit_dtype(from, [&](auto f) {
    visit_dtype(to, [&](auto t) { cast_pair<decltype(f), decltype(t)>(c, static_cast<cudaStream_t>(c.stream)); });
  });
}

}  // namespace

// A flag slot of its own, reported as NumPy names the flags of astype and copies
// ("invalid value encountered in cast"). Only pairs that can raise take one: a slot
// costs a wait under 'raise' and 'call', and same-dtype copies (to_host's gathers)
// never raise.
void cast(const array& src, const array& dst, stream_ref s, const array& where) {
  device_call c = plan_cast(src, dst, s, where);
  if (c.size == 0) return;
  if (!may_raise(src.type(), dst.type())) {
    launch_cast(c, src.type(), dst.type());
    return;
  }
  fp_reports::call_scope fp("cast", c.device, c.stream);
  c.fp = fp.sink();
  launch_cast(c, src.type(), dst.type());
  fp.launched();
}

void cast_reporting(const array& src, const array& dst, stream_ref s, const array& where, const device_fp_sink& fp) {
  device_call c = plan_cast(src, dst, s, where);
  c.fp = fp;
  launch_cast(c, src.type(), dst.type());
}

}  // namespace ufunc::backends::cuda
