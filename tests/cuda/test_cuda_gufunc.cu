// Generalized ufuncs on the cuda target: the built-in gufuncs (matmul, vecdot, matvec,
// vecmat) on device arrays and host-in/host-out against the cpu target, every dtype; a
// gvectorize'd __host__ __device__ function (Numba's moving average, an output-only frozen
// core dimension); and the mistakes peers shipped: loop dimensions that do not broadcast on
// the GPU, scalar outputs "()" whose writes are lost, outputs silently broadcast, core
// dimensions broadcast by mistake; strided, transposed and negative-stride cores; size-0
// loops and cores; placement errors.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <ufunc/core/transfer.hpp>
#include <ufunc/gvectorize.hpp>
#include <ufunc/ufunc.hpp>

namespace {

constexpr auto on_cpu = ufunc::target_id::cpu;
constexpr auto on_gpu = ufunc::target_id::cuda;

// Values in [-2, 2] (imaginary parts too), integers in [-3, 3] (0/1 for bool, 0..5 unsigned).
ufunc::array random_array(const ufunc::dim_vector& shape, ufunc::dtype t, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::uniform_int_distribution<int> small(-3, 3), bit(0, 1), positive(0, 5);
  auto real = ufunc::array::empty(shape, ufunc::float64), imag = ufunc::array::empty(shape, ufunc::float64);
  auto* re = reinterpret_cast<double*>(real.data());
  auto* im = reinterpret_cast<double*>(imag.data());
  for (std::int64_t i = 0; i < real.size(); ++i) {
    if (t == ufunc::bool_) {
      re[i] = bit(gen);
    } else if (t.is_integer()) {
      re[i] = t.kind() == ufunc::dtype_kind::unsigned_int ? positive(gen) : small(gen);
    } else {
      re[i] = u(gen);
    }
    im[i] = u(gen);
  }
  if (!t.is_complex()) return real.astype(t);
  auto z = ufunc::array::empty(shape, ufunc::complex128);
  auto* p = reinterpret_cast<std::complex<double>*>(z.data());
  for (std::int64_t i = 0; i < z.size(); ++i) p[i] = {re[i], im[i]};
  return z.astype(t);
}

// Device result (moved to the host) against the cpu target's: exact for integers and bool,
// within a bound of the float sums' rounding (nvcc may contract a * b + s into one fma).
void check_same(const ufunc::array& device_result, const ufunc::array& host_result) {
  const auto d = ufunc::to_host(device_result);
  REQUIRE(d.device().is_host());
  REQUIRE(d.shape() == host_result.shape());
  REQUIRE(d.type() == host_result.type());
  const auto a = d.to_vector<std::complex<double>>(), b = host_result.to_vector<std::complex<double>>();
  const ufunc::dtype t = d.type();
  const double tol = (t == ufunc::float32 || t == ufunc::complex64) ? 1e-4
                     : (t.is_floating() || t.is_complex())          ? 1e-12
                                                                    : 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO(t.name(), " element ", i, ": ", a[i].real(), "+", a[i].imag(), "j vs ", b[i].real(), "+", b[i].imag(), "j");
    REQUIRE(std::abs(a[i] - b[i]) <= tol);
  }
}

const ufunc::dtype all_types[] = {ufunc::bool_,   ufunc::int8,      ufunc::uint8,     ufunc::int16,  ufunc::uint16,
                                  ufunc::int32,   ufunc::uint32,    ufunc::int64,     ufunc::uint64, ufunc::float32,
                                  ufunc::float64, ufunc::complex64, ufunc::complex128};

// Numba's guvectorize example: out[i] = mean of a[max(0, i - w + 1) .. i].
struct moving_average {
  template <class A, class W, class R>
  UFUNC_HOST_DEVICE void operator()(A a, W window, R out) const {
    const std::int64_t w = window();
    double sum = 0;
    for (std::int64_t i = 0; i < a.extent(0); ++i) {
      sum += a(i);
      if (i >= w) sum -= a(i - w);
      const std::int64_t count = i + 1 < w ? i + 1 : w;
      out(i) = sum / static_cast<double>(count);
    }
  }
};

