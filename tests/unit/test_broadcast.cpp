// Broadcasting (broadcast_shapes, broadcast_strides) and the iteration plan every
// backend consumes: coalescing, flipping of negative strides, and for_each_run over
// arbitrary splits of the iteration space.
#include "test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <ufunc/core/iteration.hpp>

namespace {

using i64 = std::int64_t;
using ufunc::dim_vector;
using ufunc::slice;

std::string fmt(std::span<const i64> shape) { return ufunc::array::shape_string(shape); }

// NumPy's rule from first principles: right-align, and per axis every extent other
// than 1 must agree (0 is an extent like any other); nullopt where NumPy raises.
std::optional<dim_vector> reference_broadcast(const std::vector<dim_vector>& shapes) {
  std::size_t ndim = 0;
  for (const auto& s : shapes) ndim = std::max(ndim, s.size());
  dim_vector out(ndim, 1);
  for (std::size_t axis = 0; axis < ndim; ++axis) {
    std::set<i64> extents;
    for (const auto& s : shapes) {
      const std::size_t pad = ndim - s.size();
      if (axis >= pad && s[axis - pad] != 1) extents.insert(s[axis - pad]);
    }
    if (extents.size() > 1) return std::nullopt;
    if (extents.size() == 1) out[axis] = *extents.begin();
  }
  return out;
}

std::string broadcast_message(const std::vector<dim_vector>& shapes) {
  try {
    (void)ufunc::broadcast_shapes(std::span<const dim_vector>(shapes));
  } catch (const ufunc::broadcast_error& e) {
    return e.what();
  }
  return "(no error)";
}

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// What for_each_run visited over [first, last): the operands' element addresses,
// element by element in the order visited, flattened (noperands per element).
std::vector<std::uintptr_t> visit(const ufunc::iteration_plan& plan, i64 first, i64 last) {
  std::vector<std::uintptr_t> seen;
  const int nop = plan.noperands();
  bool runs_ok = true;  // one assertion per visit keeps the many-split tests fast
  plan.for_each_run(first, last, [&](char* const* ptrs, i64 n, const i64* strides) {
    runs_ok = runs_ok && n >= 1 && n <= plan.inner_size();
    for (int op = 0; op < nop; ++op) runs_ok = runs_ok && strides[op] == plan.stride(op, 0);
    for (i64 i = 0; i < n; ++i)
      for (int op = 0; op < nop; ++op) seen.push_back(address(ptrs[op] + i * strides[op]));
  });
  CHECK(runs_ok);
  return seen;
}

// The same addresses from a plain walk over every multi-index of `shape` in C order.
std::vector<std::uintptr_t> naive_walk(std::span<const i64> shape, std::span<const ufunc::plan_operand> ops) {
  std::vector<std::uintptr_t> out;
  if (ufunc::shape_size(shape) == 0) return out;
  std::vector<i64> idx(shape.size(), 0);
  for (;;) {
    for (const auto& op : ops) {
      i64 off = 0;
      for (std::size_t d = 0; d < shape.size(); ++d) off += idx[d] * op.strides[d];
      out.push_back(address(op.data + off));
    }
    std::size_t d = shape.size();
    for (; d > 0; --d) {
      if (++idx[d - 1] < shape[d - 1]) break;
      idx[d - 1] = 0;
    }
    if (d == 0) return out;
  }
}

// Element tuples (one address per operand) as a sorted list, to compare visits
// without regard to order.
std::vector<std::vector<std::uintptr_t>> sorted_tuples(const std::vector<std::uintptr_t>& flat, int nop) {
  std::vector<std::vector<std::uintptr_t>> t;
  for (std::size_t i = 0; i + nop <= flat.size(); i += nop) t.emplace_back(flat.begin() + i, flat.begin() + i + nop);
  std::sort(t.begin(), t.end());
  return t;
}

// Checks a plan against the naive walk, then checks that `splits` random partitions of
// [0, size) into ranges, each visited separately and in shuffled order, reproduce
// exactly the plan's own order piece by piece.
void check_plan_covers(std::span<const i64> shape, std::span<const ufunc::plan_operand> ops, bool allow_flip,
                       std::mt19937& gen, int splits) {
  const ufunc::iteration_plan plan(shape, ops, allow_flip);
  const int nop = static_cast<int>(ops.size());
  REQUIRE(plan.noperands() == nop);
  REQUIRE(plan.size() == ufunc::shape_size(shape));
  i64 product = 1;
  for (int d = 0; d < plan.ndim(); ++d) product *= plan.extent(d);
  CHECK(product == plan.size());

  const auto whole = visit(plan, 0, plan.size());
  const auto expected = naive_walk(shape, ops);
  REQUIRE(whole.size() == expected.size());
  CHECK(sorted_tuples(whole, nop) == sorted_tuples(expected, nop));

  const i64 size = plan.size();
  int mismatched = 0;
  for (int s = 0; s < splits; ++s) {
    std::vector<i64> cuts = {0, size};
    const int pieces = static_cast<int>(gen() % 12);
    for (int k = 0; k < pieces; ++k) cuts.push_back(size == 0 ? 0 : static_cast<i64>(gen() % (size + 1)));
    std::sort(cuts.begin(), cuts.end());  // duplicates give empty ranges, which must visit nothing
    std::vector<std::pair<i64, i64>> ranges;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) ranges.emplace_back(cuts[k], cuts[k + 1]);
    std::shuffle(ranges.begin(), ranges.end(), gen);
    for (const auto& [first, last] : ranges) {
      const auto part = visit(plan, first, last);
      const bool same = std::equal(part.begin(), part.end(), whole.begin() + first * nop, whole.begin() + last * nop) &&
                        part.size() == static_cast<std::size_t>((last - first) * nop);
      mismatched += same ? 0 : 1;
    }
  }
  // Every single-element range, the finest split of all.
  for (i64 i = 0; i < size; ++i) {
    const auto part = visit(plan, i, i + 1);
    mismatched += std::equal(part.begin(), part.end(), whole.begin() + i * nop, whole.begin() + (i + 1) * nop) &&
                          part.size() == static_cast<std::size_t>(nop)
                      ? 0
                      : 1;
  }
  CHECK(mismatched == 0);
}

