#include "fusion.hpp"

#include <memory>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <ufunc/core/error.hpp>
#include <ufunc/fuse.hpp>
#include <ufunc/ufunc.hpp>

#include "dtypes.hpp"
#include "errors.hpp"
#include "numpy_api.hpp"
#include "operands.hpp"

namespace ufunc::python {

namespace {

using fusion::expr;

struct fusion_expr {
  expr value;
};

// A traced value, or a Python scalar as a weak constant (as in a call).
expr to_expr(nb::handle h) {
  if (nb::isinstance<fusion_expr>(h)) return nb::cast<const fusion_expr&>(h).value;
  int beyond_int64 = 0;
  if (auto w = weak_scalar_of(h.ptr(), beyond_int64)) {
    if (beyond_int64 != 0) throw nb::type_error("inside ufunc.fuse a Python int must fit int64");
    return fusion::constant(*w);
  }
  throw nb::type_error(("inside ufunc.fuse a ufunc takes the function's arguments, values computed from them and "
                        "Python scalars, not " +
                        nb::cast<std::string>(nb::str(h.type().attr("__name__"))) +
                        " (arrays are arguments of the fused function)")
                           .c_str());
}

nb::object wrap(expr e) { return nb::cast(fusion_expr{std::move(e)}); }

nb::object binary(const char* ufunc_name, nb::handle a, nb::handle b) {
  const expr args[] = {to_expr(a), to_expr(b)};
  return wrap(fusion::apply(*find_builtin(ufunc_name), args));
}
nb::object unary(const char* ufunc_name, nb::handle a) {
  const expr args[] = {to_expr(a)};
  return wrap(fusion::apply(*find_builtin(ufunc_name), args));
}

// The Python function a fused ufunc traces; called by the engine with the GIL or without it.
struct traced_function {
  nb::object function;
  ~traced_function() {
    nb::gil_scoped_acquire gil;
    function.reset();
  }
};

std::vector<expr> outputs_of(nb::handle result) {
  std::vector<expr> outs;
  if (PyTuple_Check(result.ptr())) {
    for (nb::handle h : nb::borrow<nb::tuple>(result)) outs.push_back(to_expr(h));
  } else {
    outs.push_back(to_expr(result));
  }
  for (const auto& e : outs)
    if (e.get().what == fusion::node::kind::constant)
      throw value_error(
          "ufunc.fuse: the function returned a constant; it must return values computed from its "
          "arguments");
  return outs;
}

std::vector<expr> trace(const void* f, int nin) {
  nb::gil_scoped_acquire gil;
  const auto& fn = static_cast<const traced_function*>(f)->function;
  if (!fn.is_valid()) throw value_error("ufunc.fuse: the fused function was cleared by the garbage collector");
  nb::list args;
  for (int k = 0; k < nin; ++k) args.append(wrap(fusion::input(k)));
  return outputs_of(fn(*nb::tuple(args)));
}

class python_fused {
 public:
  python_fused(nb::object function, int nin, std::string name) : held_(std::make_shared<traced_function>()) {
    held_->function = std::move(function);
    const int nout = static_cast<int>(trace(held_.get(), nin).size());
    core_ = std::make_unique<fusion::detail::fused_core>(std::move(name), nin, nout, &trace, held_);
  }
  [[nodiscard]] const fusion::detail::fused_core& core() const { return *core_; }
  /// The traced function, for the garbage collector: it usually refers back to the fused object
  /// (through its module's globals), a cycle only the collector can break.
  [[nodiscard]] traced_function& held() const { return *held_; }

 private:
  std::shared_ptr<traced_function> held_;
  std::unique_ptr<fusion::detail::fused_core> core_;
};

int fused_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  Py_VISIT(nb::inst_ptr<python_fused>(self)->held().function.ptr());
  return 0;
}

int fused_clear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<python_fused>(self)->held().function.reset();
  return 0;
}