// "(n)->(2)": a frozen output-only core dimension (the minimum and the maximum).
struct min_max {
  template <class A, class R>
  UFUNC_HOST_DEVICE void operator()(A a, R out) const {
    auto lo = a(0), hi = a(0);
    for (std::int64_t i = 1; i < a.extent(0); ++i) {
      lo = a(i) < lo ? a(i) : lo;
      hi = a(i) > hi ? a(i) : hi;
    }
    out(0) = lo;
    out(1) = hi;
  }
};

// "(n)->(n)": each output element reads two input elements, one from each end of the core
// (a core staged in the wrong place shows); additions only, so no contraction into an fma
// makes the GPU's floats differ from the host's.
struct mirror_sum {
  template <class A, class R>
  UFUNC_HOST_DEVICE void operator()(A a, R out) const {
    using T = typename R::element_type;
    const std::int64_t n = a.extent(0);
    for (std::int64_t i = 0; i < n; ++i) out(i) = static_cast<T>(a(i) + a(n - 1 - i) + static_cast<T>(i % 7));
  }
};
}  // namespace

TEST_CASE("cuda gufunc: matmul, vecdot, matvec, vecmat of every dtype equal the cpu target's") {
  unsigned seed = 1;
  for (const ufunc::dtype t : all_types) {
    CAPTURE(t.name());
    // Loop dimensions that broadcast (5, 1) with (7,), optional dimensions dropped.
    const auto a = random_array({5, 1, 3, 4}, t, seed++), b = random_array({7, 4, 2}, t, seed++);
    const auto v = random_array({7, 4}, t, seed++), m = random_array({5, 1, 4, 6}, t, seed++);
    const auto da = ufunc::to_device(a), db = ufunc::to_device(b), dv = ufunc::to_device(v), dm = ufunc::to_device(m);
    check_same(ufunc::matmul(da, db), ufunc::matmul(a, b, {.target = on_cpu}));
    check_same(ufunc::matmul(da, dv.transpose()[{ufunc::slice{}, 0}]),
               ufunc::matmul(a, v.transpose()[{ufunc::slice{}, 0}], {.target = on_cpu}));  // (k,) as (k, m?)
    check_same(ufunc::vecdot(dv, dv[{ufunc::slice{0, 1}}]),
               ufunc::vecdot(v, v[{ufunc::slice{0, 1}}], {.target = on_cpu}));
    check_same(ufunc::matvec(da, dv), ufunc::matvec(a, v, {.target = on_cpu}));
    check_same(ufunc::vecmat(dv, dm), ufunc::vecmat(v, m, {.target = on_cpu}));
    // Host-in/host-out on the cuda target: host results, equal to the cpu target's.
    const auto r = ufunc::matmul(a, b, {.target = on_gpu});
    CHECK(r.device().is_host());
    check_same(r, ufunc::matmul(a, b, {.target = on_cpu}));
  }
}

TEST_CASE("cuda gufunc: every scalar output '()' is written, large loops, given outputs") {
  const auto x = random_array({100000, 16}, ufunc::float32, 11), y = random_array({16}, ufunc::float32, 12);
  auto out = ufunc::to_device(ufunc::full<float>({100000}, std::nanf("")));
  (void)ufunc::vecdot(ufunc::to_device(x), ufunc::to_device(y), {.out = {out}});
  check_same(out, ufunc::vecdot(x, y, {.target = on_cpu}));
  // An out= of another dtype (float64 for the float32 loop) on the device and on the host.
  auto wide = ufunc::to_device(ufunc::zeros<double>({100000}));
  (void)ufunc::vecdot(ufunc::to_device(x), ufunc::to_device(y), {.out = {wide}});
  check_same(wide, ufunc::vecdot(x, y, {.target = on_cpu}).astype(ufunc::float64));
  auto host_out = ufunc::zeros<double>({100000});
  const auto r = ufunc::vecdot(x, y, {.out = {host_out}, .target = on_gpu});
  CHECK(static_cast<const void*>(r.data()) == static_cast<const void*>(host_out.data()));
  check_same(host_out, ufunc::vecdot(x, y, {.target = on_cpu}).astype(ufunc::float64));
  // Batched 3x3 matmul: 10^5 small products, each thread one.
  const auto p = random_array({100000, 3, 3}, ufunc::float64, 13), q = random_array({100000, 3, 3}, ufunc::float64, 14);
  check_same(ufunc::matmul(ufunc::to_device(p), ufunc::to_device(q)), ufunc::matmul(p, q, {.target = on_cpu}));
}

