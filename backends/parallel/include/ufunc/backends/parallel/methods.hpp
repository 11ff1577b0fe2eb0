// parallel backend: reductions and accumulations (ufunc methods). Units of work are
// independent groups of outputs; a reduction with few outputs and long runs is split
// into the fixed blocks the task defines, whose partial results are combined in
// block order, so the bits never depend on the thread count (or on whether the
// parallel target was used at all: the cpu target computes the same blocks).
#pragma once

namespace ufunc::detail {
class unit_task;
}

namespace ufunc::backends::parallel {

/// Runs every unit of `task`; tasks of at most grain() elements run on the calling
/// thread. Larger ones split as execute() does: by measured cost (the first piece
/// timed, then split_pays) by default, always with a fixed threshold() set. An
/// exception thrown by the loop on any worker reaches the caller.
void execute_units(const detail::unit_task& task);

}  // namespace ufunc::backends::parallel
