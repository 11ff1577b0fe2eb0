// A kernel cache entry for a compiled program: the lowered kernel names (their count, then
// one per line), then the CUBIN; and compiling through the cache. Shared by elementwise_kernel
// and module.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ufunc/backends/cuda/rtc/compiler.hpp>
#include <ufunc/backends/cuda/rtc/kernel_cache.hpp>
#include <ufunc/backends/cuda/rtc/sha256.hpp>
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

/// `request` compiled by NVRTC, or its entry in the process's kernel cache: the key holds
/// everything that changes the binary (the NVRTC library, the architecture, every option, the
/// name expressions, the in-memory headers, the source); `kind` keeps different users' entries apart.
inline std::shared_ptr<const std::string> compile_cached(std::string_view kind, const compile_request& request) {
  std::string key =
      std::string(kind) + "\n" + compiler_identity() + "\nsm_" + std::to_string(request.architecture) + "\n";
  for (const auto& o : default_options()) key += o + "\n";
  for (const auto& o : request.options) key += o + "\n";
  for (const auto& n : request.name_expressions) key += n + "\n";
  if (!request.headers.empty()) {
    sha256_hasher h;
    for (const auto& header : request.headers) {
      h.update(header.name);
      h.update(std::string_view("\0", 1));
      h.update(header.text);
      h.update(std::string_view("\0", 1));
    }
    key += "headers " + to_hex(h.finish()) + "\n";
  }
  key += request.source;
  return kernel_cache::process().get(key, [&] { return pack(compile(request)); });
}

}  // namespace ufunc::cuda::rtc::detail
