// The built-in ufuncs the runner finds by name (ufunc_differential --list, and each case's
// ufunc). <ufunc/ufuncs/builtins.hpp> is to declare ufunc::find_builtin(std::string_view)
// and ufunc::builtin_ufuncs(); until it does, the templates of diff_shim stand in for them
// over the five original handles. Overload resolution prefers the library's (non-template)
// functions as soon as they exist, so nothing here has to change when they land.
#pragma once

#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <ufunc/ufunc.hpp>

namespace diff_shim {
struct shim_ptr {
  const ufunc::function* p;
  operator const ufunc::function*() const { return p; }  // NOLINT(google-explicit-constructor)
};
template <class = void>
shim_ptr find_builtin(std::string_view name) {
  if (name == "add") return {&ufunc::add.get()};
  if (name == "subtract") return {&ufunc::subtract.get()};
  if (name == "multiply") return {&ufunc::multiply.get()};
  if (name == "square") return {&ufunc::square.get()};
  if (name == "sin") return {&ufunc::sin.get()};
  return {nullptr};
}
template <class = void>
std::span<const ufunc::lazy_function> builtin_ufuncs() {
  static constexpr ufunc::lazy_function list[] = {ufunc::add, ufunc::subtract, ufunc::multiply, ufunc::square,
                                                  ufunc::sin};
  return list;
}
}  // namespace diff_shim

namespace diff_registry {
using namespace ufunc;      // NOLINT(google-build-using-namespace): the library's find_builtin, if declared
using namespace diff_shim;  // NOLINT(google-build-using-namespace): else the stand-in
inline const ufunc::function* lookup(std::string_view name) { return find_builtin(name); }
/// NumPy's built-in gufunc called `name` (matmul, vecdot, matvec, vecmat), or null.
inline const ufunc::gufunc::function* lookup_gufunc(std::string_view name) {
  for (const ufunc::lazy_gufunc& g : {ufunc::matmul, ufunc::vecdot, ufunc::matvec, ufunc::vecmat})
    if (g->name() == name) return &g.get();
  return nullptr;
}
inline constexpr bool from_library = !std::is_same_v<decltype(find_builtin(std::string_view{})), diff_shim::shim_ptr>;
inline std::vector<const ufunc::function*> all() {
  std::vector<const ufunc::function*> out;
  for (const auto& h : builtin_ufuncs()) {
    const ufunc::function& f = h;
    out.push_back(&f);
  }
  return out;
}
}  // namespace diff_registry
