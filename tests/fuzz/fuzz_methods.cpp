// The ufunc methods on small arrays built from the input: reduce (axis as an int, a
// list with repeats and out-of-range values, all axes, none; keepdims, initial, where
// of any shape, out of any shape and dtype, out overlapping the input, dtype=),
// accumulate, reduceat (indices of any dtype, shape and value), outer and at (index
// arrays of any dtype and value, bool masks, b of any shape).
//
// Oracles: a successful reduce, accumulate or reduceat has the shape NumPy gives; for
// integer add, multiply and the bitwise ufuncs (exact, order-free arithmetic modulo
// 2^64) reduce is compared with a naive reduction, and add.at with naive updates.
#include <algorithm>
#include <climits>
#include <vector>

#include "fuzz_common.hpp"

namespace {

using ufunc::dim_vector;

const char* const binary_names[] = {"add",         "multiply",   "bitwise_and", "bitwise_or", "bitwise_xor",
                                    "maximum",     "minimum",    "subtract",    "divide",     "power",
                                    "logical_and", "logical_or", "logical_xor", "fmax",       "hypot",
                                    "gcd",         "lcm",        "arctan2",     "logaddexp",  "floor_divide",
                                    "equal",       "remainder",  "fmod",        "left_shift", "heaviside"};

const ufunc::function& pick_function(FuzzedDataProvider& in) {
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) return fuzz::pick_builtin(in);  // unary and 2-output ones too
  return *ufunc::find_builtin(binary_names[in.ConsumeIntegralInRange<std::size_t>(0, std::size(binary_names) - 1)]);
}

int fuzz_axis(FuzzedDataProvider& in) { return static_cast<int>(fuzz::small_or_wild(in, -5, 5)); }

// A shape that often broadcasts with `shape`: some extents set to 1 or dropped.
dim_vector nearby_shape(FuzzedDataProvider& in, const dim_vector& shape) {
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) return fuzz::small_shape(in, 4, 5, 256);
  dim_vector s;
  for (std::size_t d = in.ConsumeIntegralInRange<std::size_t>(0, shape.size()); d < shape.size(); ++d)
    s.push_back(in.ConsumeIntegralInRange<int>(0, 3) == 0 ? 1 : shape[d]);
  return s;
}

ufunc::array fuzz_out(FuzzedDataProvider& in, const ufunc::array& a, const dim_vector& expected) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return ufunc::array::zeros(fuzz::small_shape(in, 4, 5, 256), fuzz::pick_dtype(in));
    case 1:
      return a;  // overlaps the input
    case 2:
      return ufunc::array::zeros(expected, fuzz::pick_dtype(in)).as_readonly();
    default:
      return ufunc::array::zeros(expected, in.ConsumeBool() ? a.type() : fuzz::pick_dtype(in));
  }
}

bool integer_oracle(const ufunc::function& f, ufunc::dtype t) {
  if (!t.is_integer()) return false;
  return f.name() == "add" || f.name() == "multiply" || f.name() == "bitwise_and" || f.name() == "bitwise_or" ||
         f.name() == "bitwise_xor";
}

std::uint64_t apply(const std::string& name, std::uint64_t x, std::uint64_t y) {
  if (name == "add") return x + y;
  if (name == "multiply") return x * y;
  if (name == "bitwise_and") return x & y;
  if (name == "bitwise_or") return x | y;
  return x ^ y;
}

std::uint64_t identity_of(const std::string& name) {
  if (name == "multiply") return 1;
  if (name == "bitwise_and") return ~std::uint64_t{0};
  return 0;
}

std::vector<std::uint64_t> as_u64(const ufunc::array& a) {
  const auto v = a.astype(ufunc::int64).to_vector<std::int64_t>();
  return {v.begin(), v.end()};
}

