// NumPy's built-in gufuncs (matmul, vecdot, matvec, vecmat) as gvectorize'd loops over every
// dtype NumPy has a loop for and the library has; in CUDA builds each loop has device code
// too (gufuncs_cuda.cu).
#include <ufunc/ufuncs/gufuncs.hpp>

#include <memory>
#include <string>
#include <string_view>

#include <ufunc/gvectorize.hpp>

#include "gufunc_ops.hpp"

namespace ufunc::detail {
namespace {

// The built-ins run where the call, the environment or the build says (no target of their
// own, as the built-in ufuncs).
template <class F>
gufunc::function builtin(std::string name, std::string_view signature) {
  gufunc::function g(std::move(name), signature);
  add_gufunc_loops(g, std::make_shared<const F>(), gufunc_ops::numpy_loops{});
  return g;
}

gufunc::function (&builtins())[4] {
  static gufunc::function all[] = {
      builtin<gufunc_ops::matmul_fn>("matmul", "(n?,k),(k,m?)->(n?,m?)"),
      builtin<gufunc_ops::vecdot_fn>("vecdot", "(n),(n)->()"),
      builtin<gufunc_ops::matvec_fn>("matvec", "(m,n),(n)->(m)"),
      builtin<gufunc_ops::vecmat_fn>("vecmat", "(n),(n,m)->(m)"),
  };
#if defined(UFUNC_HAS_CUDA)
  static const bool with_device_loops = (gufunc_ops::add_device_loops(all), true);
  (void)with_device_loops;
#endif
  return all;
}

}  // namespace

const gufunc::function& builtin_gufunc(int id) {
  if (id < 0 || id >= 4) throw value_error("builtin_gufunc: no gufunc number " + std::to_string(id));
  return builtins()[id];
}

}  // namespace ufunc::detail
