// ufunc.accumulate and ufunc.reduceat on the host targets; device data goes to the
// cuda backend (backends/cuda/src/accumulate.cpp, reduceat.cpp).
//
// accumulate: out[0] = a[0]; out[i] = f(out[i-1], a[i]) along the axis, each step one
// elementwise loop call across the other positions (vectorized there). Units are
// chunks of those positions, so the parallel target splits across them only; every
// output is computed in order, identically on every target.
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/method_task.hpp>
#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/iteration.hpp>
#include <ufunc/core/transfer.hpp>

#include <ufunc/core/detail/methods.hpp>

#include "fold.hpp"

namespace ufunc {

namespace detail {

namespace {

constexpr std::int64_t accumulate_chunk = 1024;

dim_vector without(const dim_vector& v, int axis) {
  dim_vector r;
  for (std::size_t d = 0; d < v.size(); ++d)
    if (static_cast<int>(d) != axis) r.push_back(v[d]);
  return r;
}

class accumulate_task final : public unit_task {
 public:
  // res and x have one shape and the loop's dtype; res[0] along the axis is written.
  accumulate_task(const array& res, const array& x, int axis, const loop_entry& loop)
      : fn_(loop.host), reduce_(loop.reduce), data_(loop.host_data), itemsize_(x.itemsize()) {
    size_ = x.size();
    steps_along_ = x.shape()[axis];
    res_along_ = res.strides()[axis];
    x_along_ = x.strides()[axis];
    if (size_ == 0 || steps_along_ <= 1) return;
    // NumPy calls its loop once along the axis (out[i-1], a[i] -> out[i]): beyond two steps
    // the operands overlap and its SIMD loops run their scalar form, which differs in bits
    // for complex multiply (no fma).
    if (steps_along_ > 2 && loop.host_scalar != nullptr) {
      fn_ = loop.host_scalar;
      data_ = loop.host_scalar_data;
      reduce_ = nullptr;
    }
    const dim_vector shape = without(x.shape(), axis);
    const dim_vector rs = without(res.strides(), axis), xs = without(x.strides(), axis);
    const plan_operand ops[2] = {{res.data(), rs}, {x.data(), xs}};
    plan_ = std::make_unique<iteration_plan>(shape, ops);
    chunks_ = (plan_->extent(0) + accumulate_chunk - 1) / accumulate_chunk;
    units_ = plan_->size() / plan_->extent(0) * chunks_;
  }

  [[nodiscard]] std::int64_t size() const noexcept override { return size_; }
  [[nodiscard]] std::int64_t units() const noexcept override { return units_; }

  void run_units(std::int64_t first, std::int64_t last) const override {
    if (!plan_) return;  // an axis of length 0 or 1: the first slice is the whole result
    const iteration_plan& p = *plan_;
    const std::int64_t steps[3] = {p.stride(0, 0), p.stride(1, 0), p.stride(0, 0)};
    for (std::int64_t u = first; u < last; ++u) {
      std::int64_t k = u / chunks_;
      const std::int64_t off = (u % chunks_) * accumulate_chunk;
      const std::int64_t n = std::min(accumulate_chunk, p.extent(0) - off);
      char* res = reinterpret_cast<char*>(p.base(0)) + off * p.stride(0, 0);
      char* x = reinterpret_cast<char*>(p.base(1)) + off * p.stride(1, 0);
      for (int d = 1; d < p.ndim(); ++d) {
        const std::int64_t idx = k % p.extent(d);
        k /= p.extent(d);
        res += idx * p.stride(0, d);
        x += idx * p.stride(1, d);
      }
      if (n == 1 && reduce_ != nullptr) {
        // One position (a 1-d accumulation): the reduce fn's scalar fold per element
        // costs less than an elementwise call (which would fill SIMD lanes for one).
        for (std::int64_t i = 1; i < steps_along_; ++i) {
          std::memcpy(res + i * res_along_, res + (i - 1) * res_along_, itemsize_);
          reduce_(res + i * res_along_, x + i * x_along_, 1, 0, data_);
        }
        continue;
      }
      for (std::int64_t i = 1; i < steps_along_; ++i) {
        char* args[3] = {res + (i - 1) * res_along_, x + i * x_along_, res + i * res_along_};
        fn_(args, n, steps, data_);
      }
    }
  }

