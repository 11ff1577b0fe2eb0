// The size sweep with xtensor expressions, as a C++ user of xtensor writes them (xt::noalias(c) = a + b): the
// peer from the C++ side. Same cases, data, timing and output as sweep_bench.cpp (sweep_common.hpp); impl name
// "xtensor". Built by bench/CMakeLists.txt only when find_package(xtensor) succeeds (Debian: libxtensor-dev),
// with xsimd (XTENSOR_USE_XSIMD) and the flags of UFUNC_BENCH_XTENSOR_FLAGS (default -march=native: xtensor
// has no run-time dispatch, so a user who wants its SIMD builds for the machine).
//
//   xtensor_bench [--min-log2 K] [--max-log2 K] [--min-time S] [--cases ...] [--dtypes ...]
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xtensor_config.hpp>
#include <xtensor/xview.hpp>

#include "sweep_common.hpp"

#ifndef BENCH_XTENSOR_FLAGS
#define BENCH_XTENSOR_FLAGS "?"
#endif

namespace sweep {
namespace {

template <class T>
constexpr const char* dtype_name() {
  return sizeof(T) == 4 ? "f32" : "f64";
}

template <class T>
void plain_reference(const std::string& c, const xt::xtensor<T, 1>& a, const xt::xtensor<T, 1>& a2,
                     const xt::xtensor<T, 1>& b, T* ref, std::int64_t n, std::int64_t r) {
  if (c == "add")
    for (std::int64_t i = 0; i < n; ++i) ref[i] = a[i] + b[i];
  if (c == "square")
    for (std::int64_t i = 0; i < n; ++i) ref[i] = a[i] * a[i];
  if (c == "sin")
    for (std::int64_t i = 0; i < n; ++i) ref[i] = std::sin(a[i]);
  if (c == "exp")
    for (std::int64_t i = 0; i < n; ++i) ref[i] = std::exp(a[i]);
  if (c == "bcast")
    for (std::int64_t i = 0; i < n; ++i) ref[i] = a[i / r] + b[i % r];
  if (c == "strided")
    for (std::int64_t i = 0; i < n; ++i) ref[i] = a2[2 * i] + b[i];
}

template <class T>
void run_size(const options& o, std::int64_t n, progress& prog, slow_guard& guard) {
  const std::string dt = dtype_name<T>();
  const auto un = static_cast<std::size_t>(n);
  const auto r = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(n))));
  xt::xtensor<T, 1> a2 = xt::empty<T>({2 * un}), a = xt::empty<T>({un}), b = xt::empty<T>({un});
  xt::xtensor<T, 1> c = xt::zeros<T>({un}), ref = xt::zeros<T>({un});
  for (std::size_t i = 0; i < 2 * un; ++i) a2[i] = value_a<T>(static_cast<std::int64_t>(i));
  for (std::size_t i = 0; i < un; ++i) a[i] = value_a<T>(static_cast<std::int64_t>(i)), b[i] = value_b<T>(i);
  xt::xtensor<T, 2> col = xt::empty<T>({r, std::size_t{1}}), row = xt::empty<T>({std::size_t{1}, r});
  for (std::size_t i = 0; i < r; ++i) col(i, 0) = a[i], row(0, i) = b[i];
  auto c2d = xt::adapt(c.data(), un, xt::no_ownership(), std::array<std::size_t, 2>{r, r});
  auto every_second = xt::view(a2, xt::range(0, 2 * un, 2));

  for (const auto& cs : o.cases) {
    if (cs == "call1024" || cs == "copy") continue;
    prog.step(dt, n, cs);
    if ((cs == "bcast" && r * r != un) || guard.skip(cs, dt, "xtensor")) continue;
    const std::string what = cs + " " + dt + " n=" + std::to_string(n) + " xtensor";
    if (cs == "sum") {
      long double s = 0, abs_s = 0;
      for (std::size_t i = 0; i < un; ++i) s += a[i], abs_s += std::fabs(static_cast<long double>(a[i]));
      T got{};
      const double t = seconds_per_call(o, [&] {
        got = xt::sum(a)();
        keep(got);
      });
      emit(cs, dt, n, "xtensor", t, bytes_moved(cs, n, sizeof(T)));
      guard.record(cs, dt, "xtensor", n, t);
      const double err = std::fabs(static_cast<double>(got - s)) / std::max(1.0, static_cast<double>(abs_s));
      const bool ok = err <= tolerance<T>("sum");
      std::printf("# check,%s,%s,rel_err_vs_sum_abs=%g\n", what.c_str(), ok ? "ok" : "FAIL", err);
      g_check_failures += !ok;
      continue;
    }
    plain_reference<T>(cs, a, a2, b, ref.data(), n, static_cast<std::int64_t>(r));
    std::fill(c.begin(), c.end(), std::numeric_limits<T>::quiet_NaN());
    double t = -1;
    if (cs == "add") t = seconds_per_call(o, [&] { xt::noalias(c) = a + b; });
    if (cs == "square") t = seconds_per_call(o, [&] { xt::noalias(c) = xt::square(a); });
    if (cs == "sin") t = seconds_per_call(o, [&] { xt::noalias(c) = xt::sin(a); });
    if (cs == "exp") t = seconds_per_call(o, [&] { xt::noalias(c) = xt::exp(a); });
    if (cs == "bcast") t = seconds_per_call(o, [&] { xt::noalias(c2d) = col + row; });
    if (cs == "strided") t = seconds_per_call(o, [&] { xt::noalias(c) = every_second + b; });
    if (t < 0) {
      note("skip", "xtensor: unknown case '" + cs + "'");
      continue;
    }
    emit(cs, dt, n, "xtensor", t, bytes_moved(cs, n, sizeof(T)));
    guard.record(cs, dt, "xtensor", n, t);
    check(what, c.data(), ref.data(), n, tolerance<T>(cs));
  }
}

