// ufunc_differential: replays the cases written by tests/differential/generate_cases.py
// (NumPy 2 as the oracle) on every target of this build and compares the outcomes.
//
//   ufunc_differential [options] CASES.bin...
//     --targets cpu,parallel,cuda   targets to run, by name (default: every one with a backend, cuda
//                                   only with a usable GPU)
//     --grain N                     the parallel target's grain (default 3: pieces edges everywhere)
//     --fused                       also replay each call case through a one-node ufunc::fuse (fused.hpp):
//                                   on target cpu ("fused"), and on cuda ("fused-cuda", a generated kernel)
//                                   where cuda is among --targets
//     --max-print N                 print at most N failures in full (default 40)
//     --only ID                     run only case ID (e12, r5); repeatable
//     --exclude ID                  do not run case ID (one that crashes); repeatable
//     --skip-method M               do not run the cases of method M (call, reduce, accumulate,
//                                   reduceat, outer, at); repeatable
//     --verbose                     print every case
//     --list                        print the ufuncs this build has (name nin nout types...)
//     --self-check                  check the comparison's condition-aware bound on synthetic cases
//                                   and that a difference in floating-point flags fails
//     --skip-reason TEXT            print TEXT and exit 77 (ctest's SKIP_RETURN_CODE): the
//                                   oracle is missing; under CI (CI=true) print it and exit 1
//
// Exit status: 0 when every case agrees, 1 on any mismatch.
//
// Comparison rules (docs/testing.md): integers and booleans exact; floats within the
// per-ufunc ulp bound of ulp_bound() (tolerance.hpp; 0 = bit for bit, up to the sign of
// zero); NaN where NumPy has NaN; infinities exact; complex numbers part by part.
// Exceptions must be the library class the generator mapped NumPy's exception to. The
// floating-point flags of the call must be NumPy's in the kinds the case compares
// (compared_flags(), fp_flags.hpp), and the raise and warn policies must act on exactly
// those.
//
// This file holds main: the options, the loop over cases and targets, and the report.
// The rest, in tests/differential/:
//   case_file         reading the case files (format UFDIFF02)
//   operands          building a case's operands as arrays, on the host or the device
//   tolerance         ulps per ufunc, and the condition-aware bound of ill-conditioned ufuncs
//   compare           comparing a result with NumPy's within those tolerances
//   fp_flags          which floating-point flags a case compares; the policies of a replay
//   replay            running one case on one target, and its verdict
//   user_ufuncs       the runner's vectorize'd ufuncs (compiled as CUDA in CUDA builds)
//   builtin_registry  the built-in ufuncs by name
//   self_check        --self-check
//   crash_recovery    a case that crashes the library: report it, go on without it

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ufunc/core/errstate.hpp>
#include <ufunc/ufunc.hpp>
#if defined(UFUNC_HAS_TBB)
#include <ufunc/backends/parallel/elementwise.hpp>
#endif

#include "builtin_registry.hpp"
#include "case_file.hpp"
#include "crash_recovery.hpp"
#include "fp_flags.hpp"
#include "fused.hpp"
#include "replay.hpp"
#include "self_check.hpp"
#include "user_ufuncs.hpp"

using namespace differential;  // NOLINT(google-build-using-namespace): this file is the runner's main alone