PyType_Slot fused_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(&fused_traverse)},
                             {Py_tp_clear, reinterpret_cast<void*>(&fused_clear)},
                             {0, nullptr}};

nb::object run_fused(const python_fused& self, nb::args args, nb::kwargs kwargs, bool unfused) {
  const auto& f = self.core().ufunc();
  parsed_call call;
  call.context.results_may_view_inputs = false;
  parse_call(call, f.name(), f.nin(), f.nout(), args, kwargs);
  std::vector<ufunc::array> results;
  {
    nb::gil_scoped_release unlocked;  // the first call per dtypes traces: the tracer takes the GIL back
    results =
        unfused ? self.core().call_unfused(call.inputs, call.options) : self.core().call(call.inputs, call.options);
  }
  return results_to_python(results, call);
}

std::vector<dtype> dtypes_of(const nb::sequence& types) {
  std::vector<dtype> out;
  for (nb::handle t : types) out.push_back(from_object(t));
  return out;
}

}  // namespace

bool is_traced(nb::handle object) { return nb::isinstance<fusion_expr>(object); }

bool has_traced_argument(const call_arguments& arguments) {
  for (Py_ssize_t i = 0; i < arguments.npositional; ++i)
    if (is_traced(arguments.positional[i])) return true;
  return false;
}

nb::object trace_call(const ufunc::function& f, const call_arguments& arguments) {
  if (arguments.has_keywords())
    throw value_error("inside ufunc.fuse a ufunc call takes no keywords (give out=, where=, dtype= to the fused call)");
  if (arguments.npositional != f.nin())
    throw nb::type_error(
        (f.name() + "() inside ufunc.fuse takes its " + std::to_string(f.nin()) + " inputs only").c_str());
  std::vector<expr> args;
  for (Py_ssize_t i = 0; i < arguments.npositional; ++i) args.push_back(to_expr(arguments.positional[i]));
  auto outs = fusion::apply_all(f, args);
  if (outs.size() == 1) return wrap(std::move(outs[0]));
  nb::list l;
  for (auto& e : outs) l.append(wrap(std::move(e)));
  return nb::tuple(l);
}

nb::object trace_reduce(const ufunc::function& f, nb::handle x, const reduce_options& options) {
  if (options.out || options.where.valid())
    throw value_error("inside ufunc.fuse a reduce takes no out= or where= (give them to the fused call)");
  return wrap(fusion::reduce(f, to_expr(x), options));
}

