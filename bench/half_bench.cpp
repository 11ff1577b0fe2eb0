// float16 and bfloat16 on the host targets (issue 21): c = a + b and c = sin(a) on float32, float16 and
// bfloat16, contiguous, every call writing into a preallocated output (out=), on target cpu (one thread) and,
// in a TBB build, target parallel (every thread TBB sees, or --threads). The 16-bit loops compute in float in
// blocks (ufuncs/src/half_loops.hpp), so float32 add is the bound that half add is held to in bytes per second.
// bench/half_numpy.py times NumPy float16 and ml_dtypes bfloat16 on the same data; bench/half_compare.py prints
// the ratios the issue asks for.
//
//   half_bench [--log2n K | --n N] [--reps K] [--threads T]
//
// The inputs are bench_common's a[i] = float(i % 1000) * 0.01f - 5 and b[i] = float(i % 777) * 0.02f, rounded
// to the dtype (astype: to nearest even). Before timing, every (op, dtype, target) result is checked against a
// scalar loop computing in float and rounding once ("CHECK" lines, bench_common's; exit 1 if one fails). Then
// CSV on stdout:
//   op,dtype,target,n,threads,seconds,GBps
// seconds: best of --reps timed calls (default 10) after one untimed call; GBps = (inputs + output) itemsizes
// * n / seconds, 1 GB = 1e9 bytes. Lines starting with '#' are notes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/ufunc.hpp>

#if defined(UFUNC_HAS_TBB)
#include <tbb/task_arena.h>

#include <ufunc/backends/parallel/elementwise.hpp>
#endif

#include "bench_common.hpp"

namespace {

struct options {
  std::int64_t n = std::int64_t{1} << 24;
  int reps = 10;
  int threads = 0;  // target parallel: 0 = every thread TBB sees
};

struct dtype_case {
  const char* name;
  ufunc::dtype type;
};

const dtype_case dtypes[] = {{"float32", ufunc::float32}, {"float16", ufunc::float16}, {"bfloat16", ufunc::bfloat16}};

struct target_case {
  ufunc::target_id id;
  int threads;
};

// The arrays of one dtype: the inputs rounded from bench_common's float32 data, a touched output.
struct operands {
  ufunc::array a, b, c;
};

operands make_operands(const bench::data& d, ufunc::dtype type) {
  return {d.a.astype(type), d.b.astype(type), ufunc::array::zeros({d.n}, type)};
}

// The expected float32 values of a result of T: computed in float and rounded once to T, as NumPy and
// ml_dtypes compute float16 and bfloat16 (and as the library's loops do).
template <class T>
ufunc::array expected_as(const bench::data& d, bool is_sin) {
  auto want = ufunc::empty<float>({d.n});
  for (std::int64_t i = 0; i < d.n; ++i) {
    const float x = static_cast<float>(T(d.a.data()[i])), y = static_cast<float>(T(d.b.data()[i]));
    want.data()[i] = static_cast<float>(T(is_sin ? std::sin(x) : x + y));
  }
  return want;
}

ufunc::array expected(const bench::data& d, ufunc::dtype type, bool is_sin) {
  if (type == ufunc::float16) return expected_as<ufunc::float16_t>(d, is_sin);
  if (type == ufunc::bfloat16) return expected_as<ufunc::bfloat16_t>(d, is_sin);
  return expected_as<float>(d, is_sin);
}

// The checks' tolerance: add is exact (one rounding of an exact float sum); sin may differ from the C library's
// sinf by an ulp of float, which after the rounding to 16 bits is at most one ulp of the dtype (|sin| <= 1).
double tolerance(ufunc::dtype type, bool is_sin) {
  if (!is_sin) return 0.0;
  if (type == ufunc::float16) return 0x1p-10;
  if (type == ufunc::bfloat16) return 0x1p-7;
  return 0x1p-22;
}

int all_threads() {
#if defined(UFUNC_HAS_TBB)
  const int set = ufunc::backends::parallel::max_threads();
  return set > 0 ? set : tbb::this_task_arena::max_concurrency();
#else
  return 1;
#endif
}

options parse(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--log2n" && has_value) {
      opt.n = std::int64_t{1} << std::atoi(argv[++i]);
    } else if (arg == "--n" && has_value) {
      opt.n = std::atoll(argv[++i]);
    } else if (arg == "--reps" && has_value) {
      opt.reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--threads" && has_value) {
      opt.threads = std::max(0, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--log2n K | --n N] [--reps K] [--threads T]\n", argv[0]);
      std::exit(2);
    }
  }
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  const options opt = parse(argc, argv);
  std::vector<target_case> targets = {{ufunc::target_id::cpu, 1}};
#if defined(UFUNC_HAS_TBB)
  ufunc::backends::parallel::set_max_threads(opt.threads);
  if (ufunc::target_available(ufunc::target_id::parallel))
    targets.push_back({ufunc::target_id::parallel, all_threads()});
#endif
  std::printf("# simd,%s\n", std::string(ufunc::simd_arch()).c_str());
  std::printf("# timing,best of %d calls after one untimed call, out= preallocated\n", opt.reps);
  if (targets.size() == 1) std::printf("# note,no target parallel in this build (UFUNC_ENABLE_TBB=OFF)\n");

  const bench::data d = bench::make_data(opt.n);
  std::vector<operands> ops;
  for (const auto& dt : dtypes) ops.push_back(make_operands(d, dt.type));

  // Checks first (one call per op, dtype and target), so that the CSV below is one block.
  for (std::size_t k = 0; k < std::size(dtypes); ++k) {
    for (const bool is_sin : {false, true}) {
      const auto want = expected(d, dtypes[k].type, is_sin);
      for (const auto& t : targets) {
        auto& o = ops[k];
        // Finite garbage in every dtype (0x7b7b...), so that a call that writes nothing fails the check.
        std::memset(o.c.data(), 0x7b, static_cast<std::size_t>(opt.n) * dtypes[k].type.itemsize());
        if (is_sin)
          (void)ufunc::sin(o.a, {.out = {o.c}, .target = t.id});
        else
          (void)ufunc::add(o.a, o.b, {.out = {o.c}, .target = t.id});
        bench::check(std::string(is_sin ? "sin " : "add ") + dtypes[k].name + " " + std::string(ufunc::to_string(t.id)),
                     o.c.astype(ufunc::float32), want, tolerance(dtypes[k].type, is_sin));
      }
    }
  }

  std::printf("op,dtype,target,n,threads,seconds,GBps\n");
  for (const auto& t : targets) {
    const std::string target(ufunc::to_string(t.id));
    for (std::size_t k = 0; k < std::size(dtypes); ++k) {
      auto& o = ops[k];
      const auto itemsize = static_cast<double>(dtypes[k].type.itemsize());
      const auto row = [&](const char* op, int operands_moved, auto&& call) {
        const double s = bench::measure(call, opt.reps, 1, 1).min_ns * 1e-9;
        std::printf("%s,%s,%s,%lld,%d,%.9g,%.3f\n", op, dtypes[k].name, target.c_str(), static_cast<long long>(opt.n),
                    t.threads, s, operands_moved * itemsize * static_cast<double>(opt.n) / s / 1e9);
        std::fflush(stdout);
      };
      row("add", 3, [&] { (void)ufunc::add(o.a, o.b, {.out = {o.c}, .target = t.id}); });
      row("sin", 2, [&] { (void)ufunc::sin(o.a, {.out = {o.c}, .target = t.id}); });
    }
  }
  return bench::any_check_failed() ? 1 : 0;
}
