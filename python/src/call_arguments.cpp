#include "call_arguments.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <ufunc/core/error.hpp>

#include "attributes.hpp"
#include "dtypes.hpp"
#include "results.hpp"

namespace ufunc::python {

namespace {

constexpr std::int64_t gil_release_elements = 1 << 14;

std::string keyword_error(std::string_view key, std::string_view name) {
  return "'" + std::string(key) + "' is an invalid keyword to ufunc '" + std::string(name) + "'";
}

// A stream given as an integer handle, a CuPy stream (.ptr), a PyTorch stream (.cuda_stream) or
// an object of the CUDA stream protocol (__cuda_stream__ -> (version, handle)).
std::uintptr_t stream_handle(nb::handle s) {
  if (PyLong_Check(s.ptr())) return nb::cast<std::uintptr_t>(s);
  if (const nb::object protocol = optional_attr(s, UFUNC_PY_NAME("__cuda_stream__")); protocol.is_valid())
    return nb::cast<std::uintptr_t>(protocol()[1]);
  if (const nb::object ptr = optional_attr(s, UFUNC_PY_NAME("ptr")); ptr.is_valid())
    return nb::cast<std::uintptr_t>(ptr);
  if (const nb::object handle = optional_attr(s, UFUNC_PY_NAME("cuda_stream")); handle.is_valid())
    return nb::cast<std::uintptr_t>(handle);
  throw value_error(
      "stream= must be a CUDA stream: an integer handle, or an object with __cuda_stream__, .ptr "
      "(CuPy) or .cuda_stream (PyTorch)");
}

std::string signature_of(nb::handle value, std::optional<dtype>& dtype_out, int nin, int nout) {
  if (PyUnicode_Check(value.ptr())) return nb::cast<std::string>(value);
  if (!PyTuple_Check(value.ptr()) && !PyList_Check(value.ptr()))
    throw nb::type_error("signature= must be a string ('ff->f') or a tuple of dtypes");
  const auto items = nb::borrow<nb::sequence>(value);
  const auto n = static_cast<int>(nb::len(items));
  if (n != nin + nout)
    throw value_error("signature= has " + std::to_string(n) + " dtypes; the ufunc has " + std::to_string(nin + nout) +
                      " operands");
  std::string codes;
  int given = 0;
  for (int i = 0; i < n; ++i) {
    nb::handle item = items[static_cast<std::size_t>(i)];
    if (item.is_none()) continue;
    ++given;
    if (i == nin) codes += "->";
    codes += from_object(item).char_code();
  }
  if (given == n) {
    std::string full;
    for (int i = 0; i < n; ++i) {
      if (i == nin) full += "->";
      full += from_object(items[static_cast<std::size_t>(i)]).char_code();
    }
    return full;
  }
  // Only the output fixed: NumPy's dtype= for one output.
  bool inputs_free = true;
  for (int i = 0; i < nin; ++i) inputs_free = inputs_free && items[static_cast<std::size_t>(i)].is_none();
  if (inputs_free && nout == 1 && given == 1) {
    dtype_out = from_object(items[static_cast<std::size_t>(nin)]);
    return {};
  }
  throw value_error("signature= with some dtypes left None is supported where only the output is given");
}

}  // namespace

std::optional<target_id>& default_target() {
  static std::optional<target_id> target;
  return target;
}

bool parsed_call::release_gil() const noexcept {
  const auto t = options.target.value_or(target_id::cpu);
  return largest >= gil_release_elements || t != target_id::cpu;
}

bool parse_option(parsed_call& call, std::string_view key, nb::handle value) {
  auto& o = call.options;
  if (key == "dtype") {
    if (!value.is_none()) o.dtype = from_object(value);
  } else if (key == "casting") {
    o.casting = casting_from_string(nb::cast<std::string>(value));
  } else if (key == "order") {
    if (!value.is_none()) {
      const auto s = nb::cast<std::string>(value);
      if (s == "K" || s == "k")
        o.order = order::K;
      else if (s == "A" || s == "a")
        o.order = order::A;
      else if (s == "C" || s == "c")
        o.order = order::C;
      else if (s == "F" || s == "f")
        o.order = order::F;
      else
        throw value_error("order must be one of 'C', 'F', 'A', or 'K' (got '" + s + "')");
    }
  } else if (key == "target") {
    if (!value.is_none()) o.target = target_from_string(nb::cast<std::string>(value));
  } else if (key == "stream") {
    if (!value.is_none()) {
      const auto h = stream_handle(value);
      o.stream.handle = reinterpret_cast<void*>(h);
      call.context.stream_owner = nb::borrow(value);
      call.context.dlpack_stream = h == 0 ? 1 : static_cast<std::int64_t>(h);
    }
  } else if (key == "where") {
    if (!(PyBool_Check(value.ptr()) && value.ptr() == Py_True)) o.where = call.context.input_array(value);
  } else if (key == "subok") {
    // Results are base ndarrays (subclasses are not wrapped back); the argument is accepted as NumPy's.
  } else {
    return false;
  }
  return true;
}

void choose_target(parsed_call& call) {
  if (call.options.target) return;
  if (default_target()) {
    call.options.target = default_target();
  } else if (call.context.saw_device_array()) {
    call.options.target = target_id::cuda;
  }
}

call_arguments call_arguments::of_tuple(PyObject* args, PyObject* kwargs) noexcept {
  call_arguments a;
  a.positional = &PyTuple_GET_ITEM(args, 0);
  a.npositional = PyTuple_GET_SIZE(args);
  a.kwdict = kwargs != nullptr && PyDict_GET_SIZE(kwargs) > 0 ? kwargs : nullptr;
  return a;
}

call_arguments call_arguments::of_vector(PyObject* const* args, std::size_t nargsf, PyObject* kwnames) noexcept {
  call_arguments a;
  a.positional = args;
  a.npositional = PyVectorcall_NARGS(nargsf);
  a.kwnames = kwnames != nullptr && PyTuple_GET_SIZE(kwnames) > 0 ? kwnames : nullptr;
  return a;
}

bool call_arguments::has_keywords() const noexcept { return kwnames != nullptr || kwdict != nullptr; }

PyObject* call_arguments::keyword(PyObject* name) const {
  if (kwnames != nullptr) {
    // Keyword names are interned by the compiler: identity first, equality for names built at run time.
    const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (PyTuple_GET_ITEM(kwnames, i) == name) return positional[npositional + i];
    for (Py_ssize_t i = 0; i < n; ++i)
      if (PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, i), name) == 0) return positional[npositional + i];
    return nullptr;
  }
  if (kwdict == nullptr) return nullptr;
  PyObject* v = PyDict_GetItemWithError(kwdict, name);
  if (v == nullptr && PyErr_Occurred()) throw nb::python_error();
  return v;
}

