// The fatal-signal handler and the state it reads. The handler may use only
// async-signal-safe calls (write, execv, signal, raise): what it prints and the command line
// it runs again are prepared beforehand (prepare_crash_rerun, begin_crash_context).
#include "crash_recovery.hpp"

#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

namespace differential {
namespace {

const char* volatile crash_note = nullptr;
std::string crash_text;
char crash_arg[128];
std::vector<char*> exec_argv;  // argv, then room for "--crashed", crash_arg, nullptr
bool may_reexec = false;
constexpr int max_crashes = 10;
char crashed_flag[] = "--crashed";
extern "C" void on_fatal_signal(int sig) {
  if (crash_note) {
    const char head[] = "\nufunc_differential: fatal signal while running ";
    (void)!write(2, head, sizeof(head) - 1);
    (void)!write(2, crash_note, std::strlen(crash_note));
    (void)!write(2, "\n", 1);
    if (may_reexec) {
      const char again[] = "ufunc_differential: running the other cases again without it\n";
      (void)!write(2, again, sizeof(again) - 1);
      exec_argv[exec_argv.size() - 3] = crashed_flag;
      exec_argv[exec_argv.size() - 2] = crash_arg;
      execv("/proc/self/exe", exec_argv.data());
    } else {
      const char stop[] = "ufunc_differential: too many cases crashed; giving up\n";
      (void)!write(2, stop, sizeof(stop) - 1);
    }
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void prepare_crash_rerun(int argc, char** argv) {
  sigset_t all;  // a re-run started from the signal handler inherits its blocked signals
  sigfillset(&all);
  sigprocmask(SIG_UNBLOCK, &all, nullptr);
  for (int i = 0; i < argc; ++i) exec_argv.push_back(argv[i]);
  exec_argv.insert(exec_argv.end(), {nullptr, nullptr, nullptr});
}

void install_crash_handler(std::size_t crashed_so_far) {
  may_reexec = crashed_so_far < static_cast<std::size_t>(max_crashes);
  std::signal(SIGSEGV, on_fatal_signal);
  std::signal(SIGBUS, on_fatal_signal);
  std::signal(SIGFPE, on_fatal_signal);
  std::signal(SIGABRT, on_fatal_signal);
}

void begin_crash_context(const std::string& note, const std::string& id, const std::string& target,
                         const std::string& method) {
  crash_text = note;
  std::snprintf(crash_arg, sizeof(crash_arg), "%s@%s@%s", id.c_str(), target.c_str(), method.c_str());
  crash_note = crash_text.c_str();
}

void end_crash_context() { crash_note = nullptr; }

}  // namespace differential
