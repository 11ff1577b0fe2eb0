#include <cstdlib>
#include <string>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/detail/execute.hpp>
#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc {

std::string_view to_string(target_id t) noexcept {
  switch (t) {
    case target_id::cpu:
      return "cpu";
    case target_id::parallel:
      return "parallel";
    case target_id::cuda:
      return "cuda";
    case target_id::automatic:
      return "automatic";
  }
  const std::string_view name = detail::registered_name(t);  // a program's own backend
  return name.empty() ? std::string_view("unregistered") : name;
}

target_id target_from_string(std::string_view name) {
  for (auto t : {target_id::cpu, target_id::parallel, target_id::cuda, target_id::automatic})
    if (to_string(t) == name) return t;
  if (const auto t = detail::registered_target(name)) return *t;
  std::string known = "cpu, parallel, cuda, automatic";
  for (target_id t : registered_targets())
    if (t != target_id::cpu && t != target_id::parallel && t != target_id::cuda)
      known += ", " + std::string(to_string(t));
  throw target_error("unknown target '" + std::string(name) + "' (known: " + known + ")");
}

bool target_available(target_id t) noexcept {
  // automatic always has somewhere to run: the host backends at least.
  return t == target_id::automatic || detail::find_backend(t) != nullptr;
}

void require_target(target_id t) {
  if (target_available(t)) return;
  if (t != target_id::parallel && t != target_id::cuda)
    throw target_error("target " + std::to_string(static_cast<unsigned>(t)) +
                       " has no backend: register one with ufunc::register_backend before calling on it");
  const char* preset = t == target_id::parallel ? "tbb" : "cuda";
  const char* option = t == target_id::parallel ? "UFUNC_ENABLE_TBB" : "UFUNC_ENABLE_CUDA";
  throw target_error("target '" + std::string(to_string(t)) +
                     "' is not compiled into this build of ufunc; configure with the '" + preset +
                     "' or 'all' preset (" + option + "=ON)");
}

target_id call_target(std::optional<target_id> requested) { return detail::resolve_target(requested); }

namespace detail {

namespace {

// UFUNC_TARGET is read once: the environment of a running program is not expected
// to change, and reading it on every call would cost more than a small call itself.
struct environment_target {
  std::optional<target_id> value;
  std::string error;
  environment_target() {
    const char* v = std::getenv("UFUNC_TARGET");
    if (v == nullptr || *v == '\0') return;
    try {
      value = target_from_string(v);
    } catch (const target_error& e) {
      error = std::string("UFUNC_TARGET: ") + e.what();
    }
  }
};

}  // namespace

target_id resolve_target(std::optional<target_id> requested) {
  static const environment_target env;
  target_id t;
  if (requested) {
    t = *requested;
  } else if (!env.error.empty()) {
    throw target_error(env.error);
  } else {
    t = env.value.value_or(target::default_target::id);
  }
  require_target(t);
  return t;
}

bool runs_inline(target_id t, std::int64_t size) {
  const backend* b = t == target_id::automatic ? &host_backend(t) : find_backend(t);
  if (b == nullptr || b->execute == nullptr) return false;  // no host executor: the general path says why
  return b->inline_limit != nullptr && size <= b->inline_limit();
}

void execute(target_id t, const elementwise_task& task) { host_backend(t).execute(task); }

}  // namespace detail

}  // namespace ufunc
