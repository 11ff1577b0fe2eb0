// Our thin layer over xsimd: the only header that includes it. It must build with
// xsimd 8.1 (Debian 12) as well as newer releases.
#pragma once

#include <cstdint>
#include <type_traits>

#include <xsimd/xsimd.hpp>

namespace ufunc::simd {

/// The widest instruction set the including translation unit is compiled for.
using default_arch = xsimd::default_arch;

template <class T, class Arch = default_arch>
using batch = xsimd::batch<T, Arch>;

/// Whether xsimd has registers for T on Arch (bool and complex use the scalar path).
template <class T, class Arch>
inline constexpr bool has_batch =
    std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && xsimd::types::has_simd_register<T, Arch>::value;

/// Elementwise choice that works for scalars and batches alike, so one functor body
/// serves both paths: select(x > 0, x, -x).
template <class T>
constexpr T select(bool condition, T a, T b) noexcept {
  return condition ? a : b;
}
using xsimd::select;

/// True if any lane (or the scalar) is true; lets data-dependent loops run on batches.
constexpr bool any(bool b) noexcept { return b; }
using xsimd::any;

}  // namespace ufunc::simd