TEST_CASE("cuda gufunc: strided, transposed and negative-stride cores; in-place outputs") {
  const auto a = random_array({6, 8, 10}, ufunc::float64, 21), b = random_array({6, 10, 8}, ufunc::float64, 22);
  const auto da = ufunc::to_device(a), db = ufunc::to_device(b);
  const ufunc::slice reverse{std::nullopt, std::nullopt, -1}, every_other{std::nullopt, std::nullopt, 2};
  // (6, 8, 10)[:, ::-1, ::2] is (6, 8, 5); transposed b is (8, 10, 6)... take cores (5, 4).
  const auto a_view = da[{ufunc::slice{}, reverse, every_other}];
  const auto b_view = db.transpose({0, 2, 1})[{ufunc::slice{}, ufunc::slice{0, 5}, ufunc::slice{0, 4}}];
  const auto ha = a[{ufunc::slice{}, reverse, every_other}];
  const auto hb = b.transpose({0, 2, 1})[{ufunc::slice{}, ufunc::slice{0, 5}, ufunc::slice{0, 4}}];
  check_same(ufunc::matmul(a_view, b_view), ufunc::matmul(ha, hb, {.target = on_cpu}));
  // The output written in place through a strided device view.
  auto big = ufunc::to_device(ufunc::zeros<double>({6, 16, 4}));
  auto into = big[{ufunc::slice{}, every_other, reverse}];  // (6, 8, 4), byte strides (512, 64, -8)
  (void)ufunc::matmul(a_view, b_view, {.out = {into}});
  check_same(into, ufunc::matmul(ha, hb, {.target = on_cpu}));
  // An input that is also the output: read from a copy.
  auto sq = ufunc::to_device(random_array({4, 3, 3}, ufunc::float64, 23));
  const auto expected = ufunc::matmul(ufunc::to_host(sq), ufunc::to_host(sq), {.target = on_cpu});
  (void)ufunc::matmul(sq, sq, {.out = {sq}});
  check_same(sq, expected);
}

TEST_CASE("cuda gufunc: few large products give each output element a thread, with the host's sums") {
  unsigned seed = 31;
  const ufunc::slice reverse{std::nullopt, std::nullopt, -1};
  for (const ufunc::dtype t : all_types) {
    CAPTURE(t.name());
    // One 70x90 @ 90x50 product (3,500 output elements), reversed and transposed views of it, a
    // broadcast loop of 6 products into a strided out=, matvec and vecmat of one long matrix.
    const auto a = random_array({70, 90}, t, seed++), b = random_array({90, 50}, t, seed++);
    const auto da = ufunc::to_device(a), db = ufunc::to_device(b);
    check_same(ufunc::matmul(da, db), ufunc::matmul(a, b, {.target = on_cpu}));
    check_same(ufunc::matmul(da[{reverse}], db[{ufunc::slice{}, reverse}]),
               ufunc::matmul(a[{reverse}], b[{ufunc::slice{}, reverse}], {.target = on_cpu}));
    const auto s = random_array({3, 1, 40, 70}, t, seed++), u = random_array({2, 70, 30}, t, seed++);
    auto out = ufunc::to_device(ufunc::array::zeros({3, 2, 40, 60}, t));
    auto into = out[{ufunc::slice{}, ufunc::slice{}, ufunc::slice{}, ufunc::slice{std::nullopt, std::nullopt, 2}}];
    (void)ufunc::matmul(ufunc::to_device(s), ufunc::to_device(u), {.out = {into}});
    check_same(into, ufunc::matmul(s, u, {.target = on_cpu}));
    const auto m = random_array({300, 200}, t, seed++), v = random_array({200}, t, seed++);
    const auto dm = ufunc::to_device(m), dv = ufunc::to_device(v);
    check_same(ufunc::matvec(dm, dv), ufunc::matvec(m, v, {.target = on_cpu}));
    check_same(ufunc::vecmat(dv, dm.transpose()), ufunc::vecmat(v, m.transpose(), {.target = on_cpu}));
    check_same(ufunc::matmul(dv, dm.transpose()), ufunc::matmul(v, m.transpose(), {.target = on_cpu}));  // (n?) gone
  }
  // A product of 512 x 512 float32 matrices: 262,144 threads, one dot product of 512 each.
  const auto p = random_array({512, 512}, ufunc::float32, 41), q = random_array({512, 512}, ufunc::float32, 42);
  check_same(ufunc::matmul(ufunc::to_device(p), ufunc::to_device(q)), ufunc::matmul(p, q, {.target = on_cpu}));
}

