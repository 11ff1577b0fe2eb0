// Device blocks, one GPU per rank (ufunc::dist::local_device): calls on target cuda,
// methods, redistribution and gathering, against one process on the host. Collectives of
// device data go through NCCL in builds with it, else through host copies. Where the
// ranks have no GPU (this build or machine), the case says so and checks nothing.
#include <cfloat>

#include <ufunc/core/backend.hpp>

#include "dist_support.hpp"

using namespace dist_test;

TEST_CASE("device blocks: one GPU per rank") {
  const ufunc::device gpu = dist::local_device(world());
  if (gpu.is_host()) {
    if (world().rank() == 0) MESSAGE("no GPU: the device path is not tested here");
    return;
  }
  // NCCL needs a GPU per rank: with more ranks than GPUs on a host, check that it says so
  // (on every rank) instead of testing. Host copies share GPUs fine.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(world().get(), MPI_COMM_TYPE_SHARED, world().rank(), MPI_INFO_NULL, &node);
  int ranks_here = 0;
  MPI_Comm_size(node, &ranks_here);
  MPI_Comm_free(&node);
  int crowded = ranks_here > ufunc::detail::device_backend()->memory->device_count() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &crowded, 1, MPI_INT, MPI_MAX, world().get());
  if (crowded != 0 && dist::uses_nccl()) {
    const auto dx = dist::zeros(world(), {64}, ufunc::float32, {.device = gpu});
    CHECK(thrown([&] { (void)dist::allgather(dx); }) == "distribution_error");
    if (world().rank() == 0) MESSAGE("more ranks than GPUs with NCCL: the device path is not tested here");
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
