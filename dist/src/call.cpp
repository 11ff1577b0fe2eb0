#include <ufunc/dist/calls.hpp>

#include <string>
#include <vector>

#include <ufunc/core/broadcast.hpp>
#include <ufunc/dist/error.hpp>

#include "agreement.hpp"
#include "align.hpp"
#include "fp_capture.hpp"

namespace ufunc::dist {

namespace detail {

namespace {

// The output's distribution: out='s, else that of the first distributed operand of the
// output's shape, else of the first that spans the output along its split axis, else
// np.array_split's blocks along the first distributed operand's split axis; replicated
// where every distributed operand is.
dist::distribution choose_layout(std::span<const operand* const> ops, const std::vector<dist::array>& outs,
                                 const dim_vector& shape, const communicator& comm, const std::string& what) {
  if (!outs.empty()) {
    for (const auto& o : outs)
      if (!(o.distribution() == outs[0].distribution()))
        throw distribution_error(what + ": the outputs have different distributions (" + outs[0].distribution().str() +
                                 "; " + o.distribution().str() + ")");
    return outs[0].distribution();
  }
  // An operand as large as the output first (it stays where it is; the others are no
  // larger), then any that spans the output along its split axis.
  const dist::array* first_split = nullptr;
  const dist::array* spanning = nullptr;
  for (const operand* op : ops) {
    if (op == nullptr || !op->is_distributed() || op->distributed().is_replicated()) continue;
    const dist::array& a = op->distributed();
    const int s = a.distribution().axis() + static_cast<int>(shape.size() - a.ndim());
    if (a.global_shape() == shape) return a.distribution();
    if (spanning == nullptr &&
        a.global_shape()[static_cast<std::size_t>(a.distribution().axis())] == shape[static_cast<std::size_t>(s)])
      spanning = &a;
    if (first_split == nullptr) first_split = &a;
  }
  if (spanning != nullptr)
    return spanning->distribution().along(spanning->distribution().axis() +
                                          static_cast<int>(shape.size() - spanning->ndim()));
  if (first_split != nullptr) {
    const int s = first_split->distribution().axis() + static_cast<int>(shape.size() - first_split->ndim());
    return distribution::blocks(shape[static_cast<std::size_t>(s)], comm.size(), s);
  }
  return distribution::replicated(comm.size());
}

std::string options_text(const call_options& o) {
  std::string s = " casting=" + std::string(ufunc::to_string(o.casting));
  if (o.dtype) s += " dtype=" + std::string(o.dtype->name());
  if (!o.signature.empty()) s += " signature=" + std::string(o.signature);
  s += " order=" + std::to_string(static_cast<int>(o.order));
  if (o.target) s += " target=" + std::string(ufunc::to_string(*o.target));
  return s;
}

}  // namespace

}  // namespace detail

std::vector<dist::array> call(const ufunc::function& f, std::span<const operand> inputs, const call_options& options) {
  const std::string what = "ufunc '" + f.name() + "'";
  std::vector<operand> outs(options.out.begin(), options.out.end());
  std::vector<const operand*> all;
  for (const auto& op : inputs) all.push_back(&op);
  all.push_back(&options.where);
  for (const auto& op : outs) all.push_back(&op);
  const communicator comm = detail::common_comm(all, what);

  detail::target_layout t;
  t.comm = comm;
  std::vector<detail::route> routes(inputs.size());
  detail::route where_route;
  detail::description asked;
  bool communicates = false;
  auto failed = detail::attempt([&] {
    std::vector<dim_vector> shapes;
    for (const auto& op : inputs)
      if (!op.is_scalar()) {
        if (op.empty() || (op.is_replicated() && !op.replicated().valid()))
          throw value_error(what + ": an input is a null array");
        shapes.push_back(detail::global_shape_of(op));
      }
    for (const auto& o : options.out) shapes.push_back(o.global_shape());
    t.shape = broadcast_shapes(shapes);
    for (const auto& o : options.out)
      if (o.global_shape() != t.shape)
        throw broadcast_error("non-broadcastable output operand with shape " +
                              ufunc::array::shape_string(o.global_shape()) + " doesn't match the broadcast shape " +
                              ufunc::array::shape_string(t.shape));
    if (!options.where.empty()) {
      if (options.where.is_scalar()) throw value_error(what + ": where= must be an array");
      const dim_vector& w = detail::global_shape_of(options.where);
      if (broadcast_shapes({w, t.shape}) != t.shape)
        throw broadcast_error("where= of shape " + ufunc::array::shape_string(w) +
                              " does not broadcast to the output's shape " + ufunc::array::shape_string(t.shape));
    }
    t.layout = detail::choose_layout(all, options.out, t.shape, comm, what);
    // What every rank must agree on, as a hash (a call's hot path builds no text).
    asked.mix(f.name()).mix(t.shape);
    detail::mix(asked, t.layout);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      routes[i] = detail::route_for(inputs[i], t, what);
      communicates = communicates || routes[i].communicates(inputs[i]);
      detail::mix(asked, inputs[i]);
    }
    if (!options.where.empty()) {
      where_route = detail::route_for(options.where, t, what);
      communicates = communicates || where_route.communicates(options.where);
    }
    detail::mix(asked, options.where);
    for (const auto& o : outs) detail::mix(asked, o);
    asked.mix(options.dtype ? static_cast<std::uint64_t>(options.dtype->index()) : 99u).mix(options.signature);
    asked.mix(static_cast<std::uint64_t>(options.casting)).mix(static_cast<std::uint64_t>(options.order));
    asked.mix(options.target ? static_cast<std::uint64_t>(*options.target) : 999u);
    asked.set_text([&] {
      std::string text = what + " -> " + ufunc::array::shape_string(t.shape) + ", " + t.layout.str() + ":";
      for (const auto& op : inputs) text += " " + detail::describe(op) + ";";
      text += " where " + detail::describe(options.where) + ";";
      for (const auto& o : outs) text += " out " + detail::describe(o) + ";";
      return text + detail::options_text(options);
    });
  });
  // Operands that move need every rank in agreement first; a call whose operands all
  // have the output's blocks agrees once, after its local call (agreement.hpp says why
  // that is safe).
  if (failed || communicates) detail::agree(comm, failed, asked);

