// A planned iteration as a device backend receives it: the coalesced plan of core's
// iteration (over device pointers) copied into a device_call, for every launcher that plans
// on the host (the cuda backend's calls and casts, the gufunc engine).
#pragma once

#include <ufunc/core/device_call.hpp>
#include <ufunc/core/iteration.hpp>

namespace ufunc::detail {

/// The device_call of `plan`, whose operands are nin inputs, nout outputs and, with
/// `has_where`, a mask last; enqueued on `stream` of CUDA device `device`.
[[nodiscard]] inline device_call device_call_of(const iteration_plan& plan, int nin, int nout, bool has_where,
                                                int device, stream_ref stream, const device_fp_sink& fp = {}) {
  device_call c;
  c.nin = nin;
  c.nout = nout;
  c.has_where = has_where;
  c.ndim = plan.ndim();
  c.size = plan.size();
  c.device = device;
  c.stream = stream.handle;
  c.fp = fp;
  const int nops = nin + nout + (has_where ? 1 : 0);
  for (int d = 0; d < plan.ndim(); ++d) {
    c.shape[d] = plan.extent(d);
    for (int k = 0; k < nops; ++k) c.strides[k][d] = plan.stride(k, d);
  }
  for (int k = 0; k < nops; ++k) c.base[k] = plan.base(k);
  return c;
}

}  // namespace ufunc::detail