TEST_CASE("cuda gufunc: NumPy's errors on the GPU as on the host") {
  const auto a = ufunc::to_device(random_array({4, 3}, ufunc::float32, 31));
  const auto b = ufunc::to_device(random_array({4, 5}, ufunc::float32, 32));
  // Core dimensions never broadcast: n = 3 against 5.
  CHECK_THROWS_WITH_AS((void)ufunc::vecdot(a, b),
                       "vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                       "(n),(n)->() (size 5 is different from 3)",
                       ufunc::value_error);
  CHECK_THROWS_AS((void)ufunc::vecdot(a, ufunc::to_device(random_array({4, 1}, ufunc::float32, 33))),
                  ufunc::value_error);
  // Loop dimensions that do not broadcast.
  CHECK_THROWS_AS((void)ufunc::vecdot(a, ufunc::to_device(random_array({2, 3}, ufunc::float32, 34))),
                  ufunc::broadcast_error);
  // An output is never broadcast: its loop shape must be the whole one.
  auto small = ufunc::to_device(ufunc::zeros<float>({1}));
  CHECK_THROWS_AS((void)ufunc::vecdot(a, a, {.out = {small}}), ufunc::broadcast_error);
  // Placement: host and device operands mixed; a host target with device data.
  CHECK_THROWS_WITH_AS((void)ufunc::vecdot(a, ufunc::to_host(a)), doctest::Contains("mixed host and device operands"),
                       ufunc::target_error);
  CHECK_THROWS_AS((void)ufunc::vecdot(a, a, {.target = on_cpu}), ufunc::target_error);
  // A gufunc compiled for the host only has no device code.
  auto host_only = ufunc::gvectorize<float(float, float), ufunc::target::cpu>(
      "(n),(n)->()",
      [](ufunc::core_view<const float>, ufunc::core_view<const float>, ufunc::core_view<float> o) { o() = 0; },
      "host_only");
  CHECK_THROWS_WITH_AS((void)host_only(a, a, {.target = on_gpu}), doctest::Contains("has no device code"),
                       ufunc::target_error);
  // Its own target is cpu: device data is refused there, as for a host target named in the call.
  CHECK_THROWS_WITH_AS((void)host_only(a, a), doctest::Contains("runs on the host"), ufunc::target_error);
}

TEST_CASE("cuda gufunc: size-0 loop and core dimensions") {
  const auto e = ufunc::to_device(ufunc::zeros<double>({0, 4})), v = ufunc::to_device(ufunc::full<double>({4}, 1.0));
  const auto r = ufunc::vecdot(e, v);
  CHECK(r.shape() == ufunc::dim_vector{0});
  CHECK(!r.device().is_host());
  // k = 0: every element is the empty sum.
  const auto z = ufunc::matmul(ufunc::to_device(ufunc::full<double>({3, 0}, 1.0)),
                               ufunc::to_device(ufunc::full<double>({0, 2}, 1.0)));
  const auto hz = ufunc::to_host(z).to_vector<double>();
  CHECK(hz == std::vector<double>(6, 0.0));
}