  std::vector<ufunc::operand> local;
  local.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) local.push_back(detail::localize(inputs[i], routes[i], t));
  ufunc::call_options lo;
  for (const auto& o : options.out) lo.out.push_back(o.local());
  if (!options.where.empty()) lo.where = detail::localize_array(options.where, where_route, t);
  lo.dtype = options.dtype;
  lo.signature = options.signature;
  lo.casting = options.casting;
  lo.order = options.order;
  lo.target = options.target;
  lo.stream = options.stream;

  std::vector<ufunc::array> results;
  detail::fp_capture fp;
  failed = detail::attempt([&] { results = f.call(local, lo); });
  fp.stop();
  const detail::description checked;  // agreed before the operands moved
  detail::agree(comm, failed, communicates ? checked : asked, &fp);

  std::vector<dist::array> out;
  out.reserve(results.size());
  for (auto& r : results) out.emplace_back(std::move(r), t.shape, t.layout, comm);
  return out;
}

dist::array call(const ufunc::function& f, const operand& a, const call_options& options) {
  return call(f, std::span<const operand>(&a, 1), options).front();
}

dist::array call(const ufunc::function& f, const operand& a, const operand& b, const call_options& options) {
  const operand ops[] = {a, b};
  return call(f, std::span<const operand>(ops), options).front();
}

dist::array call(const ufunc::function& f, const operand& a, const operand& b, const operand& c,
                 const call_options& options) {
  const operand ops[] = {a, b, c};
  return call(f, std::span<const operand>(ops), options).front();
}

}  // namespace ufunc::dist
