#include <ufunc/fusion/fused_core.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/errstate.hpp>
#include <ufunc/core/transfer.hpp>
#include <ufunc/fusion/graph.hpp>

#include "graph_values.hpp"

namespace ufunc::fusion::detail {

struct fused_core::state {
  // A compiled graph and the ufunc that runs it: the fused ufunc itself for calls on arrays
  // only (its types() lists them); for calls with scalar arguments, a ufunc of its own with
  // that one loop, since its signature (the scalars' default dtypes) may equal that of a
  // call with arrays in their place, whose nodes resolve differently.
  // `reduction`: the function ends in ufunc.reduce (its one output); the graph computes the
  // reduced value, which the reduction folds as the graph produces it (graph_values.hpp), or
  // (on a GPU) after the pass over one temporary.
  struct compiled {
    std::shared_ptr<const compiled_graph> graph;
    function runs;
    std::shared_ptr<const node> reduction;
  };

  mutable function f;  // a handle: adding a loop changes the shared table, not the handle
  tracer trace;
  std::shared_ptr<const void> functor;
  mutable std::mutex mutex;
  // Per tuple of input dtypes and scalar kinds (key_of): the graph and the ufunc running it.
  mutable std::map<std::vector<int>, compiled> graphs;
  mutable std::size_t traces = 0;

  state(std::string name, int nin, int nout, tracer t, std::shared_ptr<const void> fn)
      : f(std::move(name), nin, nout), trace(t), functor(std::move(fn)) {}

  void check_input_count(std::size_t given) const {
    if (static_cast<int>(given) != f.nin())
      throw value_error("fuse '" + f.name() + "' takes " + std::to_string(f.nin()) + " inputs, got " +
                        std::to_string(given));
  }

  // The reduction a traced function ends in, or null; a reduction among several outputs is
  // refused (cupy.fuse takes one at the end, as here).
  std::shared_ptr<const node> reduction_of(std::span<const expr> outputs) const {
    for (const auto& e : outputs)
      if (e.get().what == node::kind::reduction) {
        if (outputs.size() != 1)
          throw value_error("fuse '" + f.name() +
                            "': a reduction must be the fused function's only output (it returns " +
                            std::to_string(outputs.size()) + ")");
        return e.pointer();
      }
    return nullptr;
  }

  // The key of a call: per input, its dtype's index, or for a C++ scalar its kind (and for
  // an integer the integer dtypes its value fits, all that its resolution depends on).
  static std::vector<int> key_of(std::span<const dtype> types, std::span<const std::optional<weak_scalar>> weak) {
    std::vector<int> key;
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (!weak[i]) {
        key.push_back(types[i].index());
        continue;
      }
      key.push_back(-1 - static_cast<int>(weak[i]->value_kind()));
      int fits = 0, bit = 0;
      for (dtype t : {int8, uint8, int16, uint16, int32, uint32, int64, uint64})
        fits |= (weak[i]->fits(t) ? 1 : 0) << bit++;
      key.push_back(fits);
    }
    return key;
  }

  // The graph of a call on arrays of these dtypes (explain, device_source).
  compiled graph_for_arrays(std::span<const dtype> types) const {
    const std::vector<std::optional<weak_scalar>> none(types.size());
    return graph_for(types, none);
  }

  // `weak`: per input, the C++ scalar it is, if it is one (types.size() of them).
  compiled graph_for(std::span<const dtype> types, std::span<const std::optional<weak_scalar>> weak) const {
    const bool any_weak = std::any_of(weak.begin(), weak.end(), [](const auto& w) { return w.has_value(); });
    const std::vector<int> key = key_of(types, weak);
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = graphs.find(key); it != graphs.end()) return it->second;
    ++traces;
    std::vector<expr> outputs = trace(functor.get(), f.nin());
    if (static_cast<int>(outputs.size()) != f.nout())
      throw value_error("fuse '" + f.name() + "': the function returned " + std::to_string(outputs.size()) +
                        " outputs, then " + std::to_string(f.nout()));
    std::shared_ptr<const node> reduction = reduction_of(outputs);
    if (reduction) outputs = {reduction->site->args.front()};
    auto g = compile_graph(outputs, types, any_weak ? weak : std::span<const std::optional<weak_scalar>>{}, f.name());
    compiled c{g, any_weak ? function(f.name(), f.nin(), f.nout()) : f, reduction};
    c.runs.add_loop(g->loop(g));
    graphs.emplace(key, c);
    return c;
  }
};

