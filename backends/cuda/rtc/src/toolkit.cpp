#include "toolkit.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>

#include <ufunc/core/error.hpp>

namespace ufunc::cuda::rtc::detail {

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

std::vector<std::string> toolkit_roots() {
  std::vector<std::string> roots;
  for (const char* variable : {"UFUNC_CUDA_PATH", "CUDA_PATH", "CUDA_HOME"})
    if (const char* v = std::getenv(variable); v != nullptr && *v != '\0') roots.emplace_back(v);
  roots.emplace_back("/usr/local/cuda");
  return roots;
}

std::vector<std::string> toolkit_include_options() {
  for (const auto& root : toolkit_roots())
    if (exists(root + "/include/cuda_runtime.h")) {
      std::vector<std::string> options{"-I" + root + "/include"};
      // CUDA 13 keeps libcu++ (cuda/std/...) under include/cccl.
      if (exists(root + "/include/cccl/cuda/std/complex")) options.push_back("-I" + root + "/include/cccl");
      return options;
    }
  return {};
}

namespace {

std::vector<std::string> library_candidates(const std::vector<std::string>& names) {
  std::vector<std::string> candidates;
  for (const auto& root : toolkit_roots())
    for (const char* lib : {"/lib64/", "/lib/", "/targets/x86_64-linux/lib/"})
      for (const auto& name : names) candidates.push_back(root + lib + name);
  return candidates;
}

}  // namespace

std::optional<std::string> toolkit_library_file(const std::vector<std::string>& names) {
  for (const auto& path : library_candidates(names))
    if (exists(path)) return path;
  return std::nullopt;
}

shared_library::shared_library(const std::vector<std::string>& names, const char* what) {
  std::vector<std::string> candidates = library_candidates(names);
  candidates.insert(candidates.end(), names.begin(), names.end());
  std::string tried;
  for (const auto& path : candidates) {
    // Lazy binding: the functions used are bound by name (symbol()), and resolving all of a
    // large library's symbols up front cost NVRTC's first use a millisecond more.
    handle_ = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle_ != nullptr) {
      path_ = path;
      return;
    }
    const char* e = ::dlerror();
    tried += "\n  " + path + (e ? std::string(": ") + e : std::string());
  }
  throw target_error(std::string("cannot load ") + what + "; tried:" + tried +
                     "\nInstall the CUDA Toolkit, or set UFUNC_CUDA_PATH to its folder.");
}

void* shared_library::symbol(const char* name) const {
  void* p = optional_symbol(name);
  if (p == nullptr) throw target_error(path_ + " has no symbol " + name + " (a toolkit too old for this library?)");
  return p;
}

void* shared_library::optional_symbol(const char* name) const noexcept {
  ::dlerror();
  return ::dlsym(handle_, name);
}

}  // namespace ufunc::cuda::rtc::detail
