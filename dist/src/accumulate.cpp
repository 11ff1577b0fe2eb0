#include <algorithm>
#include <string>
#include <vector>

#include <ufunc/core/detail/methods.hpp>
#include <ufunc/dist/error.hpp>
#include <ufunc/dist/methods.hpp>

#include "agreement.hpp"
#include "align.hpp"
#include "blocks.hpp"
#include "exchange.hpp"
#include "fp_capture.hpp"

namespace ufunc::dist {

dist::array accumulate(const ufunc::function& f, const dist::array& a, const accumulate_options& options) {
  const std::string what = ufunc::detail::method_label(f, "accumulate");
  const operand input(a);
  const operand out_op = options.out ? operand(*options.out) : operand();
  const operand* ops[] = {&input, &out_op};
  const communicator comm = detail::common_comm(ops, what);
  const int rank = comm.rank();

  ufunc::detail::reduce_like_loop rl;
  int axis = 0;
  bool along = false;     // along the split axis: the blocks' results depend on the blocks before
  bool pipeline = false;  // ... and the loop is not reorderable: one rank after the other
  std::string description;
  auto failed = detail::attempt([&] {
    ufunc::detail::require_reduce_like(f, "accumulate");
    if (a.ndim() == 0) throw value_error(what + ": cannot accumulate on a scalar (a 0-d array)");
    axis = ufunc::detail::normalize_axis(options.axis, static_cast<int>(a.ndim()), f, "accumulate");
    if (options.out) {
      if (options.out->global_shape() != a.global_shape())
        throw broadcast_error(what + ": out has shape " + ufunc::array::shape_string(options.out->global_shape()) +
                              ", the result has shape " + ufunc::array::shape_string(a.global_shape()));
      if (!(options.out->distribution() == a.distribution()))
        throw distribution_error(what + ": out= must have the input's distribution (" + a.distribution().str() + ")");
    }
    rl = ufunc::detail::resolve_reduce_like(f, "accumulate", a.type(), options.dtype,
                                            options.out ? &options.out->local() : nullptr);
    along = !a.is_replicated() && axis == a.distribution().axis();
    pipeline = along && !rl.loop.reorderable && a.distribution().extent() > 0;
    description = what + ": " + a.describe() + " axis " + std::to_string(axis) + " type " +
                  std::string(rl.type.name()) + " out " + detail::describe(out_op);
  });
  if (failed || pipeline) detail::agree(comm, failed, description);  // before the pipeline's messages

  ufunc::accumulate_options lo = options.local();
  lo.axis = axis;  // normalized
  const dist::distribution& d = a.distribution();
  const std::int64_t count = along ? d.count(rank) : 0;
  ufunc::array local;
  detail::fp_capture fp;

  if (!along || !pipeline) {
    failed = detail::attempt([&] { local = f.accumulate(a.local(), lo); });
    fp.stop();
    detail::agree(comm, failed, description, &fp);
    if (!along || d.extent() == 0) return dist::array(local, a.global_shape(), d, comm);

    // Reorderable: each block's last row (its total) goes to every rank; a rank folds the
    // totals of the blocks before its own in rank order (an exclusive scan, one accumulate
    // of the stacked totals) and applies f(prefix, row) to its rows.
    dim_vector total_shape = a.global_shape();
    total_shape[static_cast<std::size_t>(axis)] = 1;
    const ufunc::array total =
        count > 0 ? detail::rows(local, axis, count - 1, count) : ufunc::array::zeros(total_shape, rl.type, a.device());
    const ufunc::array totals = detail::allgather_parts(comm, total, options.stream);
    detail::fp_capture apply;
    failed = detail::attempt([&] {
      std::vector<int> before;
      for (int r = 0; r < rank && count > 0; ++r)
        if (d.count(r) > 0) before.push_back(r);
      if (before.empty()) return;  // the first block, or none here: nothing to add
      ufunc::accumulate_options ao;
      ao.dtype = rl.type;
      ao.target = options.target;
      ao.stream = options.stream;
      const ufunc::array scan = f.accumulate(detail::rows_of_ranks(totals, before), ao);
      const auto n = static_cast<std::int64_t>(before.size());
      const ufunc::array prefix = detail::rows(scan, 0, n - 1, n).reshape(total_shape);
      const std::string signature = rl.loop.types.str();
      ufunc::call_options co;
      co.out = {local};
      co.signature = signature;
      co.casting = ufunc::casting::unsafe;
      co.target = options.target;
      co.stream = options.stream;
      f(prefix, local, co);
    });
    apply.stop();
    apply.rename(f.name(), "accumulate");  // NumPy names the method
    detail::agree(comm, failed, {}, &apply);
    return dist::array(local, a.global_shape(), d, comm);
  }

  // Not reorderable: each rank continues from the previous block's last row, prepended to
  // its block, exactly as one process accumulates.
  std::vector<int> holders;
  for (int r = 0; r < d.ranks(); ++r)
    if (d.count(r) > 0) holders.push_back(r);
  dim_vector row_shape = a.global_shape();
  row_shape[static_cast<std::size_t>(axis)] = 1;
  bool ok = true;
  if (count > 0) {
    const auto me = static_cast<std::size_t>(std::find(holders.begin(), holders.end(), rank) - holders.begin());
    if (me > 0) {
      const ufunc::array previous = ufunc::array::empty(row_shape, rl.type, a.device());
      ok = detail::recv_part(comm, holders[me - 1], previous);
      if (ok)
        failed = detail::attempt([&] {
          ufunc::accumulate_options jo = lo;
          jo.out.reset();
          jo.dtype = rl.type;
          const ufunc::array joined = f.accumulate(detail::prepend_row(previous, a.local(), axis, rl.type), jo);
          local = detail::rows(joined, axis, 1, count + 1);
          if (options.out) {
            local.copy_to(options.out->local());
            local = options.out->local();
          }
        });
    } else {
      failed = detail::attempt([&] { local = f.accumulate(a.local(), lo); });
    }
    if (me + 1 < holders.size())
      detail::send_part(comm, holders[me + 1], ok && !failed,
                        ok && !failed ? detail::rows(local, axis, count - 1, count) : ufunc::array());
  } else {
    failed = detail::attempt([&] { local = f.accumulate(a.local(), lo); });  // an empty block
  }
  fp.stop();
  detail::agree(comm, failed, {}, &fp);
  return dist::array(local, a.global_shape(), d, comm);
}

}  // namespace ufunc::dist
