#include <string>

#include <ufunc/core/detail/methods.hpp>
#include <ufunc/dist/error.hpp>
#include <ufunc/dist/methods.hpp>

#include "agreement.hpp"
#include "align.hpp"
#include "fp_capture.hpp"

namespace ufunc::dist {

dist::array reduceat(const ufunc::function& f, const dist::array& a, const ufunc::array& indices,
                     const accumulate_options& options) {
  const std::string what = ufunc::detail::method_label(f, "reduceat");
  const operand input(a);
  const operand out_op = options.out ? operand(*options.out) : operand();
  const operand* ops[] = {&input, &out_op};
  const communicator comm = detail::common_comm(ops, what);

  dim_vector shape;
  std::string description;
  int axis = 0;
  auto failed = detail::attempt([&] {
    ufunc::detail::require_reduce_like(f, "reduceat");
    if (a.ndim() == 0) throw value_error(what + ": cannot reduceat on a scalar (a 0-d array)");
    axis = ufunc::detail::normalize_axis(options.axis, static_cast<int>(a.ndim()), f, "reduceat");
    // A segment may start in one block and end in another: the segments of the split
    // axis are not any rank's to reduce.
    if (!a.is_replicated() && axis == a.distribution().axis())
      throw distribution_error(what + ": along the split axis (" + std::to_string(axis) +
                               ") the segments cross the blocks; redistribute the array along another axis first");
    if (!indices.valid() || indices.ndim() != 1)
      throw value_error(what + ": indices must be a 1-d integer array (the same on every rank)");
    shape = a.global_shape();
    shape[static_cast<std::size_t>(axis)] = indices.size();
    if (options.out && (options.out->global_shape() != shape || !(options.out->distribution() == a.distribution())))
      throw distribution_error(what + ": out= must be a distributed array of global shape " +
                               ufunc::array::shape_string(shape) + " with the input's distribution");
    description = what + ": " + a.describe() + " axis " + std::to_string(axis) + " indices " +
                  std::string(indices.type().name()) + ufunc::array::shape_string(indices.shape()) + " out " +
                  detail::describe(out_op);
  });
  if (failed) detail::agree(comm, failed, description);
  ufunc::accumulate_options lo = options.local();
  lo.axis = axis;  // normalized
  ufunc::array local;
  detail::fp_capture fp;
  failed = detail::attempt([&] { local = f.reduceat(a.local(), indices, lo); });
  fp.stop();
  detail::agree(comm, failed, description, &fp);
  return dist::array(local, shape, a.distribution(), comm);
}

}  // namespace ufunc::dist
