#include <ufunc/backends/parallel/methods.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <ufunc/backends/parallel/elementwise.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/method_task.hpp>

#include "measured_split.hpp"
#include "tsan_sync.hpp"

namespace ufunc::backends::parallel {

namespace {

// One piece of work on whichever thread runs it (unit_task::run_piece: its floating-point
// flags go to the task), ordered for TSan after the runner's writes.
template <class Fn>
void piece(const detail::unit_task& task, tsan_sync::tokens tokens, Fn&& fn) {
  const tsan_sync::piece_scope scope(tokens);
  task.run_piece(std::forward<Fn>(fn));
}

struct run_context {
  const detail::unit_task* task;
  std::int64_t grain;
  bool measured;  // split by measured cost (threshold() 0), else whenever the call exceeds a grain
  const tsan_sync* sync;
};

void run(void* context) {
  const auto& c = *static_cast<const run_context*>(context);
  const auto tokens = c.sync->piece_tokens();
  // run_in_arena may run this on another thread than the caller's: acquire first.
  const tsan_sync::piece_scope runner(tokens);
  const detail::unit_task& task = *c.task;
  const std::int64_t units = task.units();
  const std::int64_t per_unit = std::max<std::int64_t>(1, task.size() / units);
  const std::int64_t blocks = task.blocks();
  const int threads = tbb::this_task_arena::max_concurrency();
  // By measured cost (as execute()): the first piece runs on this thread, timed, and
  // the rest is split only if that pays; otherwise it runs here too.
  bool split = !c.measured;
  if (blocks > 1 && units < 2 * static_cast<std::int64_t>(threads)) {
    // Few outputs, long reductions: the blocks of one unit on every thread, then the
    // partials combined in block order on this thread. Same bits as run_units.
    const std::size_t psize = task.partial_size();
    std::vector<std::byte> partials(static_cast<std::size_t>(blocks) * psize);
    std::unique_ptr<bool[]> nonempty(new bool[static_cast<std::size_t>(blocks)]);
    const std::int64_t per_block = std::max<std::int64_t>(1, per_unit / blocks);
    const std::int64_t bgrain = std::max<std::int64_t>(1, c.grain / per_block);
    for (std::int64_t u = 0; u < units; ++u) {
      std::int64_t first = 0;  // blocks of this unit already done
      if (c.measured && u == 0) {
        first = std::min(blocks, probe_size(bgrain));
        split = probe_then_decide(
            [&] { piece(task, tokens, [&] { task.block_partials(0, 0, first, partials.data(), nonempty.get()); }); },
            first * per_block, task.size(), threads, (blocks - 1) / bgrain + 1);
      }
      if (u == 0 && split) count_split();
      if (!split) {
        piece(task, tokens, [&] {
          task.block_partials(u, first, blocks, partials.data(), nonempty.get());
          task.combine(u, partials.data(), nonempty.get());
        });
        continue;
      }
      c.sync->publish();  // this runner's reads of the partials before the pieces rewrite them
      // Everything a piece needs by value: it must not read this runner's stack before it
      // has acquired (TSan cannot see TBB's own hand-over).
      tbb::parallel_for(
          tbb::blocked_range<std::int64_t>(first / bgrain, (blocks - 1) / bgrain + 1),
          [t = &task, tokens, u, bgrain, blocks, first, p = partials.data(),
           ne = nonempty.get()](const tbb::blocked_range<std::int64_t>& r) {
            piece(*t, tokens, [&] {
              t->block_partials(u, std::max(first, r.begin() * bgrain), std::min(blocks, r.end() * bgrain), p, ne);
            });
          },
          tbb::simple_partitioner());
      c.sync->join();
      piece(task, tokens, [&] { task.combine(u, partials.data(), nonempty.get()); });
    }
    return;
  }
  const std::int64_t ugrain = std::max<std::int64_t>(1, c.grain / per_unit);
  std::int64_t first = 0;  // units already done
  if (c.measured) {
    first = std::min(units, probe_size(ugrain));
    split = probe_then_decide([&] { piece(task, tokens, [&] { task.run_units(0, first); }); }, first * per_unit,
                              task.size(), threads, (units - 1) / ugrain + 1);
    if (!split) {
      piece(task, tokens, [&] { task.run_units(first, units); });
      return;
    }
  }
  if (first == units) return;
  count_split();
  tbb::parallel_for(
      tbb::blocked_range<std::int64_t>(first / ugrain, (units - 1) / ugrain + 1),
      [t = &task, tokens, ugrain, units, first](const tbb::blocked_range<std::int64_t>& r) {
        piece(*t, tokens,
              [&] { t->run_units(std::max(first, r.begin() * ugrain), std::min(units, r.end() * ugrain)); });
      },
      tbb::simple_partitioner());
}

}  // namespace

void execute_units(const detail::unit_task& task) {
  const std::int64_t units = task.units();
  if (units == 0) return;
  const std::int64_t g = grain();
  if (task.size() <= g) {  // small: on the calling thread, no workers woken
    task.run_units(0, units);
    return;
  }
  const tsan_sync sync;
  run_context context{&task, g, threshold() == 0, &sync};
  const tsan_sync::call_scope call(sync);
  run_in_arena(&run, &context);
}

}  // namespace ufunc::backends::parallel
