// Device blocks, one GPU per rank (ufunc::dist::local_device): calls on target cuda,
// methods, redistribution and gathering, against one process on the host. Collectives of
// device data go through NCCL in builds with it, else through host copies. Where the
// ranks have no GPU (this build or machine), the case says so and checks nothing.
#include <cfloat>

#include "dist_support.hpp"

using namespace dist_test;

TEST_CASE("device blocks: one GPU per rank") {
  const ufunc::device gpu = dist::local_device(world());
  if (gpu.is_host()) {
    if (world().rank() == 0) MESSAGE("no GPU: the device path is not tested here");
    return;
  }
  const auto host = [](const ufunc::array& a) { return ufunc::to_host(a); };
  const dist::call_options on_gpu{.target = ufunc::target_id::cuda};
  const auto x = random_array<float>({1000, 3}, 41);
  const auto n = random_array<std::int64_t>({1000, 3}, 42);
  const auto dx = dist::scatter(world(), x, 0, {.device = gpu});
  const auto dn = dist::scatter(world(), n, 0, {.blocks = uneven(1000), .device = gpu});
  CHECK(!dx.local().device().is_host());
  check_same(host(dist::allgather(dist::add(dx, dx, on_gpu))), ufunc::add(x, x));
  check_same(host(dist::allgather(dist::multiply(dn, 3, on_gpu))), ufunc::multiply(n, 3));
  // Operands in other blocks, moved between the GPUs.
  check_same(host(dist::allgather(dist::add(dn, dist::scatter(world(), n, 0, {.device = gpu}), on_gpu))),
             ufunc::add(n, n));
  check_same(host(dist::allgather(dist::redistribute(dx, dist::distribution::blocks(3, world().size(), 1)))), x);
  // Methods across the GPUs.
  const dist::reduce_options rgpu{.target = ufunc::target_id::cuda};
  check_same(host(dist::maximum.reduce(dx, rgpu).local()), ufunc::maximum.reduce(x));
  check_same(host(dist::add.reduce(dn, rgpu).local()), ufunc::add.reduce(n));
  check_close(host(dist::add.reduce(dx, rgpu).local()), ufunc::add.reduce(x),
              ufunc::add.reduce(ufunc::absolute(x), {.dtype = ufunc::float64}), 4 * FLT_EPSILON * 14);
  check_same(host(dist::allgather(dist::add.accumulate(dn, {.target = ufunc::target_id::cuda}))),
             ufunc::add.accumulate(n));
  const ufunc::array whole = dist::gather(dx, 0);
  if (world().rank() == 0) check_same(host(whole), x);
}