void parse_call(parsed_call& call, std::string_view name, int nin, int nout, nb::handle args, nb::handle kwargs,
                extra_keyword extra, void* extra_state) {
  parse_call(call, name, nin, nout, call_arguments::of_tuple(args.ptr(), kwargs.ptr()), extra, extra_state);
}

void parse_call(parsed_call& call, std::string_view name, int nin, int nout, const call_arguments& arguments,
                extra_keyword extra, void* extra_state) {
  const auto n = static_cast<int>(arguments.npositional);
  constexpr int most_outputs = 8;
  if (nout > most_outputs) throw value_error("functions of more than 8 outputs are not supported from Python");
  if (n < nin || n > nin + nout) {
    throw nb::type_error((std::string(name) + "() takes from " + std::to_string(nin) + " to " +
                          std::to_string(nin + nout) + " positional arguments but " + std::to_string(n) +
                          (n == 1 ? " was given" : " were given"))
                             .c_str());
  }
  // Keywords first: stream= decides how device operands are imported.
  PyObject* out_keyword = nullptr;
  const bool has_keywords = arguments.has_keywords();
  if (has_keywords) {
    out_keyword = arguments.keyword(UFUNC_PY_NAME("out"));
    if (PyObject* stream = arguments.keyword(UFUNC_PY_NAME("stream"))) parse_option(call, "stream", stream);
  }
  call.inputs.reserve(static_cast<std::size_t>(nin));
  for (int i = 0; i < nin; ++i) {
    call.inputs.push_back(call.context.input(arguments.positional[i]));
    if (!call.inputs.back().is_scalar()) call.largest = std::max(call.largest, call.inputs.back().as_array().size());
  }
  call.context.check_python_ints(call.inputs);
  // Outputs: positional, or out= (one array, or a tuple of nout).
  nb::handle outs[most_outputs];
  int nouts = 0;
  for (int i = nin; i < n; ++i) outs[nouts++] = arguments.positional[i];
  if (out_keyword != nullptr && out_keyword != Py_None) {
    if (nouts > 0) throw nb::type_error("cannot specify 'out' as both a positional and keyword argument");
    if (PyList_Check(out_keyword)) throw nb::type_error("return arrays must be of ArrayType");
    if (PyTuple_Check(out_keyword)) {
      if (PyTuple_GET_SIZE(out_keyword) != nout)
        throw value_error("The 'out' tuple must have exactly " + std::to_string(nout) +
                          " entries: one per ufunc output");
      for (int i = 0; i < nout; ++i) outs[nouts++] = PyTuple_GET_ITEM(out_keyword, i);
    } else {
      if (nout != 1) throw nb::type_error("'out' must be a tuple of arrays for a ufunc of several outputs");
      outs[nouts++] = out_keyword;
    }
  }
  int given = 0;
  for (int i = 0; i < nouts; ++i) given += outs[i].is_none() ? 0 : 1;
  if (given > 0) {
    if (given != nouts || nouts != nout)
      throw value_error("ufunc '" + std::string(name) +
                        "': give every output in out= or none (outputs left None are not supported)");
    for (int i = 0; i < nouts; ++i) {
      call.options.out.push_back(call.context.output_array(outs[i]));
      call.largest = std::max(call.largest, call.options.out.back().size());
    }
    call.out_given = true;
  }
  if (has_keywords) {
    arguments.for_each_keyword([&](PyObject* key_object, PyObject* value) {
      const auto key = nb::cast<std::string_view>(nb::handle(key_object));
      if (key == "out" || key == "stream") return;
      if (key == "signature") {
        if (value != Py_None) {
          call.signature = signature_of(value, call.options.dtype, nin, nout);
          call.options.signature = call.signature;
        }
        return;
      }
      if (extra != nullptr && extra(key, value, extra_state)) return;
      if (!parse_option(call, key, value)) throw nb::type_error(keyword_error(key, name).c_str());
    });
  }
  if (!call.signature.empty() && call.options.dtype)
    throw nb::type_error("cannot specify both 'signature' and 'dtype'");
  choose_target(call);
}

nb::object results_to_python(const std::vector<ufunc::array>& results, const parsed_call& call) {
  if (results.size() == 1) return to_python(results[0], call.context);
  nb::list l;
  for (const auto& r : results) l.append(to_python(r, call.context));
  return nb::tuple(l);
}

}  // namespace ufunc::python
