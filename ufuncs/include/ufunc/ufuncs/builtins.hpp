// The ufuncs that ship compiled into the library: NumPy 2's standard ufuncs with
// NumPy's names, loop tables and semantics (see the README's inventory). Their host
// loops are compiled for SSE4.2, AVX2 and AVX-512 and chosen for the running CPU;
// with CUDA, their device loops are compiled into the library too.
//
//   auto c = ufunc::add(a, b);                    // as np.add(a, b)
//   ufunc::multiply(a, 2, {.out = {a}});         // in place, as np.multiply(a, 2, out=a)
//   auto [q, r] = ufunc::divmod.call(...);        // several outputs
//   ufunc::sin->types();                          // {"f->f", "d->d", "F->F", "D->D"}
//   const ufunc::function* f = ufunc::find_builtin("true_divide");  // by name
#pragma once

#include <span>
#include <string_view>

#include <ufunc/ufuncs/builtin_handles.hpp>

namespace ufunc {

/// Every built-in ufunc (NumPy's names; aliases not repeated).
[[nodiscard]] inline std::span<const lazy_function> builtin_ufuncs() noexcept { return builtin_list; }

/// The built-in ufunc called `name` (NumPy's name or alias: "true_divide", "mod",
/// "abs", "conj"), or nullptr.
[[nodiscard]] const function* find_builtin(std::string_view name);

/// The instruction set the built-in ufuncs' loops use on this CPU: "avx512bw",
/// "avx2", "sse4_2" or "baseline". The UFUNC_SIMD_ARCH environment variable caps
/// it (set it to "avx2" to test the AVX2 loops on an AVX-512 machine).
[[nodiscard]] std::string_view simd_arch();

}  // namespace ufunc
