// A ufunc call's Python arguments as the library's: the operands (imported without copies), and
// NumPy's keywords (out=, where=, dtype=, signature=, casting=, order=, subok=) with ufunc's own
// (target=, stream=) as call_options. Shared by the ufunc, gufunc and kernel objects.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nanobind/nanobind.h>

#include <ufunc/core/function.hpp>

#include "errors.hpp"
#include "operands.hpp"

namespace ufunc::python {

namespace nb = nanobind;

/// The target of calls that name none (ufunc.set_target); empty: the library's default.
std::optional<target_id>& default_target();

struct parsed_call {
  import_context context;
  std::vector<ufunc::operand> inputs;
  call_options options;
  /// The objects the caller gave as outputs (returned as they are).
  bool out_given = false;
  std::string signature;  // what options.signature views
  /// Element count of the largest array operand (small calls keep the GIL: releasing it costs more).
  std::int64_t largest = 0;

  /// Whether the call's loops should run with the GIL released.
  [[nodiscard]] bool release_gil() const noexcept;
  /// `f()`, with the GIL released where release_gil() says.
  template <class F>
  auto run(F&& f) const {
    if (release_gil()) {
      nb::gil_scoped_release unlocked;
      return f();
    }
    return f();
  }
};

/// Keyword names a caller gives besides the common ones (a gufunc's axes=, axis=, keepdims=).
using extra_keyword = bool (*)(std::string_view name, nb::handle value, void* state);

/// Parses f(*args, **kwargs) for a function of `nin` inputs and `nout` outputs named `name`:
/// positional outputs after the inputs, or out=; the common keywords; `extra` sees the others
/// first (returns false for names it does not know: TypeError, as NumPy).
/// A call's arguments as either calling convention passes them: tp_call's tuple and dict, or
/// vectorcall's array with a tuple of keyword names (the values after the positional ones).
struct call_arguments {
  PyObject* const* positional = nullptr;
  Py_ssize_t npositional = 0;
  PyObject* kwnames = nullptr;  // vectorcall: a tuple, or null
  PyObject* kwdict = nullptr;   // tp_call: a dict, or null

  /// From tp_call's `args` tuple and `kwargs` dict (or null).
  static call_arguments of_tuple(PyObject* args, PyObject* kwargs) noexcept;
  /// From vectorcall's arguments.
  static call_arguments of_vector(PyObject* const* args, std::size_t nargsf, PyObject* kwnames) noexcept;
  [[nodiscard]] bool has_keywords() const noexcept;
  /// The value of keyword `name` (an interned string), or null.
  [[nodiscard]] PyObject* keyword(PyObject* name) const;
  /// Calls f(name, value) for every keyword.
  template <class F>
  void for_each_keyword(F&& f) const {
    if (kwnames != nullptr) {
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); ++i)
        f(PyTuple_GET_ITEM(kwnames, i), positional[npositional + i]);
    } else if (kwdict != nullptr) {
      Py_ssize_t pos = 0;
      PyObject* key = nullptr;
      PyObject* value = nullptr;
      while (PyDict_Next(kwdict, &pos, &key, &value)) f(key, value);
    }
  }
};

void parse_call(parsed_call& call, std::string_view name, int nin, int nout, const call_arguments& arguments,
                extra_keyword extra = nullptr, void* extra_state = nullptr);
/// `args` is a tuple, `kwargs` a dict or null.
void parse_call(parsed_call& call, std::string_view name, int nin, int nout, nb::handle args, nb::handle kwargs,
                extra_keyword extra = nullptr, void* extra_state = nullptr);

/// The body of a type slot (tp_call, vectorcall), which nanobind does not wrap: `body()`'s object, or
/// null with the Python error set from its exception.
template <class Body>
PyObject* slot_result(Body&& body) noexcept {
  try {
    return body().release().ptr();
  } catch (...) {
    raise_current_exception();
    return nullptr;
  }
}

/// One keyword of NumPy's call options (dtype, casting, order, target, stream, where, subok) into `call`; false where
/// `key` is none of them.
bool parse_option(parsed_call& call, std::string_view key, nb::handle value);

/// Sets the call's target where it names none: the module's default, else cuda when an operand
/// lives on the GPU.
void choose_target(parsed_call& call);

/// The results as Python objects: one object for one output, a tuple for several.
[[nodiscard]] nb::object results_to_python(const std::vector<ufunc::array>& results, const parsed_call& call);

}  // namespace ufunc::python