// The untyped data pointer (array_t<T>::data() is a T*).
std::byte* bytes(const ufunc::array& a) { return a.data(); }

ufunc::plan_operand operand(const ufunc::array& a) { return {a.data(), a.strides()}; }

}  // namespace

// ---------------------------------------------------------------------------------------------------------------------
// broadcast_shapes

TEST_CASE("broadcast: broadcast_shapes as np.broadcast_shapes") {
  struct example {
    std::vector<dim_vector> shapes;
    std::string expected;
  };
  // Expected values from NumPy 2.
  const std::vector<example> examples = {
      {{}, "()"},
      {{{}}, "()"},
      {{{}, {}}, "()"},
      {{{}, {3}}, "(3,)"},
      {{{3}, {}}, "(3,)"},
      {{{1}, {3}}, "(3,)"},
      {{{3}, {1}}, "(3,)"},
      {{{8, 1, 6, 1}, {7, 1, 5}}, "(8, 7, 6, 5)"},
      {{{5, 4}, {1}}, "(5, 4)"},
      {{{5, 4}, {4}}, "(5, 4)"},
      {{{15, 3, 5}, {15, 1, 5}}, "(15, 3, 5)"},
      {{{15, 3, 5}, {3, 5}}, "(15, 3, 5)"},
      {{{15, 3, 5}, {3, 1}}, "(15, 3, 5)"},
      {{{0}, {1}}, "(0,)"},
      {{{1}, {0}}, "(0,)"},
      {{{0}, {}}, "(0,)"},
      {{{0}, {0}}, "(0,)"},
      {{{1, 0}, {3, 1}}, "(3, 0)"},
      {{{2, 1, 0}, {1, 5, 1}}, "(2, 5, 0)"},
      {{{1, 1, 1}, {1}}, "(1, 1, 1)"},
      {{{6, 7}, {5, 6, 1}, {7}, {5, 1, 7}}, "(5, 6, 7)"},
      {{{1, 2, 1, 3, 1, 4, 1}, {5, 1, 6, 1, 7, 1, 8}}, "(5, 2, 6, 3, 7, 4, 8)"},
      {{{3}, {4}}, "error"},
      {{{0}, {2}}, "error"},
      {{{2}, {0}}, "error"},
      {{{2, 1}, {8, 4, 3}}, "error"},
      {{{1}, {3}, {4}}, "error"},
      {{{7}, {5, 6, 1}, {6}}, "error"},
      {{{2, 0}, {2, 1}, {1, 3}}, "error"},
  };
  for (const auto& ex : examples) {
    std::string desc;
    for (const auto& s : ex.shapes) desc += fmt(s) + " ";
    CAPTURE(desc);
    if (ex.expected == "error") {
      CHECK_THROWS_AS((void)ufunc::broadcast_shapes(std::span<const dim_vector>(ex.shapes)), ufunc::broadcast_error);
    } else {
      CHECK(fmt(ufunc::broadcast_shapes(std::span<const dim_vector>(ex.shapes))) == ex.expected);
    }
  }
  // The initializer-list overload.
  CHECK(fmt(ufunc::broadcast_shapes({{8, 1, 6}, {7, 1}})) == "(8, 7, 6)");
  CHECK(fmt(ufunc::broadcast_shapes({dim_vector{}})) == "()");
}

