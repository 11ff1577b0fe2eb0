// The README's functor style, compiled for the cuda target: a generic functor whose math is
// written unqualified (`using std::sqrt; return sqrt(x);`) so that xsimd's functions serve
// the host SIMD loops and CUDA's the device. ctest builds this file and fails on any warning
// (nvcc used to warn #20014-D "calling a __host__ function from a __host__ __device__
// function" for the host SIMD instantiation).
#include <cmath>

#include <ufunc/ufunc.hpp>

struct hypotenuse {
  template <class T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    using std::sqrt;
    return sqrt(a * a + b * b);
  }
};

struct soft_sign {
  template <class T>
  UFUNC_HOST_DEVICE T operator()(T x) const {
    using std::abs;
    return x / (T(1) + abs(x));
  }
};

int main() {
  auto hyp = ufunc::vectorize<ufunc::signatures<float(float, float), double(double, double)>, ufunc::target::cuda>(
      hypotenuse{}, "hyp");
  auto soft = ufunc::vectorize<float(float), ufunc::target::cuda>(soft_sign{}, "soft_sign");
  auto x = ufunc::full<float>({8}, 3.0f);
  auto y = ufunc::full<float>({8}, 4.0f);
  // Host loops too: the same object runs on the cpu target when a call names it.
  auto h = hyp(x, y, {.target = ufunc::target_id::cpu});
  auto s = soft(x, {.target = ufunc::target_id::cpu});
  return h.at(0) == 5.0f && s.at(0) == 0.75f ? 0 : 1;
}
