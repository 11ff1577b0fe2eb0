// The sweep's plain C++ loops: what code written without any SIMD effort does. bench/CMakeLists.txt compiles this
// file at -O2 with no -m flags (as scalar_loops.cpp), whatever the build type says. The pointers are not
// __restrict, so the compiler cannot assume the output does not alias an input; the sum is a sequential
// accumulation (-O2 without -ffast-math may not reorder it).
#include <cmath>
#include <cstdint>

namespace sweep::plain {

template <class T>
void add(const T* a, const T* b, T* c, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

template <class T>
void square(const T* a, T* c, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] * a[i];
}

template <class T>
void sin(const T* a, T* c, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) c[i] = std::sin(a[i]);
}

template <class T>
void exp(const T* a, T* c, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) c[i] = std::exp(a[i]);
}

// C[i, j] = col[i] + row[j] for an (r, r) C.
template <class T>
void bcast(const T* col, const T* row, T* c, std::int64_t r) {
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < r; ++j) c[i * r + j] = col[i] + row[j];
}

// c[i] = a[2 i] + b[i].
template <class T>
void strided(const T* a, const T* b, T* c, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) c[i] = a[2 * i] + b[i];
}

template <class T>
T sum(const T* a, std::int64_t n) {
  T s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += a[i];
  return s;
}

// As np.add(a, b): a new (uninitialized) array per call. The caller deletes it.
template <class T>
T* add_new(const T* a, const T* b, std::int64_t n) {
  auto* c = new T[static_cast<std::size_t>(n)];
  add(a, b, c, n);
  return c;
}

#define SWEEP_INSTANTIATE(T)                                      \
  template void add<T>(const T*, const T*, T*, std::int64_t);     \
  template void square<T>(const T*, T*, std::int64_t);            \
  template void sin<T>(const T*, T*, std::int64_t);               \
  template void exp<T>(const T*, T*, std::int64_t);               \
  template void bcast<T>(const T*, const T*, T*, std::int64_t);   \
  template void strided<T>(const T*, const T*, T*, std::int64_t); \
  template T sum<T>(const T*, std::int64_t);                      \
  template T* add_new<T>(const T*, const T*, std::int64_t);
SWEEP_INSTANTIATE(float)
SWEEP_INSTANTIATE(double)
#undef SWEEP_INSTANTIATE

}  // namespace sweep::plain
