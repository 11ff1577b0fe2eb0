#include <ufunc/fusion/fused_core.hpp>

#include <map>
#include <mutex>

#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/errstate.hpp>
#include <ufunc/fusion/graph.hpp>

namespace ufunc::fusion::detail {

struct fused_core::state {
  mutable function f;  // a handle: adding a loop changes the shared table, not the handle
  tracer trace;
  std::shared_ptr<const void> functor;
  mutable std::mutex mutex;
  // Per tuple of input dtypes (their indices): the graph, or the error compiling it gave.
  mutable std::map<std::vector<int>, std::shared_ptr<const compiled_graph>> graphs;
  mutable std::size_t traces = 0;

  state(std::string name, int nin, int nout, tracer t, std::shared_ptr<const void> fn)
      : f(std::move(name), nin, nout), trace(t), functor(std::move(fn)) {}

  void check_input_count(std::size_t given) const {
    if (static_cast<int>(given) != f.nin())
      throw value_error("fuse '" + f.name() + "' takes " + std::to_string(f.nin()) + " inputs, got " +
                        std::to_string(given));
  }

  std::shared_ptr<const compiled_graph> graph_for(std::span<const dtype> types) const {
    std::vector<int> key;
    for (dtype t : types) key.push_back(t.index());
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = graphs.find(key); it != graphs.end()) return it->second;
    ++traces;
    const std::vector<expr> outputs = trace(functor.get(), f.nin());
    if (static_cast<int>(outputs.size()) != f.nout())
      throw value_error("fuse '" + f.name() + "': the function returned " + std::to_string(outputs.size()) +
                        " outputs, then " + std::to_string(f.nout()));
    auto g = compile_graph(outputs, types);
    f.add_loop(g->loop(g));
    graphs.emplace(key, g);
    return g;
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
  std::vector<dtype> types;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_scalar())
      throw value_error("fuse '" + s.f.name() + "': input " + std::to_string(i) +
                        " is a C++ scalar; use it inside the fused function (it stays weak there) or pass a 0-d array");
    types.push_back(inputs[i].as_array().type());
  }
  const auto g = s.graph_for(types);
  // A constant that overflows its loop's dtype is reported as a call reports such a scalar.
  if (g->overflowing_constants() > 0 && ufunc::detail::fp_checks_enabled())
    for (int k = 0; k < g->overflowing_constants(); ++k)
      ufunc::detail::fp_report("cast", static_cast<unsigned>(fp_flag::overflow));
  call_options o = options;
  const std::string signature = g->types().str();
  o.signature = signature;
  return s.f.call(inputs, o);
}

namespace {

// Evaluates a traced value with ordinary calls, each call site once.
class unfused_evaluator {
 public:
  unfused_evaluator(std::span<const operand> inputs, const call_options& options)
      : inputs_(inputs), options_(options) {}

  operand value(const expr& e) {
    const node& n = e.get();
    switch (n.what) {
      case node::kind::input:
        return inputs_[std::size_t(n.index)];
      case node::kind::constant:
        return operand(*n.value);
      case node::kind::call:
        break;
    }
    auto it = results_.find(n.site.get());
    if (it == results_.end()) {
      std::vector<operand> args;
      for (const auto& a : n.site->args) args.push_back(value(a));
      call_options o;
      o.target = options_.target;
      it = results_.emplace(n.site.get(), n.site->f.call(args, o)).first;
    }
    return it->second[std::size_t(n.index)];
  }

 private:
  std::span<const operand> inputs_;
  const call_options& options_;
  std::map<const call_site*, std::vector<array>> results_;
};

}  // namespace

std::vector<array> fused_core::call_unfused(std::span<const operand> inputs, const call_options& options) const {
  const auto& s = *state_;
  s.check_input_count(inputs.size());
  const std::vector<expr> outputs = s.trace(s.functor.get(), s.f.nin());
  unfused_evaluator eval(inputs, options);
  std::vector<array> results;
  for (const auto& e : outputs) {
    const operand v = eval.value(e);
    if (v.is_scalar()) throw value_error("fuse '" + s.f.name() + "': an output of the fused function is a constant");
    results.push_back(v.as_array());
  }
  return results;
}

std::string fused_core::explain(std::span<const dtype> input_types) const {
  return state_->graph_for(input_types)->explain();
}

const function& fused_core::ufunc() const noexcept { return state_->f; }

std::size_t fused_core::traces() const {
  const std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->traces;
}

}  // namespace ufunc::fusion::detail
