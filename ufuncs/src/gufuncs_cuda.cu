// The device loops of NumPy's built-in gufuncs: the functions of gufunc_ops.hpp compiled for
// the GPU, one loop per dtype, attached to the host gufuncs of gufuncs.cpp.
#include <ufunc/gvectorize.hpp>

#include "gufunc_ops.hpp"

namespace ufunc::detail::gufunc_ops {

void add_device_loops(gufunc::function (&all)[4]) {
  add_gufunc_device_loops<matmul_fn>(all[0], numpy_loops{});
  add_gufunc_device_loops<vecdot_fn>(all[1], numpy_loops{});
  add_gufunc_device_loops<matvec_fn>(all[2], numpy_loops{});
  add_gufunc_device_loops<vecmat_fn>(all[3], numpy_loops{});
}

}  // namespace ufunc::detail::gufunc_ops
