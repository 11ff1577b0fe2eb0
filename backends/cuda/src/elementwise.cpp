// The cuda backend's elementwise calls: core has placed, allocated and planned the call
// (core/src/run_loop_device.cpp); this enqueues its casts and its launch as one call
// whose floating-point errors report together under the ufunc's name.
#include <ufunc/backends/cuda/elementwise.hpp>

#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/backend.hpp>
#include "casts.hpp"
#include "fp_reports.hpp"

namespace ufunc::backends::cuda {

void execute(const device_task& task) {
  fp_reports::call_scope fp(task.name, task.device, task.stream.handle,
                            fp_reports::refuses_values(task.name, task.types));
  auto cast_all = [&](std::span<const device_cast_step> casts) {
    for (const auto& c : casts) cast_reporting(*c.src, *c.dst, task.stream, c.where ? *c.where : array{}, fp.sink());
  };
  cast_all(task.casts_in);
  if (task.call != nullptr) {
    task.call->fp = fp.sink();
    launch(task.code.elementwise, task.code.data, *task.call);
  }
  cast_all(task.casts_out);
  fp.launched();
}

}  // namespace ufunc::backends::cuda
