// Broadcasting of input-given shapes in binary ufunc calls with out= and where=:
// operands that are fresh arrays, stride-0 broadcast views, transposed or reversed
// views; out= of any shape and dtype, in place, partially overlapping an input or
// read-only; where= of any shape and dtype.
//
// Oracles: a call succeeds only if the shapes broadcast by NumPy's rules (the
// harness's own implementation) and out, when given, has the broadcast shape; the
// result has that shape; for add of int64 operands every element is checked against
// the harness's own broadcasting (masked-out elements keep out's old value, or are 0
// in an allocated result).
#include <cstring>
#include <optional>
#include <vector>

#include "fuzz_common.hpp"

namespace {

using ufunc::dim_vector;

const char* const names[] = {"add",    "subtract", "multiply",    "divide",      "maximum",   "minimum",
                             "power",  "arctan2",  "logical_and", "bitwise_xor", "not_equal", "copysign",
                             "divmod", "ldexp",    "fmod",        "float_power", "nextafter", "logaddexp2"};

dim_vector fuzz_shape(FuzzedDataProvider& in) {
  dim_vector s;
  for (int d = in.ConsumeIntegralInRange<int>(0, 6); d > 0; --d) {
    static constexpr std::int64_t extents[] = {1, 1, 1, 2, 3, 4, 0, 5};
    s.push_back(extents[in.ConsumeIntegralInRange<std::size_t>(0, std::size(extents) - 1)]);
  }
  return s;
}

// NumPy's rule, written independently of the library's.
std::optional<dim_vector> broadcast(const std::vector<dim_vector>& shapes) {
  std::size_t nd = 0;
  for (const auto& s : shapes) nd = std::max(nd, s.size());
  dim_vector r(nd, 1);
  for (const auto& s : shapes)
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto& o = r[nd - s.size() + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o != 1) return std::nullopt;
      o = s[i];
    }
  return r;
}

// An operand of shape `shape` made in one of several layouts.
ufunc::array make_operand(FuzzedDataProvider& in, ufunc::dtype t, const dim_vector& shape) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {  // a stride-0 view of a smaller array
      dim_vector small = shape;
      for (auto& e : small)
        if (in.ConsumeBool()) e = std::min<std::int64_t>(e, 1);
      return fuzz::filled_array(in, t, small).broadcast_to(shape);
    }
    case 1: {  // transposed memory
      dim_vector rev(shape.begin(), shape.end());
      std::reverse(rev.begin(), rev.end());
      return fuzz::filled_array(in, t, rev).transpose();
    }
    case 2: {  // reversed along the first axis
      auto a = fuzz::filled_array(in, t, shape);
      return shape.empty() ? a : a[{ufunc::slice{std::nullopt, std::nullopt, -1}}];
    }
    default:
      return fuzz::filled_array(in, t, shape);
  }
}

