// A crash inside the library (a fatal signal while a case runs): the handler names the
// case, then runs the runner again (execv is async-signal-safe) with
// `--crashed ID@target@method` added, which reports that case as a failure and goes on
// with the others. At most max_crashes times (crash_recovery.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace differential {

constexpr int max_method_crashes = 3;  // then a method's (reduce, accumulate...) other cases are skipped

// Keeps the command line for a re-run, and unblocks the signals that a re-run started from
// the handler inherits blocked. First thing in main.
void prepare_crash_rerun(int argc, char** argv);

// Installs the handler for SIGSEGV, SIGBUS, SIGFPE and SIGABRT. `crashed_so_far`: the cases
// the --crashed options name; at max_crashes the handler gives up instead of re-running.
void install_crash_handler(std::size_t crashed_so_far);

// While case `id` of `method` runs on `target`: what the handler prints if it crashes
// (`note`: the case and its reproducer) and the --crashed value of the re-run.
void begin_crash_context(const std::string& note, const std::string& id, const std::string& target,
                         const std::string& method);
// After the case: a fatal signal is no longer the case's.
void end_crash_context();

}  // namespace differential
