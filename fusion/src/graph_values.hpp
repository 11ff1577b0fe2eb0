// The one pass of a fused function that ends in ufunc.reduce, on the host targets: the
// graph's values are produced piece by piece where the reduction's fold reads them
// (core/detail/value_source.hpp), never written to a temporary of the operand's size.
#pragma once

#include <optional>
#include <span>
#include <string>

#include <ufunc/core/array.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/methods.hpp>
#include <ufunc/fusion/graph.hpp>

namespace ufunc::fusion::detail {

/// `reducer`.reduce(r) of the graph's one output over `inputs`, computed in one pass, where
/// every array input is on the host and the reduction runs on a host target; nullopt
/// otherwise (the caller then computes the output and reduces it). `order` is the fused
/// call's order=: the layout the output would have, which the fold's grouping follows, so
/// that the result equals the two passes' bit for bit. Flags raised by the graph's nodes
/// are reported under `name`, before the reduction's.
[[nodiscard]] std::optional<array> reduce_in_one_pass(const std::shared_ptr<const compiled_graph>& graph,
                                                      std::span<const operand> inputs, order layout,
                                                      const function& reducer, const reduce_options& r,
                                                      const std::string& name);

}  // namespace ufunc::fusion::detail
