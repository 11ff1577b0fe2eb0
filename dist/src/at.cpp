#include <cstring>
#include <string>
#include <vector>

#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/transfer.hpp>
#include <ufunc/dist/error.hpp>
#include <ufunc/dist/factories.hpp>
#include <ufunc/dist/methods.hpp>
#include <ufunc/dist/transfer.hpp>

#include "agreement.hpp"
#include "align.hpp"
#include "blocks.hpp"
#include "fp_capture.hpp"

namespace ufunc::dist {

namespace {

// One index array as integers: a 1-d bool array becomes the positions of its true
// elements (as NumPy indexes with it), integer arrays stay as they are.
ufunc::array as_integers(const ufunc::array& index, const std::string& what) {
  if (!index.valid()) throw value_error(what + ": an index is a null array");
  const ufunc::array host = ufunc::to_host(index);
  if (host.type() == bool_) {
    if (host.ndim() != 1) throw value_error(what + ": a bool index must be 1-d here");
    std::vector<std::int64_t> positions;
    const auto mask = host.to_vector<bool>();
    for (std::size_t i = 0; i < mask.size(); ++i)
      if (mask[i]) positions.push_back(static_cast<std::int64_t>(i));
    return ufunc::asarray<std::int64_t>(std::span<const std::int64_t>(positions));
  }
  if (!host.type().is_integer())
    throw index_error(what + ": arrays used as indices must be of integer (or boolean) type, not " +
                      std::string(host.type().name()));
  return host;
}

void at_impl(const ufunc::function& f, const dist::array& a, std::span<const ufunc::array> indices, const operand* b,
             const call_options& options) {
  const std::string what = ufunc::detail::method_label(f, "at");
  const operand input(a);
  const operand* ops[] = {&input, b};
  const communicator comm = detail::common_comm(ops, what);
  const int rank = comm.rank();
  const dim_vector& shape = a.global_shape();

  std::vector<ufunc::array> index;              // as integers
  std::vector<std::vector<std::int64_t>> flat;  // broadcast, C order, normalized
  dim_vector index_shape;
  dim_vector b_shape;  // the indexed shape b broadcasts to
  std::string description;
  bool communicates = false;
  auto failed = detail::attempt([&] {
    if (!options.out.empty() || !options.where.empty())
      throw value_error(what + ": out= and where= are not arguments of ufunc.at");
    if (indices.size() > a.ndim())
      throw index_error(what + ": too many indices for array: array is " + std::to_string(a.ndim()) +
                        "-dimensional, but " + std::to_string(indices.size()) + " were indexed");
    std::vector<dim_vector> shapes;
    for (const auto& i : indices) {
      index.push_back(as_integers(i, what));
      shapes.push_back(index.back().shape());
    }
    index_shape = shapes.empty() ? dim_vector{} : broadcast_shapes(shapes);
    b_shape = index_shape;
    for (std::size_t d = indices.size(); d < a.ndim(); ++d) b_shape.push_back(shape[d]);
    // Every index checked on every rank before anything is written, as one process does.
    for (std::size_t j = 0; j < index.size(); ++j) {
      flat.push_back(index[j].broadcast_to(index_shape).to_vector<std::int64_t>());
      for (auto& v : flat.back()) {
        const std::int64_t n = shape[j];
        if (v < -n || v >= n)
          throw index_error(what + ": index " + std::to_string(v) + " is out of bounds for axis " + std::to_string(j) +
                            " with size " + std::to_string(n));
        if (v < 0) v += n;
      }
    }
    if (b != nullptr && !b->is_scalar()) {
      const dim_vector& bs = detail::global_shape_of(*b);
      if (broadcast_shapes({bs, b_shape}) != b_shape)
        throw broadcast_error(what + ": operand of shape " + ufunc::array::shape_string(bs) +
                              " does not broadcast to the indexed shape " + ufunc::array::shape_string(b_shape));
      communicates = b->is_distributed() && !b->distributed().is_replicated();
    }
    description = what + ": " + a.describe() + " indices " + ufunc::array::shape_string(index_shape) + " x" +
                  std::to_string(index.size()) + " b " + (b != nullptr ? detail::describe(*b) : std::string("-"));
  });
  if (failed || communicates) detail::agree(comm, failed, description);

  // b whole on every rank (it is the size of the index, not of a).
  ufunc::array b_whole;
  if (b != nullptr && !b->is_scalar())
    b_whole = b->is_replicated()                 ? b->replicated()
              : b->distributed().is_replicated() ? b->distributed().local()
                                                 : allgather(b->distributed());

  std::vector<ufunc::array> local_index = index;
  ufunc::array local_b = b_whole;
  const int s = a.is_replicated() ? -1 : a.distribution().axis();
  const std::size_t k = index.size();
  if (s >= 0) {
    const std::int64_t lo = a.distribution().offset(rank);
    const std::int64_t hi = lo + a.distribution().count(rank);
    if (static_cast<std::size_t>(s) < k) {
      // The split axis is indexed: this rank applies the positions whose index along it
      // falls into its block, in their order (so repeated indices apply in index order).
      std::vector<std::int64_t> selected;
      const auto& along = flat[static_cast<std::size_t>(s)];
      for (std::size_t n = 0; n < along.size(); ++n)
        if (along[n] >= lo && along[n] < hi) selected.push_back(static_cast<std::int64_t>(n));
      const auto m = static_cast<std::int64_t>(selected.size());
      local_index.clear();
      for (std::size_t j = 0; j < k; ++j) {
        auto idx = ufunc::empty<std::int64_t>({m});
        for (std::int64_t i = 0; i < m; ++i)
          idx.data()[i] = flat[j][static_cast<std::size_t>(selected[static_cast<std::size_t>(i)])] -
                          (j == static_cast<std::size_t>(s) ? lo : 0);
        local_index.push_back(idx);
      }
      if (b_whole.valid()) {
        // b's rows at the selected positions (b over the index shape, flattened).
        dim_vector trailing(b_shape.begin() + static_cast<std::ptrdiff_t>(index_shape.size()), b_shape.end());
        dim_vector rows_shape = trailing;
        rows_shape.insert(0, shape_size(index_shape));
        const ufunc::array dense = ufunc::to_host(b_whole).broadcast_to(b_shape).copy().reshape(rows_shape);
        dim_vector picked_shape = trailing;
        picked_shape.insert(0, m);
        ufunc::array picked = ufunc::array::empty(picked_shape, dense.type());
        const std::int64_t row = shape_size(trailing) * static_cast<std::int64_t>(dense.itemsize());
        for (std::int64_t i = 0; i < m; ++i)
          std::memcpy(picked.data() + i * row, dense.data() + selected[static_cast<std::size_t>(i)] * row,
                      static_cast<std::size_t>(row));
        local_b = detail::place(picked, a.device());
      }
    } else if (b_whole.valid()) {
      // A trailing axis is split: every index applies on every rank, to its rows of that
      // axis, with b's rows of it.
      const int axis = static_cast<int>(index_shape.size()) + (s - static_cast<int>(k));
      const ufunc::array bb = b_whole.broadcast_to(b_shape);
      local_b = bb.shape()[static_cast<std::size_t>(axis)] == 1 ? bb : detail::rows(bb, axis, lo, hi);
    }
  }

  ufunc::call_options lo;
  lo.dtype = options.dtype;
  lo.signature = options.signature;
  lo.casting = options.casting;
  lo.target = options.target;
  lo.stream = options.stream;
  detail::fp_capture fp;
  failed = detail::attempt([&] {
    if (b == nullptr)
      f.at(a.local(), local_index, lo);
    else if (b->is_scalar())
      f.at(a.local(), local_index, ufunc::operand(b->scalar()), lo);
    else
      f.at(a.local(), local_index, local_b, lo);
  });
  fp.stop();
  detail::agree(comm, failed, communicates ? std::string() : description, &fp);
}

}  // namespace

void at(const ufunc::function& f, const dist::array& a, std::span<const ufunc::array> indices, const operand& b,
        const call_options& options) {
  at_impl(f, a, indices, &b, options);
}

void at(const ufunc::function& f, const dist::array& a, std::span<const ufunc::array> indices,
        const call_options& options) {
  at_impl(f, a, indices, nullptr, options);
}

}  // namespace ufunc::dist
