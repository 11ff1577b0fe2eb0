// The runner's vectorize'd ufuncs. In CUDA builds tests/differential/CMakeLists.txt compiles
// this file (alone of the runner's) as CUDA: the functors are then __host__ __device__
// (UFUNC_HOST_DEVICE) and the ufuncs are made for target::cuda, which gives them device
// loops besides the host loops every vectorize'd ufunc has (the runner names the target
// of each call). Elsewhere UFUNC_HOST_DEVICE is empty and they are target::cpu ufuncs.
#include "user_ufuncs.hpp"

#include <cmath>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include <ufunc/ufunc.hpp>

namespace differential {
namespace {

#if defined(UFUNC_HAS_CUDA) && defined(__CUDACC__)
using user_target = ufunc::target::cuda;
constexpr bool has_device_loops = true;
#else
using user_target = ufunc::target::cpu;
constexpr bool has_device_loops = false;
#endif

struct fma_fn {  // a * b + c, two roundings (NumPy: add(multiply(a, b), c))
  template <class T>
  UFUNC_HOST_DEVICE T operator()(T a, T b, T c) const {
    return a * b + c;  // CUDA builds compile this file with --fmad=false: no contraction to an FMA
  }
};
// clang-format 14 would join the requires-clauses onto the declarations.
// clang-format off
struct relu_fn {  // x > 0 ? x * s : 0, a branch: scalar loop only
  template <class T>
    requires std::is_arithmetic_v<T>
  UFUNC_HOST_DEVICE T operator()(T x, T s) const {
    return x > T(0) ? static_cast<T>(x * s) : T(0);
  }
};
struct split_fn {  // (fractional part, integral part), as np.modf: two outputs
  template <class T>
    requires std::is_floating_point_v<T>
  UFUNC_HOST_DEVICE std::tuple<T, T> operator()(T x) const {
    T whole;
#if defined(__CUDACC__)
    // CUDA's math library declares modff/modf for host and device; std::modf is host only.
    T frac;
    if constexpr (std::is_same_v<T, float>)
      frac = ::modff(x, &whole);
    else
      frac = ::modf(x, &whole);
#else
    const T frac = std::modf(x, &whole);
#endif
    return {frac, whole};
  }
};
// clang-format on

}  // namespace

const ufunc::function* user_ufunc(std::string_view name) {
  static const auto fma =
      ufunc::vectorize<ufunc::signatures<float(float, float, float), double(double, double, double)>, user_target>(
          fma_fn{}, "diff_fma");
  static const auto relu =
      ufunc::vectorize<ufunc::signatures<std::int32_t(std::int32_t, std::int32_t), double(double, double)>,
                       user_target>(ufunc::scalar_only{relu_fn{}}, "diff_relu");
  static const auto split =
      ufunc::vectorize<ufunc::signatures<std::tuple<float, float>(float), std::tuple<double, double>(double)>,
                       user_target>(split_fn{}, "diff_split");
  if (name == "diff_fma") return &fma.ufunc();
  if (name == "diff_relu") return &relu.ufunc();
  if (name == "diff_split") return &split.ufunc();
  return nullptr;
}

bool user_device_loops() { return has_device_loops; }

}  // namespace differential