template <class T>
void run_call1024(const options& o) {
  const std::size_t n = 1024;
  xt::xtensor<T, 1> a = xt::empty<T>({n}), b = xt::empty<T>({n});
  for (std::size_t i = 0; i < n; ++i) a[i] = value_a<T>(i), b[i] = value_b<T>(i);
  const double t = seconds_per_call(o, [&] {
    xt::xtensor<T, 1> c = a + b;  // allocating, as np.add(a, b)
    keep(c);
  });
  emit("call1024", dtype_name<T>(), 1024, "xtensor", t, bytes_moved("call1024", 1024, sizeof(T)));
}

}  // namespace
}  // namespace sweep

int main(int argc, char** argv) {
  using namespace sweep;
  options o;
  for (int i = 1; i < argc; ++i) {
    if (!parse_common(o, argc, argv, i)) {
      std::fprintf(stderr, "usage: %s %s\n", argv[0], usage_common());
      return 2;
    }
  }
  meta("xtensor", std::to_string(XTENSOR_VERSION_MAJOR) + "." + std::to_string(XTENSOR_VERSION_MINOR) + "." +
                      std::to_string(XTENSOR_VERSION_PATCH));
#if defined(XTENSOR_USE_XSIMD)
  meta("xtensor_simd", std::string("xsimd ") + xsimd::default_arch::name());
#else
  meta("xtensor_simd", "none (XTENSOR_USE_XSIMD not defined)");
#endif
  meta("xtensor_flags", BENCH_XTENSOR_FLAGS);
  std::fflush(stdout);
  progress prog("xtensor_bench", o, /*copy_step=*/false);
  slow_guard guard(o.max_call_time);
  for (const auto& dt : o.dtypes) {
    for (auto n : o.sizes()) {
      if (dt == "f32") run_size<float>(o, n, prog, guard);
      if (dt == "f64") run_size<double>(o, n, prog, guard);
    }
    if (o.wants_case("call1024")) {
      prog.step(dt, 1024, "call1024");
      if (dt == "f32") run_call1024<float>(o);
      if (dt == "f64") run_call1024<double>(o);
    }
  }
  prog.finish();
  return g_check_failures == 0 ? 0 : 1;
}
