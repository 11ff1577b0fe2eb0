#include "fused.hpp"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include <ufunc/fuse.hpp>

namespace differential {

namespace {

// A fused one-node ufunc, type-erased over the arity: compiles its loop for some input
// dtypes (through explain) and is otherwise the ufunc::function it registers loops in.
struct one_node {
  std::function<void(std::span<const ufunc::dtype>)> compile;
  const ufunc::function* function = nullptr;
  std::shared_ptr<void> owner;
};

template <class F>
one_node make(F lambda, const std::string& name) {
  auto fused = std::make_shared<ufunc::fused<F>>(std::move(lambda), name);
  one_node n;
  n.compile = [fused](std::span<const ufunc::dtype> types) { (void)fused->explain(types); };
  n.function = &fused->ufunc();
  n.owner = fused;
  return n;
}

one_node fuse_one(const ufunc::function& f) {
  using ufunc::fusion::apply;
  using ufunc::fusion::apply_all;
  using ufunc::fusion::expr;
  const std::string& name = f.name();
  auto two = [](std::vector<expr> o) { return std::make_tuple(o[0], o[1]); };
  switch (f.nin() * 10 + f.nout()) {
    case 11:
      return make([f](expr a) { return apply(f, {{a}}); }, name);
    case 12:
      return make([f, two](expr a) { return two(apply_all(f, {{a}})); }, name);
    case 21:
      return make([f](expr a, expr b) { return apply(f, {{a, b}}); }, name);
    case 22:
      return make([f, two](expr a, expr b) { return two(apply_all(f, {{a, b}})); }, name);
    case 31:
      return make([f](expr a, expr b, expr c) { return apply(f, {{a, b, c}}); }, name);
    default:
      return {};
  }
}

// A reduce case as a fused function that returns f.reduce of its input (the graph copies
// the input; on the host the fold reads the copies as they are made), with out= and the
// target given to the fused call. The case's options are the same in each of its runs
// (under each errstate policy), so the function is traced once per case.
run_result replay_fused_reduce(const test_case& c, const ufunc::function& f, ufunc::target_id target, bool user) {
  if (c.where) return skip("fused: where= of a reduction at the end is refused");
  if (user && target == ufunc::target_id::cuda)
    return skip("fused on cuda: the runner's vectorize'd ufuncs have no source for generated code");
  const auto make = [&f](ufunc::reduce_options inside) {
    inside.out.reset();
    inside.target.reset();
    return std::make_shared<ufunc::fused<std::function<ufunc::fusion::expr(ufunc::fusion::expr)>>>(
        [&f, inside](ufunc::fusion::expr x) { return ufunc::fusion::reduce(f, x, inside); }, f.name());
  };
  std::shared_ptr<ufunc::fused<std::function<ufunc::fusion::expr(ufunc::fusion::expr)>>> fused;
  const auto through = [&](const ufunc::array& a, const ufunc::reduce_options& o) {
    if (!fused) fused = make(o);
    ufunc::call_options call;
    if (o.out) call.out = {*o.out};
    call.target = o.target;
    return (*fused)(a, call);
  };
  return replay_reduce_case(c, f, through, target, user);
}

}  // namespace

run_result replay_fused(const test_case& c, const ufunc::function& f, ufunc::target_id target, bool user) {
  if (c.method == "reduce") return replay_fused_reduce(c, f, target, user);
  if (c.method != "call") return skip("fused: methods other than reduce are not fused");
  if (user && target == ufunc::target_id::cuda)
    return skip("fused on cuda: the runner's vectorize'd ufuncs have no source for generated code");
  if (!c.signature.empty() || c.out_dtype || c.casting) return skip("fused: signature=, dtype=, casting= do not apply");
  std::vector<ufunc::dtype> types;
  for (const auto& in : c.inputs) {
    if (in.is_scalar) return skip("fused: C++ scalars as arguments of the fused call");
    types.push_back(in.arr.type);
  }
  // One fused ufunc per ufunc, its loops added per dtype tuple as cases come.
  static std::mutex mutex;
  static std::map<const void*, one_node> fused;
  one_node* n;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = fused.find(&f.name());
    if (it == fused.end()) it = fused.emplace(&f.name(), fuse_one(f)).first;
    n = &it->second;
  }
  if (n->function == nullptr) return skip("fused: arity not covered");
  // The fused call compiles its graph for these dtypes first; where that fails, the call
  // fails with it (the fused ufunc's own table, which may hold other dtypes' loops, is not
  // searched), so that error is the outcome to compare.
  try {
    n->compile(types);
  } catch (const ufunc::error& e) {
    if (!c.expect_error) return fail(std::string("fused: ") + e.what() + "; NumPy returns a result");
    if (class_of(e) != c.our_error)
      return fail("fused: " + class_of(e) + " (" + e.what() + "); NumPy raises " + c.np_error + " = " + c.our_error);
    return {};
  }
  return replay_case(c, *n->function, target, user);
}

}  // namespace differential
