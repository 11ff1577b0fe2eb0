// ufunc.from_c_function: a ufunc whose loop calls a C function of scalars, for the cpu and parallel
// targets: a Numba @cfunc (its .address), a ctypes or cffi function pointer. The function is called
// once per element, so the library's broadcasting, casting, out=, where=, methods and multicore
// target come with it (Numba's @vectorize without Numba's ufunc machinery).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <ufunc/backends/cpu/loops.hpp>
#include <ufunc/core/error.hpp>

#include "operands.hpp"
#include "python_ufunc.hpp"

namespace ufunc::python {

namespace {

template <class R, class... A>
struct c_function_call {
  R (*fn)(A...);
  R operator()(A... a) const { return fn(a...); }
};

template <class R, class... A>
loop_entry loop_of(std::uintptr_t address) {
  return backends::cpu::make_loop<R(A...)>(c_function_call<R, A...>{reinterpret_cast<R (*)(A...)>(address)});
}

// The loops for T: T(T), T(T, T), T(T, T, T), bool(T), bool(T, T).
template <class T>
std::optional<loop_entry> loop_for(const type_signature& s, std::uintptr_t address) {
  const dtype t = dtype_of<T>;
  for (int i = 0; i < s.nin(); ++i)
    if (s.input(i) != t) return std::nullopt;
  const dtype r = s.output(0);
  if (r == t) {
    if (s.nin() == 1) return loop_of<T, T>(address);
    if (s.nin() == 2) return loop_of<T, T, T>(address);
    if (s.nin() == 3) return loop_of<T, T, T, T>(address);
  } else if (r == bool_) {
    if (s.nin() == 1) return loop_of<bool, T>(address);
    if (s.nin() == 2) return loop_of<bool, T, T>(address);
  }
  return std::nullopt;
}

// "float64(float64, float64)" (Numba's form) or "dd->d" (NumPy's).
type_signature parse_signature(std::string_view text) {
  if (text.find("->") != std::string_view::npos) return type_signature::parse(text);
  const auto open = text.find('('), close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    throw value_error("signature '" + std::string(text) +
                      "': expected Numba's form 'float64(float64, float64)' or NumPy's 'dd->d'");
  const auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  const auto dtype_named = [](std::string_view name) {
    return name == "boolean" || name == "bool_" ? bool_ : dtype::from_string(name);
  };
  std::string codes;
  std::string_view args = text.substr(open + 1, close - open - 1);
  while (!trim(args).empty()) {
    const auto comma = args.find(',');
    codes += dtype_named(trim(args.substr(0, comma))).char_code();
    if (comma == std::string_view::npos) break;
    args.remove_prefix(comma + 1);
  }
  codes += "->";
  codes += dtype_named(trim(text.substr(0, open))).char_code();
  return type_signature::parse(codes);
}

}  // namespace

void bind_c_function(nb::module_& m) {
  m.def(
      "from_c_function",
      [](std::uintptr_t address, std::string_view signature, std::string name, nb::handle identity, nb::handle keep) {
        if (address == 0) throw value_error("from_c_function: the function's address is null");
        const auto types = parse_signature(signature);
        if (types.nout() != 1) throw value_error("from_c_function: a C function has one result");
        std::optional<loop_entry> loop;
        if (!loop) loop = loop_for<float>(types, address);
        if (!loop) loop = loop_for<double>(types, address);
        if (!loop) loop = loop_for<std::int32_t>(types, address);
        if (!loop) loop = loop_for<std::int64_t>(types, address);
        if (!loop)
          throw value_error("from_c_function: signature " + types.str() +
                            " is not supported; T(T), T(T, T), T(T, T, T), bool(T) and bool(T, T) are, for T float32, "
                            "float64, int32 or int64");
        std::optional<weak_scalar> id;
        if (!identity.is_none()) {
          // A Python bool, an int of int64 or a real number (complex identities and larger ints are refused).
          int beyond_int64 = 0;
          const auto w = weak_scalar_of(identity.ptr(), beyond_int64);
          if (!w) {
            id = weak_scalar(nb::cast<double>(identity));
          } else if (beyond_int64 != 0 || w->value_kind() == weak_scalar::kind::complex) {
            throw nb::type_error("from_c_function: identity must be a bool, an int of int64 or a real number");
          } else {
            id = *w;
          }
        }
        auto f = std::make_shared<ufunc::function>(
            name, types.nin(), 1, id,
            "A ufunc over the C function at " + std::to_string(address) + " (" + types.str() + ")");
        f->add_loop(std::move(*loop));
        nb::object o = wrap_owned_ufunc(std::move(f));
        // The C function lives as long as what made it (a Numba cfunc, a ctypes library).
        o.attr("_function_owner") = keep;
        return o;
      },
      nb::arg("address"), nb::arg("signature"), nb::arg("name") = "c_function", nb::arg("identity").none() = nb::none(),
      nb::arg("owner").none() = nb::none(),
      "A ufunc over the C function of scalars at `address` with `signature` ('float64(float64, float64)' or "
      "'dd->d'), for the cpu and parallel targets. ufunc.from_cfunc(numba_cfunc) calls it for a Numba @cfunc.");
}

}  // namespace ufunc::python
