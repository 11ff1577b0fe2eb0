// The common small call without the general call's objects: inputs of exactly the dtypes of the
// loop they resolve to, dense in C order with one shape, on the host, run on the calling thread
// in one inner-loop call. Front ends that hold their operands as raw pointers (the Python module's
// NumPy arrays) find the loop with function::find_dense_loop, allocate or check the output
// themselves, and run it with run_dense_loop; the general call (run_loop's single-loop path)
// runs the same loop the same way, so results and errstate reports are the same.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include <ufunc/core/loop.hpp>
#include <ufunc/core/scalar.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc::detail {

/// An input of a dense call: an array's dtype, or a weak (Python or C++) float scalar, which
/// NEP 50 converts into the array's float dtype (other scalars take the general path).
struct dense_input {
  dtype type;
  const weak_scalar* scalar = nullptr;
};

/// A loop that runs a whole dense call in one inner-loop call; `fn` null: the call needs the
/// general path (a cast, a device target, a call too large for the calling thread, no loop).
struct dense_loop {
  inner_loop_fn fn = nullptr;
  const void* data = nullptr;
  type_signature types;
};

/// One inner-loop call over `n` dense elements (`steps` their item sizes), outputs of a large call
/// written around the cache (streaming.hpp), as every host call's single loop.
void run_dense(inner_loop_fn fn, const void* data, char* const* args, std::int64_t n, const std::int64_t* steps,
               int nin, int nout);

/// Runs `loop` over `n` elements of the dense operands `args` (inputs, then outputs of the loop's
/// dtypes; a scalar input's pointer is not read: `inputs` gives its value), with errstate's flags
/// checked as a call checks them (raised or warned as the policies say, naming `name`), and a
/// scalar that overflows the loop's dtype reported as NumPy's "overflow encountered in cast".
void run_dense_loop(const dense_loop& loop, std::string_view name, std::span<const dense_input> inputs,
                    char* const* args, std::int64_t n);

}  // namespace ufunc::detail
