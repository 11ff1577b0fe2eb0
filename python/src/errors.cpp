#include "errors.hpp"

#include <string>
#include <string_view>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <ufunc/core/error.hpp>
#include <ufunc/core/errstate.hpp>

namespace ufunc::python {

namespace {

// The module's exception classes (made in bind_errors, alive as long as the module).
PyObject* no_loop_class = nullptr;
PyObject* casting_class = nullptr;
PyObject* target_class = nullptr;
PyObject* compile_class = nullptr;
PyObject* cache_class = nullptr;
PyObject* axis_error_class = nullptr;  // numpy.exceptions.AxisError

PyObject* new_exception(nb::module_& m, const char* name, PyObject* base, const char* doc) {
  const std::string qualified = std::string("ufunc.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (cls == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(cls);
  return cls;
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const broadcast_error& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const no_loop_error& e) {
    PyErr_SetString(no_loop_class, e.what());
  } catch (const casting_error& e) {
    PyErr_SetString(casting_class, e.what());
  } catch (const dtype_error& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const overlap_error& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const index_error& e) {
    // NumPy raises AxisError (a ValueError and an IndexError) for an axis out of range ("axis 5 is
    // out of bounds for array of dimension 2"), IndexError for indices ("index 9 is out of bounds
    // for axis 0 with size 9").
    const std::string_view what = e.what();
    const bool axis = what.find("for array of dimension") != std::string_view::npos;
    PyErr_SetString(axis ? axis_error_class : PyExc_IndexError, e.what());
  } catch (const overflow_error& e) {
    PyErr_SetString(PyExc_OverflowError, e.what());
  } catch (const value_error& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const target_error& e) {
    PyErr_SetString(target_class, e.what());
  } catch (const floating_point_error& e) {
    PyErr_SetString(PyExc_FloatingPointError, e.what());
  } catch (const memory_error& e) {
    PyErr_SetString(PyExc_MemoryError, e.what());
  } catch (const compile_error& e) {
    PyErr_SetString(compile_class, e.what());
  } catch (const cache_error& e) {
    PyErr_SetString(cache_class, e.what());
  } catch (const ufunc::error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

fp_policy policy_of(const std::string& name) {
  if (name == "ignore") return fp_policy::ignore;
  if (name == "warn") return fp_policy::warn;
  if (name == "raise") return fp_policy::raise;
  if (name == "call" || name == "log") return fp_policy::call;
  if (name == "print") return fp_policy::print;
  throw value_error("invalid floating-point error policy '" + name +
                    "' (ignore, warn, raise, call, print or log, as numpy.seterr)");
}

const char* name_of(fp_policy p) {
  switch (p) {
    case fp_policy::ignore:
      return "ignore";
    case fp_policy::warn:
      return "warn";
    case fp_policy::raise:
      return "raise";
    case fp_policy::call:
      return "call";
    case fp_policy::print:
      return "print";
  }
  return "ignore";
}

nb::dict as_dict(const fp_errors& e) {
  nb::dict d;
  d["divide"] = name_of(e.divide);
  d["over"] = name_of(e.over);
  d["under"] = name_of(e.under);
  d["invalid"] = name_of(e.invalid);
  return d;
}

// The calling thread's seterrcall object (a callable for NumPy's 'call', an object with write for
// 'log'): a strong reference, left to the process where a thread ends with one set.
thread_local PyObject* errcall_object = nullptr;

nb::object errcall() { return errcall_object != nullptr ? nb::borrow(errcall_object) : nb::none(); }

}  // namespace

void raise_current_exception() noexcept {
  try {
    throw;
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const nb::builtin_exception& e) {
    PyObject* type = PyExc_RuntimeError;
    switch (e.type()) {
      case nb::exception_type::index_error:
        type = PyExc_IndexError;
        break;
      case nb::exception_type::key_error:
        type = PyExc_KeyError;
        break;
      case nb::exception_type::value_error:
        type = PyExc_ValueError;
        break;
      case nb::exception_type::type_error:
        type = PyExc_TypeError;
        break;
      case nb::exception_type::buffer_error:
        type = PyExc_BufferError;
        break;
      case nb::exception_type::attribute_error:
        type = PyExc_AttributeError;
        break;
      default:
        break;
    }
    PyErr_SetString(type, e.what());
  } catch (const std::bad_cast&) {
    PyErr_SetString(PyExc_TypeError, "an argument has the wrong type");
  } catch (const ufunc::error&) {
    translate(std::current_exception(), nullptr);
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_SystemError, "an unknown C++ exception left ufunc");
  }
}

void bind_errors(nb::module_& m) {
  axis_error_class = nb::module_::import_("numpy.exceptions").attr("AxisError").ptr();
  Py_INCREF(axis_error_class);
  no_loop_class = new_exception(m, "UFuncNoLoopError", PyExc_TypeError,
                                "No loop of the ufunc takes the operands' dtypes (NumPy's _UFuncNoLoopError).");
  casting_class = new_exception(m, "UFuncCastingError", PyExc_TypeError,
                                "A cast the casting rule forbids (NumPy's _UFuncInputCastingError and "
                                "_UFuncOutputCastingError).");
  target_class = new_exception(m, "TargetError", PyExc_ValueError,
                               "A target that is unknown, not built into this module, or without a device.");
  compile_class = new_exception(m, "CompileError", PyExc_RuntimeError,
                                "A kernel's source did not compile; the message has the compiler's log and the "
                                "source with line numbers.");
  cache_class = new_exception(m, "CacheError", PyExc_OSError, "The kernel cache's folder cannot be used.");
  nb::register_exception_translator(translate);

  // RuntimeWarning through Python's warnings module; under -W error (or a filter that raises) the
  // warning's exception leaves the ufunc call.
  ufunc::set_warning_handler([](std::string_view message) {
    nb::gil_scoped_acquire gil;
    const std::string text(message);
    if (PyErr_WarnEx(PyExc_RuntimeWarning, text.c_str(), 1) != 0) throw nb::python_error();
  });

  m.def(
      "seterr",
      [](std::optional<std::string> all, std::optional<std::string> divide, std::optional<std::string> over,
         std::optional<std::string> under, std::optional<std::string> invalid) {
        fp_errors next = ufunc::geterr();
        if (all) next.divide = next.over = next.under = next.invalid = policy_of(*all);
        if (divide) next.divide = policy_of(*divide);
        if (over) next.over = policy_of(*over);
        if (under) next.under = policy_of(*under);
        if (invalid) next.invalid = policy_of(*invalid);
        return as_dict(ufunc::seterr(next));
      },
      nb::arg("all") = nb::none(), nb::arg("divide") = nb::none(), nb::arg("over") = nb::none(),
      nb::arg("under") = nb::none(), nb::arg("invalid") = nb::none(),
      "Sets the calling thread's floating-point error policies; returns the previous ones (as numpy.seterr).");
  m.def(
      "geterr", [] { return as_dict(ufunc::geterr()); },
      "The calling thread's floating-point error policies (as numpy.geterr).");
  m.def(
      "seterrcall",
      [](nb::object func) {
        if (!func.is_none() && !PyCallable_Check(func.ptr()) && !nb::hasattr(func, "write"))
          throw nb::type_error("seterrcall: a callable (for 'call') or an object with a write method (for 'log')");
        nb::object previous = errcall();
        Py_XDECREF(errcall_object);
        errcall_object = func.is_none() ? nullptr : func.inc_ref().ptr();
        if (func.is_none()) {
          ufunc::seterrcall({});
        } else {
          ufunc::seterrcall([](std::string_view what, unsigned flags) {
            nb::gil_scoped_acquire gil;
            const nb::object target = errcall();
            if (target.is_none()) return;
            const std::string text(what);
            if (PyCallable_Check(target.ptr())) {
              // NumPy passes the kind of error alone ("divide by zero") and the flags.
              const auto cut = text.find(" encountered");
              target(text.substr(0, cut), flags);
            } else {
              target.attr("write")("Warning: " + text + "\n");
            }
          });
        }
        return previous;
      },
      nb::arg("func").none(),
      "Sets the calling thread's error callback; returns the previous one (as numpy.seterrcall).");
  m.def("geterrcall", [] { return errcall(); });
}

}  // namespace ufunc::python