TEST_CASE("broadcast: broadcast_shapes agrees with a reference on random shapes") {
  std::mt19937 gen(7);
  int checked = 0, errors = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<dim_vector> shapes(1 + gen() % 4);
    for (auto& s : shapes) {
      s = dim_vector(gen() % 5);
      // Mostly 1 and 3 so that many draws broadcast; 0 and 2 to exercise zero extents and conflicts.
      for (auto& e : s) e = std::vector<i64>{1, 1, 3, 3, 0, 2}[gen() % 6];
    }
    const auto expected = reference_broadcast(shapes);
    std::string desc;
    for (const auto& s : shapes) desc += fmt(s) + " ";
    CAPTURE(desc);
    if (expected) {
      CHECK(fmt(ufunc::broadcast_shapes(std::span<const dim_vector>(shapes))) == fmt(*expected));
    } else {
      ++errors;
      CHECK_THROWS_AS((void)ufunc::broadcast_shapes(std::span<const dim_vector>(shapes)), ufunc::broadcast_error);
    }
    ++checked;
  }
  // Both outcomes were exercised.
  CHECK(errors > 100);
  CHECK(checked - errors > 100);
}

TEST_CASE("broadcast: the error names every operand's shape, as NumPy's ufunc error") {
  // NumPy: "operands could not be broadcast together with shapes (3,) (4,) ".
  CHECK(broadcast_message({{3}, {4}}) == "operands could not be broadcast together with shapes (3,) (4,)");
  CHECK(broadcast_message({{0}, {2}}) == "operands could not be broadcast together with shapes (0,) (2,)");
  // All operands are named, including the ones that would broadcast.
  CHECK(broadcast_message({{1}, {3}, {4}}) == "operands could not be broadcast together with shapes (1,) (3,) (4,)");
  CHECK(broadcast_message({{}, {2, 1}, {8, 4, 3}}) ==
        "operands could not be broadcast together with shapes () (2, 1) (8, 4, 3)");
  const auto msg = broadcast_message({{5, 6}, {7}, {5, 1}});
  CHECK(msg.find("(5, 6)") != std::string::npos);
  CHECK(msg.find("(7,)") != std::string::npos);
  CHECK(msg.find("(5, 1)") != std::string::npos);
  // Every failure is also a ufunc::error.
  CHECK_THROWS_AS((void)ufunc::broadcast_shapes({{2}, {3}}), ufunc::error);
}

// ---------------------------------------------------------------------------------------------------------------------
// broadcast_strides

TEST_CASE("broadcast: broadcast_strides puts 0 on broadcast axes") {
  auto strides = [](dim_vector shape, dim_vector st, dim_vector target) {
    return fmt(ufunc::broadcast_strides(shape, st, target));
  };
  CHECK(strides({3, 1}, {8, 8}, {2, 3, 4}) == "(0, 8, 0)");
  CHECK(strides({4}, {-4}, {3, 4}) == "(0, -4)");
  CHECK(strides({}, {}, {2, 2}) == "(0, 0)");
  CHECK(strides({}, {}, {}) == "()");
  CHECK(strides({2, 3}, {12, 4}, {2, 3}) == "(12, 4)");
  CHECK(strides({2, 3}, {4, 8}, {5, 2, 3}) == "(0, 4, 8)");
  CHECK(strides({1, 1}, {123, 456}, {1, 1}) == "(0, 0)");  // a size-1 axis is never stepped along
  CHECK(strides({1}, {8}, {0}) == "(0,)");
  CHECK(strides({0}, {8}, {0}) == "(8,)");
  CHECK(strides({0}, {8}, {5, 0}) == "(0, 8)");
  CHECK(strides({3, 1, 5}, {40, 40, 8}, {3, 7, 5}) == "(40, 0, 8)");

  CHECK_THROWS_AS((void)ufunc::broadcast_strides(dim_vector{3}, dim_vector{4}, dim_vector{4}), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)ufunc::broadcast_strides(dim_vector{2, 3}, dim_vector{12, 4}, dim_vector{3}),
                  ufunc::broadcast_error);
  CHECK_THROWS_AS((void)ufunc::broadcast_strides(dim_vector{0}, dim_vector{4}, dim_vector{1}), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)ufunc::broadcast_strides(dim_vector{3}, dim_vector{4}, dim_vector{}), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)ufunc::broadcast_strides(dim_vector{2, 1}, dim_vector{4, 4}, dim_vector{3, 2}),
                  ufunc::broadcast_error);
}

