// The ufunc methods on distributed arrays against the same method on the whole array in
// one process: reduce (exact for integers, bool, min and max; float sums within the
// pairwise-summation bound), accumulate, reduceat, outer and at; uneven and empty blocks.
#include <cfloat>
#include <cmath>

#include "dist_support.hpp"

using namespace dist_test;

namespace {

// Float sums: the single process adds pairwise, the ranks pairwise within a block then in
// rank order; both within a few ulps times log2(n) of the sum of magnitudes.
double sum_bound(double eps, std::int64_t n) { return 4 * eps * (std::log2(static_cast<double>(n) + 1) + 2); }

std::vector<dist::distribution> layouts(std::int64_t rows, int axis = 0) {
  return {dist::distribution::blocks(rows, world().size(), axis), uneven(rows, axis)};
}

// A ufunc whose loop is not reorderable (a vectorize'd functor without ufunc::reorderable):
// its reductions and scans over the split axis go rank after rank.
const auto twice_minus =
    ufunc::vectorize<std::int64_t(std::int64_t, std::int64_t)>([](auto a, auto b) { return 2 * a - b; }, "twice_minus");

}  // namespace

TEST_CASE("reduce over the split axis, other axes and all axes: integers exactly") {
  for (const std::int64_t rows : {std::int64_t{3}, std::int64_t{11}, std::int64_t{100}}) {
    const auto x = random_array<std::int32_t>({rows, 5}, 21);
    for (const auto& layout : layouts(rows)) {
      CAPTURE(rows);
      CAPTURE(layout.str());
      const auto dx = split(x, layout);
      const auto r0 = dist::add.reduce(dx);  // over the split axis: replicated
      CHECK(r0.is_replicated());
      check_same(r0.local(), ufunc::add.reduce(x));
      const auto r1 = dist::add.reduce(dx, {.axis = 1});  // along the blocks: still split
      CHECK(r1.distribution() == layout);
      check_same(dist::allgather(r1), ufunc::add.reduce(x, {.axis = 1}));
      check_same(dist::add.reduce(dx, {.axis = ufunc::all_axes}).local(),
                 ufunc::add.reduce(x, {.axis = ufunc::all_axes}));
      check_same(dist::multiply.reduce(dx, {.axis = {0, 1}, .keepdims = true}).local(),
                 ufunc::multiply.reduce(x, {.axis = {0, 1}, .keepdims = true}));
      check_same(dist::maximum.reduce(dx).local(), ufunc::maximum.reduce(x));
      check_same(dist::minimum.reduce(dx, {.axis = ufunc::all_axes}).local(),
                 ufunc::minimum.reduce(x, {.axis = ufunc::all_axes}));
      check_same(dist::bitwise_xor.reduce(dx).local(), ufunc::bitwise_xor.reduce(x));
      check_same(dist::add.reduce(dx, {.dtype = ufunc::int8}).local(), ufunc::add.reduce(x, {.dtype = ufunc::int8}));
      check_same(dist::add.reduce(dx, {.initial = 1000}).local(), ufunc::add.reduce(x, {.initial = 1000}));
      check_same(dist::logical_or.reduce(dist::greater(dx, 40)).local(),
                 ufunc::logical_or.reduce(ufunc::greater(x, 40)));
      // Split along axis 1, reduced along it and along axis 0.
      const auto dy = split(x, 1);
      check_same(dist::add.reduce(dy, {.axis = 1}).local(), ufunc::add.reduce(x, {.axis = 1}));
      check_same(dist::allgather(dist::add.reduce(dy, {.axis = 0})), ufunc::add.reduce(x, {.axis = 0}));
    }
  }
}

