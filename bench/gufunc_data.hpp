// The data of the gufunc benchmarks (gufunc_bench.cpp on the host, gufunc_cuda_bench.cu on the
// GPU, and the peers' scripts, which fill theirs the same way): values (i * 7919 mod 1000) / 1000.
#pragma once

#include <cstdint>

#include <ufunc/core/array.hpp>

namespace bench {

template <class T>
ufunc::array gufunc_data(const ufunc::dim_vector& shape) {
  auto a = ufunc::array::empty(shape, ufunc::dtype_of<T>);
  auto* p = reinterpret_cast<T*>(a.data());
  for (std::int64_t i = 0; i < a.size(); ++i) p[i] = static_cast<T>((i * 7919) % 1000) / T(1000);
  return a;
}

}  // namespace bench