void bind_fusion(nb::module_& m) {
  nb::class_<fusion_expr>(m, "fusion_expr",
                          "A value inside a function being fused (ufunc.fuse): ufuncs and the operators record "
                          "a node instead of computing.")
      .def("__add__", [](nb::handle a, nb::handle b) { return binary("add", a, b); })
      .def("__radd__", [](nb::handle a, nb::handle b) { return binary("add", b, a); })
      .def("__sub__", [](nb::handle a, nb::handle b) { return binary("subtract", a, b); })
      .def("__rsub__", [](nb::handle a, nb::handle b) { return binary("subtract", b, a); })
      .def("__mul__", [](nb::handle a, nb::handle b) { return binary("multiply", a, b); })
      .def("__rmul__", [](nb::handle a, nb::handle b) { return binary("multiply", b, a); })
      .def("__truediv__", [](nb::handle a, nb::handle b) { return binary("divide", a, b); })
      .def("__rtruediv__", [](nb::handle a, nb::handle b) { return binary("divide", b, a); })
      .def("__floordiv__", [](nb::handle a, nb::handle b) { return binary("floor_divide", a, b); })
      .def("__rfloordiv__", [](nb::handle a, nb::handle b) { return binary("floor_divide", b, a); })
      .def("__mod__", [](nb::handle a, nb::handle b) { return binary("remainder", a, b); })
      .def("__rmod__", [](nb::handle a, nb::handle b) { return binary("remainder", b, a); })
      .def("__pow__", [](nb::handle a, nb::handle b) { return binary("power", a, b); })
      .def("__rpow__", [](nb::handle a, nb::handle b) { return binary("power", b, a); })
      .def("__and__", [](nb::handle a, nb::handle b) { return binary("bitwise_and", a, b); })
      .def("__rand__", [](nb::handle a, nb::handle b) { return binary("bitwise_and", b, a); })
      .def("__or__", [](nb::handle a, nb::handle b) { return binary("bitwise_or", a, b); })
      .def("__ror__", [](nb::handle a, nb::handle b) { return binary("bitwise_or", b, a); })
      .def("__xor__", [](nb::handle a, nb::handle b) { return binary("bitwise_xor", a, b); })
      .def("__rxor__", [](nb::handle a, nb::handle b) { return binary("bitwise_xor", b, a); })
      .def("__lt__", [](nb::handle a, nb::handle b) { return binary("less", a, b); })
      .def("__le__", [](nb::handle a, nb::handle b) { return binary("less_equal", a, b); })
      .def("__gt__", [](nb::handle a, nb::handle b) { return binary("greater", a, b); })
      .def("__ge__", [](nb::handle a, nb::handle b) { return binary("greater_equal", a, b); })
      .def("__eq__", [](nb::handle a, nb::handle b) { return binary("equal", a, b); })
      .def("__ne__", [](nb::handle a, nb::handle b) { return binary("not_equal", a, b); })
      .def("__neg__", [](nb::handle a) { return unary("negative", a); })
      .def("__pos__", [](nb::handle a) { return unary("positive", a); })
      .def("__abs__", [](nb::handle a) { return unary("absolute", a); })
      .def("__invert__", [](nb::handle a) { return unary("invert", a); })
      .def("__bool__",
           [](nb::handle) -> bool {
             throw nb::type_error(
                 "a value inside ufunc.fuse has no truth value (a branch cannot be traced): use "
                 "ufunc.where-style arithmetic or ufunc comparisons");
           })
      .def("__repr__", [](nb::handle) { return std::string("<ufunc.fusion_expr>"); });

  nb::class_<python_fused>(m, "fused", nb::type_slots(fused_slots),
                           "A fused ufunc (ufunc.fuse): its function's ufunc calls run as one pass per call, traced "
                           "once per tuple of input dtypes.")
      .def(nb::init<nb::object, int, std::string>(), nb::arg("function"), nb::arg("nin"), nb::arg("name") = "fused")
      .def("__call__", [](const python_fused& s, nb::args a, nb::kwargs k) { return run_fused(s, a, k, false); })
      .def(
          "call_unfused", [](const python_fused& s, nb::args a, nb::kwargs k) { return run_fused(s, a, k, true); },
          "The same calls one by one, a temporary per node: what the fused call equals.")
      .def(
          "explain", [](const python_fused& s, nb::sequence types) { return s.core().explain(dtypes_of(types)); },
          nb::arg("input_dtypes"), "The nodes, their loops and where their inputs come from, for these input dtypes.")
      .def(
          "device_source",
          [](const python_fused& s, nb::sequence types) { return s.core().device_source(dtypes_of(types)); },
          nb::arg("input_dtypes"), "The CUDA kernel generated for these input dtypes.")
      .def_prop_ro("nin", [](const python_fused& s) { return s.core().ufunc().nin(); })
      .def_prop_ro("nout", [](const python_fused& s) { return s.core().ufunc().nout(); })
      .def_prop_ro("types", [](const python_fused& s) { return s.core().ufunc().types(); })
      .def_prop_ro("traces", [](const python_fused& s) { return s.core().traces(); })
      .def_prop_ro("name", [](const python_fused& s) { return s.core().ufunc().name(); })
      .def("__repr__", [](const python_fused& s) { return "<ufunc.fused '" + s.core().ufunc().name() + "'>"; });
}

}  // namespace ufunc::python
