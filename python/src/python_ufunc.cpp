#include "python_ufunc.hpp"

#include <complex>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <ufunc/core/error.hpp>
#include <ufunc/ufunc.hpp>

#include "call_arguments.hpp"
#include "dense_call.hpp"
#include "dtypes.hpp"
#include "fusion.hpp"
#include "numpy_api.hpp"
#include "results.hpp"

namespace ufunc::python {

nb::object scalar_to_python(const weak_scalar& w) {
  switch (w.value_kind()) {
    case weak_scalar::kind::boolean: {
      bool v = false;
      w.store(bool_, &v);
      return nb::bool_(v);
    }
    case weak_scalar::kind::integer: {
      if (w.fits(int64)) {
        std::int64_t v = 0;
        w.store(int64, &v);
        return nb::int_(v);
      }
      std::uint64_t v = 0;
      w.store(uint64, &v);
      return nb::int_(v);
    }
    case weak_scalar::kind::floating: {
      double v = 0;
      w.store(float64, &v);
      return nb::float_(v);
    }
    case weak_scalar::kind::complex:
      break;
  }
  std::complex<double> v;
  w.store(complex128, &v);
  return nb::steal(PyComplex_FromDoubles(v.real(), v.imag()));
}

namespace {

// initial= as the library takes it: a Python scalar, or a NumPy scalar's value.
std::optional<weak_scalar> initial_of(nb::handle value) {
  if (value.is_none()) return std::nullopt;
  PyObject* o = value.ptr();
  if (PyArray_IsScalar(o, Generic) || PyArray_Check(o)) {
    nb::object item = value.attr("item")();
    return initial_of(item);
  }
  int beyond_int64 = 0;
  if (auto w = weak_scalar_of(o, beyond_int64)) {
    if (beyond_int64 == 2) throw nb::type_error("initial= is an integer outside int64 and uint64");
    return w;
  }
  throw nb::type_error("initial= must be a number");
}

// NumPy's axis= of reduce: an integer, a tuple of them, or None for every axis.
ufunc::axes axes_of(nb::handle axis) {
  if (axis.is_none()) return all_axes;
  if (PyTuple_Check(axis.ptr()) || PyList_Check(axis.ptr())) {
    std::vector<int> list;
    for (nb::handle h : nb::borrow<nb::sequence>(axis)) list.push_back(nb::cast<int>(h));
    return ufunc::axes(std::move(list));
  }
  if (PyArray_IsScalar(axis.ptr(), Integer) || PyLong_Check(axis.ptr()))
    return ufunc::axes(nb::cast<int>(nb::int_(axis)));
  throw nb::type_error("axis must be an integer, a tuple of integers or None");
}

// Options shared by the methods: target=, stream= and (for outer) the call's keywords.
void method_target(parsed_call& call, nb::handle target, nb::handle stream) {
  if (!stream.is_none()) parse_option(call, "stream", stream);
  if (!target.is_none()) parse_option(call, "target", target);
  choose_target(call);
}

// The options of accumulate and reduceat.
accumulate_options accumulate_options_of(parsed_call& call, nb::handle axis, nb::handle dtype, nb::handle out,
                                         const char* method) {
  accumulate_options o;
  if (axis.is_none() || PyTuple_Check(axis.ptr()) || PyList_Check(axis.ptr()))
    throw value_error(std::string(method) + " does not allow multiple axes");
  o.axis = nb::cast<int>(nb::int_(axis));
  if (!dtype.is_none()) o.dtype = from_object(dtype);
  if (!out.is_none()) o.out = call.context.output_array(out);
  o.target = call.options.target;
  o.stream = call.options.stream;
  return o;
}

std::string call_doc(const ufunc::function& f) {
  std::string params;
  for (int i = 0; i < f.nin(); ++i) params += (f.nin() == 1 ? std::string("x") : "x" + std::to_string(i + 1)) + ", ";
  std::string outs = f.nout() == 1 ? "out=None" : "[out1, out2], out=None";
  return f.name() + "(" + params + "/, " + outs +
         ", *, where=True, casting='same_kind', order='K', dtype=None, signature=None, target=None, stream=None)\n\n" +
         f.doc();
}

// The integer arrays of ufunc.at's index, one per indexed axis: as given where they are integer arrays
// (the common case, kept cheap), else through NumPy's indexing rules (slices, Ellipsis, boolean
// arrays: python/ufunc/_indexing.py).
nb::tuple at_index_arrays(const ufunc::array& a, nb::handle index) {
  const auto plain = [](nb::handle h) {
    if (PyArray_Check(h.ptr())) return PyArray_ISINTEGER(reinterpret_cast<PyArrayObject*>(h.ptr()));
    return PyList_Check(h.ptr()) || PyLong_Check(h.ptr());
  };
  if (PyTuple_Check(index.ptr())) {
    bool all_plain = true;
    for (nb::handle h : nb::borrow<nb::tuple>(index)) all_plain = all_plain && plain(h) && !PyList_Check(h.ptr());
    if (all_plain) return nb::borrow<nb::tuple>(index);
  } else if (PyArray_Check(index.ptr()) && plain(index)) {
    return nb::make_tuple(index);
  }
  // Kept for the process, never released: a static nb::object would be released after the interpreter is gone.
  static PyObject* const convert_function =
      nb::object(nb::module_::import_("ufunc._indexing").attr("at_index_arrays")).release().ptr();
  const nb::handle convert(convert_function);
  nb::list shape;
  for (auto extent : a.shape()) shape.append(extent);
  return nb::borrow<nb::tuple>(convert(nb::tuple(shape), index));
}

// The call. Python reaches it through vectorcall (python_ufunc::vectorcall, as NumPy's ufuncs) or
// the type's tp_call slot: both skip a bound method's lookup and repacking of the arguments, which
// would cost more than a small array's loop.
nb::object run_call(const python_ufunc& u, const call_arguments& arguments) {
  const auto& f = *u.function;
  if (has_traced_argument(arguments)) return trace_call(f, arguments);  // inside ufunc.fuse
  parsed_call call;
  call.context.results_may_view_inputs = false;
  parse_call(call, f.name(), f.nin(), f.nout(), arguments);
  if (f.nout() == 1 && f.nin() <= 3) {
    // The single-result path: no vector of results.
    const auto run = [&] {
      const auto& in = call.inputs;
      return f.nin() == 1   ? f(in[0], call.options)
             : f.nin() == 2 ? f(in[0], in[1], call.options)
                            : f(in[0], in[1], in[2], call.options);
    };
    return to_python(call.run(run), call.context);
  }
  return results_to_python(call.run([&] { return f.call(call.inputs, call.options); }), call);
}

PyObject* call_ufunc(PyObject* self, PyObject* args, PyObject* kwargs) noexcept {
  return slot_result(
      [&] { return run_call(*nb::inst_ptr<python_ufunc>(self), call_arguments::of_tuple(args, kwargs)); });
}

PyObject* vectorcall_ufunc(PyObject* self, PyObject* const* args, std::size_t nargsf, PyObject* kwnames) noexcept {
  return slot_result([&] {
    const auto& u = *nb::inst_ptr<python_ufunc>(self);
    const auto arguments = call_arguments::of_vector(args, nargsf, kwnames);
    if (PyObject* r = try_dense_call(*u.function, arguments)) return nb::steal(r);
    return run_call(u, arguments);
  });
}

// Where python_ufunc::vectorcall sits in an instance, once known (nanobind keeps the C++ object inline
// at a fixed offset for a type); 0 while vectorcall is off.
Py_ssize_t vectorcall_offset = 0;

PyType_Slot ufunc_slots[] = {{Py_tp_call, reinterpret_cast<void*>(&call_ufunc)}, {0, nullptr}};

}  // namespace

namespace {
nb::object wrap(python_ufunc u) {
  const auto& f = *u.function;
  u.vectorcall = &vectorcall_ufunc;
  nb::object o = nb::cast(std::move(u));
  // The first instance tells the type where the entry is; every other must agree (else tp_call serves).
  const auto offset =
      reinterpret_cast<char*>(&nb::inst_ptr<python_ufunc>(o)->vectorcall) - reinterpret_cast<char*>(o.ptr());
  auto* type = reinterpret_cast<PyTypeObject*>(o.type().ptr());
  if (vectorcall_offset == 0 && offset > 0) {
    vectorcall_offset = offset;
    type->tp_vectorcall_offset = offset;
    type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
  } else if (offset != vectorcall_offset) {
    type->tp_flags &= ~Py_TPFLAGS_HAVE_VECTORCALL;
  }
  // Instance attributes: a type's own __name__ cannot be a property.
  o.attr("__name__") = f.name();
  o.attr("__doc__") = call_doc(f);
  return o;
}
}  // namespace

nb::object wrap_ufunc(const ufunc::function& f) { return wrap(python_ufunc{nullptr, &f, nullptr}); }

nb::object wrap_owned_ufunc(std::shared_ptr<const ufunc::function> f) {
  const auto* p = f.get();
  return wrap(python_ufunc{nullptr, p, std::move(f)});
}

void bind_ufunc(nb::module_& m) {
  nb::class_<python_ufunc>(m, "ufunc", nb::dynamic_attr(), nb::type_slots(ufunc_slots),
                           "A universal function of the ufunc library, called as NumPy's ufuncs are: NumPy's "
                           "keywords, broadcasting, NEP 50 scalars, the methods reduce, accumulate, reduceat, outer "
                           "and at; target= ('cpu', 'parallel', 'cuda') and stream= choose where it runs.")
      .def(
          "reduce",
          [](const python_ufunc& self, nb::handle array, nb::handle axis, nb::handle dtype, nb::handle out,
             nb::handle keepdims, nb::handle initial, nb::handle where, nb::handle target, nb::handle stream) {
            parsed_call call;
            method_target(call, target, stream);
            const bool traced = is_traced(array);  // inside ufunc.fuse: the fused function's reduction
            const auto a = traced ? ufunc::array() : call.context.input_array(array);
            reduce_options o;
            o.axis = axes_of(axis);
            if (!dtype.is_none()) o.dtype = from_object(dtype);
            if (!out.is_none()) {
              nb::handle o_obj = PyTuple_Check(out.ptr()) ? nb::handle(nb::borrow<nb::tuple>(out)[0]) : out;
              o.out = call.context.output_array(o_obj);
            }
            o.keepdims = PyObject_IsTrue(keepdims.ptr()) == 1;
            o.initial = initial_of(initial);
            if (!(PyBool_Check(where.ptr()) && where.ptr() == Py_True)) o.where = call.context.input_array(where);
            o.target = call.options.target;
            o.stream = call.options.stream;
            if (traced) return trace_reduce(*self.function, array, o);
            ufunc::array r;
            {
              nb::gil_scoped_release unlocked;
              r = self.function->reduce(a, o);
            }
            return to_python(r, call.context);
          },
          nb::arg("array"), nb::arg("axis").none() = 0, nb::arg("dtype").none() = nb::none(),
          nb::arg("out").none() = nb::none(), nb::arg("keepdims") = nb::bool_(false),
          nb::arg("initial").none() = nb::none(), nb::arg("where").none() = true, nb::arg("target").none() = nb::none(),
          nb::arg("stream").none() = nb::none(),
          "Reduces array's dimensions by applying the ufunc along axis (as numpy.ufunc.reduce).")
      .def(
          "accumulate",
          [](const python_ufunc& self, nb::handle array, nb::handle axis, nb::handle dtype, nb::handle out,
             nb::handle target, nb::handle stream) {
            parsed_call call;
            method_target(call, target, stream);
            const auto a = call.context.input_array(array);
            const auto o = accumulate_options_of(call, axis, dtype, out, "accumulate");
            ufunc::array r;
            {
              nb::gil_scoped_release unlocked;
              r = self.function->accumulate(a, o);
            }
            return to_python(r, call.context, true);
          },
          nb::arg("array"), nb::arg("axis").none() = 0, nb::arg("dtype").none() = nb::none(),
          nb::arg("out").none() = nb::none(), nb::arg("target").none() = nb::none(),
          nb::arg("stream").none() = nb::none(),
          "Accumulates the ufunc's results along axis (as numpy.ufunc.accumulate).")
      .def(
          "reduceat",
          [](const python_ufunc& self, nb::handle array, nb::handle indices, nb::handle axis, nb::handle dtype,
             nb::handle out, nb::handle target, nb::handle stream) {
            parsed_call call;
            method_target(call, target, stream);
            const auto a = call.context.input_array(array);
            const auto idx = call.context.input_array(indices);
            const auto o = accumulate_options_of(call, axis, dtype, out, "reduceat");
            ufunc::array r;
            {
              nb::gil_scoped_release unlocked;
              r = self.function->reduceat(a, idx, o);
            }
            return to_python(r, call.context, true);
          },
          nb::arg("array"), nb::arg("indices"), nb::arg("axis").none() = 0, nb::arg("dtype").none() = nb::none(),
          nb::arg("out").none() = nb::none(), nb::arg("target").none() = nb::none(),
          nb::arg("stream").none() = nb::none(),
          "Reduces slices array[indices[i]:indices[i+1]] along axis (as numpy.ufunc.reduceat).")
      .def(
          "outer",
          [](const python_ufunc& self, nb::args args, nb::kwargs kwargs) {
            const auto& f = *self.function;
            if (f.nin() != 2) throw value_error("outer product only supported for binary functions");
            parsed_call call;
            parse_call(call, f.name(), 2, f.nout(), args, kwargs);
            std::vector<ufunc::array> results;
            {
              nb::gil_scoped_release unlocked;
              results = f.outer_all(call.inputs[0], call.inputs[1], call.options);
            }
            return results_to_python(results, call);
          },
          "The ufunc on every pair of A's and B's elements: shape A.shape + B.shape (as numpy.ufunc.outer).")
      .def(
          "at",
          [](const python_ufunc& self, nb::handle a, nb::handle indices, nb::handle b, nb::handle target,
             nb::handle stream) {
            const auto& f = *self.function;
            parsed_call call;
            method_target(call, target, stream);
            const auto target_array = call.context.output_array(a);
            std::vector<ufunc::array> index;
            for (nb::handle h : at_index_arrays(target_array, indices)) index.push_back(call.context.input_array(h));
            if (f.nin() == 1) {
              if (!b.is_none()) throw value_error("second operand provided when ufunc is unary");
              nb::gil_scoped_release unlocked;
              f.at(target_array, index, call.options);
            } else {
              if (b.is_none()) throw value_error("second operand needed for ufunc");
              const auto operand = call.context.input(b);
              nb::gil_scoped_release unlocked;
              f.at(target_array, index, operand, call.options);
            }
          },
          nb::arg("a"), nb::arg("indices"), nb::arg("b").none() = nb::none(), nb::arg("target").none() = nb::none(),
          nb::arg("stream").none() = nb::none(),
          "a[indices] = ufunc(a[indices], b) in place, unbuffered: repeated indices apply repeatedly (as "
          "numpy.ufunc.at).")
      .def_prop_ro("nin", [](const python_ufunc& s) { return s.function->nin(); })
      .def_prop_ro("nout", [](const python_ufunc& s) { return s.function->nout(); })
      .def_prop_ro("nargs", [](const python_ufunc& s) { return s.function->nargs(); })
      .def_prop_ro("ntypes", [](const python_ufunc& s) { return s.function->ntypes(); })
      .def_prop_ro("types", [](const python_ufunc& s) { return s.function->types(); })
      .def_prop_ro("signature", [](const python_ufunc&) { return nb::none(); })
      .def_prop_ro("identity",
                   [](const python_ufunc& s) {
                     const auto& id = s.function->identity();
                     return id ? scalar_to_python(*id) : nb::none();
                   })
      .def(
          "resolve_dtypes",
          [](const python_ufunc& s, nb::tuple dtypes) {
            const auto& f = *s.function;
            if (static_cast<int>(dtypes.size()) != f.nargs())
              throw value_error("resolve_dtypes: " + std::to_string(f.nargs()) +
                                " dtypes are needed (inputs and outputs)");
            std::vector<dtype> inputs;
            for (int i = 0; i < f.nin(); ++i) inputs.push_back(from_object(dtypes[static_cast<std::size_t>(i)]));
            const auto types = f.resolve(inputs);
            nb::list l;
            for (int i = 0; i < types.nargs(); ++i) l.append(to_numpy_dtype(types[i]));
            return nb::tuple(l);
          },
          nb::arg("dtypes"), "The loop's dtypes for these input dtypes (as numpy.ufunc.resolve_dtypes; outputs None).")
      .def("__repr__", [](const python_ufunc& s) { return "<ufunc '" + s.function->name() + "'>"; });

  m.def(
      "builtin",
      [](std::string_view name) {
        const auto* f = find_builtin(name);
        if (f == nullptr) throw value_error("no built-in ufunc is called '" + std::string(name) + "'");
        return wrap_ufunc(*f);
      },
      nb::arg("name"), "The built-in ufunc of this name (NumPy's names and aliases).");
  m.def("builtin_names", [] {
    std::vector<std::string> names;
    for (const auto& f : builtin_ufuncs()) names.push_back(f.get().name());
    return names;
  });
  m.def(
      "simd_arch", [] { return std::string(ufunc::simd_arch()); },
      "The instruction set of the built-in loops on this CPU ('avx512bw', 'avx2', 'sse4_2' or 'baseline').");
}

}  // namespace ufunc::python