// ---------------------------------------------------------------------------------------------------------------------
// iteration_plan: coalescing

TEST_CASE("broadcast: iteration_plan coalesces contiguous operands into one dimension") {
  const auto a = ufunc::zeros<float>({2, 3, 4});
  const ufunc::plan_operand one[] = {operand(a)};
  const ufunc::iteration_plan p(a.shape(), one);
  CHECK(p.noperands() == 1);
  CHECK(p.ndim() == 1);
  CHECK(p.size() == 24);
  CHECK(p.inner_size() == 24);
  CHECK(p.extent(0) == 24);
  CHECK(p.stride(0, 0) == 4);
  CHECK(p.inner_strides()[0] == 4);
  CHECK(address(p.base(0)) == address(a.data()));

  // Operands of different item sizes still merge: each steps through its own memory contiguously.
  const auto b = ufunc::zeros<double>({2, 3, 4});
  const auto c = ufunc::zeros<std::int8_t>({2, 3, 4});
  const ufunc::plan_operand three[] = {operand(a), operand(b), operand(c)};
  const ufunc::iteration_plan q(a.shape(), three);
  CHECK(q.ndim() == 1);
  CHECK(q.extent(0) == 24);
  CHECK(q.stride(0, 0) == 4);
  CHECK(q.stride(1, 0) == 8);
  CHECK(q.stride(2, 0) == 1);
}

TEST_CASE("broadcast: iteration_plan walks transposed operands in memory order") {
  // One F-ordered operand: the plan reorders its axes and merges them.
  const auto a = ufunc::zeros<float>({2, 3, 4});
  const auto t = a.transpose();  // (4, 3, 2), strides (4, 16, 48)
  const ufunc::plan_operand one[] = {operand(t)};
  const ufunc::iteration_plan p(t.shape(), one);
  CHECK(p.ndim() == 1);
  CHECK(p.extent(0) == 24);
  CHECK(p.stride(0, 0) == 4);
  CHECK(address(p.base(0)) == address(a.data()));

  // Two transposed operands agree on the order.
  const auto b = ufunc::zeros<double>({2, 3, 4});
  const auto bt = b.transpose();
  const ufunc::plan_operand two[] = {operand(t), operand(bt)};
  const ufunc::iteration_plan q(t.shape(), two);
  CHECK(q.ndim() == 1);
  CHECK(q.stride(0, 0) == 4);
  CHECK(q.stride(1, 0) == 8);

  // A C-ordered and an F-ordered operand cannot both be contiguous: two dimensions remain.
  const auto c = ufunc::zeros<float>({3, 4});
  const auto f = ufunc::zeros<float>({4, 3}).transpose();
  const ufunc::plan_operand mixed[] = {operand(c), operand(f)};
  const ufunc::iteration_plan r(c.shape(), mixed);
  CHECK(r.ndim() == 2);
  CHECK(r.size() == 12);
  CHECK(r.extent(0) * r.extent(1) == 12);
}

