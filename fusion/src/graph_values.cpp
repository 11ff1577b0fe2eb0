#include "graph_values.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/detail/value_source.hpp>

namespace ufunc::fusion::detail {

namespace {

// The graph's output over the broadcast shape of the inputs, laid out as the fused call
// would allocate it. A piece of the fold is an arithmetic run of element offsets in that
// layout; it is split where it crosses an axis, each part one call of the fused loop with
// the inputs' strides along the axis it walks.
class graph_values final : public ufunc::detail::value_source {
 public:
  graph_values(const std::shared_ptr<const compiled_graph>& graph, std::span<const operand> inputs, order layout,
               std::string name)
      : loop_(graph->loop(graph)), name_(std::move(name)) {
    const type_signature& types = graph->types();
    type_ = types.output(0);
    std::vector<dim_vector> shapes;
    std::vector<ufunc::detail::layout_operand> operands;
    for (const auto& in : inputs)
      if (!in.is_scalar()) {
        const array& a = in.as_array();
        shapes.push_back(a.shape());
        operands.push_back({a.shape(), a.strides(), a.type().itemsize(), false, false});
      }
    shape_ = ufunc::broadcast_shapes(shapes);
    const std::size_t nd = shape_.size();
    const dim_vector axes = ufunc::detail::call_output_axes(shape_, layout, operands, 1, false);
    strides_ = ufunc::detail::dense_strides(shape_, axes, type_.itemsize());
    // Offsets decompose along the axes longer than 1, largest stride first.
    for (std::size_t i = axes.size(); i-- > 0;)
      if (shape_[static_cast<std::size_t>(axes[i])] > 1) order_.push_back(static_cast<int>(axes[i]));
    // Per input: its first element and its byte strides over the shape (0 where broadcast);
    // a C++ scalar is stored in the dtype the graph takes it in, stride 0.
    scalars_.resize(inputs.size());
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      if (inputs[k].is_scalar()) {
        inputs[k].as_scalar().store(types.input(static_cast<int>(k)), scalars_[k].data());
        bases_.push_back(reinterpret_cast<char*>(scalars_[k].data()));
        input_strides_.emplace_back(nd, 0);
      } else {
        const array& a = inputs[k].as_array();
        arrays_.push_back(a);
        bases_.push_back(reinterpret_cast<char*>(a.data()));
        input_strides_.push_back(ufunc::broadcast_strides(a.shape(), a.strides(), shape_));
      }
    }
  }

  [[nodiscard]] const dim_vector& shape() const noexcept override { return shape_; }
  [[nodiscard]] dtype type() const noexcept override { return type_; }
  [[nodiscard]] const dim_vector& strides() const noexcept override { return strides_; }
  [[nodiscard]] const std::string& name() const noexcept override { return name_; }
  [[nodiscard]] bool may_share_memory(const array& a) const override {
    return std::any_of(arrays_.begin(), arrays_.end(),
                       [&](const array& in) { return ufunc::detail::may_share_memory(a, in); });
  }

  void produce(std::int64_t first, std::int64_t step, std::int64_t n, std::byte* to,
               std::int64_t to_step) const override {
    const std::int64_t item = static_cast<std::int64_t>(type_.itemsize());
    // The axis the run walks: the one whose stride is the step (none for a single element).
    int walk = -1;
    for (const int d : order_)
      if (strides_[static_cast<std::size_t>(d)] == step * item) walk = d;
    if (walk < 0) {
      for (std::int64_t k = 0; k < n; ++k) call_at(first + k * step, 1, -1, to + k * to_step, to_step);
      return;
    }
    std::int64_t idx[max_ndim];
    decompose(first, idx);
    const auto w = static_cast<std::size_t>(walk);
    while (n > 0) {
      const std::int64_t len = std::min(n, shape_[w] - idx[w]);
      call(idx, len, walk, to, to_step);
      n -= len;
      to += len * to_step;
      // Advance: the walked axis wraps into the next larger stride, and so on.
      idx[w] += len;
      for (auto d = std::find(order_.rbegin(), order_.rend(), walk); d != order_.rend(); ++d) {
        const auto a = static_cast<std::size_t>(*d);
        if (idx[a] < shape_[a]) break;
        idx[a] = 0;
        if (d + 1 != order_.rend()) ++idx[static_cast<std::size_t>(*(d + 1))];
      }
    }
  }

 private:
  // The multi-index of an element offset (axes of extent 1 at 0).
  void decompose(std::int64_t offset, std::int64_t* idx) const {
    const std::int64_t item = static_cast<std::int64_t>(type_.itemsize());
    std::fill(idx, idx + shape_.size(), std::int64_t{0});
    for (const int d : order_) {
      const std::int64_t s = strides_[static_cast<std::size_t>(d)] / item;
      idx[d] = offset / s;
      offset %= s;
    }
  }

  void call_at(std::int64_t offset, std::int64_t len, int walk, std::byte* to, std::int64_t to_step) const {
    std::int64_t idx[max_ndim];
    decompose(offset, idx);
    call(idx, len, walk, to, to_step);
  }

  // The fused loop over `len` elements from idx along axis `walk`, into `to`.
  void call(const std::int64_t* idx, std::int64_t len, int walk, std::byte* to, std::int64_t to_step) const {
    std::array<char*, max_operands> args{};
    std::array<std::int64_t, max_operands> steps{};
    const std::size_t nin = bases_.size();
    for (std::size_t k = 0; k < nin; ++k) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < shape_.size(); ++d) off += idx[d] * input_strides_[k][d];
      args[k] = bases_[k] + off;
      steps[k] = walk < 0 ? 0 : input_strides_[k][static_cast<std::size_t>(walk)];
    }
    args[nin] = reinterpret_cast<char*>(to);
    steps[nin] = to_step;
    loop_.host(args.data(), len, steps.data(), loop_.host_data);
  }

  loop_entry loop_;  // keeps the graph alive
  std::string name_;
  dtype type_;
  dim_vector shape_, strides_;
  std::vector<int> order_;  // axes longer than 1, largest stride first
  std::vector<array> arrays_;
  std::vector<std::array<std::byte, 16>> scalars_;
  std::vector<char*> bases_;
  std::vector<dim_vector> input_strides_;
};

}  // namespace

std::optional<array> reduce_in_one_pass(const std::shared_ptr<const compiled_graph>& graph,
                                        std::span<const operand> inputs, order layout, const function& reducer,
                                        const reduce_options& r, const std::string& name) {
  for (const auto& in : inputs)
    if (!in.is_scalar() && (!in.as_array().valid() || !in.as_array().device().is_host())) return std::nullopt;
  const auto place = ufunc::detail::place_method(reducer, "reduce", r.target, {r.out ? &*r.out : nullptr});
  if (place.on_device) return std::nullopt;
  const graph_values values(graph, inputs, layout, name);
  return ufunc::detail::reduce_produced(reducer, values, r, place.target);
}

}  // namespace ufunc::fusion::detail
