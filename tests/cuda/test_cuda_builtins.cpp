// Built-in ufuncs on the cuda target from code compiled by the host compiler alone:
// every dtype, layouts, out/where, host-in/host-out, placement rules, streams,
// errors. The cpu target is the reference.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <utility>

#include "../test_support.hpp"

namespace {

constexpr auto cuda = ufunc::target_id::cuda;

template <class T>
void check_same(const ufunc::array& device_result, const ufunc::array& expected) {
  REQUIRE(device_result.type() == expected.type());
  REQUIRE(device_result.shape() == expected.shape());
  const auto got = ufunc::to_host(device_result).to_vector<T>();
  const auto want = expected.to_vector<T>();
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    if constexpr (std::is_floating_point_v<T>)
      CHECK(ufunc_test::ulp_distance(got[i], want[i]) <= 2.0);
    else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      CHECK(std::abs(got[i] - want[i]) <= 1e-5 * (1 + std::abs(want[i])));
    else
      CHECK(got[i] == want[i]);
  }
}

}  // namespace

TEST_CASE_TEMPLATE("cuda: add, multiply, square on device arrays of every dtype equal the cpu target", T,
                   UFUNC_TEST_ALL_TYPES) {
  for (std::int64_t n : {1, 7, 1000, 4099, 100003}) {
    CAPTURE(n);
    const auto a = ufunc_test::sample_array<T>(static_cast<std::size_t>(n), 1);
    const auto b = ufunc_test::sample_array<T>(static_cast<std::size_t>(n), 2);
    const auto da = ufunc::to_device(a), db = ufunc::to_device(b);
    CHECK(da.device() == ufunc::device::cuda(0));
    const ufunc::array sum = ufunc::add(da, db, {.target = cuda});
    CHECK(sum.device() == ufunc::device::cuda(0));  // stays on the device
    check_same<T>(sum, ufunc::add(a, b, {.target = ufunc::target_id::cpu}));
    check_same<T>(ufunc::multiply(da, db, {.target = cuda}), ufunc::multiply(a, b, {.target = ufunc::target_id::cpu}));
    if constexpr (!std::is_same_v<T, bool>)
      check_same<T>(ufunc::square(da, {.target = cuda}), ufunc::square(a, {.target = ufunc::target_id::cpu}));
  }
}