TEST_CASE("reduce of floats: min and max exactly, sums within the pairwise bound") {
  for (const std::int64_t rows : {std::int64_t{3}, std::int64_t{1000}}) {
    const auto x = random_array<float>({rows, 4}, 22);
    const auto magnitude = ufunc::add.reduce(ufunc::absolute(x), {.dtype = ufunc::float64});
    for (const auto& layout : layouts(rows)) {
      const auto dx = split(x, layout);
      check_same(dist::maximum.reduce(dx).local(), ufunc::maximum.reduce(x));
      check_same(dist::fmin.reduce(dx).local(), ufunc::fmin.reduce(x));
      check_close(dist::add.reduce(dx).local(), ufunc::add.reduce(x), magnitude, sum_bound(FLT_EPSILON, rows));
      const auto total = dist::add.reduce(dx, {.axis = ufunc::all_axes}).local();
      check_close(total, ufunc::add.reduce(x, {.axis = ufunc::all_axes}),
                  ufunc::add.reduce(magnitude, {.keepdims = false}), sum_bound(FLT_EPSILON, rows * 4));
    }
  }
}

TEST_CASE("reduce with where=, initial=, out=, and of nothing") {
  const int p = world().size();
  const auto x = random_array<double>({9, 3}, 23);
  const auto mask = random_array<bool>({9, 3}, 24);
  const auto magnitude = ufunc::add.reduce(ufunc::absolute(x));
  for (const auto& layout : layouts(9)) {
    const auto dx = split(x, layout);
    // A distributed mask and a replicated one; add has an identity.
    check_close(dist::add.reduce(dx, {.where = split(mask, layout)}).local(), ufunc::add.reduce(x, {.where = mask}),
                magnitude, sum_bound(DBL_EPSILON, 9));
    check_close(dist::add.reduce(dx, {.where = mask}).local(), ufunc::add.reduce(x, {.where = mask}), magnitude,
                sum_bound(DBL_EPSILON, 9));
    // maximum has none: initial= starts every rank's part (max is idempotent).
    check_same(dist::maximum.reduce(dx, {.initial = -20.0, .where = mask}).local(),
               ufunc::maximum.reduce(x, {.initial = -20.0, .where = mask}));
    check_same(dist::maximum.reduce(dx, {.keepdims = false, .initial = 100.0, .where = mask}).local(),
               ufunc::maximum.reduce(x, {.initial = 100.0, .where = mask}));
    // out=: an ordinary array on every rank for a replicated result ...
    auto out = ufunc::zeros<double>({3});
    const auto r = dist::maximum.reduce(dx, {.out = ufunc::array(out)});
    CHECK(static_cast<const void*>(r.local().data()) == static_cast<const void*>(out.data()));
    check_same(out, ufunc::maximum.reduce(x));
    // ... a distributed one for a split result.
    auto dout = dist::zeros(world(), {9}, ufunc::float64, {.blocks = layout});
    dist::minimum.reduce(dx, {.axis = 1, .out = dout});
    check_same(dist::allgather(dout), ufunc::minimum.reduce(x, {.axis = 1}));
  }
  // Nothing to reduce: the identity, or NumPy's error on every rank.
  const auto none = random_array<float>({0, 3}, 25);
  check_same(dist::add.reduce(split(none)).local(), ufunc::add.reduce(none));
  CHECK(thrown([&] { (void)dist::maximum.reduce(split(none)); }) == "value_error");
  check_same(dist::maximum.reduce(split(none), {.initial = 1.0f}).local(),
             ufunc::maximum.reduce(none, {.initial = 1.0f}));
  // where= over the split axis for a ufunc without an identity that is not idempotent: a clear error.
  CHECK(thrown([&] { (void)dist::subtract.reduce(split(x), {.initial = 0.0, .where = mask}); }) ==
        "distribution_error");
  (void)p;
}

