// Where the CUDA Toolkit is, and its libraries loaded by name at run time.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <ufunc/core/error.hpp>

namespace ufunc::cuda::rtc::detail {

/// The toolkit folders to look in, first match wins: UFUNC_CUDA_PATH, CUDA_PATH,
/// CUDA_HOME, then /usr/local/cuda.
[[nodiscard]] std::vector<std::string> toolkit_roots();

/// The include folders NVRTC needs ("-I<root>/include", "-I<root>/include/cccl") of the
/// first root that has cuda_runtime.h; empty if none has.
[[nodiscard]] std::vector<std::string> toolkit_include_options();

/// The file of the first of `names` under a toolkit root's lib64, lib or targets folder,
/// without loading it; nullopt where no root has one. shared_library loads this file first.
[[nodiscard]] std::optional<std::string> toolkit_library_file(const std::vector<std::string>& names);

/// A shared library opened with dlopen, closed never (its functions stay in use).
class shared_library {
 public:
  /// Tries each name under each root's lib64, lib and targets folders (the toolkit whose
  /// headers NVRTC is given), then as given (the loader's search path). Throws target_error
  /// listing what was tried and the loader's errors.
  shared_library(const std::vector<std::string>& names, const char* what);
  /// The address of `symbol`; target_error if it is missing.
  [[nodiscard]] void* symbol(const char* name) const;
  /// The address of `symbol`, or null if this version of the library lacks it.
  [[nodiscard]] void* optional_symbol(const char* name) const noexcept;

 private:
  void* handle_ = nullptr;
  std::string path_;
};

/// The one `T` of the process, made by its constructor on first use (which loads a library
/// and binds its functions). A constructor that throws is not tried again: every use
/// throws target_error with its message (the library stays missing for the process).
///
///     const nvrtc_api& api = load_once<nvrtc_api>();
template <class T>
const T& load_once() {
  static std::once_flag once;
  static std::unique_ptr<T> loaded;
  static std::string failure;
  std::call_once(once, [] {
    try {
      loaded = std::make_unique<T>();
    } catch (const error& e) {
      failure = e.what();
    }
  });
  if (!loaded) throw target_error(failure);
  return *loaded;
}

}  // namespace ufunc::cuda::rtc::detail