fused_core::fused_core(std::string name, int nin, int nout, tracer trace, std::shared_ptr<const void> f)
    : state_(std::make_shared<state>(std::move(name), nin, nout, trace, std::move(f))) {}

std::vector<array> fused_core::call(std::span<const operand> inputs, const call_options& options) const {
  const auto& s = *state_;
  s.check_input_count(inputs.size());
  if (!options.signature.empty() || options.dtype)
    throw value_error("fuse '" + s.f.name() +
                      "': signature= and dtype= do not apply; each node's loop follows from "
                      "the dtypes flowing into it");
  // A C++ scalar argument is weak, as in a call: it comes to the graph in its default
  // dtype (bool, int64 or uint64, float64, complex128) and each node casts it.
  std::vector<dtype> types;
  std::vector<std::optional<weak_scalar>> weak(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_scalar()) {
      weak[i] = inputs[i].as_scalar();
      types.push_back(weak[i]->default_dtype());
    } else {
      types.push_back(inputs[i].as_array().type());
    }
  }
  const auto c = s.graph_for(types, weak);
  // A constant that overflows its loop's dtype is reported as a call reports such a scalar.
  if (c.graph->overflowing_constants() > 0 && ufunc::detail::fp_checks_enabled())
    for (int k = 0; k < c.graph->overflowing_constants(); ++k)
      ufunc::detail::fp_report("cast", static_cast<unsigned>(fp_flag::overflow));
  call_options o = options;
  const std::string signature = c.graph->types().str();
  o.signature = signature;
  if (!c.reduction) return c.runs.call(inputs, o);
  // The reduction at the end, with the ufunc's own reduce (its loop, checks and grouping, so
  // the result is the chain's bit for bit); out= is the reduction's. On the host the fold
  // reads the graph's values as they are produced; elsewhere the pass writes them once.
  const function& reducer = c.reduction->site->f;
  if (options.where.valid())
    throw value_error("fuse '" + s.f.name() + "': where= does not apply to a fused function that ends in " +
                      reducer.name() + ".reduce");
  if (options.out.size() > 1)
    throw value_error("fuse '" + s.f.name() + "': a function that ends in " + reducer.name() +
                      ".reduce has one output, out= gives " + std::to_string(options.out.size()));
  reduce_options r = *c.reduction->reduce;
  if (!options.out.empty()) r.out = options.out[0];
  if (!r.target) r.target = options.target;
  r.stream = options.stream;
  if (auto one_pass = reduce_in_one_pass(c.graph, inputs, options.order, reducer, r, s.f.name())) return {*one_pass};
  o.out = {};
  const array reduced = c.runs.call(inputs, o).front();
  return {reducer.reduce(reduced, r)};
}

namespace {

// Evaluates a traced value with ordinary calls, each call site once.
class unfused_evaluator {
 public:
  unfused_evaluator(std::span<const operand> inputs, const call_options& options)
      : inputs_(inputs), options_(options) {}

  // An output of the fused function (or the value a reduction reduces): a call's result
  // stays its array (0-d for a call of weak operands only), not the weak scalar that a
  // later call sees.
  operand output(const expr& e) {
    const node& n = e.get();
    if (n.what == node::kind::call) return computed(*n.site).arrays[std::size_t(n.index)];
    return value(e);
  }

 private:
  struct results {
    std::vector<array> arrays;
    bool of_weak_operands;
  };

