// ufunc.fuse from Python: a Python function of ufunc calls traced once per input dtypes and run as
// one pass (the library's fusion engine, as cupy.fuse). While it is traced its arguments are
// ufunc.fusion_expr objects: the operators and the ufunc objects record nodes instead of computing.
#pragma once

#include <nanobind/nanobind.h>

#include <ufunc/core/function.hpp>

#include "call_arguments.hpp"

namespace ufunc::python {

namespace nb = nanobind;

/// Whether the call has a traced (symbolic) argument: it then records a node.
[[nodiscard]] bool has_traced_argument(const call_arguments& arguments);
/// `f` applied to the call's traced arguments: a fusion_expr (a tuple of them for several outputs).
[[nodiscard]] nb::object trace_call(const ufunc::function& f, const call_arguments& arguments);
/// `f`.reduce(x, ...) of a traced x.
[[nodiscard]] nb::object trace_reduce(const ufunc::function& f, nb::handle x, const reduce_options& options);
/// Whether `object` is a traced value.
[[nodiscard]] bool is_traced(nb::handle object);

void bind_fusion(nb::module_& m);

}  // namespace ufunc::python
