// ufunc::dist's scaling: add float32 (z = x + y into an existing z) and add.reduce (the
// sum of x, replicated on every rank) on distributed arrays, timed as the slowest rank
// sees them (a barrier, the call, MPI_Allreduce MAX of the elapsed time), against the
// same calls on one process with the parallel target (--baseline): what MPI costs.
//
//   mpirun -np P ufunc_dist_bench --scaling weak --n 16777216     # n elements per rank
//   mpirun -np P ufunc_dist_bench --scaling strong --n 67108864   # n elements in all
//   ufunc_dist_bench --baseline --threads P --scaling weak ...    # one process, P threads
//
// Prints CSV rows on rank 0 (--header: the column names first):
//   scaling,impl,op,ranks,threads,n_total,reps,median_ms,min_ms,gelem_s
// bench/run_dist.sh runs the whole sweep and writes the report.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/dist/dist.hpp>
#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

namespace {

struct settings {
  std::string scaling = "weak";
  std::int64_t n = std::int64_t{1} << 22;
  int reps = 20;
  int threads = 1;
  bool baseline = false;
  bool header = false;
  std::string target = "cpu";
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: ufunc_dist_bench [--scaling weak|strong] [--n N] [--reps R] [--target cpu|parallel]\n"
               "                        [--baseline --threads T] [--header]\n");
  std::exit(2);
}

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) usage();
      return std::string(argv[++i]);
    };
    if (a == "--scaling")
      s.scaling = value();
    else if (a == "--n")
      s.n = std::stoll(value());
    else if (a == "--reps")
      s.reps = std::stoi(value());
    else if (a == "--threads")
      s.threads = std::stoi(value());
    else if (a == "--target")
      s.target = value();
    else if (a == "--baseline")
      s.baseline = true;
    else if (a == "--header")
      s.header = true;
    else
      usage();
  }
  if (s.scaling != "weak" && s.scaling != "strong") usage();
  return s;
}

struct timing {
  double median_ms;
  double min_ms;
};

// Three untimed calls, then `reps` timed ones; each the slowest rank's time.
template <class F>
timing measure(const settings& s, MPI_Comm comm, F&& f) {
  for (int i = 0; i < 3; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < s.reps; ++i) {
    if (comm != MPI_COMM_NULL) MPI_Barrier(comm);
    const auto t0 = std::chrono::steady_clock::now();
    f();
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (comm != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, comm);
    t.push_back(dt * 1e3);
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front()};
}

void row(const settings& s, const char* impl, const char* op, int ranks, std::int64_t total, timing t) {
  std::printf("%s,%s,%s,%d,%d,%lld,%d,%.4f,%.4f,%.4f\n", s.scaling.c_str(), impl, op, ranks, s.threads,
              static_cast<long long>(total), s.reps, t.median_ms, t.min_ms,
              static_cast<double>(total) / (t.median_ms * 1e-3) / 1e9);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) try {
  const settings s = parse(argc, argv);
  if (s.header) std::printf("scaling,impl,op,ranks,threads,n_total,reps,median_ms,min_ms,gelem_s\n");
  const ufunc::target_id target = ufunc::target_from_string(s.target);

  if (s.baseline) {
    // One process, no MPI communication: the parallel target with `threads` threads (or
    // cpu) on the whole array, the size the ranks hold together.
#if defined(UFUNC_HAS_TBB)
    ufunc::backends::parallel::set_max_threads(s.threads);
#endif
    const std::int64_t total = s.scaling == "weak" ? s.n * s.threads : s.n;
    const auto x = ufunc::arange<float>(static_cast<float>(total));
    const auto y = ufunc::full<float>({total}, 1.0f);
    auto z = ufunc::empty<float>({total});
    // The threads start with the first call, as the ranks' pages are touched by theirs.
    ufunc::add(x, y, {.out = {z}, .target = target});
    row(s, s.target.c_str(), "add", 1, total,
        measure(s, MPI_COMM_NULL, [&] { ufunc::add(x, y, {.out = {z}, .target = target}); }));
    row(s, s.target.c_str(), "add.reduce", 1, total,
        measure(s, MPI_COMM_NULL, [&] { (void)ufunc::add.reduce(x, {.target = target}); }));
    return 0;
  }

  ufunc::dist::environment mpi(argc, argv);
  const ufunc::dist::communicator world;
  const int p = world.size();
  const std::int64_t total = s.scaling == "weak" ? s.n * p : s.n;
  const auto x = ufunc::dist::arange<float>(world, static_cast<float>(total));
  const auto y = ufunc::dist::add(ufunc::dist::zeros(world, {total}, ufunc::float32), 1.0f);
  auto z = ufunc::dist::empty(world, {total}, ufunc::float32);
  const ufunc::dist::call_options into{.out = {z}, .target = target};
  ufunc::dist::add(x, y, into);
  const std::string impl = "dist_" + s.target;
  const timing add = measure(s, world.get(), [&] { ufunc::dist::add(x, y, into); });
  const timing sum = measure(s, world.get(), [&] { (void)ufunc::dist::add.reduce(x, {.target = target}); });
  if (world.rank() == 0) {
    row(s, impl.c_str(), "add", p, total, add);
    row(s, impl.c_str(), "add.reduce", p, total, sum);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "ufunc_dist_bench: %s\n", e.what());
  return 1;
}