void check_reduce(FuzzedDataProvider& in, const ufunc::function& f, const ufunc::array& a) {
  ufunc::reduce_options o;
  const int nd = static_cast<int>(a.ndim());
  std::vector<bool> reduced(static_cast<std::size_t>(nd), false);
  bool axes_valid = true;
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0:
      o.axis = fuzz_axis(in);
      break;
    case 1: {
      std::vector<int> list;
      for (int k = in.ConsumeIntegralInRange<int>(0, 5); k > 0; --k) list.push_back(fuzz_axis(in));
      o.axis = list;
      break;
    }
    case 2:
      o.axis = ufunc::all_axes;
      break;
    case 3:
      o.axis = ufunc::axes::none();
      break;
    default:
      break;  // axis 0
  }
  if (o.axis.all()) {
    reduced.assign(reduced.size(), true);
  } else if (!(nd == 0 && o.axis.single() && (o.axis.list()[0] == 0 || o.axis.list()[0] == -1))) {
    for (int ax : o.axis.list()) {
      if (ax < -nd || ax >= nd) {
        axes_valid = false;
        continue;
      }
      const auto d = static_cast<std::size_t>(ax < 0 ? ax + nd : ax);
      if (reduced[d]) axes_valid = false;
      reduced[d] = true;
    }
  }
  o.keepdims = in.ConsumeBool();
  dim_vector expected;
  for (int d = 0; d < nd; ++d)
    if (!reduced[static_cast<std::size_t>(d)])
      expected.push_back(a.shape()[static_cast<std::size_t>(d)]);
    else if (o.keepdims)
      expected.push_back(1);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) o.initial = fuzz::pick_weak(in);
  if (in.ConsumeIntegralInRange<int>(0, 2) == 0) {
    const auto shape = nearby_shape(in, a.shape());
    o.where = fuzz::filled_array(in, in.ConsumeIntegralInRange<int>(0, 7) ? ufunc::bool_ : fuzz::pick_dtype(in), shape);
  }
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) o.dtype = fuzz::pick_dtype(in);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) o.out = fuzz_out(in, a, expected);

  ufunc::array r;
  if (!fuzz::accepted([&] { r = f.reduce(a, o); })) return;
  fuzz::require(axes_valid, "reduce: an invalid axis was accepted");
  fuzz::require(r.shape() == expected, "reduce: result of shape " + ufunc::array::shape_string(r.shape()) +
                                           ", expected " + ufunc::array::shape_string(expected));
  if (!integer_oracle(f, a.type()) || o.initial || o.dtype || o.out) return;

  // Naive reduction: every element of a, in C order, into its output position.
  const auto x = as_u64(a);
  std::vector<bool> mask(x.size(), true);
  if (o.where.valid()) mask = o.where.broadcast_to(a.shape()).to_vector<bool>();
  std::vector<std::uint64_t> want(static_cast<std::size_t>(fuzz::checked_shape_size(expected)), identity_of(f.name()));
  dim_vector idx(a.ndim(), 0);
  for (std::size_t k = 0; k < x.size(); ++k) {
    std::int64_t out_k = 0;
    for (std::size_t d = 0; d < a.ndim(); ++d)
      if (!reduced[d]) out_k = out_k * a.shape()[d] + idx[d];
    if (mask[k]) want[static_cast<std::size_t>(out_k)] = apply(f.name(), want[static_cast<std::size_t>(out_k)], x[k]);
    for (std::size_t d = a.ndim(); d-- > 0;) {
      if (++idx[d] < a.shape()[d]) break;
      idx[d] = 0;
    }
  }
  // The result's dtype may be narrower (bitwise ops keep int8): compare in it.
  const auto got = as_u64(r);
  const auto want_typed =
      as_u64(ufunc::asarray<std::int64_t>(
                 std::span<const std::int64_t>(reinterpret_cast<const std::int64_t*>(want.data()), want.size()))
                 .astype(r.type()));
  fuzz::require(got == want_typed, "reduce: " + f.name() + " of " + a.describe() + " differs from the naive result");
}

void check_accumulate(FuzzedDataProvider& in, const ufunc::function& f, const ufunc::array& a) {
  ufunc::accumulate_options o;
  o.axis = fuzz_axis(in);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) o.dtype = fuzz::pick_dtype(in);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) o.out = fuzz_out(in, a, a.shape());
  ufunc::array r;
  if (!fuzz::accepted([&] { r = f.accumulate(a, o); })) return;
  fuzz::require(r.shape() == a.shape(), "accumulate: wrong result shape");
}

void check_reduceat(FuzzedDataProvider& in, const ufunc::function& f, const ufunc::array& a) {
  const auto n = in.ConsumeIntegralInRange<std::int64_t>(0, 6);
  dim_vector ishape{n};
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) ishape = fuzz::small_shape(in, 3, 3, 27);
  const ufunc::dtype itype = in.ConsumeIntegralInRange<int>(0, 3) ? ufunc::int64 : fuzz::pick_dtype(in);
  ufunc::array idx = ufunc::array::zeros(ishape, itype);
  if (itype == ufunc::int64) {
    for (std::int64_t k = 0; k < idx.size(); ++k) idx.data_as<std::int64_t>()[k] = fuzz::small_or_wild(in, -1, 6);
  } else {
    idx = fuzz::filled_array(in, itype, ishape);
  }
  ufunc::accumulate_options o;
  o.axis = fuzz_axis(in);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) o.dtype = fuzz::pick_dtype(in);
  dim_vector expected = a.shape();
  const int nd = static_cast<int>(a.ndim());
  const bool axis_ok = o.axis >= -nd && o.axis < nd;
  if (axis_ok) expected[static_cast<std::size_t>(o.axis < 0 ? o.axis + nd : o.axis)] = idx.size();
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) o.out = fuzz_out(in, a, expected);
  ufunc::array r;
  if (!fuzz::accepted([&] { r = f.reduceat(a, idx, o); })) return;
  fuzz::require(axis_ok && idx.ndim() <= 1, "reduceat: invalid axis or indices accepted");
  fuzz::require(r.shape() == expected, "reduceat: wrong result shape");
}

