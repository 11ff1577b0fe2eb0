// Compile-time probes for library features that are being built: included after the ufunc headers by the sweep
// programs (sweep_bench.cpp, cuda_bench.cu), so that they build against a library with or without them.
//
// ufunc::exp (a built-in ufunc that may not exist yet): qualified lookup of ufunc::exp finds the library's own exp
// when the namespace declares one; only when it does not are the namespaces named by using-directives searched,
// and then it finds the placeholder below. Argument-dependent lookup ignores using-directives, so no library code
// is affected.
//
// ufunc::add.reduce(a[, options]) (the reduce API): detected with requires-expressions (has_reduce*), and called
// through sweep::reduce() / reduce_on(), templates, with an operand whose type depends on the caller's template
// parameter, so that the call is compiled only where the probe found it.
#pragma once

#include <type_traits>

namespace sweep_probe {
struct absent {};
inline constexpr absent exp{};
}  // namespace sweep_probe
namespace ufunc {
using namespace ::sweep_probe;  // NOLINT(google-build-using-namespace): the probe described above
}  // namespace ufunc

namespace sweep {

template <class F>
inline constexpr bool is_absent = std::is_same_v<std::remove_cvref_t<F>, sweep_probe::absent>;

template <class F, class A>
concept has_reduce = requires(const F& f, const A& a) { f.reduce(a); };
/// reduce(a, options) whose options (reduce_options, or whatever the API names them) have a target.
template <class F, class A>
concept has_reduce_target = requires(const F& f, const A& a) { f.reduce(a, {.target = ufunc::target_id::cpu}); };

template <class F, class A>
auto reduce(const F& f, const A& a) {
  return f.reduce(a);
}
template <class F, class A>
auto reduce_on(const F& f, const A& a, ufunc::target_id target) {
  return f.reduce(a, {.target = target});
}
template <class F, class A>
auto reduce_on(const F& f, const A& a, ufunc::target_id target, ufunc::stream_ref stream) {
  return f.reduce(a, {.target = target, .stream = stream});
}

}  // namespace sweep
