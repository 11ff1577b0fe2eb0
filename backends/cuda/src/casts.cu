// Device-side dtype conversions: every pair of the 13 dtypes, through the generic
// kernels (contiguous or strided source, broadcast allowed).
#include <complex>
#include <type_traits>

#include <ufunc/backends/cuda/loops.hpp>
#include <ufunc/core/array.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/convert.hpp>
#include <ufunc/core/iteration.hpp>

namespace ufunc::backends::cuda {

namespace {

template <class To, class From>
struct convert_op {
  __device__ detail::device_t<To> operator()(detail::device_t<From> v) const {
    return ufunc::detail::convert<detail::device_t<To>>(v);
  }
};

template <class From, class To>
void cast_pair(const device_call& c, cudaStream_t stream) {
  detail::device_loop<convert_op<To, From>, To(From)>::launch_generic(convert_op<To, From>{}, c, stream);
}

}  // namespace

void cast(const array& src, const array& dst, stream_ref s, const array& where) {
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
  visit_dtype(src.type(), [&](auto f) {
    visit_dtype(dst.type(),
                [&](auto t) { cast_pair<decltype(f), decltype(t)>(c, static_cast<cudaStream_t>(c.stream)); });
  });
}

}  // namespace ufunc::backends::cuda
