// A kernel cache entry for a compiled program: the lowered kernel names (their count, then
// one per line), then the CUBIN. Shared by elementwise_kernel and module.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ufunc/backends/cuda/rtc/compiler.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::cuda::rtc::detail {

inline std::string pack(const compile_result& r) {
  std::string s = std::to_string(r.lowered_names.size()) + "\n";
  for (const auto& n : r.lowered_names) s += n + "\n";
  return s + r.cubin;
}

inline std::pair<std::vector<std::string>, std::string_view> unpack(const std::string& entry) {
  std::size_t at = entry.find('\n');
  if (at == std::string::npos) throw compile_error("kernel cache: an entry without its kernel names");
  const int count = std::stoi(entry.substr(0, at));
  std::vector<std::string> names;
  for (int k = 0; k < count; ++k) {
    const std::size_t end = entry.find('\n', at + 1);
    if (end == std::string::npos) throw compile_error("kernel cache: an entry with too few kernel names");
    names.push_back(entry.substr(at + 1, end - at - 1));
    at = end;
  }
  return {names, std::string_view(entry).substr(at + 1)};
}

}  // namespace ufunc::cuda::rtc::detail