TEST_CASE(
    "cuda: narrow contiguous operands, aligned and not, below and past cub's size, flags gathered or not, give the cpu "
    "target's bytes") {
  // The contiguous kernel takes runs of 8 or 16 consecutive elements per thread where an input
  // is narrower than 4 bytes and every pointer is 16-byte aligned (also without flags, where
  // wider types go to cub::DeviceTransform); element by element otherwise. Small integral
  // values: every sum exact in every type, so the cpu target's bytes are the reference.
  const auto cpu = ufunc::target_id::cpu;
  const std::pair<ufunc::dtype, ufunc::dtype> pairs[] = {{ufunc::int8, ufunc::int8},
                                                         {ufunc::uint16, ufunc::uint16},
                                                         {ufunc::float16, ufunc::float16},
                                                         {ufunc::bfloat16, ufunc::bfloat16},
                                                         {ufunc::int8, ufunc::float32}};
  for (const auto& [tx, ty] : pairs) {
    CAPTURE(tx.name());
    CAPTURE(ty.name());
    for (const std::int64_t n : {1, 15, 16, 17, 4095, 4097, 65573, 1048579}) {
      CAPTURE(n);
      auto values = ufunc::array::empty({n + 1}, ufunc::int32);
      auto* v = reinterpret_cast<std::int32_t*>(values.data());
      for (std::int64_t i = 0; i <= n; ++i)
        v[i] = static_cast<std::int32_t>((i * 7) % 23) - (tx == ufunc::uint16 ? 0 : 11);
      const ufunc::array x = values.astype(tx), y = ufunc::multiply(values, 3).astype(ty);
      const ufunc::array dx = ufunc::to_device(x), dy = ufunc::to_device(y);
      // Both aligned, both one element in (unaligned), and one of each.
      for (const auto& [ox, oy] : {std::pair{0, 0}, std::pair{1, 1}, std::pair{0, 1}}) {
        CAPTURE(ox);
        CAPTURE(oy);
        const ufunc::slice sx{ox, ox + n}, sy{oy, oy + n};
        for (const bool quiet : {false, true}) {
          CAPTURE(quiet);
          const ufunc::errstate policy({.all = quiet ? ufunc::fp_policy::ignore : ufunc::fp_policy::raise});
          for (const ufunc::function& f : {ufunc::add, ufunc::less}) {
            CAPTURE(f.name());
            const ufunc::array want = f(x[{sx}], y[{sy}], {.target = cpu});
            const ufunc::array got = ufunc::to_host(f(dx[{sx}], dy[{sy}], {.target = cuda}));
            REQUIRE(got.type() == want.type());
            REQUIRE(got.size() == want.size());
            CHECK(std::memcmp(got.data(), want.data(), static_cast<std::size_t>(want.nbytes())) == 0);
          }
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("cuda: sin within 2 ulp of the cpu target", T, float, double) {
  const auto x = ufunc_test::sample_array<T>(50000, 3);
  check_same<T>(ufunc::sin(ufunc::to_device(x), {.target = cuda}), ufunc::sin(x, {.target = ufunc::target_id::cpu}));
}

TEST_CASE("cuda: broadcast, strided, reversed and transposed device operands") {
  const auto a = ufunc_test::sample_array<float>(64 * 100, 4).reshape({64, 100});
  const auto row = ufunc_test::sample_array<float>(100, 5).reshape({1, 100});
  const auto col = ufunc_test::sample_array<float>(64, 6).reshape({64, 1});
  const auto da = ufunc::to_device(a), drow = ufunc::to_device(row), dcol = ufunc::to_device(col);
  const auto cpu = ufunc::target_id::cpu;
  check_same<float>(ufunc::add(drow, dcol, {.target = cuda}), ufunc::add(row, col, {.target = cpu}));
  auto strided = [](const ufunc::array& x) {
    return x[{ufunc::slice{std::nullopt, std::nullopt, -1}, ufunc::slice{0, std::nullopt, 3}}];
  };
  check_same<float>(ufunc::add(strided(da), 1.5f, {.target = cuda}), ufunc::add(strided(a), 1.5f, {.target = cpu}));
  check_same<float>(ufunc::multiply(da.transpose(), dcol.reshape({1, 64}), {.target = cuda}),
                    ufunc::multiply(a.transpose(), col.reshape({1, 64}), {.target = cpu}));
  // Short inner dimension (the per-element kernel).
  const auto narrow = a[{ufunc::slice{}, ufunc::slice{0, 3}}];
  check_same<float>(ufunc::add(ufunc::to_device(narrow), da[{ufunc::slice{}, ufunc::slice{0, 3}}], {.target = cuda}),
                    ufunc::add(narrow, narrow, {.target = cpu}));
}

TEST_CASE("cuda: out=, where=, casting and dtype= on the device") {
  const auto a = ufunc::arange<std::int32_t>(1000);
  const auto da = ufunc::to_device(a);
  SUBCASE("in place on the device") {
    auto d = ufunc::to_device(ufunc::arange<float>(1000.0f));
    ufunc::multiply(d, 2, {.out = {d}, .target = cuda});
    CHECK(ufunc::to_host(d).at<float>(999) == 1998.0f);
  }
  SUBCASE("out of another dtype is cast on the device") {
    auto out = ufunc::array::zeros({1000}, ufunc::float64, ufunc::device::cuda(0));
    ufunc::add(da, 1, {.out = {out}, .target = cuda});
    CHECK(ufunc::to_host(out).at<double>(10) == 11.0);
  }
  SUBCASE("inputs cast to the loop dtype on the device") {
    const ufunc::array r = ufunc::add(da, 0.5, {.target = cuda});  // int32 + weak float -> float64 loop
    CHECK(r.type() == ufunc::float64);
    CHECK(ufunc::to_host(r).at<double>(3) == 3.5);
  }
  SUBCASE("where: unselected elements keep their values") {
    auto mask = ufunc::empty<bool>({1000});
    for (int i = 0; i < 1000; ++i) mask.at(i) = i % 3 == 0;
    auto out = ufunc::to_device(ufunc::full<std::int32_t>({1000}, -1));
    ufunc::add(da, 100, {.out = {out}, .where = ufunc::to_device(mask), .target = cuda});
    const auto h = ufunc::to_host(out);
    for (int i = 0; i < 1000; ++i) CHECK(h.at<std::int32_t>(i) == (i % 3 == 0 ? i + 100 : -1));
  }
  SUBCASE("dtype= picks the loop") {
    CHECK(ufunc::add(da, da, {.dtype = ufunc::float32, .target = cuda}).type() == ufunc::float32);
  }
}

TEST_CASE("cuda: host arrays are copied in and the result copied back (host-in/host-out)") {
  const auto a = ufunc::arange<double>(5000.0);
  const ufunc::array r = ufunc::sin(a, {.target = cuda});
  CHECK(r.device().is_host());
  CHECK(ufunc_test::ulp_distance(r.at<double>(4321), std::sin(4321.0)) <= 2.0);
  // A host out of another layout and dtype.
  auto out = ufunc::zeros<float>({2, 5000});
  ufunc::add(a, 1, {.out = {out[{1}]}, .target = cuda});
  CHECK(out.at(1, 4999) == 5000.0f);
  CHECK(out.at(0, 4999) == 0.0f);
}

TEST_CASE("cuda: placement rules and errors") {
  const auto h = ufunc::arange<float>(10.0f);
  const auto d = ufunc::to_device(h);
  CHECK_THROWS_AS(ufunc::add(h, d, {.target = cuda}), ufunc::target_error);  // mixed: no implicit transfer
  CHECK_THROWS_AS(ufunc::add(d, d, {.target = ufunc::target_id::cpu}), ufunc::target_error);
  CHECK_THROWS_AS((void)d.at<float>(0), ufunc::target_error);
  // automatic runs device data on the device, and so does a call that names no
  // target (the build's default only decides for host data).
  const ufunc::array r = ufunc::add(d, d, {.target = ufunc::target_id::automatic});
  CHECK(r.device() == ufunc::device::cuda(0));
  const ufunc::array r2 = ufunc::add(d, d);
  CHECK(r2.device() == ufunc::device::cuda(0));
  CHECK(ufunc::to_host(r2).at<float>(9) == 18.0f);
  // Out of memory raises and the pool recovers for the next call.
  CHECK_THROWS_AS(ufunc::array::empty({std::int64_t{1} << 50}, ufunc::uint8, ufunc::device::cuda(0)),
                  ufunc::memory_error);
  CHECK(ufunc::to_host(ufunc::add(d, 1, {.target = cuda})).at<float>(9) == 10.0f);
  CHECK_THROWS_AS(ufunc::to_device(h, 9999), ufunc::target_error);
}

TEST_CASE("cuda: calls on user streams from several host threads") {
  constexpr int threads = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([t, &failures] {
      cudaStream_t s = nullptr;
      if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        ++failures;
        return;
      }
      {
        const ufunc::stream_ref ref{s};
        for (int k = 0; k < 20; ++k) {
          auto x = ufunc::to_device(ufunc::full<float>({100000}, static_cast<float>(t)), 0, ref);
          auto y = ufunc::add(x, k, {.target = ufunc::target_id::cuda, .stream = ref});
          const auto back = ufunc::to_host(y, ref);
          if (back.at<float>(99999) != static_cast<float>(t + k)) ++failures;
        }
      }
      cudaStreamSynchronize(s);
      cudaStreamDestroy(s);
    });
  for (auto& th : pool) th.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("cuda: large arrays beyond 2^31 bytes use 64-bit offsets") {
  const std::int64_t n = (std::int64_t{1} << 29) + 3;  // 2 GiB+ of float32 per operand
  auto d = ufunc::array::empty({n}, ufunc::float32, ufunc::device::cuda(0));
  ufunc::add(ufunc::to_device(ufunc::scalar<float>(1.0f)).broadcast_to({n}), 2.0f, {.out = {d}, .target = cuda});
  const auto tail = ufunc::to_host(d[{ufunc::slice{n - 4, std::nullopt}}]);
  CHECK(tail.at<float>(3) == 3.0f);
}