void check_outer(FuzzedDataProvider& in, const ufunc::function& f, const ufunc::array& a) {
  const auto b = fuzz::filled_array(in, fuzz::pick_dtype(in), fuzz::small_shape(in, 2, 4, 16));
  if (a.size() * b.size() > 4096) return;
  ufunc::call_options o;
  dim_vector expected = a.shape();
  for (auto e : b.shape()) expected.push_back(e);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) o.out = {fuzz_out(in, a, expected)};
  ufunc::array r;
  if (!fuzz::accepted([&] { r = f.outer(a, b, o); })) return;
  // As in any call, out may have leading axes that the operands broadcast over.
  fuzz::require(r.shape() == (o.out.empty() ? expected : o.out[0].shape()), "outer: wrong result shape");
}

void check_at(FuzzedDataProvider& in, const ufunc::function& f, const ufunc::array& a) {
  std::vector<ufunc::array> indices;
  const bool simple = in.ConsumeBool();  // one int64 index array: checked against a naive update
  const int count = simple ? 1 : in.ConsumeIntegralInRange<int>(0, 3);
  for (int k = 0; k < count; ++k) {
    const auto shape = simple ? dim_vector{in.ConsumeIntegralInRange<std::int64_t>(0, 6)}
                              : (in.ConsumeBool() ? nearby_shape(in, a.shape()) : fuzz::small_shape(in, 2, 4, 16));
    const ufunc::dtype t = simple || in.ConsumeBool() ? ufunc::int64 : fuzz::pick_dtype(in);
    auto idx = fuzz::filled_array(in, t, shape);
    if (t == ufunc::int64)
      for (std::int64_t i = 0; i < idx.size(); ++i) idx.data_as<std::int64_t>()[i] = fuzz::small_or_wild(in, -5, 5);
    indices.push_back(idx);
  }
  const bool scalar_b = simple || in.ConsumeBool();
  const std::int64_t bval = in.ConsumeIntegralInRange<std::int64_t>(-3, 3);
  const ufunc::array b =
      scalar_b ? ufunc::array() : fuzz::filled_array(in, fuzz::pick_dtype(in), nearby_shape(in, a.shape()));
  ufunc::call_options o;
  if (in.ConsumeIntegralInRange<int>(0, 5) == 0) o.dtype = fuzz::pick_dtype(in);
  const ufunc::array before = a.copy();
  const bool ok = fuzz::accepted([&] {
    if (f.nin() == 1)
      f.at(a, indices, o);
    else if (scalar_b)
      f.at(a, indices, bval, o);
    else
      f.at(a, indices, b, o);
  });
  if (!ok || !simple || f.name() != "add" || a.type() != ufunc::int64 || a.ndim() != 1 || o.dtype) return;
  auto want = before.to_vector<std::int64_t>();
  const auto n = static_cast<std::int64_t>(want.size());
  for (auto i : indices[0].to_vector<std::int64_t>()) {
    fuzz::require(i >= -n && i < n, "add.at: an out-of-range index was accepted");
    auto& e = want[static_cast<std::size_t>(i < 0 ? i + n : i)];
    e = static_cast<std::int64_t>(static_cast<std::uint64_t>(e) + static_cast<std::uint64_t>(bval));
  }
  fuzz::require(a.to_vector<std::int64_t>() == want, "add.at: result differs from the naive updates");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const ufunc::function& f = pick_function(in);
  const ufunc::dtype type = fuzz::pick_dtype(in);
  const dim_vector shape = fuzz::small_shape(in, 4, 5, 256);
  const ufunc::array a = fuzz::relayout(in, fuzz::filled_array(in, type, shape));
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
    case 1:
      check_reduce(in, f, a);
      break;
    case 2:
      check_accumulate(in, f, a);
      break;
    case 3:
      check_reduceat(in, f, a);
      break;
    case 4:
      check_outer(in, f, a);
      break;
    default:
      check_at(in, f, a);
      break;
  }
  return 0;
}