TEST_CASE("broadcast: iteration_plan keeps stride 0 for broadcast operands") {
  const auto out = ufunc::zeros<float>({3, 4});
  const auto row = ufunc::zeros<float>({4});
  const auto row_strides = ufunc::broadcast_strides(row.shape(), row.strides(), out.shape());
  CHECK(fmt(row_strides) == "(0, 4)");
  const ufunc::plan_operand ops[] = {operand(out), {bytes(row), row_strides}};
  const ufunc::iteration_plan p(out.shape(), ops);
  REQUIRE(p.ndim() == 2);
  CHECK(p.extent(0) == 4);
  CHECK(p.extent(1) == 3);
  CHECK(p.stride(0, 0) == 4);
  CHECK(p.stride(1, 0) == 4);
  CHECK(p.stride(0, 1) == 16);
  CHECK(p.stride(1, 1) == 0);

  const auto col = ufunc::zeros<float>({3, 1});
  const auto col_strides = ufunc::broadcast_strides(col.shape(), col.strides(), out.shape());
  CHECK(fmt(col_strides) == "(4, 0)");
  const ufunc::plan_operand ops2[] = {operand(out), {bytes(col), col_strides}};
  const ufunc::iteration_plan q(out.shape(), ops2);
  REQUIRE(q.ndim() == 2);
  CHECK(q.extent(0) == 4);
  CHECK(q.stride(1, 0) == 0);
  CHECK(q.stride(1, 1) == 4);

  // A fully broadcast scalar merges along with a contiguous output, keeping stride 0.
  const auto s = ufunc::scalar<float>(1);
  const auto s_strides = ufunc::broadcast_strides(s.shape(), s.strides(), out.shape());
  const ufunc::plan_operand ops3[] = {operand(out), {bytes(s), s_strides}};
  const ufunc::iteration_plan r(out.shape(), ops3);
  CHECK(r.ndim() == 1);
  CHECK(r.extent(0) == 12);
  CHECK(r.stride(0, 0) == 4);
  CHECK(r.stride(1, 0) == 0);
  CHECK(address(r.base(1)) == address(s.data()));
}

TEST_CASE("broadcast: iteration_plan flips axes whose strides are all negative") {
  const auto a = ufunc::arange<float>(10);
  const auto rev = a[{slice{std::nullopt, std::nullopt, -1}}];
  const ufunc::plan_operand one[] = {operand(rev)};
  const ufunc::iteration_plan p(rev.shape(), one);
  CHECK(p.ndim() == 1);
  CHECK(p.stride(0, 0) == 4);
  CHECK(address(p.base(0)) == address(a.data()));  // the lowest address: the walk goes forwards

  // Reversed along both axes: flipped, then merged.
  const auto m = ufunc::zeros<double>({3, 4});
  const auto mr = m[{slice{std::nullopt, std::nullopt, -1}, slice{std::nullopt, std::nullopt, -1}}];
  const auto m2 = ufunc::zeros<float>({3, 4});
  const auto m2r = m2[{slice{std::nullopt, std::nullopt, -1}, slice{std::nullopt, std::nullopt, -1}}];
  const ufunc::plan_operand both[] = {operand(mr), operand(m2r)};
  const ufunc::iteration_plan q(mr.shape(), both);
  CHECK(q.ndim() == 1);
  CHECK(q.stride(0, 0) == 8);
  CHECK(q.stride(1, 0) == 4);
  CHECK(address(q.base(0)) == address(m.data()));
  CHECK(address(q.base(1)) == address(m2.data()));

  // A broadcast operand (stride 0) does not prevent the flip.
  const auto s = ufunc::scalar<float>(1);
  const i64 zero[] = {0};
  const ufunc::plan_operand with_scalar[] = {operand(rev), {bytes(s), zero}};
  const ufunc::iteration_plan w(rev.shape(), with_scalar);
  CHECK(w.stride(0, 0) == 4);
  CHECK(w.stride(1, 0) == 0);
  CHECK(address(w.base(0)) == address(a.data()));
  CHECK(address(w.base(1)) == address(s.data()));

  // One operand forwards and one backwards: the order is shared, so nothing flips.
  const auto fwd = ufunc::zeros<float>({10});
  const ufunc::plan_operand mixed[] = {operand(fwd), operand(rev)};
  const ufunc::iteration_plan x(rev.shape(), mixed);
  CHECK(x.stride(0, 0) == 4);
  CHECK(x.stride(1, 0) == -4);
  CHECK(address(x.base(0)) == address(fwd.data()));
  CHECK(address(x.base(1)) == address(rev.data()));

  // Without allow_flip the plan keeps the given direction.
  const ufunc::iteration_plan y(rev.shape(), one, /*allow_flip=*/false);
  CHECK(y.stride(0, 0) == -4);
  CHECK(address(y.base(0)) == address(rev.data()));
}

