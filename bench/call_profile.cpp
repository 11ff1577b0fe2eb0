// One small call in a loop, for profilers (perf record, valgrind --tool=callgrind):
//
//   ufunc_call_profile <case> [calls] [elements]
//
// elements: a count (1-d arrays), or 0d for 0-d arrays.
// cases: add_alloc, add_out (ufunc::add on ufunc::array), add_scalar (ufunc::add
// of an array and a C++ float, out=), vec_alloc, vec_out
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
                 "usage: %s add_alloc|add_out|add_scalar|vec_alloc|vec_out|kernel|empty|options|operand|resolve "
                 "[calls] [n|0d]\n",
                 argv[0]);
    return 2;
  }
  const std::string_view what = argv[1];
  const long calls = argc > 2 ? std::atol(argv[2]) : 1000000;
  const bool zero_d = argc > 3 && std::string_view(argv[3]) == "0d";
  const std::int64_t n = zero_d ? 1 : argc > 3 ? std::atol(argv[3]) : 1024;
  const auto d = bench::make_data(n);
  // 0-d: the same single elements, viewed without an axis.
  const ufunc::array a = zero_d ? d.a.reshape({}) : d.a, b = zero_d ? d.b.reshape({}) : d.b,
                     c = zero_d ? d.c.reshape({}) : d.c;
  const char* size_label = zero_d ? "0d" : argc > 3 ? argv[3] : "1024";
  const auto add_fn = [](auto x, auto y) { return x + y; };
  const auto vadd = ufunc::vectorize<float(float, float), ufunc::target::cpu>(add_fn, "profile_add");
  char* kernel_args[] = {reinterpret_cast<char*>(d.a.data()), reinterpret_cast<char*>(d.b.data()),
                         reinterpret_cast<char*>(d.c.data())};
  const std::int64_t kernel_steps[] = {sizeof(float), sizeof(float), sizeof(float)};
  const ufunc::dtype f32[] = {ufunc::float32, ufunc::float32};

  auto loop = [&](auto&& f) {
    for (long i = 0; i < 1000; ++i) f();  // warm-up
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    std::printf("%s n=%s: %.1f ns per call\n", argv[1], size_label,
                std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(calls));
  };
  if (what == "add_alloc")
    loop([&] { bench::keep(ufunc::add(a, b)); });
  else if (what == "add_out")
    loop([&] { bench::keep(ufunc::add(a, b, {.out = {c}})); });
  else if (what == "add_scalar")
    loop([&] { bench::keep(ufunc::add(a, 2.5f, {.out = {c}})); });
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
