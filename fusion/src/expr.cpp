#include <ufunc/fusion/expr.hpp>

#include <array>
#include <complex>
#include <string>

#include <ufunc/core/casting.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::fusion {

expr input(int k) {
  auto n = std::make_shared<node>();
  n->what = node::kind::input;
  n->index = k;
  return expr(std::move(n));
}

expr constant(const weak_scalar& value) {
  auto n = std::make_shared<node>();
  n->what = node::kind::constant;
  n->value = value;
  return expr(std::move(n));
}

std::vector<expr> apply_all(const function& f, std::span<const expr> args) {
  if (static_cast<int>(args.size()) != f.nin())
    throw value_error("fuse: ufunc '" + f.name() + "' takes " + std::to_string(f.nin()) + " inputs, got " +
                      std::to_string(args.size()));
  auto site = std::make_shared<call_site>(call_site{f, std::vector<expr>(args.begin(), args.end())});
  std::vector<expr> outputs;
  for (int k = 0; k < f.nout(); ++k) {
    auto n = std::make_shared<node>();
    n->what = node::kind::call;
    n->index = k;
    n->site = site;
    outputs.emplace_back(std::move(n));
  }
  return outputs;
}

expr apply(const function& f, std::span<const expr> args) { return apply_all(f, args).front(); }

expr truth_test(const function& not_equal, const expr& x) {
  const expr args[] = {x, constant(weak_scalar(0))};
  expr e = apply(not_equal, args);
  std::const_pointer_cast<call_site>(e.get().site)->truth_test = true;
  return e;
}

expr reduce(const function& f, const expr& x, const reduce_options& options) {
  if (f.nin() != 2 || f.nout() != 1)
    throw value_error("fuse: reduce needs a binary ufunc with one output; '" + f.name() + "' has " +
                      std::to_string(f.nin()) + " inputs and " + std::to_string(f.nout()) + " outputs");
  if (options.out)
    throw value_error("fuse: " + f.name() +
                      ".reduce inside a fused function takes no out=; give out= to the fused call");
  if (options.where.valid()) throw value_error("fuse: " + f.name() + ".reduce inside a fused function takes no where=");
  auto n = std::make_shared<node>();
  n->what = node::kind::reduction;
  n->site = std::make_shared<call_site>(call_site{f, {x}});
  n->reduce = std::make_shared<const reduce_options>(options);
  return expr(std::move(n));
}

std::optional<weak_scalar> weak_result(dtype t, const std::byte* value) {
  if (t.is_integer()) return std::nullopt;
  const std::array<std::byte, 16> zero{};
  if (value == nullptr) value = zero.data();
  if (t == bool_) return weak_scalar(*value != std::byte{0});
  if (t.is_complex()) {
    std::complex<double> c;
    get_cast_loop(t, complex128)(value, 0, reinterpret_cast<std::byte*>(&c), 0, 1);
    return weak_scalar(c);
  }
  double d = 0;
  get_cast_loop(t, float64)(value, 0, reinterpret_cast<std::byte*>(&d), 0, 1);
  return weak_scalar(d);
}

}  // namespace ufunc::fusion