TEST_CASE("reduce of a loop that is not reorderable: rank after rank, exactly") {
  for (const std::int64_t rows : {std::int64_t{3}, std::int64_t{10}}) {
    const auto x = random_array<std::int64_t>({rows, 2}, 26, -3, 3);
    const auto f = random_array<double>({rows}, 27);
    for (const auto& layout : layouts(rows)) {
      const auto dx = split(x, layout);
      check_same(dist::subtract.reduce(dx).local(), ufunc::subtract.reduce(x));
      check_same(dist::reduce(twice_minus.ufunc(), dx).local(), twice_minus.reduce(x));
      check_same(dist::subtract.reduce(dx, {.initial = 7}).local(), ufunc::subtract.reduce(x, {.initial = 7}));
      // Floats too: the same operations in the same order, so the same bits.
      check_same(dist::divide.reduce(split(f, layout)).local(), ufunc::divide.reduce(f));
    }
  }
}

TEST_CASE("accumulate along the split axis and along others") {
  for (const std::int64_t rows : {std::int64_t{3}, std::int64_t{12}, std::int64_t{300}}) {
    const auto n = random_array<std::int64_t>({rows, 3}, 28);
    const auto x = random_array<double>({rows, 3}, 29);
    for (const auto& layout : layouts(rows)) {
      CAPTURE(rows);
      CAPTURE(layout.str());
      const auto dn = split(n, layout);
      const auto dx = split(x, layout);
      // Reorderable: block scans and an exclusive scan of the block totals.
      check_same(dist::allgather(dist::add.accumulate(dn)), ufunc::add.accumulate(n));
      check_same(dist::allgather(dist::multiply.accumulate(dn, {.dtype = ufunc::int8})),
                 ufunc::multiply.accumulate(n, {.dtype = ufunc::int8}));
      check_same(dist::allgather(dist::maximum.accumulate(dx)), ufunc::maximum.accumulate(x));
      check_close(dist::allgather(dist::add.accumulate(dx)), ufunc::add.accumulate(x),
                  ufunc::add.accumulate(ufunc::absolute(x)), sum_bound(DBL_EPSILON, rows));
      check_same(dist::allgather(dist::add.accumulate(dn, {.axis = 1})), ufunc::add.accumulate(n, {.axis = 1}));
      // Not reorderable: rank after rank, exactly, floats included.
      check_same(dist::allgather(dist::subtract.accumulate(dn)), ufunc::subtract.accumulate(n));
      check_same(dist::allgather(dist::subtract.accumulate(dx)), ufunc::subtract.accumulate(x));
      check_same(dist::allgather(dist::accumulate(twice_minus.ufunc(), dn)), twice_minus.accumulate(n));
      // out=
      auto out = dist::zeros(world(), {rows, 3}, ufunc::float64, {.blocks = layout});
      dist::add.accumulate(dn, {.out = out});
      check_same(dist::allgather(out), ufunc::add.accumulate(n, {.dtype = ufunc::float64}));
      // Split along axis 1, accumulated along it.
      check_same(dist::allgather(dist::add.accumulate(split(n, 1), {.axis = 1})),
                 ufunc::add.accumulate(n, {.axis = 1}));
    }
  }
}

