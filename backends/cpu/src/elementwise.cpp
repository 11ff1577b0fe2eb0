#include <ufunc/backends/cpu/elementwise.hpp>
#include <ufunc/core/elementwise.hpp>

namespace ufunc::backends::cpu {

void execute(const elementwise_task& task) { task.run(0, task.size()); }

}  // namespace ufunc::backends::cpu
