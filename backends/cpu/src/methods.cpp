#include <ufunc/backends/cpu/methods.hpp>
#include <ufunc/core/detail/method_task.hpp>

namespace ufunc::backends::cpu {

void execute_units(const detail::unit_task& task) { task.run_units(0, task.units()); }

}  // namespace ufunc::backends::cpu
