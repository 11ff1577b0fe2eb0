// One small call in a loop, for profilers (perf record, valgrind --tool=callgrind):
//
//   ufunc_call_profile <case> [calls] [elements]
//
// cases: add_alloc, add_out (ufunc::add on ufunc::array), vec_alloc, vec_out
// (vectorize on array_t<float>, compiled for this TU's instruction set), and the
// pieces of a call timed alone: kernel (vectorize's inner loop called directly, no
// call machinery), empty (array::empty), options (building call_options with one
// out), operand (two array operands), resolve (function::resolve).
// Prints the mean ns per call, so it doubles as a quick manual timer.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <ufunc/ufunc.hpp>

#include "bench_common.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s add_alloc|add_out|vec_alloc|vec_out|kernel|empty|options|operand|resolve [calls] [n]\n",
                 argv[0]);
    return 2;
  }
  const std::string_view what = argv[1];
  const long calls = argc > 2 ? std::atol(argv[2]) : 1000000;
  const std::int64_t n = argc > 3 ? std::atol(argv[3]) : 1024;
  const auto d = bench::make_data(n);
  const ufunc::array a = d.a, b = d.b, c = d.c;
  const auto add_fn = [](auto x, auto y) { return x + y; };
  const auto vadd = ufunc::vectorize<float(float, float)>(add_fn, "profile_add");
  char* kernel_args[] = {reinterpret_cast<char*>(d.a.data()), reinterpret_cast<char*>(d.b.data()),
                         reinterpret_cast<char*>(d.c.data())};
  const std::int64_t kernel_steps[] = {sizeof(float), sizeof(float), sizeof(float)};
  const ufunc::dtype f32[] = {ufunc::float32, ufunc::float32};

  auto loop = [&](auto&& f) {
    for (long i = 0; i < 1000; ++i) f();  // warm-up
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    std::printf("%s n=%lld: %.1f ns per call\n", argv[1], static_cast<long long>(n),
                std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(calls));
  };
  if (what == "add_alloc")
    loop([&] { bench::keep(ufunc::add(a, b)); });
  else if (what == "add_out")
    loop([&] { bench::keep(ufunc::add(a, b, {.out = {c}})); });
  else if (what == "vec_alloc")
    loop([&] { bench::keep(vadd(d.a, d.b)); });
  else if (what == "vec_out")
    loop([&] { bench::keep(vadd(d.a, d.b, {.out = {d.c}})); });
  else if (what == "kernel")
    loop([&] {
      ufunc::backends::cpu::inner_loop<float(float, float), decltype(add_fn)>(kernel_args, n, kernel_steps, &add_fn);
      bench::keep(d.c);
    });
  else if (what == "empty")
    loop([&] { bench::keep(ufunc::array::empty({n}, ufunc::float32)); });
  else if (what == "options")
    loop([&] {
      const ufunc::call_options o{.out = {c}};
      bench::keep(o);
    });
  else if (what == "operand")
    loop([&] {
      const ufunc::operand ops[] = {a, b};
      bench::keep(ops);
    });
  else if (what == "resolve")
    loop([&] { bench::keep(ufunc::add->resolve(f32)); });
  else {
    std::fprintf(stderr, "unknown case '%s'\n", argv[1]);
    return 2;
  }
  return 0;
}