TEST_CASE("broadcast: iteration_plan drops size-1 dimensions") {
  const auto a = ufunc::zeros<float>({1, 5, 1, 1});
  const ufunc::plan_operand one[] = {operand(a)};
  const ufunc::iteration_plan p(a.shape(), one);
  CHECK(p.ndim() == 1);
  CHECK(p.extent(0) == 5);
  CHECK(p.stride(0, 0) == 4);

  // (3, 1, 4) view of every other column: the size-1 axis sits between two axes that
  // then merge into one run with an 8-byte stride.
  const auto b = ufunc::zeros<float>({3, 8});
  const auto v = b[{slice{}, ufunc::newaxis, slice{std::nullopt, std::nullopt, 2}}];
  REQUIRE(fmt(v.shape()) == "(3, 1, 4)");
  const ufunc::plan_operand vo[] = {operand(v)};
  const ufunc::iteration_plan q(v.shape(), vo);
  CHECK(q.ndim() == 1);
  CHECK(q.extent(0) == 12);
  CHECK(q.stride(0, 0) == 8);

  // Without that regularity two dimensions remain.
  const auto w = b[{slice{}, ufunc::newaxis, slice{std::nullopt, 4}}];
  const ufunc::plan_operand wo[] = {operand(w)};
  const ufunc::iteration_plan r(w.shape(), wo);
  CHECK(r.ndim() == 2);
  CHECK(r.extent(0) == 4);
  CHECK(r.extent(1) == 3);
  CHECK(r.stride(0, 1) == 32);

  // All extents 1: one element.
  const auto ones = ufunc::zeros<float>({1, 1, 1});
  const ufunc::plan_operand oo[] = {operand(ones)};
  const ufunc::iteration_plan s(ones.shape(), oo);
  CHECK(s.ndim() == 1);
  CHECK(s.size() == 1);
  CHECK(s.extent(0) == 1);
}

