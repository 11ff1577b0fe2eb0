#include <algorithm>
#include <string>
#include <vector>

#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/transfer.hpp>
#include <ufunc/dist/error.hpp>
#include <ufunc/dist/factories.hpp>
#include <ufunc/dist/methods.hpp>
#include <ufunc/ufuncs/builtins.hpp>

#include "agreement.hpp"
#include "align.hpp"
#include "blocks.hpp"
#include "exchange.hpp"
#include "fp_capture.hpp"

namespace ufunc::dist {

namespace {

// Built-ins for which f(s, f(s, x)) == f(s, x): a start value applied on every rank's
// partial result is then applied once. Reductions with where= and no identity need one.
bool idempotent(const ufunc::function& f) {
  for (const ufunc::lazy_function& g :
       {ufunc::maximum, ufunc::minimum, ufunc::fmax, ufunc::fmin, ufunc::bitwise_and, ufunc::bitwise_or,
        ufunc::logical_and, ufunc::logical_or, ufunc::gcd, ufunc::lcm})
    if (&f == &g.get()) return true;
  return false;
}

// The result's global shape and distribution: the reduced axes dropped (or kept with
// length 1); replicated where the split axis is reduced.
dist::distribution result_layout(const dist::array& a, const std::vector<bool>& reduced, bool keepdims) {
  const dist::distribution& d = a.distribution();
  if (d.is_replicated() || reduced[static_cast<std::size_t>(d.axis())]) return distribution::replicated(d.ranks());
  int axis = d.axis();
  if (!keepdims)
    for (int i = 0; i < d.axis(); ++i) axis -= reduced[static_cast<std::size_t>(i)] ? 1 : 0;
  return d.along(axis);
}

// The rank order of the blocks that hold rows.
std::vector<int> ranks_with_rows(const dist::distribution& d) {
  std::vector<int> r;
  for (int i = 0; i < d.ranks(); ++i)
    if (d.count(i) > 0) r.push_back(i);
  return r;
}

}  // namespace

dist::array reduce(const ufunc::function& f, const dist::array& a, const reduce_options& options) {
  const std::string what = ufunc::detail::method_label(f, "reduce");
  const operand input(a);
  const operand* ops[] = {&input, &options.where, &options.out};
  const communicator comm = detail::common_comm(ops, what);
  const int rank = comm.rank();

  detail::fp_capture fp;  // from the plan on: initial= may report "cast"
  ufunc::detail::reduce_plan plan;
  detail::target_layout t{a.global_shape(), a.distribution(), comm};
  detail::route where_route;
  dist::distribution layout;
  dim_vector shape;  // the result's global shape
  ufunc::array out_local;
  detail::description asked;
  bool communicates = false;
  bool across = false;    // the split axis is reduced: the ranks' partial results are combined
  bool pipeline = false;  // ... one rank after the other (a loop that is not reorderable)
  bool nothing = false;   // ... over no element at all: each rank computes the start value
  auto failed = detail::attempt([&] {
    // NumPy's checks, on global shapes: each rank sees the whole array's shape through
    // a stand-in, so that every rank raises what one process would, empty blocks included.
    ufunc::reduce_options global;
    global.axis = options.axis;
    global.dtype = options.dtype;
    global.keepdims = options.keepdims;
    global.initial = options.initial;
    if (!options.where.empty()) {
      if (options.where.is_scalar()) throw value_error(what + ": where= must be an array");
      const ufunc::array& w =
          options.where.is_distributed() ? options.where.distributed().local() : options.where.replicated();
      global.where = detail::standin(w.type(), detail::global_shape_of(options.where));
    }
    if (!options.out.empty()) {
      if (options.out.is_scalar()) throw value_error(what + ": out= must be an array");
      out_local = options.out.is_distributed() ? options.out.distributed().local() : options.out.replicated();
      global.out = detail::standin(out_local.type(), detail::global_shape_of(options.out));
    }
    plan = ufunc::detail::plan_reduce(f, detail::standin(a.type(), a.global_shape()), global);
    shape = plan.shape;
    layout = result_layout(a, plan.reduced, options.keepdims);
    across = !a.is_replicated() && plan.reduced[static_cast<std::size_t>(a.distribution().axis())];
    if (!options.out.empty()) {
      const bool replicated_out = options.out.is_replicated() || options.out.distributed().is_replicated();
      if (layout.is_replicated() && !replicated_out)
        throw distribution_error(what +
                                 ": the result is replicated on every rank (the split axis is reduced); out= "
                                 "must be an ordinary array, or a replicated distributed one");
      if (!layout.is_replicated() &&
          !(options.out.is_distributed() && options.out.distributed().distribution() == layout))
        throw distribution_error(what + ": out= must be a distributed array with the result's distribution (" +
                                 layout.str() + ")");
    }
    if (across) {
      int naxes = 0;
      for (std::size_t i = 0; i < plan.reduced.size(); ++i) {
        naxes += plan.reduced[i] ? 1 : 0;
        nothing = nothing || (plan.reduced[i] && a.global_shape()[i] == 0);
      }
      pipeline = !nothing && !plan.loop.reorderable;
      if (!plan.loop.reorderable && naxes > 1)
        throw distribution_error(what +
                                 ": reducing several axes with the split axis among them needs a reorderable "
                                 "loop, and " +
                                 plan.loop.types.str() + " is not (reduce the split axis alone)");
      if (!options.where.empty() && !f.identity() && (plan.loop.reorderable ? !idempotent(f) : true))
        throw distribution_error(what +
                                 ": where= over the split axis of a ufunc without an identity splits only for "
                                 "maximum, minimum, fmax and fmin (whose initial= may start every rank's part)");
    }
    if (!options.where.empty()) {
      where_route = detail::route_for(options.where, t, what);
      communicates = where_route.communicates(options.where);
    }
    asked.mix(what);
    detail::mix(asked, input);
    for (const bool r : plan.reduced) asked.mix(r ? 1u : 0u);
    asked.mix(options.keepdims ? 1u : 0u).mix(static_cast<std::uint64_t>(plan.type.index()));
    asked.mix(options.initial ? options.initial->str() : std::string("-"));
    detail::mix(asked, options.where);
    detail::mix(asked, options.out);
    asked.set_text([&] {
      std::string text = what + ": " + a.describe() + " axes";
      for (const bool r : plan.reduced) text += r ? " 1" : " 0";
      return text + " keepdims=" + (options.keepdims ? "1" : "0") + " type=" + std::string(plan.type.name()) +
             (options.initial ? " initial " + options.initial->str() : "") + " where " +
             detail::describe(options.where) + " out " + detail::describe(options.out);
    });
  });
  // The pipeline's first messages are point to point: the ranks agree before them.
  if (failed || communicates || pipeline) detail::agree(comm, failed, asked);
  const detail::description checked;
  const detail::description& unchecked = communicates || pipeline ? checked : asked;

  ufunc::reduce_options lo;
  lo.axis = options.axis;
  lo.dtype = options.dtype;
  lo.keepdims = options.keepdims;
  lo.initial = options.initial;
  lo.target = options.target;
  lo.stream = options.stream;
  if (!options.where.empty()) lo.where = detail::localize_array(options.where, where_route, t);

  if (!across) {
    // Every rank reduces its own block: the result keeps the distribution.
    ufunc::array local;
    if (out_local.valid()) lo.out = out_local;
    failed = detail::attempt([&] { local = f.reduce(a.local(), lo); });
    fp.stop();
    detail::agree(comm, failed, unchecked, &fp);
    return dist::array(local, shape, layout, comm);
  }

  // The split axis is reduced: partial results with the reduced axes kept (length 1), in
  // the dtype of the whole reduction (which out= may decide: it is not passed here).
  lo.keepdims = true;
  if (out_local.valid()) lo.dtype = plan.type;
  const dist::distribution& d = a.distribution();
  const std::vector<int> holders = ranks_with_rows(d);  // not empty unless `nothing`
  dim_vector part_shape = a.global_shape();
  for (std::size_t i = 0; i < part_shape.size(); ++i)
    if (plan.reduced[i]) part_shape[i] = 1;
  const bool holds = d.count(rank) > 0;
  ufunc::array result;

  if (nothing) {
    // No element anywhere: the identity or initial=, the same on every rank.
    failed = detail::attempt([&] { result = f.reduce(a.local(), lo); });
    fp.stop();
    detail::agree(comm, failed, unchecked, &fp);
  } else if (plan.loop.reorderable) {
    // Each rank reduces its block; the partial results go to every rank, stacked in rank
    // order, and are reduced there along the stack: one call, grouped the same way for a
    // given number of blocks, the same operations on every rank (the same bits everywhere).
    ufunc::array part;
    failed = detail::attempt([&] {
      if (!holds) {
        part = ufunc::array::zeros(part_shape, plan.type, a.device());  // sent, not used
        return;
      }
      // initial= once (on the first block), unless a start value is needed on every block.
      const bool start_everywhere = !options.where.empty() && !f.identity();  // idempotent (checked above)
      if (rank != holders.front() && !start_everywhere) lo.initial.reset();
      part = f.reduce(a.local(), lo);
    });
    fp.stop();
    detail::agree(comm, failed, unchecked, &fp);
    const ufunc::array stacked = detail::rows_of_ranks(detail::allgather_parts(comm, part, options.stream), holders);
    detail::fp_capture combine;
    ufunc::reduce_options ro;
    ro.dtype = plan.type;
    ro.target = options.target;
    ro.stream = options.stream;
    result = f.reduce(stacked, ro);
    combine.stop();
    combine.report_local(comm);
  } else {
    // Not reorderable: the fold goes from rank to rank, each continuing from the previous
    // block's result (prepended as a row), exactly as one process folds.
    const int axis = d.axis();
    const auto me = static_cast<std::size_t>(std::find(holders.begin(), holders.end(), rank) - holders.begin());
    bool ok = true;
    ufunc::array part;
    if (holds) {
      if (me > 0) {
        const ufunc::array previous = ufunc::array::empty(part_shape, plan.type, a.device());
        ok = detail::recv_part(comm, holders[me - 1], previous);
        if (ok)
          failed = detail::attempt([&] {
            lo.initial.reset();
            if (lo.where.valid()) {
              const ufunc::array w = lo.where.broadcast_to(a.local().shape());
              const ufunc::array yes = detail::place(ufunc::full<bool>(part_shape, true), w.device());
              lo.where = detail::prepend_row(yes, w, axis, bool_);
            }
            part = f.reduce(detail::prepend_row(previous, a.local(), axis, plan.type), lo);
          });
      } else {
        failed = detail::attempt([&] { part = f.reduce(a.local(), lo); });
      }
      if (me + 1 < holders.size()) detail::send_part(comm, holders[me + 1], ok && !failed, part);
    }
    fp.stop();
    detail::agree(comm, failed, unchecked, &fp);
    // The last block's rank has the result; everyone gets it.
    const int last = holders.back();
    ufunc::array host = rank == last ? ufunc::to_host(part) : ufunc::array::empty(part_shape, plan.type);
    if (!host.is_c_contiguous()) host = host.copy();
    check_mpi(MPI_Bcast(host.data(), detail::mpi_count(host.size(), "a reduction's result"),
                        detail::element_type(host.itemsize()), last, comm.get()),
              "MPI_Bcast");
    result = detail::place(host, a.device());
  }

  if (!options.keepdims) result = result.reshape(shape);
  if (out_local.valid()) {
    result.copy_to(out_local);
    result = out_local;
  }
  return dist::array(result, shape, layout, comm);
}

}  // namespace ufunc::dist