 private:
  inner_loop_fn fn_;
  reduce_loop_fn reduce_;
  const void* data_;
  std::size_t itemsize_;
  std::int64_t size_ = 0, units_ = 0, chunks_ = 1;
  std::int64_t steps_along_ = 0, res_along_ = 0, x_along_ = 0;
  std::unique_ptr<iteration_plan> plan_;
};

bool has_zero_stride(const array& a) {
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.shape()[d] > 1 && a.strides()[d] == 0) return true;
  return false;
}

// The slice a[..., i, ...] along `axis`, keeping the axis (length 1).
array slice_along(const array& a, int axis, std::int64_t i, std::int64_t n = 1) {
  dim_vector shape = a.shape();
  shape[axis] = n;
  return restride(a, shape, a.strides(), a.data() + i * a.strides()[axis]);
}

void check_out(const function& f, const char* method, const array& out, const dim_vector& shape) {
  if (!out.valid()) throw value_error(method_label(f, method) + ": out is a null array");
  if (!(out.shape() == shape))
    throw broadcast_error(method_label(f, method) + ": out has shape " + array::shape_string(out.shape()) +
                          ", the result has shape " + array::shape_string(shape));
  if (!out.writeable()) throw overlap_error(method_label(f, method) + ": out (" + out.describe() + ") is read-only");
}

// The checks NumPy makes before resolving the loop; returns the axis.
int check_accumulate_like(const function& f, const char* method, const array& a, const accumulate_options& o) {
  require_reduce_like(f, method);
  if (!a.valid()) throw value_error(method_label(f, method) + ": the input is a null array");
  if (a.ndim() == 0) throw value_error(method_label(f, method) + ": cannot " + method + " on a scalar (a 0-d array)");
  return normalize_axis(o.axis, static_cast<int>(a.ndim()), f, method);
}

accumulate_plan plan_accumulate_like(const function& f, const char* method, const array& a,
                                     const accumulate_options& o) {
  accumulate_plan p;
  p.axis = check_accumulate_like(f, method, a, o);
  auto rl = resolve_reduce_like(f, method, a.type(), o.dtype, o.out ? &*o.out : nullptr);
  p.loop = std::move(rl.loop);
  p.type = rl.type;
  return p;
}

}  // namespace

}  // namespace detail

array function::accumulate(const array& a, const accumulate_options& o) const {
  const auto place = detail::place_method(*this, "accumulate", o.target, {&a, o.out ? &*o.out : nullptr});
  const auto p = detail::plan_accumulate_like(*this, "accumulate", a, o);
  if (o.out) detail::check_out(*this, "accumulate", *o.out, a.shape());
  if (place.on_device) return detail::accumulate_on_device(*this, a, o, p);

  const array x = a.type() == p.type ? a : a.astype(p.type);
  const array* out = o.out ? &*o.out : nullptr;
  const bool direct =
      out != nullptr && out->type() == p.type && !detail::may_share_memory(*out, x) && !detail::has_zero_stride(*out);
  const dim_vector result_strides = detail::accumulate_result_strides(a, p.type.itemsize());  // a's order, as NumPy
  const array res = direct ? *out : detail::empty_strided(a.shape(), result_strides, p.type);
  if (res.size() > 0) {
    detail::copy_cast(detail::slice_along(x, p.axis, 0), detail::slice_along(res, p.axis, 0));
    detail::accumulate_task task(res, x, p.axis, p.loop);
    detail::fp_scope fp;
    task.set_gather_fp(fp.active());
    detail::execute_units(place.target, task);
    fp.finish("accumulate", task.fp_flags());  // NumPy names the method
  }
  if (out == nullptr) return res;
  if (!direct) detail::copy_cast(res, *out);
  return *out;
}

