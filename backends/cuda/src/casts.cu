// Device-side dtype conversions: every pair of the 13 dtypes, through the generic
// kernels (contiguous or strided source, broadcast allowed), with the values and the
// floating-point flags of the host target's cast loops (core/src/casting.cpp).
#include <cfloat>
#include <complex>
#include <type_traits>

#include <ufunc/backends/cuda/loops.hpp>
#include <ufunc/core/array.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/convert.hpp>
#include <ufunc/core/iteration.hpp>
#include "casts.hpp"
#include "fp_reports.hpp"

namespace ufunc::backends::cuda {

namespace {

template <class T>
constexpr bool is_inexact_v = std::is_floating_point_v<T> || ufunc::detail::is_complex<T>::value;

template <class T>
struct real_type {
  using type = T;
};
template <class T>
struct real_type<std::complex<T>> {
  using type = T;
};

// The pairs whose conversion can raise a flag on the host: floats and complex to the
// integers (invalid), and from double precision to single (overflow, underflow). No
// other conversion raises one there (int64 to float32 included), so no other pair
// gathers flags.
template <class From, class To>
constexpr bool to_integer_v = is_inexact_v<From>&& std::is_integral_v<To> && !std::is_same_v<To, bool>;
template <class From, class To>
constexpr bool narrows_v = is_inexact_v<From>&& is_inexact_v<To> && sizeof(typename real_type<From>::type) == 8 &&
                           sizeof(typename real_type<To>::type) == 4;
template <class From, class To>
constexpr bool may_raise_v = to_integer_v<From, To> || narrows_v<From, To>;

template <class T>
__device__ __forceinline__ double real_of(const T& v) {
  if constexpr (ufunc::detail::is_complex<T>::value)
    return static_cast<double>(v.real());
  else
    return static_cast<double>(v);
}

// What the host's conversion of a double to float raises (the device rounds the same
// way, to nearest even, keeping subnormals): overflow where a finite value becomes
// infinite; underflow where the result is inexact and tiny, with tininess detected
// after rounding as x86 does: a value within half a float ulp below FLT_MIN rounds to
// FLT_MIN with an unbounded exponent and does not underflow (the host agrees at
// FLT_MIN * (1 - 2^-24), which underflows, and FLT_MIN * (1 - 2^-25), which does not).
__device__ __forceinline__ unsigned narrowed(double v, float r) {
  constexpr double tiny = static_cast<double>(FLT_MIN) * (1.0 - 1.0 / 33554432.0);
  if (::isinf(r)) return ::isinf(v) ? 0u : fpe::overflow;
  return static_cast<double>(r) != v && ::fabs(v) < tiny ? fpe::underflow : 0u;
}

template <class To, class From>
struct convert_op {
  __device__ detail::device_t<To> operator()(detail::device_t<From> v) const {
    if constexpr (to_integer_v<From, To>) {
      const double d = real_of(v);
      if (ufunc::detail::invalid_int_cast<To>(d)) return ufunc::detail::invalid_int_result<To>(d);
    }
    return ufunc::detail::convert<detail::device_t<To>>(v);
  }
};

}  // namespace

// Exactly the host's flags (the generic rule would also take NaN to an integer for a
// NaN result, which an integer cannot be).
template <class To, class From>
struct fp_rule<convert_op<To, From>> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& v) {
    if constexpr (to_integer_v<From, To>) {
      return ufunc::detail::invalid_int_cast<To>(real_of(v)) ? fpe::invalid : 0u;
    } else if constexpr (narrows_v<From, To>) {
      unsigned f = narrowed(real_of(v), static_cast<float>(real_of(r)));
      if constexpr (ufunc::detail::is_complex<From>::value && ufunc::detail::is_complex<To>::value)
        f |= narrowed(static_cast<double>(v.imag()), static_cast<float>(r.imag()));
      return f;
    } else {
      return 0u;
    }
  }
};

namespace {

template <class From, class To>
void cast_pair(const device_call& c, cudaStream_t stream) {
  device_call call = c;
  if constexpr (!may_raise_v<From, To>) call.fp = {};
  detail::device_loop<convert_op<To, From>, To(From)>::launch_generic(convert_op<To, From>{}, call, stream);
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
  device_call c;
  c.nin = 1;
  c.nout = 1;
  c.has_where = masked;
  c.ndim = plan.ndim();
  c.size = plan.size();
  c.device = dst.device().index;
  c.stream = s.handle ? s.handle : current_stream().handle;
  for (int d = 0; d < plan.ndim(); ++d) {
    c.shape[d] = plan.extent(d);
    for (int op = 0; op < nops; ++op) c.strides[op][d] = plan.stride(op, d);
  }
  for (int op = 0; op < nops; ++op) c.base[op] = plan.base(op);
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
