// ufunc.gufunc: the library's generalized ufuncs (matmul, vecdot, matvec, vecmat) with NumPy's call
// signature, axes=, axis= and keepdims= included.
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <ufunc/core/error.hpp>
#include <ufunc/ufuncs/gufuncs.hpp>

#include "call_arguments.hpp"
#include "python_ufunc.hpp"

namespace ufunc::python {

namespace {

struct python_gufunc {
  const ufunc::gufunc::function* function;
  std::shared_ptr<const ufunc::gufunc::function> owned;  // gufuncs made from Python; null for the built-ins
};

// axes= (a list of tuples, one per operand), axis= and keepdims=.
bool core_axes_keyword(std::string_view key, nb::handle value, void* state) {
  auto& axes = *static_cast<ufunc::gufunc::core_axes*>(state);
  if (key == "axes") {
    if (value.is_none()) return true;
    for (nb::handle operand : nb::borrow<nb::sequence>(value)) {
      std::vector<int> list;
      if (PyLong_Check(operand.ptr())) {
        list.push_back(nb::cast<int>(operand));
      } else {
        for (nb::handle a : nb::borrow<nb::sequence>(operand)) list.push_back(nb::cast<int>(a));
      }
      axes.axes.push_back(std::move(list));
    }
  } else if (key == "axis") {
    if (!value.is_none()) axes.axis = nb::cast<int>(value);
  } else if (key == "keepdims") {
    axes.keepdims = nb::cast<bool>(value);
  } else {
    return false;
  }
  return true;
}

// NumPy raises RuntimeError ("Reduction not defined on ufunc with signature") for a gufunc's
// methods; a plain std::runtime_error becomes one.
nb::object no_method(const python_gufunc& g, const char* method) {
  throw std::runtime_error(std::string(method) + " not defined on ufunc with signature (gufunc '" + g.function->name() +
                           "', " + g.function->signature_text() + ")");
}

PyObject* call_gufunc(PyObject* self, PyObject* args, PyObject* kwargs) noexcept {
  return slot_result([&] {
    const auto& g = *nb::inst_ptr<python_gufunc>(self)->function;
    parsed_call call;
    ufunc::gufunc::core_axes axes;
    parse_call(call, g.name(), g.nin(), g.nout(), args, kwargs, core_axes_keyword, &axes);
    return results_to_python(call.run([&] { return g.call(call.inputs, call.options, axes); }), call);
  });
}

PyType_Slot gufunc_slots[] = {{Py_tp_call, reinterpret_cast<void*>(&call_gufunc)}, {0, nullptr}};

// The Python object of `g`, named and documented as NumPy's gufuncs are: the call's parameters
// (x1, ..., xN, then the keywords), then `about`.
nb::object documented(python_gufunc g, const std::string& about) {
  const auto& f = *g.function;
  std::string inputs;
  for (int i = 1; i <= f.nin(); ++i) inputs += "x" + std::to_string(i) + ", ";
  nb::object o = nb::cast(std::move(g));
  o.attr("__name__") = f.name();
  o.attr("__doc__") = f.name() + "(" + inputs + "/, out=None, *, casting='same_kind', order='K', dtype=None, " +
                      "signature=None, axes=None, axis=None, keepdims=False, target=None, stream=None)\n\n" + about;
  return o;
}

}  // namespace

nb::object wrap_owned_gufunc(std::shared_ptr<const ufunc::gufunc::function> g) {
  const auto* raw = g.get();
  return documented(python_gufunc{raw, std::move(g)},
                    "A generalized ufunc with core signature " + raw->signature_text() + ".");
}

void bind_gufunc(nb::module_& m) {
  nb::class_<python_gufunc>(m, "gufunc", nb::dynamic_attr(), nb::type_slots(gufunc_slots),
                            "A generalized ufunc of the ufunc library (a core signature such as (n),(n)->()), "
                            "called as NumPy's: axes=, axis= and keepdims= place the core dimensions.")
      .def("reduce", [](const python_gufunc& g, nb::args, nb::kwargs) { return no_method(g, "reduce"); })
      .def("accumulate", [](const python_gufunc& g, nb::args, nb::kwargs) { return no_method(g, "accumulate"); })
      .def("reduceat", [](const python_gufunc& g, nb::args, nb::kwargs) { return no_method(g, "reduceat"); })
      .def("outer", [](const python_gufunc& g, nb::args, nb::kwargs) { return no_method(g, "outer"); })
      .def("at", [](const python_gufunc& g, nb::args, nb::kwargs) { return no_method(g, "at"); })
      .def_prop_ro("nin", [](const python_gufunc& s) { return s.function->nin(); })
      .def_prop_ro("nout", [](const python_gufunc& s) { return s.function->nout(); })
      .def_prop_ro("nargs", [](const python_gufunc& s) { return s.function->nin() + s.function->nout(); })
      .def_prop_ro("ntypes", [](const python_gufunc& s) { return s.function->types().size(); })
      .def_prop_ro("types", [](const python_gufunc& s) { return s.function->types(); })
      .def_prop_ro("signature", [](const python_gufunc& s) { return s.function->signature_text(); })
      .def_prop_ro("identity", [](const python_gufunc&) { return nb::none(); })
      .def("__repr__", [](const python_gufunc& s) { return "<ufunc '" + s.function->name() + "'>"; });

  m.def("builtin_gufuncs", [] {
    nb::dict d;
    for (const auto* g : {&matmul.get(), &vecdot.get(), &matvec.get(), &vecmat.get()}) {
      d[nb::str(g->name().c_str())] =
          documented(python_gufunc{g}, "The generalized ufunc " + g->name() + " with core signature " +
                                           g->signature_text() + ", as NumPy's.");
    }
    return d;
  });
}

}  // namespace ufunc::python