TEST_CASE("cuda gufunc: gvectorize'd functions, Numba's moving average and an output-only core dimension") {
  const auto avg = ufunc::gvectorize<double(double, std::int64_t), ufunc::target::cuda>("(n),()->(n)", moving_average{},
                                                                                        "moving_average");
  const auto a = random_array({64, 256}, ufunc::float64, 41);
  const auto averaged = avg(ufunc::to_device(a), std::int64_t{5});
  CHECK(!averaged.device().is_host());
  check_same(averaged, avg(a, std::int64_t{5}, {.target = on_cpu}));
  // The loop dimension broadcast against per-row windows.
  const auto windows = ufunc::to_device(ufunc::arange<std::int64_t>(1, 65).reshape({64}));
  check_same(avg(ufunc::to_device(a), windows), avg(a, ufunc::arange<std::int64_t>(1, 65), {.target = on_cpu}));

  const auto mm = ufunc::gvectorize<ufunc::signatures<float(float), std::int64_t(std::int64_t)>, ufunc::target::cuda>(
      "(n)->(2)", min_max{}, "min_max");
  const auto x = random_array({1000, 37}, ufunc::int64, 42);
  const auto r = mm(ufunc::to_device(x));
  CHECK(ufunc::to_host(r).shape() == ufunc::dim_vector{1000, 2});
  check_same(r, mm(x, {.target = on_cpu}));
}

TEST_CASE("cuda gufunc: cores staged through shared memory, of every length, alignment and block remainder") {
  // Blocks of 128, 64 or 32 loop elements copy packed cores in (and outputs out) through shared
  // memory, in 16-byte words where a span is 16-byte aligned and 4-byte words elsewhere; cores
  // of 1 KB and more take fewer threads and shared memory beyond 48 KB; longer ones are not staged.
  const auto f = ufunc::gvectorize<
      ufunc::signatures<std::int16_t(std::int16_t), std::int32_t(std::int32_t), float(float), double(double)>,
      ufunc::target::cuda>("(n)->(n)", mirror_sum{}, "mirror_sum");
  unsigned seed = 60;
  for (const ufunc::dtype t : {ufunc::int16, ufunc::int32, ufunc::float32, ufunc::float64})
    for (const std::int64_t n : {1, 2, 3, 4, 16, 37, 256, 300, 2000})
      for (const std::int64_t rows : {1, 31, 33, 1000, 4099}) {
        if (n * rows > 600'000) continue;
        CAPTURE(t.name());
        CAPTURE(n);
        CAPTURE(rows);
        const auto a = random_array({rows + 1, n}, t, seed++);
        const auto da = ufunc::to_device(a);
        const ufunc::slice all{}, tail{1, std::nullopt};
        check_same(f(da[{ufunc::slice{0, rows}, all}]), f(a[{ufunc::slice{0, rows}, all}], {.target = on_cpu}));
        // One core further on: the span starts 4-byte aligned (8 for float64 rows), not 16.
        check_same(f(da[{tail, all}]), f(a[{tail, all}], {.target = on_cpu}));
        // An output one core into a larger array: its stores are the unaligned ones.
        auto into = ufunc::to_device(ufunc::array::zeros({rows + 1, n}, t));
        (void)f(da[{ufunc::slice{0, rows}, all}], {.out = {into[{tail, all}]}});
        check_same(ufunc::to_host(into)[{tail, all}], f(a[{ufunc::slice{0, rows}, all}], {.target = on_cpu}));
        // Packed cores from one element into a buffer: a base 2- or 4-byte aligned, not 16.
        const auto flat = random_array({rows * n + 1}, t, seed++);
        const auto shifted = flat[{ufunc::slice{1, std::nullopt}}].reshape({rows, n});
        check_same(f(ufunc::to_device(flat)[{ufunc::slice{1, std::nullopt}}].reshape({rows, n})),
                   f(shifted, {.target = on_cpu}));
      }
}

TEST_CASE("cuda gufunc: a call on a stream of the caller's, its temporaries ordered on that stream") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  const ufunc::stream_ref ref{s};
  const auto x = random_array({20000, 16}, ufunc::float32, 51), y = random_array({16}, ufunc::float64, 52);
  const auto want = ufunc::vecdot(x, y, {.target = on_cpu});  // float64: x converted on the device
  for (int rep = 0; rep < 20; ++rep) {
    const auto d = ufunc::vecdot(ufunc::to_device(x, 0, ref), ufunc::to_device(y, 0, ref), {.stream = ref});
    check_same(ufunc::to_host(d, ref), want);
    auto host_out = ufunc::zeros<float>({20000});  // host-in/host-out, the result cast into a float32 out=
    (void)ufunc::vecdot(x, y,
                        {.out = {host_out}, .casting = ufunc::casting::same_kind, .target = on_gpu, .stream = ref});
    check_same(host_out, want.astype(ufunc::float32));
  }
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
}
