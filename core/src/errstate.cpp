#include <ufunc/core/errstate.hpp>

#include <cfenv>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/error.hpp>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <xmmintrin.h>
#define UFUNC_FP_X86 1
#endif

namespace ufunc {

namespace {

// The calling thread's policies. Trivial types, so each access is a plain TLS load.
thread_local fp_errors t_policies{};
thread_local bool t_checks = true;  // not every policy is ignore

fp_call_handler& thread_call_handler() {
  thread_local fp_call_handler handler;
  return handler;
}

bool needs_flags(const fp_errors& e) noexcept {
  return e.divide != fp_policy::ignore || e.over != fp_policy::ignore || e.under != fp_policy::ignore ||
         e.invalid != fp_policy::ignore;
}

struct warning_sink {
  std::mutex mutex;
  std::shared_ptr<const warning_handler> handler;  // null: the default
  std::set<std::string, std::less<>> shown;        // what the default printed already
};
warning_sink& sink() {
  static warning_sink s;
  return s;
}

void default_warning(std::string_view message) {
  auto& s = sink();
  {
    std::lock_guard lock(s.mutex);
    if (s.shown.find(message) != s.shown.end()) return;
    s.shown.emplace(message);
  }
  std::fprintf(stderr, "RuntimeWarning: %.*s\n", static_cast<int>(message.size()), message.data());
}

void warn(std::string_view message) {
  std::shared_ptr<const warning_handler> h;
  {
    auto& s = sink();
    std::lock_guard lock(s.mutex);
    h = s.handler;
  }
  if (h)
    (*h)(message);  // outside the lock: it may call ufuncs, or throw
  else
    default_warning(message);
}

#if defined(UFUNC_FP_X86)
// SSE's MXCSR and the x87 status word share the flag layout (and glibc's
// feraiseexcept sets overflow and underflow in the x87 word). Bits: IE 0x01,
// ZE 0x04, OE 0x08, UE 0x10; the inexact and denormal flags are left alone, so the
// common case (nothing to clear) writes no control register.
constexpr unsigned x86_mask = 0x01 | 0x04 | 0x08 | 0x10;

unsigned x87_status() noexcept {
  unsigned short sw;
  __asm__ __volatile__("fnstsw %0" : "=am"(sw));
  return sw;
}

unsigned from_x86(unsigned bits) noexcept {
  return ((bits & 0x04) ? static_cast<unsigned>(fp_flag::divide) : 0u) |
         ((bits & 0x08) ? static_cast<unsigned>(fp_flag::overflow) : 0u) |
         ((bits & 0x10) ? static_cast<unsigned>(fp_flag::underflow) : 0u) |
         ((bits & 0x01) ? static_cast<unsigned>(fp_flag::invalid) : 0u);
}
#else
constexpr int fe_mask = FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID;
#endif

constexpr struct {
  fp_flag flag;
  const char* text;
  fp_policy fp_errors::*policy;
} kinds[] = {
    {fp_flag::divide, "divide by zero", &fp_errors::divide},
    {fp_flag::overflow, "overflow", &fp_errors::over},
    {fp_flag::underflow, "underflow", &fp_errors::under},
    {fp_flag::invalid, "invalid value", &fp_errors::invalid},
};

}  // namespace

fp_errors seterr(const fp_errors& policies) noexcept {
  const fp_errors old = t_policies;
  t_policies = policies;
  t_checks = needs_flags(policies);
  return old;
}

fp_errors geterr() noexcept { return t_policies; }

fp_call_handler seterrcall(fp_call_handler handler) { return std::exchange(thread_call_handler(), std::move(handler)); }

fp_call_handler geterrcall() { return thread_call_handler(); }

warning_handler set_warning_handler(warning_handler handler) {
  auto next = handler ? std::make_shared<const warning_handler>(std::move(handler)) : nullptr;
  auto& s = sink();
  std::lock_guard lock(s.mutex);
  auto old = std::exchange(s.handler, std::move(next));
  return old ? *old : warning_handler{};
}

errstate::errstate(const fp_error_changes& c) {
  fp_errors next = t_policies;
  if (c.all) next = {*c.all, *c.all, *c.all, *c.all};
  if (c.divide) next.divide = *c.divide;
  if (c.over) next.over = *c.over;
  if (c.under) next.under = *c.under;
  if (c.invalid) next.invalid = *c.invalid;
  saved_ = seterr(next);
}

errstate::errstate(const fp_error_changes& changes, fp_call_handler call) : errstate(changes) {
  saved_call_ = seterrcall(std::move(call));
}

errstate::~errstate() {
  seterr(saved_);
  if (saved_call_) thread_call_handler() = std::move(*saved_call_);
}

namespace detail {

bool fp_checks_enabled() noexcept { return t_checks; }

void fp_clear() noexcept {
#if defined(UFUNC_FP_X86)
  const unsigned csr = _mm_getcsr();
  if (csr & x86_mask) _mm_setcsr(csr & ~x86_mask);
  if (x87_status() & x86_mask) __asm__ __volatile__("fnclex");
#else
  std::feclearexcept(fe_mask);
#endif
}

unsigned fp_read() noexcept {
#if defined(UFUNC_FP_X86)
  return from_x86((_mm_getcsr() | x87_status()) & x86_mask);
#else
  const int e = std::fetestexcept(fe_mask);
  return ((e & FE_DIVBYZERO) ? static_cast<unsigned>(fp_flag::divide) : 0u) |
         ((e & FE_OVERFLOW) ? static_cast<unsigned>(fp_flag::overflow) : 0u) |
         ((e & FE_UNDERFLOW) ? static_cast<unsigned>(fp_flag::underflow) : 0u) |
         ((e & FE_INVALID) ? static_cast<unsigned>(fp_flag::invalid) : 0u);
#endif
}

void fp_report(std::string_view name, unsigned flags) { fp_report(name, flags, t_policies); }

void fp_report(std::string_view name, unsigned flags, const fp_errors& policies) {
  for (const auto& k : kinds) {
    const auto bit = static_cast<unsigned>(k.flag);
    if (!(flags & bit)) continue;
    const fp_policy p = policies.*k.policy;
    if (p == fp_policy::ignore) continue;
    const std::string message = std::string(k.text) + " encountered in " + std::string(name);
    switch (p) {
      case fp_policy::ignore:
        break;
      case fp_policy::warn:
        warn(message);
        break;
      case fp_policy::raise:
        throw floating_point_error(message, bit);
      case fp_policy::call: {
        const fp_call_handler handler = thread_call_handler();  // a copy: it may call seterrcall
        if (!handler)
          throw value_error("errstate: the policy for " + std::string(k.text) +
                            " is 'call', but no function is set (seterrcall); " + message);
        handler(message, flags);
        break;
      }
      case fp_policy::print:
        std::fprintf(stderr, "Warning: %s\n", message.c_str());
        break;
    }
  }
}

}  // namespace detail

}  // namespace ufunc
