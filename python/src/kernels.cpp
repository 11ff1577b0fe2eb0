// ufunc.elementwise_kernel and ufunc.reduction_kernel: CuPy's ElementwiseKernel and ReductionKernel
// (the same argument strings) over the library's run-time compiler (NVRTC): a kernel body as a
// string, compiled on first use for the call's dtypes and cached on disk.
#include <memory>
#include <string>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <ufunc/backends/cuda/rtc/elementwise_kernel.hpp>
#include <ufunc/backends/cuda/rtc/reduction_kernel.hpp>
#include <ufunc/core/error.hpp>

#include "call_arguments.hpp"
#include "dtypes.hpp"
#include "results.hpp"

namespace ufunc::python {

namespace {

std::vector<dtype> dtypes_of(const nb::sequence& types) {
  std::vector<dtype> out;
  for (nb::handle t : types) out.push_back(from_object(t));
  return out;
}

}  // namespace

void bind_kernels(nb::module_& m) {
  using ufunc::cuda::elementwise_kernel;
  using ufunc::cuda::reduction_kernel;
  nb::class_<elementwise_kernel>(
      m, "elementwise_kernel",
      "CuPy's ElementwiseKernel: a kernel body compiled at run time for the GPU.\n\n"
      "    hyp = ufunc.elementwise_kernel('T x, T y', 'T z', 'z = sqrt(x * x + y * y)', 'hyp')\n"
      "    z = hyp(x, y)          # x, y: CuPy or PyTorch arrays, or ufunc.device_array")
      .def(
          "__init__",
          [](elementwise_kernel* self, std::string_view in_params, std::string_view out_params,
             std::string_view operation, std::string_view name, std::string preamble,
             std::vector<std::string> options) {
            new (self) elementwise_kernel(in_params, out_params, operation, name,
                                          ufunc::cuda::kernel_options{std::move(preamble), std::move(options)});
          },
          nb::arg("in_params"), nb::arg("out_params"), nb::arg("operation"), nb::arg("name") = "kernel",
          nb::arg("preamble") = "", nb::arg("options") = std::vector<std::string>{})
      .def("__call__",
           [](const elementwise_kernel& k, nb::args args, nb::kwargs kwargs) {
             // Every parameter, raw ones included, is an argument (CuPy's nin and nout).
             const auto& p = k.parameters();
             parsed_call call;
             parse_call(call, k.ufunc().name(), p.nin, p.nout, args, kwargs);
             std::vector<ufunc::array> results;
             {
               nb::gil_scoped_release unlocked;
               results = k.call(call.inputs, call.options);
             }
             return results_to_python(results, call);
           })
      .def(
          "source", [](const elementwise_kernel& k, nb::sequence types) { return k.source(dtypes_of(types)); },
          nb::arg("input_dtypes"), "The CUDA source generated for inputs of these dtypes.")
      .def_prop_ro("types", [](const elementwise_kernel& k) { return k.ufunc().types(); })
      .def_prop_ro("nin", [](const elementwise_kernel& k) { return k.parameters().nin; })
      .def_prop_ro("nout", [](const elementwise_kernel& k) { return k.parameters().nout; })
      .def_prop_ro("name", [](const elementwise_kernel& k) { return k.ufunc().name(); });

  nb::class_<reduction_kernel>(
      m, "reduction_kernel",
      "CuPy's ReductionKernel: map, reduce and post-map expressions compiled at run time.\n\n"
      "    l2 = ufunc.reduction_kernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2')\n"
      "    n = l2(x)             # every axis; l2(x, axis=1, keepdims=True) per row")
      .def(
          "__init__",
          [](reduction_kernel* self, std::string_view in_params, std::string_view out_params, std::string map_expr,
             std::string reduce_expr, std::string post_map_expr, std::string identity, std::string_view name,
             nb::handle reduce_type, std::string preamble, std::vector<std::string> options) {
            ufunc::cuda::reduction_kernel_options o;
            if (!reduce_type.is_none()) o.reduce_type = from_object(reduce_type);
            o.preamble = std::move(preamble);
            o.compile_options = std::move(options);
            new (self) reduction_kernel(in_params, out_params, std::move(map_expr), std::move(reduce_expr),
                                        std::move(post_map_expr), std::move(identity), name, std::move(o));
          },
          nb::arg("in_params"), nb::arg("out_params"), nb::arg("map_expr"), nb::arg("reduce_expr"),
          nb::arg("post_map_expr"), nb::arg("identity"), nb::arg("name") = "reduce",
          nb::arg("reduce_type").none() = nb::none(), nb::arg("preamble") = "",
          nb::arg("options") = std::vector<std::string>{})
      .def(
          "__call__",
          [](const reduction_kernel& k, nb::args args, nb::handle axis, bool keepdims, nb::handle stream) {
            parsed_call call;
            if (!stream.is_none()) parse_option(call, "stream", stream);
            std::vector<ufunc::array> inputs;
            for (nb::handle a : args) inputs.push_back(call.context.input_array(a));
            ufunc::cuda::reduction_call_options o;
            if (!axis.is_none()) {
              if (PyLong_Check(axis.ptr())) {
                o.axis.push_back(nb::cast<int>(axis));
              } else {
                for (nb::handle h : nb::borrow<nb::sequence>(axis)) o.axis.push_back(nb::cast<int>(h));
              }
            }
            o.keepdims = keepdims;
            o.stream = call.options.stream;
            ufunc::array r;
            {
              nb::gil_scoped_release unlocked;
              r = k.call(inputs, o);
            }
            return to_python(r, call.context, true);
          },
          nb::arg("args"), nb::kw_only(), nb::arg("axis").none() = nb::none(), nb::arg("keepdims") = false,
          nb::arg("stream").none() = nb::none())
      .def(
          "source", [](const reduction_kernel& k, nb::sequence types) { return k.source(dtypes_of(types)); },
          nb::arg("input_dtypes"), "The CUDA source generated for inputs of these dtypes.");
}

}  // namespace ufunc::python
