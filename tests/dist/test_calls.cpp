// Elementwise calls on distributed arrays: each result, gathered, equals the same call
// on the whole arrays in one process. Aligned blocks, uneven and empty blocks, operands
// that broadcast along the split axis, replicated operands, blocks redistributed, out=,
// where=, casting, several outputs, the host targets; and the errors: split axes that
// differ, a rank whose part fails, floating-point errors under errstate.
#include <atomic>

#include "dist_support.hpp"

using namespace dist_test;

namespace {

std::vector<ufunc::target_id> host_targets() {
#if defined(UFUNC_HAS_TBB)
  return {ufunc::target_id::cpu, ufunc::target_id::parallel};
#else
  return {ufunc::target_id::cpu};
#endif
}

}  // namespace

TEST_CASE("aligned calls: every built-in arity, uneven and empty blocks, every host target") {
  const int p = world().size();
  for (const std::int64_t rows : {std::int64_t{3}, std::int64_t{10}, std::int64_t{257}}) {
    const auto x = random_array<float>({rows, 3}, 1);
    const auto y = random_array<float>({rows, 3}, 2, 1, 9);
    const auto n = random_array<std::int32_t>({rows, 3}, 3);
    for (const auto& layout : {dist::distribution::blocks(rows, p), uneven(rows)})
      for (const auto target : host_targets()) {
        CAPTURE(rows);
        CAPTURE(layout.str());
        const auto dx = split(x, layout);
        const auto dy = split(y, layout);
        const auto dn = split(n, layout);
        const dist::call_options o{.target = target};
        check_same(dist::allgather(dist::add(dx, dy, o)), ufunc::add(x, y));
        check_same(dist::allgather(dist::sin(dx, o)), ufunc::sin(x));
        check_same(dist::allgather(dist::call(ufunc::multiply, dn, 3, o)), ufunc::multiply(n, 3));
        check_same(dist::allgather(dist::less(dn, dx, o)), ufunc::less(n, x));  // int32 and float32: float64
        check_same(dist::allgather(dist::add(dn, 2.5, o)), ufunc::add(n, 2.5));
        const auto qr = dist::call(ufunc::divmod, {dx, dy}, o);
        const auto want = ufunc::divmod.call(std::vector<ufunc::operand>{x, y});
        check_same(dist::allgather(qr[0]), want[0]);
        check_same(dist::allgather(qr[1]), want[1]);
      }
  }
}

TEST_CASE("operands that broadcast along the split axis, and replicated operands") {
  const int p = world().size();
  const auto m = random_array<double>({6, 4}, 5);
  const auto row = random_array<double>({1, 4}, 6);
  const auto vec = random_array<double>({4}, 7);
  const auto col = random_array<double>({6, 1}, 8);
  for (const auto& layout : {dist::distribution::blocks(6, p), uneven(6)}) {
    const auto dm = split(m, layout);
    // Distributed operands of length 1 along the split axis (held by one rank) or of fewer
    // axes (split along the output's axis 1): gathered whole, the big one left in place.
    check_same(dist::allgather(dist::add(dm, split(row))), ufunc::add(m, row));
    check_same(dist::allgather(dist::add(dm, split(vec))), ufunc::add(m, vec));
    check_same(dist::allgather(dist::add(split(vec), dm)), ufunc::add(vec, m));
    // Replicated (ordinary) operands: each rank takes its rows, or all of a broadcast one.
    check_same(dist::allgather(dist::subtract(dm, col)), ufunc::subtract(m, col));
    check_same(dist::allgather(dist::subtract(dm, vec)), ufunc::subtract(m, vec));
    check_same(dist::allgather(dist::subtract(m, dm)), ufunc::subtract(m, m));
    // The output can be larger than the distributed operand: (6, 1) split, (4,) replicated.
    check_same(dist::allgather(dist::multiply(split(col, layout), vec)), ufunc::multiply(col, vec));
  }
  // Split along axis 1 of (6, 4): a (4,) operand split along its axis 0 lines up with it.
  const auto dm1 = split(m, 1);
  check_same(dist::allgather(dist::add(dm1, split(vec))), ufunc::add(m, vec));
  check_same(dist::allgather(dist::add(dm1, col)), ufunc::add(m, col));
}

TEST_CASE("operands in other blocks are redistributed; other split axes are an error") {
  const int p = world().size();
  const auto a = random_array<std::int64_t>({10, 3}, 9);
  const auto b = random_array<std::int64_t>({10, 3}, 10);
  const auto da = split(a, dist::distribution::blocks(10, p));
  const auto db = split(b, uneven(10));
  const auto c = dist::add(da, db);  // db brought to da's blocks
  CHECK(c.distribution() == da.distribution());
  check_same(dist::allgather(c), ufunc::add(a, b));
  const auto c2 = dist::add(db, da);  // the first spanning operand decides
  CHECK(c2.distribution() == db.distribution());
  check_same(dist::allgather(c2), ufunc::add(b, a));

  std::string message;
  CHECK(thrown([&] { (void)dist::add(da, split(b, 1)); }, &message) == "distribution_error");
  CHECK(message.find("split axes must match") != std::string::npos);
  // The remedy the message names works.
  check_same(dist::allgather(dist::add(da, dist::redistribute(split(b, 1), da.distribution()))), ufunc::add(a, b));
}

