#include <ufunc/core/detail/environment.hpp>

#include <cerrno>
#include <cstdlib>
#include <string>

#include <ufunc/core/error.hpp>

namespace ufunc::detail {

std::optional<std::int64_t> environment_integer(const char* name, std::int64_t min) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0' || errno == ERANGE || value < min)
    throw target_error(std::string(name) + " must be an integer of at least " + std::to_string(min) + ", not '" + v +
                       "'");
  return value;
}

}  // namespace ufunc::detail