TEST_CASE("reduceat, outer, at") {
  const int p = world().size();
  const auto x = random_array<std::int32_t>({7, 6}, 30);
  const auto idx = ufunc::asarray<std::int64_t>({0, 2, 5, 1});
  const auto dx = split(x, uneven(7));
  check_same(dist::allgather(dist::add.reduceat(dx, idx, {.axis = 1})), ufunc::add.reduceat(x, idx, {.axis = 1}));
  std::string message;
  CHECK(thrown([&] { (void)dist::add.reduceat(dx, idx); }, &message) == "distribution_error");
  CHECK(message.find("split axis") != std::string::npos);

  const auto a = random_array<float>({5}, 31);
  const auto b = random_array<float>({2, 3}, 32);
  check_same(dist::allgather(dist::multiply.outer(split(a), b)), ufunc::multiply.outer(a, b));
  check_same(dist::allgather(dist::multiply.outer(a, split(b, 1))), ufunc::multiply.outer(a, b));
  check_same(dist::allgather(dist::subtract.outer(split(a, uneven(5)), split(b))), ufunc::subtract.outer(a, b));
  CHECK(dist::multiply.outer(a, split(b, 1)).distribution().axis() == 2);

  // at along the split axis: repeated and negative indices, a b array over the indexed shape.
  const auto where = ufunc::asarray<std::int64_t>({0, 6, 6, -1, 3, 0, 2});
  const auto values = random_array<std::int32_t>({7, 6}, 33);
  for (const auto& layout : layouts(7)) {
    auto want = x.copy();
    ufunc::add.at(want, where, 1);
    auto got = split(x, layout);
    dist::add.at(got, where, 1);
    check_same(dist::allgather(got), want);
    auto want2 = x.copy();
    ufunc::subtract.at(want2, where, values);
    auto got2 = split(x, layout);
    dist::subtract.at(got2, where, values);
    check_same(dist::allgather(got2), want2);
    // Two index arrays (rows and columns), broadcast.
    auto want3 = x.copy();
    const auto cols = ufunc::asarray<std::int64_t>({1, 1, 5, 0, 2, 1, 4});
    ufunc::maximum.at(want3, {where, cols}, ufunc::array(values).reshape({42})[{ufunc::slice{0, 7}}]);
    auto got3 = split(x, layout);
    dist::maximum.at(got3, {where, cols}, ufunc::array(values).reshape({42})[{ufunc::slice{0, 7}}]);
    check_same(dist::allgather(got3), want3);
    // Unary.
    auto want4 = x.copy();
    ufunc::negative.at(want4, where);
    auto got4 = split(x, layout);
    dist::negative.at(got4, where);
    check_same(dist::allgather(got4), want4);
  }
  // A split axis that is not indexed: every rank applies every index to its columns.
  auto want5 = x.copy();
  const auto row = ufunc::asarray<std::int64_t>({1, 1, 4});
  ufunc::add.at(want5, row, ufunc::array(values)[{ufunc::slice{0, 3}}]);
  auto got5 = split(x, 1);
  dist::add.at(got5, row, ufunc::array(values)[{ufunc::slice{0, 3}}]);
  check_same(dist::allgather(got5), want5);
  (void)p;
}

TEST_CASE("float products rank after rank, and reductions over an empty axis") {
  const auto f = random_array<double>({9, 2}, 34, 0.5, 1.5);
  const auto mask = random_array<bool>({9, 2}, 35);
  for (const auto& layout : layouts(9)) {
    const auto df = split(f, layout);
    // Float multiply is not reorderable (NumPy's product is sequential): the same bits.
    check_same(dist::multiply.reduce(df).local(), ufunc::multiply.reduce(f));
    check_same(dist::multiply.reduce(df, {.where = mask}).local(), ufunc::multiply.reduce(f, {.where = mask}));
    check_same(dist::multiply.reduce(df, {.where = split(mask, layout)}).local(),
               ufunc::multiply.reduce(f, {.where = mask}));
    check_same(dist::allgather(dist::multiply.accumulate(df)), ufunc::multiply.accumulate(f));
    CHECK(thrown([&] { (void)dist::multiply.reduce(df, {.axis = ufunc::all_axes}); }) == "distribution_error");
  }
  // Nothing to reduce although the split axis has rows: each rank computes the start value.
  const auto flat = random_array<float>({10, 0}, 36);
  check_same(dist::add.reduce(split(flat), {.axis = ufunc::all_axes}).local(),
             ufunc::add.reduce(flat, {.axis = ufunc::all_axes}));
  check_same(dist::maximum.reduce(split(flat), {.axis = ufunc::all_axes, .initial = -1.0f}).local(),
             ufunc::maximum.reduce(flat, {.axis = ufunc::all_axes, .initial = -1.0f}));
  check_same(dist::allgather(dist::add.reduce(split(flat), {.axis = 1})), ufunc::add.reduce(flat, {.axis = 1}));
}