namespace {

// " ff->f dd->d": the loops of `f`, as --list prints them.
std::string describe_types(const ufunc::function& f) {
  std::string s;
  for (const auto& t : f.types()) s += " " + t;
  return s;
}

// --list: the ufuncs this build has, which generate_cases.py (--runner) makes cases for.
int list_ufuncs() {
  std::cout << "# ufunc_differential --list: name nin nout loops ("
            << (diff_registry::from_library ? "ufunc::builtin_ufuncs()" : "stand-in for ufunc::builtin_ufuncs()")
            << ", then the runner's vectorize'd ufuncs)\n";
  for (const auto* f : diff_registry::all())
    std::cout << f->name() << " " << f->nin() << " " << f->nout() << describe_types(*f) << "\n";
  for (auto n : user_names) {
    const auto* f = user_ufunc(n);
    std::cout << f->name() << " " << f->nin() << " " << f->nout() << describe_types(*f) << "\n";
  }
  return 0;
}

// `s` as one word of a POSIX shell's command line.
std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string self_path;  // this executable (/proc/self/exe), for the reproducers

// The command line that regenerates case `c` alone and runs it on `target`.
std::string reproducer(const case_file& cf, const test_case& c, std::string_view target) {
  std::string s = "python3";
  for (const auto& a : cf.repro) s += " " + shell_quote(a);
  const std::string file = "/tmp/ufunc_case_" + c.id() + ".bin";
  s += " --index " + c.id() + " --out " + file + " && " + shell_quote(self_path) + " --targets " + std::string(target) +
       " " + file;
  return s;
}

int usage() {
  std::cerr
      << "usage: ufunc_differential [--targets cpu,parallel,cuda] [--grain N] [--fused] [--max-print N] [--only ID]... "
         "[--exclude ID]... [--skip-method M]... [--verbose] CASES.bin...\n       ufunc_differential --list\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  {
    char buf[4096];
    const auto n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    self_path = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string(argv[0]);
  }
  std::vector<std::string> files, only, exclude, skip_methods;
  std::map<std::string, std::string> crashed;  // case id -> target it crashed on
  std::map<std::string, int> crashes_per_method;
  std::map<std::string, std::string> known;  // "ID@target" -> reason
  prepare_crash_rerun(argc, argv);
  std::string targets_arg;
  bool fused_mode = false;
  std::int64_t grain = 3;
  int max_print = 40;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--list") return list_ufuncs();
    if (a == "--self-check") return self_check();
    if (a == "--skip-reason") {
      // Under CI a check that did not run is a failure, not a skip.
      const char* ci = std::getenv("CI");
      if (ci && std::string_view(ci) == "true") {
        std::cout << "FAILED: " << value() << " (CI=true: the oracle must run in CI)\n";
        return 1;
      }
      std::cout << "SKIPPED: " << value() << "\n";
      return 77;
    }
    if (a == "--targets")
      targets_arg = value();
    else if (a == "--fused")
      fused_mode = true;
    else if (a == "--grain")
      grain = std::stoll(value());
    else if (a == "--max-print")
      max_print = std::stoi(value());
    else if (a == "--only")
      only.push_back(value());
    else if (a == "--exclude")
      exclude.push_back(value());
    else if (a == "--skip-method")
      skip_methods.push_back(value());
    else if (a == "--crashed") {  // ID@target@method, added by the crash handler (crash_recovery.hpp)
      const auto v = value();
      const auto at1 = v.find('@'), at2 = v.find('@', at1 + 1);
      crashed[v.substr(0, at1)] = v.substr(at1 + 1, at2 - at1 - 1);
      ++crashes_per_method[v.substr(at2 + 1)];
    } else if (a == "--known") {  // tracked mismatches: "ID TARGET reason" per line, '#' comments
      std::ifstream in(value());
      for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::string id, target;
        words >> id >> target;
        std::string reason;
        std::getline(words, reason);
        known[id + "@" + target] = reason;
      }
    } else if (a == "--verbose")
      verbose = true;
    else if (a == "-h" || a == "--help")
      return usage() == 2 ? 0 : 0;
    else if (!a.empty() && a[0] == '-')
      return usage();
    else
      files.push_back(a);
  }
  if (files.empty()) return usage();
  if (const char* want = std::getenv("UFUNC_SIMD_ARCH"); want && *want && ufunc::simd_arch() != want) {
    std::cout << "SKIPPED: UFUNC_SIMD_ARCH=" << want << " requested, but the built-in loops run '" << ufunc::simd_arch()
              << "' at best here (CPU or build)\n";
    return 77;
  }

  // Targets: every one with a backend in this process (the library's, and the test
  // backends linked in: tests/backends), or those --targets names; parallel and cuda
  // say why where they cannot run.
  std::vector<ufunc::target_id> targets;
  std::map<std::string, std::string> target_skips;
  std::vector<std::string> wanted;
  if (targets_arg.empty()) {
    wanted = {"cpu", "parallel", "cuda"};
    for (ufunc::target_id t : ufunc::registered_targets())
      if (t != ufunc::target_id::cpu && t != ufunc::target_id::parallel && t != ufunc::target_id::cuda)
        wanted.emplace_back(ufunc::to_string(t));
  } else {
    std::istringstream names(targets_arg);
    for (std::string name; std::getline(names, name, ',');)
      if (!name.empty()) wanted.push_back(name);
  }
  for (const std::string& name : wanted) {
    ufunc::target_id t;
    try {
      t = ufunc::target_from_string(name);
    } catch (const ufunc::target_error& e) {
      std::cerr << "ufunc_differential: --targets: " << e.what() << "\n";
      return 2;
    }
    if (t == ufunc::target_id::automatic) {
      std::cerr
          << "ufunc_differential: --targets: automatic is not a target of its own (it picks cpu, parallel or cuda)\n";
      return 2;
    }
    if (!ufunc::target_available(t)) {
      target_skips[name] = t == ufunc::target_id::parallel ? "not compiled in (preset tbb or all)"
                                                           : "not compiled in (preset cuda or all)";
      continue;
    }
    if (t == ufunc::target_id::cuda && !ufunc::cuda_available()) {
      target_skips[name] = "no usable GPU";
      continue;
    }
    targets.push_back(t);
#if defined(UFUNC_HAS_TBB)
    if (t == ufunc::target_id::parallel) {
      ufunc::backends::parallel::set_grain(grain);
      ufunc::backends::parallel::set_threshold(4 * grain);  // split test-sized calls, whatever they cost
    }
#endif
  }

  // The fused replays: on cpu, and on cuda (a kernel generated from the one-node graph) where
  // cuda is a target here.
  std::vector<ufunc::target_id> fused_targets;
  if (fused_mode) {
    fused_targets.push_back(ufunc::target_id::cpu);
    if (std::find(targets.begin(), targets.end(), ufunc::target_id::cuda) != targets.end())
      fused_targets.push_back(ufunc::target_id::cuda);
  }

  // Cases.
  std::vector<case_file> cfs;
  for (const auto& path : files) {
    try {
      cfs.push_back(read_case_file(path));
    } catch (const std::exception& e) {
      std::cerr << "ufunc_differential: " << e.what() << "\n";
      return 2;
    }
  }

  // Outside a case's replay (which sets its own policies: run_case) nothing the runner
  // computes may warn.
  ufunc::seterr(
      {ufunc::fp_policy::ignore, ufunc::fp_policy::ignore, ufunc::fp_policy::ignore, ufunc::fp_policy::ignore});
  install_crash_handler(crashed.size());

  const auto t0 = std::chrono::steady_clock::now();
  std::size_t ncases = 0, printed = 0;
  std::ostringstream now_agree;              // tracked mismatches that agree now
  std::ostringstream failures;               // printed at the end: a re-run after a crash prints everything once
  std::map<std::string, std::size_t> skips;  // reason -> count (per case and target)
  struct target_stats {
    std::size_t run = 0, pass = 0, fail = 0, skip = 0;
    std::size_t known = 0;
  };
  std::map<std::string, target_stats> stats;
  std::map<std::string, std::size_t> fail_by_ufunc;
  std::string numpy_version;
  for (const auto& cf : cfs) {
    numpy_version = cf.numpy_version;
    for (const auto& c : cf.cases) {
      if (!only.empty() && std::find(only.begin(), only.end(), c.id()) == only.end()) continue;
      if (std::find(exclude.begin(), exclude.end(), c.id()) != exclude.end()) continue;
      if (std::find(skip_methods.begin(), skip_methods.end(), c.method) != skip_methods.end()) continue;
      ++ncases;
      const ufunc::function* f = user_ufunc(c.ufunc_name);
      const bool user = f != nullptr;
      if (!f) f = diff_registry::lookup(c.ufunc_name);
      std::vector<std::pair<std::string, std::string>> case_failures;  // (targets, detail), merged
      for (std::size_t run = 0; run < targets.size() + fused_targets.size(); ++run) {
        const bool fused = run >= targets.size();  // the fused replays, after the targets
        const auto t = fused ? fused_targets[run - targets.size()] : targets[run];
        const std::string tname =
            fused ? (t == ufunc::target_id::cpu ? std::string("fused") : "fused-" + std::string(ufunc::to_string(t)))
                  : std::string(ufunc::to_string(t));
        auto& st = stats[tname];
        run_result r;
        begin_crash_context(c.id() + " on " + tname + ": " + c.desc + "\n  repro: " + reproducer(cf, c, tname), c.id(),
                            tname, c.method);
        if (const auto it = crashed.find(c.id()); it != crashed.end()) {
          r = it->second == tname ? fail("crashed (fatal signal) in the library")
                                  : skip("crashed on another target; not run again");
        } else if (c.method != "call" && crashes_per_method[c.method] >= max_method_crashes) {
          r = skip("method " + c.method + ": " + std::to_string(max_method_crashes) +
                   " of its cases crashed; the others are not run");
        } else if (const auto* g = f ? nullptr : diff_registry::lookup_gufunc(c.ufunc_name)) {
          r = fused ? skip("fused: gufuncs are not fused") : replay_gufunc(c, *g, t);
        } else if (!f && !c.canonical.empty() && diff_registry::lookup(c.canonical)) {
          r = fail("find_builtin(\"" + c.ufunc_name + "\") is null, but NumPy's " + c.ufunc_name + " is " +
                   c.canonical + ", which the library has");
        } else if (!f) {
          r = skip("ufunc '" + c.ufunc_name + "' is not in this library");
        } else {
          r = fused ? replay_fused(c, *f, t, user) : replay_case(c, *f, t, user);
        }
        end_crash_context();
        if (r.k == run_result::kind::skip) {
          ++st.skip;
          ++skips[r.detail];
          if (verbose) std::cout << "skip " << c.id() << " [" << tname << "]: " << r.detail << "\n";
          continue;
        }
        ++st.run;
        const auto known_it = known.find(c.id() + "@" + tname);
        if (known_it != known.end()) {
          // A tracked mismatch: reported, not failed; once it agrees, the list must shrink.
          // Not a failure when it agrees: some entries differ by instruction set.
          if (r.k == run_result::kind::pass) {
            ++st.pass;
            now_agree << "note: known mismatch " << c.id() << " [" << tname << "] agrees in this run\n";
          } else {
            ++st.known;
          }
          continue;
        }
        if (r.k == run_result::kind::pass) {
          ++st.pass;
          if (verbose) std::cout << "ok   " << c.id() << " [" << tname << "]: " << c.desc << "\n";
          continue;
        }
        ++st.fail;
        ++fail_by_ufunc[c.ufunc_name + (c.method == "call" ? "" : "." + c.method) +
                        (r.detail.starts_with("floating-point flags") ? "[flags]"
                         : r.detail.starts_with("errstate")           ? "[errstate]"
                                                                      : "")];
        bool merged = false;
        for (auto& [ts, detail] : case_failures)
          if (detail == r.detail) {
            ts += "," + tname;
            merged = true;
          }
        if (!merged) case_failures.emplace_back(tname, r.detail);
      }
      for (const auto& [ts, detail] : case_failures) {
        if (printed++ < static_cast<std::size_t>(max_print))
          failures << "FAIL " << c.id() << " [" << ts << "] " << c.desc << "\n  " << detail
                   << "\n  repro: " << reproducer(cf, c, ts.substr(0, ts.find(','))) << "\n";
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::size_t total_fail = 0;
  std::cout << failures.str() << now_agree.str();
  std::cout << "\nufunc_differential: " << ncases << " cases against NumPy " << numpy_version << " ("
            << (diff_registry::from_library ? "library registry" : "stand-in registry of 5 ufuncs") << ", simd "
            << ufunc::simd_arch() << "), " << secs << " s\n";
  for (const auto& [t, s] : stats) {
    std::cout << "  target " << t << ": " << s.run << " run, " << s.pass << " agree, " << s.fail << " mismatch, "
              << s.known << " known mismatches (tracked in the --known list), " << s.skip << " skipped\n";
    total_fail += s.fail;
  }
  for (const auto& [t, why] : target_skips) std::cout << "  target " << t << ": skipped, " << why << "\n";
  if (!skips.empty()) {
    std::cout << "  skipped (case x target):\n";
    for (const auto& [why, n] : skips) std::cout << "    " << n << "  " << why << "\n";
  }
  if (!fail_by_ufunc.empty()) {
    std::cout << "  mismatches by ufunc:";
    for (const auto& [u, n] : fail_by_ufunc) std::cout << " " << u << "=" << n;
    std::cout << "\n";
    if (printed > static_cast<std::size_t>(max_print))
      std::cout << "  (" << printed - static_cast<std::size_t>(max_print)
                << " more failures not printed; --max-print N shows more)\n";
  }
  if (ncases == 0) {
    std::cout << "SKIPPED: no cases to run\n";
    return 77;
  }
  return total_fail ? 1 : 0;
}
