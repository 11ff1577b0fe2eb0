// parallel backend: its loops are the cpu backend's (target::parallel derives from
// target::cpu); only the executor differs.
#pragma once

#include <ufunc/backends/cpu/loops.hpp>

namespace ufunc::backends::parallel {
using cpu::inner_loop;
using cpu::is_vectorizable;
using cpu::make_loop;
}  // namespace ufunc::backends::parallel