  // The value as an operand of a later call.
  operand value(const expr& e) {
    const node& n = e.get();
    switch (n.what) {
      case node::kind::input:
        return inputs_[std::size_t(n.index)];
      case node::kind::constant:
        return operand(*n.value);
      case node::kind::reduction: {
        const operand x = output(n.site->args.front());
        if (x.is_scalar()) throw value_error("fuse: " + n.site->f.name() + ".reduce of a constant");
        reduce_options r = *n.reduce;
        if (!r.target) r.target = options_.target;
        return n.site->f.reduce(x.as_array(), r);
      }
      case node::kind::call:
        break;
    }
    const results& r = computed(*n.site);
    const array& a = r.arrays[std::size_t(n.index)];
    if (r.of_weak_operands)
      if (auto w = weak_result(a.type(), to_host(a).data())) return *w;
    return a;
  }

  const results& computed(const call_site& site) {
    auto it = results_.find(&site);
    if (it == results_.end()) {
      std::vector<operand> args;
      for (const auto& a : site.args) args.push_back(value(a));
      // A node of scalars only gives a host 0-d array, as NumPy's call does; one that stays
      // strong (an integer, n + 3: weak_result) goes next to device arrays to their device,
      // as the fused kernel reads it.
      const auto on_device = std::find_if(args.begin(), args.end(), [](const operand& a) {
        return !a.is_scalar() && !a.as_array().device().is_host();
      });
      if (on_device != args.end())
        for (std::size_t k = 0; k < args.size(); ++k) {
          auto& a = args[k];
          if (site.args[k].get().what == node::kind::call && !a.is_scalar() && a.as_array().device().is_host() &&
              a.as_array().ndim() == 0)
            a = operand(to_device(a.as_array(), on_device->as_array().device().index));
        }
      const bool of_weak_operands =
          std::all_of(args.begin(), args.end(), [](const operand& a) { return a.is_scalar(); });
      call_options o;
      o.target = options_.target;
      it = results_.emplace(&site, results{site.f.call(args, o), of_weak_operands}).first;
    }
    return it->second;
  }

  std::span<const operand> inputs_;
  const call_options& options_;
  std::map<const call_site*, results> results_;
};

}  // namespace

std::vector<array> fused_core::call_unfused(std::span<const operand> inputs, const call_options& options) const {
  const auto& s = *state_;
  s.check_input_count(inputs.size());
  const std::vector<expr> outputs = s.trace(s.functor.get(), s.f.nin());
  unfused_evaluator eval(inputs, options);
  std::vector<array> results;
  for (const auto& e : outputs) {
    const operand v = eval.output(e);
    if (v.is_scalar()) throw value_error("fuse '" + s.f.name() + "': an output of the fused function is a constant");
    results.push_back(v.as_array());
  }
  return results;
}

std::string fused_core::explain(std::span<const dtype> input_types) const {
  const auto c = state_->graph_for_arrays(input_types);
  std::string text = c.graph->explain();
  if (c.graph->runs_on_device())
    text += "cuda: one kernel generated from these nodes (device_source())\n";
  else
    text += "cuda: not fused: " + c.graph->device_source() + "\n";
  if (c.reduction) {
    const auto& r = *c.reduction->reduce;
    std::string axes;  // as NumPy's axis= reads: None, (), 0, 0,1
    for (int a : r.axis.list()) axes += (axes.empty() ? "" : ",") + std::to_string(a);
    if (r.axis.all()) axes = "None";
    if (axes.empty()) axes = "()";
    text += "result = " + c.reduction->site->f.name() + ".reduce(out0, axis=" + axes +
            (r.keepdims ? ", keepdims" : "") +
            ")  host: in the same pass, folding out0 as it is computed; cuda: after the pass, over out0 (one "
            "temporary)\n";
  }
  return text;
}

std::string fused_core::device_source(std::span<const dtype> input_types) const {
  const auto c = state_->graph_for_arrays(input_types);
  if (!c.graph->runs_on_device()) throw value_error("fuse '" + state_->f.name() + "': " + c.graph->device_source());
  return c.graph->device_source();
}

const function& fused_core::ufunc() const noexcept { return state_->f; }

std::size_t fused_core::traces() const {
  const std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->traces;
}

}  // namespace ufunc::fusion::detail
