// Distributed arrays: distributions, factories, scatter / gather / allgather and
// redistribution between block layouts, uneven and empty blocks included.
#include "dist_support.hpp"

using namespace dist_test;

TEST_CASE("distribution: np.array_split's blocks, counts, owners") {
  const auto d = dist::distribution::blocks(10, 4);
  CHECK(d.axis() == 0);
  CHECK(std::vector<std::int64_t>(d.bounds().begin(), d.bounds().end()) == std::vector<std::int64_t>{0, 3, 6, 8, 10});
  CHECK(d.count(0) == 3);
  CHECK(d.offset(2) == 6);
  CHECK(d.owner(7) == 2);
  CHECK(d.owner(9) == 3);
  const auto e = dist::distribution::blocks(3, 4, 1);  // more ranks than rows: the last is empty
  CHECK(e.count(3) == 0);
  CHECK(e.owner(2) == 2);
  CHECK(dist::distribution::from_counts({0, 5, 0, 5}).owner(5) == 3);
  CHECK(dist::distribution::replicated(3).is_replicated());
  CHECK(d.str() == "axis 0, bounds [0, 3, 6, 8, 10]");
  CHECK_THROWS_AS((void)dist::distribution::from_counts({2, -1}), dist::distribution_error);
}

TEST_CASE("factories: empty, zeros, arange, from_local, replicate") {
  const int p = world().size();
  const int rank = world().rank();
  auto z = dist::zeros(world(), {7, 3}, ufunc::float64);
  CHECK(z.global_shape() == ufunc::dim_vector{7, 3});
  CHECK(z.local().shape()[0] == z.distribution().count(rank));
  check_same(dist::allgather(z), ufunc::array::zeros({7, 3}, ufunc::float64));

  auto e = dist::empty(world(), {4, 9}, ufunc::int32, {.axis = 1});
  CHECK(e.distribution().axis() == 1);
  CHECK(e.local().shape()[1] == e.distribution().count(rank));

  // arange: each rank's rows are ufunc::arange's, uneven and empty blocks included.
  for (const std::int64_t n : {0, 1, 3, 10, 1001}) {
    auto x = dist::arange<std::int64_t>(world(), 5, 5 + 2 * n, 2);
    check_same(dist::allgather(x), ufunc::arange<std::int64_t>(5, 5 + 2 * n, 2));
    auto f = dist::arange<float>(world(), 0.5f, static_cast<float>(n) / 4 + 0.5f, 0.25f, {.blocks = uneven(n)});
    check_same(dist::allgather(f), ufunc::arange<float>(0.5f, static_cast<float>(n) / 4 + 0.5f, 0.25f));
  }

  // from_local: blocks of the ranks' own lengths (rank r holds r + 1 rows), stacked.
  auto mine = ufunc::full<std::int32_t>({rank + 1, 2}, rank);
  auto m = dist::from_local(world(), mine);
  CHECK(m.global_shape() == ufunc::dim_vector{p * (p + 1) / 2, 2});
  auto whole = dist::allgather(m);
  std::int64_t row = 0;
  for (int r = 0; r < p; ++r)
    for (int i = 0; i <= r; ++i, ++row) CHECK(whole.at<std::int32_t>(row, 1) == r);
  // ... along axis 1, and ranks that disagree on the other extents are an error on all.
  auto cols = dist::from_local(world(), ufunc::full<double>({2, rank}, 1.0), 1);
  CHECK(cols.global_shape() == ufunc::dim_vector{2, p * (p - 1) / 2});
  std::string message;
  CHECK(thrown(
            [&] {
              (void)dist::from_local(world(), ufunc::zeros<float>({2, rank == p - 1 ? 4 : 3}));
            },
            &message) == (p == 1 ? "" : "value_error"));
  if (p > 1) CHECK(message.find("rank " + std::to_string(p - 1) + ":") != std::string::npos);

  auto r = dist::replicate(world(), ufunc::arange<double>(6.0).reshape({2, 3}));
  CHECK(r.is_replicated());
  check_same(dist::allgather(r), ufunc::arange<double>(6.0).reshape({2, 3}));
}

TEST_CASE("scatter and gather: root's array in blocks and back, any root, any axis") {
  const int p = world().size();
  const auto whole = random_array<std::int64_t>({11, 5}, 7);
  for (int root = 0; root < p; ++root) {
    for (int axis = 0; axis < 2; ++axis) {
      auto a =
          dist::scatter(world(), world().rank() == root ? ufunc::array(whole) : ufunc::array(), root, {.axis = axis});
      CHECK(a.distribution() == dist::distribution::blocks(whole.shape()[static_cast<std::size_t>(axis)], p, axis));
      check_same(a.local(), split(whole, axis).local());
      const ufunc::array back = dist::gather(a, root);
      if (world().rank() == root)
        check_same(back, whole);
      else
        CHECK(!back.valid());
      check_same(dist::allgather(a), whole);
    }
  }
  // A transposed (F-ordered) root array, uneven blocks.
  auto t = dist::scatter(world(), ufunc::array(whole).transpose(), 0, {.blocks = uneven(5)});
  check_same(dist::allgather(t), ufunc::array(whole).transpose().copy());
}

TEST_CASE("redistribute: between block layouts, across axes, to and from replicated") {
  const int p = world().size();
  const auto whole = random_array<double>({9, 6, 2}, 11);
  const std::vector<dist::distribution> layouts = {
      dist::distribution::blocks(9, p, 0), uneven(9, 0),
      dist::distribution::blocks(6, p, 1), uneven(6, 1),
      dist::distribution::blocks(2, p, 2), dist::distribution::replicated(p)};
  for (const auto& from : layouts)
    for (const auto& to : layouts) {
      CAPTURE(from.str());
      CAPTURE(to.str());
      const auto a = split(whole, from);
      const auto b = dist::redistribute(a, to);
      CHECK(b.distribution() == to);
      check_same(b.local(), split(whole, to).local());
    }
  // More ranks than rows: empty blocks move nothing.
  const auto small = random_array<float>({3, 4}, 3);
  check_same(dist::allgather(dist::redistribute(split(small, 1), dist::distribution::blocks(3, p, 0))), small);
  CHECK_THROWS_AS((void)dist::redistribute(split(small), dist::distribution::blocks(5, p, 0)),
                  dist::distribution_error);
}

TEST_CASE("dist::array checks its block against the global shape and distribution") {
  const int p = world().size();
  const auto d = dist::distribution::blocks(8, p);
  CHECK_THROWS_AS(dist::array(ufunc::zeros<float>({100, 2}), {8, 2}, d, world()), dist::distribution_error);
  CHECK_THROWS_AS(dist::array(ufunc::zeros<float>({d.count(world().rank()), 2}), {8, 3}, d, world()),
                  dist::distribution_error);
  CHECK_NOTHROW(dist::array(ufunc::zeros<float>({d.count(world().rank()), 2}), {8, 2}, d, world()));
}
