#include "align.hpp"

#include <ufunc/dist/error.hpp>
#include <ufunc/dist/transfer.hpp>

#include "blocks.hpp"

namespace ufunc::dist::detail {

bool route::communicates(const operand& op) const noexcept {
  return kind == redistribute || (kind == whole && op.is_distributed() && !op.distributed().is_replicated());
}

const dim_vector& global_shape_of(const operand& op) {
  return op.is_distributed() ? op.distributed().global_shape() : op.replicated().shape();
}

namespace {

route make(route::kind_t kind, int axis = -1, dist::distribution to = {}) {
  route r;
  r.kind = kind;
  r.axis = axis;
  r.to = std::move(to);
  return r;
}

}  // namespace

route route_for(const operand& op, const target_layout& t, const std::string& what) {
  if (op.is_scalar()) return make(route::scalar);
  const dim_vector& shape = global_shape_of(op);
  const bool split = op.is_distributed() && !op.distributed().is_replicated();
  if (t.layout.is_replicated()) return make(route::whole);
  const int s = t.layout.axis();
  const int k = s - static_cast<int>(t.shape.size() - shape.size());  // the operand's axis along s
  const std::int64_t extent = t.shape[static_cast<std::size_t>(s)];
  const std::int64_t own = k >= 0 ? shape[static_cast<std::size_t>(k)] : 1;
  if (!split) {
    // Replicated: each rank takes its rows where the operand spans the split axis.
    if (own == extent && extent != 1) return make(route::rows_of, k);
    return make(route::whole);
  }
  const dist::distribution& d = op.distributed().distribution();
  if (d.axis() == k && own == extent) {
    const dist::distribution ours = t.layout.along(k);
    if (d == ours) return make(route::as_is);
    return make(route::redistribute, k, ours);
  }
  if (own == 1) return make(route::whole);  // broadcast along the split axis: needed whole everywhere
  throw distribution_error(what + ": an operand of global shape " + ufunc::array::shape_string(shape) +
                           " is split along its axis " + std::to_string(d.axis()) + ", the output along axis " +
                           std::to_string(s) +
                           (k >= 0 ? " (the operand's axis " + std::to_string(k) + ")" : std::string()) +
                           "; split axes must match: bring it over with ufunc::dist::redistribute(operand, "
                           "ufunc::dist::distribution::blocks(" +
                           std::to_string(extent) + ", ranks, " + std::to_string(k) + "))");
}

ufunc::array localize_array(const operand& op, const route& r, const target_layout& t) {
  switch (r.kind) {
    case route::scalar:
      break;
    case route::as_is:
      return op.distributed().local();
    case route::rows_of: {
      const ufunc::array& whole = op.is_distributed() ? op.distributed().local() : op.replicated();
      const int rank = t.comm.rank();
      return rows(whole, r.axis, t.layout.offset(rank), t.layout.offset(rank) + t.layout.count(rank));
    }
    case route::whole:
      if (!op.is_distributed()) return op.replicated();
      if (op.distributed().is_replicated()) return op.distributed().local();
      return allgather(op.distributed());
    case route::redistribute:
      return dist::redistribute(op.distributed(), r.to).local();
  }
  throw value_error("ufunc::dist: a scalar where an array is needed");
}

ufunc::operand localize(const operand& op, const route& r, const target_layout& t) {
  if (r.kind == route::scalar) return ufunc::operand(op.scalar());
  return ufunc::operand(localize_array(op, r, t));
}

communicator common_comm(std::span<const operand* const> ops, const std::string& what) {
  const communicator* first = nullptr;
  for (const operand* op : ops) {
    if (op == nullptr || !op->is_distributed()) continue;
    const dist::array& a = op->distributed();
    if (!a.valid()) throw value_error(what + ": a null distributed array");
    if (first == nullptr)
      first = &a.comm();
    else if (!(a.comm() == *first))
      throw distribution_error(what + ": the distributed operands use different communicators");
  }
  if (first == nullptr) throw value_error(what + ": no distributed operand (call the ufunc itself on ordinary arrays)");
  return *first;
}

std::string describe(const operand& op) {
  if (op.empty()) return "-";
  if (op.is_scalar()) {
    switch (op.scalar().value_kind()) {
      case weak_scalar::kind::boolean:
        return "bool scalar";
      case weak_scalar::kind::integer:
        return "int scalar";
      case weak_scalar::kind::floating:
        return "float scalar";
      case weak_scalar::kind::complex:
        return "complex scalar";
    }
  }
  if (op.is_replicated()) {
    const ufunc::array& a = op.replicated();
    if (!a.valid()) return "null array";
    return std::string(a.type().name()) + " array of shape " + ufunc::array::shape_string(a.shape()) +
           " (replicated) on " + (a.device().is_host() ? "cpu" : "cuda");
  }
  return op.distributed().describe();
}

void mix(description& d, const dist::distribution& layout) {
  d.mix(static_cast<std::uint64_t>(static_cast<std::int64_t>(layout.axis()))).mix(layout.bounds());
}

void mix(description& d, const operand& op) {
  if (op.empty()) {
    d.mix(std::uint64_t{0});
    return;
  }
  if (op.is_scalar()) {
    d.mix(std::uint64_t{1}).mix(static_cast<std::uint64_t>(op.scalar().value_kind()));
    return;
  }
  const ufunc::array& a = op.is_replicated() ? op.replicated() : op.distributed().local();
  d.mix(op.is_replicated() ? std::uint64_t{2} : std::uint64_t{3});
  if (!a.valid()) return;
  d.mix(static_cast<std::uint64_t>(a.type().index())).mix(global_shape_of(op));
  d.mix(a.device().is_host() ? std::uint64_t{0} : std::uint64_t{1});
  if (op.is_distributed()) mix(d, op.distributed().distribution());
}

}  // namespace ufunc::dist::detail