TEST_CASE("broadcast: iteration_plan of 0-d and empty iterations") {
  const auto s = ufunc::scalar<double>(4);
  const auto t = ufunc::scalar<float>(0);
  const ufunc::plan_operand ops[] = {operand(s), operand(t)};
  const ufunc::iteration_plan p(s.shape(), ops);
  CHECK(p.ndim() == 1);
  CHECK(p.size() == 1);
  CHECK(p.extent(0) == 1);
  int calls = 0;
  p.for_each_run(0, 1, [&](char* const* ptrs, i64 n, const i64*) {
    ++calls;
    CHECK(n == 1);
    CHECK(address(ptrs[0]) == address(s.data()));
    CHECK(address(ptrs[1]) == address(t.data()));
  });
  CHECK(calls == 1);

  const auto e = ufunc::zeros<float>({3, 0, 2});
  const ufunc::plan_operand eo[] = {operand(e)};
  const ufunc::iteration_plan q(e.shape(), eo);
  CHECK(q.size() == 0);
  CHECK(q.ndim() == 1);
  CHECK(q.extent(0) == 0);
  calls = 0;
  q.for_each_run(0, 0, [&](char* const*, i64, const i64*) { ++calls; });
  CHECK(calls == 0);
  // Empty ranges of a non-empty plan visit nothing either.
  p.for_each_run(1, 1, [&](char* const*, i64, const i64*) { ++calls; });
  p.for_each_run(0, 0, [&](char* const*, i64, const i64*) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("broadcast: iteration_plan rejects too many operands or dimensions") {
  const auto a = ufunc::zeros<float>({2});
  std::vector<ufunc::plan_operand> ops(ufunc::max_operands + 1, operand(a));
  CHECK_THROWS_AS((void)ufunc::iteration_plan(a.shape(), ops), ufunc::value_error);
  ops.resize(ufunc::max_operands);
  CHECK_NOTHROW((void)ufunc::iteration_plan(a.shape(), ops));

  const dim_vector shape(std::size_t{ufunc::max_ndim + 1}, 1);
  const dim_vector strides(std::size_t{ufunc::max_ndim + 1}, 0);
  float x = 0;
  const ufunc::plan_operand big[] = {{reinterpret_cast<std::byte*>(&x), strides}};
  CHECK_THROWS_AS((void)ufunc::iteration_plan(shape, big), ufunc::value_error);
}

// ---------------------------------------------------------------------------------------------------------------------
// iteration_plan: for_each_run over splits

TEST_CASE("broadcast: for_each_run over any split visits a 4-d strided, transposed, broadcast set exactly once") {
  const dim_vector shape = {3, 4, 2, 5};
  // A C-ordered output, a transposed input, an input broadcast from (4, 1, 5), an
  // input reversed along two axes with a step, and a 0-d input.
  const auto out = ufunc::zeros<double>(shape);
  const auto tbase = ufunc::zeros<float>({5, 2, 4, 3});
  const auto transposed = tbase.transpose();
  const auto small = ufunc::zeros<std::int16_t>({4, 1, 5});
  const auto small_strides = ufunc::broadcast_strides(small.shape(), small.strides(), shape);
  CHECK(fmt(small_strides) == "(0, 10, 0, 2)");
  const auto rbase = ufunc::zeros<std::int32_t>({3, 4, 2, 10});
  const auto reversed = rbase[{slice{std::nullopt, std::nullopt, -1}, slice{}, slice{std::nullopt, std::nullopt, -1},
                               slice{std::nullopt, std::nullopt, -2}}];
  REQUIRE(reversed.shape() == shape);
  const auto sc = ufunc::scalar<std::uint8_t>(1);
  const auto sc_strides = ufunc::broadcast_strides(sc.shape(), sc.strides(), shape);
  const ufunc::plan_operand ops[] = {
      operand(out), operand(transposed), {bytes(small), small_strides}, operand(reversed), {bytes(sc), sc_strides}};

  std::mt19937 gen(2024);
  check_plan_covers(shape, ops, true, gen, 200);
  check_plan_covers(shape, ops, false, gen, 50);
  // Every operand but the broadcast ones backwards, so the planner flips axes.
  const auto outr = out[{slice{std::nullopt, std::nullopt, -1}, slice{std::nullopt, std::nullopt, -1},
                         slice{std::nullopt, std::nullopt, -1}, slice{std::nullopt, std::nullopt, -1}}];
  const auto tr = transposed[{slice{std::nullopt, std::nullopt, -1}, slice{std::nullopt, std::nullopt, -1},
                              slice{std::nullopt, std::nullopt, -1}, slice{std::nullopt, std::nullopt, -1}}];
  const ufunc::plan_operand flipped[] = {operand(outr), operand(tr), {bytes(sc), sc_strides}};
  check_plan_covers(shape, flipped, true, gen, 100);
  const ufunc::iteration_plan fp(shape, flipped);
  for (int d = 0; d < fp.ndim(); ++d)
    for (int op = 0; op < fp.noperands(); ++op) CHECK(fp.stride(op, d) >= 0);
}

TEST_CASE("broadcast: for_each_run over random splits of random layouts matches a naive walk") {
  std::mt19937 gen(99);
  // Backing memory for every operand of every layout: addresses are compared, never
  // dereferenced, but they must point into real allocations.
  for (int iter = 0; iter < 60; ++iter) {
    const std::size_t ndim = gen() % 6;  // 0-d to 5-d
    dim_vector shape(ndim);
    for (auto& e : shape) e = static_cast<i64>(gen() % 4) + (gen() % 8 == 0 ? 0 : 1);  // extents 0..4, rarely 0
    const int nop = 1 + static_cast<int>(gen() % 4);
    std::vector<std::vector<std::byte>> buffers(nop);
    std::vector<dim_vector> strides(nop);
    std::vector<ufunc::plan_operand> ops;
    for (int op = 0; op < nop; ++op) {
      const i64 itemsize = i64{1} << (gen() % 5);
      const i64 gap = 1 + static_cast<i64>(gen() % 2);  // padded rows leave holes between elements
      std::vector<std::size_t> order(ndim);
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::shuffle(order.begin(), order.end(), gen);
      strides[op] = dim_vector(ndim, 0);
      i64 step = itemsize * gap, offset = 0;
      for (std::size_t k = ndim; k-- > 0;) {
        const std::size_t axis = order[k];
        if (gen() % 4 == 0) continue;  // broadcast along this axis
        const bool backwards = gen() % 3 == 0;
        strides[op][axis] = backwards ? -step : step;
        if (backwards) offset += (std::max<i64>(shape[axis], 1) - 1) * step;
        step *= std::max<i64>(shape[axis], 1);
      }
      buffers[op].resize(static_cast<std::size_t>(step + itemsize));
      ops.push_back({buffers[op].data() + offset, strides[op]});
    }
    CAPTURE(fmt(shape));
    CAPTURE(nop);
    check_plan_covers(shape, ops, gen() % 4 != 0, gen, 20);
  }
}