// Element at a multi-index of `shape`, for an array broadcast to it (harness's own
// arithmetic: right-aligned axes, extent-1 axes repeat).
std::int64_t element(const ufunc::array& a, const dim_vector& shape, const dim_vector& idx) {
  const std::size_t off = shape.size() - a.ndim();
  std::int64_t bytes = 0;
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.shape()[d] != 1) bytes += idx[off + d] * a.strides()[d];
  std::int64_t v;
  std::memcpy(&v, a.data() + bytes, sizeof v);
  return v;
}
bool mask_at(const ufunc::array& a, const dim_vector& shape, const dim_vector& idx) {
  const std::size_t off = shape.size() - a.ndim();
  std::int64_t bytes = 0;
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (a.shape()[d] != 1) bytes += idx[off + d] * a.strides()[d];
  return *reinterpret_cast<const bool*>(a.data() + bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const ufunc::function& f =
      *ufunc::find_builtin(names[in.ConsumeIntegralInRange<std::size_t>(0, std::size(names) - 1)]);
  const bool int64_add = in.ConsumeBool();  // the checked case: add of int64 arrays
  const ufunc::dtype tx = int64_add ? ufunc::int64 : fuzz::pick_dtype(in);
  const ufunc::dtype ty = int64_add ? ufunc::int64 : fuzz::pick_dtype(in);
  const dim_vector sx = fuzz_shape(in), sy = fuzz_shape(in);
  const ufunc::array x = make_operand(in, tx, sx);
  ufunc::array y = make_operand(in, ty, sy);
  const bool y_scalar = in.ConsumeIntegralInRange<int>(0, 5) == 0;

  std::vector<dim_vector> shapes{sx};
  if (!y_scalar) shapes.push_back(sy);
  const auto in_shape = broadcast(shapes);
  const dim_vector guess = in_shape ? *in_shape : sx;

  ufunc::call_options o;
  const int nout = f.nout();
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:  // out of the broadcast shape
      for (int k = 0; k < nout; ++k)
        o.out.push_back(make_operand(in, int64_add ? ufunc::int64 : fuzz::pick_dtype(in), guess));
      break;
    case 1:  // any shape
      for (int k = 0; k < nout; ++k)
        o.out.push_back(ufunc::array::zeros(fuzz_shape(in), int64_add ? ufunc::int64 : fuzz::pick_dtype(in)));
      break;
    case 2:  // in place
      if (nout == 1) o.out = {x};
      break;
    case 3:  // partially overlapping x
      if (nout == 1 && x.ndim() > 0 && x.writeable()) o.out = {x[{ufunc::slice{std::nullopt, std::nullopt, -1}}]};
      break;
    default:
      break;
  }
  if (in.ConsumeBool()) {
    const auto ws = in.ConsumeBool() ? guess : fuzz_shape(in);
    o.where = make_operand(in, in.ConsumeIntegralInRange<int>(0, 7) ? ufunc::bool_ : fuzz::pick_dtype(in), ws);
  }
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) o.casting = ufunc::casting::unsafe;

  // NumPy's rule over inputs, where and out; out must have the broadcast shape.
  std::vector<dim_vector> all = shapes;
  if (o.where.valid()) all.push_back(o.where.shape());
  for (const auto& a : o.out) all.push_back(a.shape());
  const auto call_shape = broadcast(all);
  bool shapes_ok = call_shape.has_value();
  for (const auto& a : o.out) shapes_ok = shapes_ok && a.shape() == *call_shape;
  if (call_shape && fuzz::checked_shape_size(*call_shape) > 4096) return 0;

  // Snapshots for the oracle (out may be an input).
  const std::vector<std::int64_t> old_out = !o.out.empty() && o.out[0].type() == ufunc::int64 && shapes_ok
                                                ? o.out[0].to_vector<std::int64_t>()
                                                : std::vector<std::int64_t>{};
  const ufunc::array x0 = x.copy(), y0 = y.copy();
  const std::int64_t scalar = in.ConsumeIntegralInRange<std::int64_t>(-9, 9);

  std::vector<ufunc::array> results;
  const bool ok = fuzz::accepted([&] {
    const ufunc::operand ops[] = {x, y_scalar ? ufunc::operand(scalar) : ufunc::operand(y)};
    results = f.call(ops, o);
  });
  if (!ok) return 0;
  fuzz::require(shapes_ok, "a call with shapes that do not broadcast (or a wrong out shape) succeeded");
  for (const auto& r : results)
    fuzz::require(r.shape() == *call_shape, "result of shape " + ufunc::array::shape_string(r.shape()) + ", expected " +
                                                ufunc::array::shape_string(*call_shape));
  if (!int64_add || f.name() != "add" || results[0].type() != ufunc::int64) return 0;
  if (!o.out.empty() && o.out[0].type() != ufunc::int64) return 0;

  const dim_vector& shape = *call_shape;
  const auto got = results[0].to_vector<std::int64_t>();
  dim_vector idx(shape.size(), 0);
  for (std::size_t k = 0; k < got.size(); ++k) {
    std::int64_t want;
    if (!o.where.valid() || o.where.type() != ufunc::bool_ || mask_at(o.where, shape, idx)) {
      const std::int64_t b = y_scalar ? scalar : element(y0, shape, idx);
      want = static_cast<std::int64_t>(static_cast<std::uint64_t>(element(x0, shape, idx)) +
                                       static_cast<std::uint64_t>(b));
    } else {
      want = o.out.empty() ? 0 : old_out[k];
    }
    fuzz::require(got[k] == want, "add: element " + std::to_string(k) + " is " + std::to_string(got[k]) +
                                      ", expected " + std::to_string(want));
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return 0;
}
