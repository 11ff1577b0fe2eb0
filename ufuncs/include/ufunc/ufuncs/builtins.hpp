// The ufuncs that ship compiled into the library, with NumPy's names, loop tables
// and semantics. Their inner loops are compiled for SSE4.2, AVX2 and AVX-512 and
// chosen for the running CPU.
//
//   auto c = ufunc::add(a, b);                    // as np.add(a, b)
//   ufunc::multiply(a, 2, {.out = {a}});         // in place, as np.multiply(a, 2, out=a)
//   ufunc::sin->types();                          // {"f->f", "d->d", "F->F", "D->D"}
#pragma once

#include <string_view>

#include <ufunc/ufuncs/lazy_function.hpp>

namespace ufunc {

namespace detail {
const function& builtin_add();
const function& builtin_subtract();
const function& builtin_multiply();
const function& builtin_square();
const function& builtin_sin();
}  // namespace detail

inline constexpr lazy_function add{&detail::builtin_add};
inline constexpr lazy_function subtract{&detail::builtin_subtract};
inline constexpr lazy_function multiply{&detail::builtin_multiply};
inline constexpr lazy_function square{&detail::builtin_square};
inline constexpr lazy_function sin{&detail::builtin_sin};

/// The instruction set the built-in ufuncs' loops use on this CPU: "avx512bw",
/// "avx2", "sse4_2" or "baseline". The UFUNC_SIMD_ARCH environment variable caps
/// it (set it to "avx2" to test the AVX2 loops on an AVX-512 machine).
[[nodiscard]] std::string_view simd_arch();

}  // namespace ufunc