TEST_CASE("out=, where=, dtype=, casting=, in place") {
  const int p = world().size();
  const auto x = random_array<float>({9, 2}, 12);
  const auto y = random_array<float>({9, 2}, 13);
  const auto mask = random_array<bool>({9, 2}, 14);
  const auto layout = uneven(9);
  const auto dx = split(x, layout);
  const auto dy = split(y, layout);

  // out= in place, with a distributed mask and with a replicated one.
  auto want = x.copy();
  ufunc::add(want, y, {.out = {want}, .where = mask});
  auto dout = split(x, layout);
  dist::add(dout, dy, {.out = {dout}, .where = split(mask, layout)});
  check_same(dist::allgather(dout), want);
  auto dout2 = split(x, layout);
  dist::add(dout2, dy, {.out = {dout2}, .where = mask});
  check_same(dist::allgather(dout2), want);

  // An output in other blocks than the inputs': the inputs move to its blocks.
  auto other = dist::zeros(world(), {9, 2}, ufunc::float64);
  dist::multiply(dx, dy, {.out = {other}});
  check_same(dist::allgather(other), ufunc::multiply(x, y).astype(ufunc::float64));

  check_same(dist::allgather(dist::add(dx, dy, {.dtype = ufunc::float64})),
             ufunc::add(x, y, {.dtype = ufunc::float64}));
  // casting: float64 into a float32 output under 'safe' fails on every rank, as in one process.
  auto f32 = dist::zeros(world(), {9, 2}, ufunc::float32, {.blocks = layout});
  CHECK(thrown([&] {
          dist::add(dx, 1e300, {.out = {f32}, .dtype = ufunc::float64, .casting = ufunc::casting::safe});
        }) == "casting_error");
  CHECK(thrown([&] { (void)dist::add(dx, dist::zeros(world(), {5, 2}, ufunc::float32)); }) == "broadcast_error");
  (void)p;
}

TEST_CASE("a rank whose part fails makes every rank throw, without a hang") {
  const int p = world().size();
  const int bad = p - 1;
  const auto x = random_array<double>({8, 3}, 15);
  const auto dx = split(x);
  std::string message;
  // A replicated operand of another shape on one rank: that rank's broadcast_error, the
  // others' remote_error with its message.
  const auto other = random_array<double>({world().rank() == bad ? 2 : 3}, 16);
  const std::string kind = thrown([&] { (void)dist::add(dx, other); }, &message);
  if (world().rank() == bad) {
    CHECK(kind == "broadcast_error");
  } else {
    CHECK(kind == "remote_error");
    CHECK(message.find("rank " + std::to_string(bad) + ": ") == 0);
  }
  // A replicated operand of another dtype on one rank: no rank fails locally, but the ranks
  // were not asked the same thing: every rank raises the same value_error.
  const ufunc::array typed =
      world().rank() == bad && p > 1 ? ufunc::array(ufunc::zeros<float>({3})) : ufunc::array(ufunc::zeros<double>({3}));
  CHECK(thrown([&] { (void)dist::add(dx, typed); }, &message) == (p > 1 ? "value_error" : ""));
  if (p > 1) CHECK(message.find("different arguments") != std::string::npos);
  // A bad index on one rank (ufunc.at): that rank's index_error, remote_error elsewhere.
  auto target = split(x);
  const auto index = ufunc::asarray<std::int64_t>({0, world().rank() == bad ? 8 : 7});
  const std::string at_kind = thrown([&] { dist::add.at(target, index, 1.0); }, &message);
  CHECK(at_kind == (world().rank() == bad ? "index_error" : "remote_error"));
  // ... and the job goes on: the next collective call works on every rank.
  check_same(dist::allgather(dist::add(dx, dx)), ufunc::add(x, x));
}

TEST_CASE("errstate is applied once, collectively") {
  const int p = world().size();
  // A zero in the last row: only the last block's rank raises the flag.
  auto y = random_array<double>({7}, 17, 1, 2);
  y.at<double>(6) = 0.0;
  const auto dy = split(y);
  const auto dx = split(random_array<double>({7}, 18, 1, 2));
  {
    ufunc::errstate raise({.divide = ufunc::fp_policy::raise});
    std::string message;
    CHECK(thrown([&] { (void)dist::divide(dx, dy); }, &message) == "floating_point_error");
    CHECK(message == "divide by zero encountered in divide");
  }
  {
    std::atomic<int> calls{0};
    std::string seen;
    ufunc::errstate call({.divide = ufunc::fp_policy::call}, [&](std::string_view what, unsigned) {
      ++calls;
      seen = what;
    });
    (void)dist::divide(dx, dy);
    CHECK(calls == 1);  // on every rank, once
    CHECK(seen == "divide by zero encountered in divide");
  }
  {
    int warnings = 0;
    const auto previous = ufunc::set_warning_handler([&](std::string_view) { ++warnings; });
    ufunc::errstate warn({.divide = ufunc::fp_policy::warn});
    (void)dist::divide(dx, dy);
    ufunc::set_warning_handler(previous);
    CHECK(warnings == (world().rank() == 0 ? 1 : 0));  // one warning for the job, on rank 0
  }
  {
    ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
    CHECK(thrown([&] { (void)dist::divide(dx, dy); }) == "");
  }
  // The policies are the caller's again after each call.
  CHECK(ufunc::geterr() == ufunc::fp_errors{});
  (void)p;
}

TEST_CASE("dist::function handles: the built-ins, and a vectorize'd ufunc") {
  for (std::size_t i = 0; i < static_cast<std::size_t>(ufunc::builtin_count); ++i)
    CHECK(dist::builtin_list[i].get().name() == ufunc::builtin_list[i].get().name());
  static const auto hyp = ufunc::vectorize<float(float, float)>([](auto a, auto b) { return a * a + b * b; }, "hyp2");
  const dist::function dhyp(hyp.ufunc());
  const auto x = random_array<float>({13}, 19);
  check_same(dist::allgather(dhyp(split(x), split(x, uneven(13)))), hyp(x, x));
}