array function::reduceat(const array& a, const array& indices, const accumulate_options& o) const {
  const auto place = detail::place_method(*this, "reduceat", o.target, {&a, o.out ? &*o.out : nullptr});
  const int axis = detail::check_accumulate_like(*this, "reduceat", a, o);
  const std::string label = detail::method_label(*this, "reduceat");
  if (!indices.valid()) throw value_error(label + ": indices is a null array");
  if (!(indices.type().is_integer() || indices.type() == bool_))
    throw casting_error(label + ": Cannot cast array data from " + std::string(indices.type().name()) +
                        " to int64 according to the rule 'safe' (indices must be integers)");
  if (indices.ndim() > 1)
    throw value_error(label + ": indices must be 1-d, not of shape " + array::shape_string(indices.shape()));
  const array host_indices = indices.device().is_host() ? indices : to_host(indices, o.stream);
  std::vector<std::int64_t> idx = host_indices.to_vector<std::int64_t>();
  if (indices.type() == uint64) {  // values beyond int64 are out of range, not negative
    const auto wide = host_indices.to_vector<std::uint64_t>();
    for (std::size_t k = 0; k < idx.size(); ++k)
      if (wide[k] > static_cast<std::uint64_t>(INT64_MAX)) idx[k] = INT64_MAX;
  }
  const std::int64_t len = a.shape()[axis];
  for (const auto i : idx)
    if (i < 0 || i >= len)
      throw index_error(label + ": index " + std::to_string(i) + " out-of-bounds in " + name() + ".reduceat [0, " +
                        std::to_string(len) + ")");
  const auto p = detail::plan_accumulate_like(*this, "reduceat", a, o);
  dim_vector shape = a.shape();
  shape[p.axis] = static_cast<std::int64_t>(idx.size());
  if (o.out) detail::check_out(*this, "reduceat", *o.out, shape);
  if (place.on_device) return detail::reduceat_on_device(*this, a, idx, o, p);

  const array* out = o.out ? &*o.out : nullptr;
  const bool direct =
      out != nullptr && out->type() == p.type && !detail::may_share_memory(*out, a) && !detail::has_zero_stride(*out);
  const dim_vector result_strides = detail::reduceat_result_strides(a, p.axis, shape[p.axis], p.type.itemsize());
  const array res = direct ? *out : detail::empty_strided(shape, result_strides, p.type);
  if (res.size() > 0) {
    // dtype= casts the whole input first, as NumPy's reduceat, whose flags then say "cast".
    const array x = a.type() == p.type ? a : a.astype(p.type);
    detail::reduce_plan rp;
    rp.reduced.assign(a.ndim(), false);
    rp.reduced[static_cast<std::size_t>(p.axis)] = true;
    rp.loop = p.loop;
    rp.type = p.type;
    rp.has_start = true;  // the slice's first element, copied below
    rp.fold_along_reduced = true;
    detail::fp_scope fp;  // one report for every segment, as NumPy
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const std::int64_t start = idx[k];
      const std::int64_t end = k + 1 == idx.size() ? len : std::max(idx[k + 1], start + 1);
      const array acc = detail::slice_along(res, p.axis, static_cast<std::int64_t>(k));
      detail::copy_cast(detail::slice_along(x, p.axis, start), acc);
      if (end - start > 1) {
        rp.shape = acc.shape();
        detail::run_reduce_folds(*this, place.target, rp, detail::slice_along(x, p.axis, start + 1, end - start - 1),
                                 array(), acc, /*keepdims=*/true, &fp);
      }
    }
    fp.finish("reduceat");
  }
  if (out == nullptr) return res;
  if (!direct) detail::copy_cast(res, *out);
  return *out;
}

}  // namespace ufunc
