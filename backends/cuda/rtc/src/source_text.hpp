// Generated CUDA source is built as a string without iostreams: a Python module whose
// toolchain links libstdc++ statically (seen with a GCC on the GPU machine, as devtoolset
// builds do) has a second copy of the C++ runtime beside the process's, and the locales
// an ostringstream needs are not set up in that copy (a crash at the first number written).
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <utility>

namespace ufunc::cuda::rtc {

/// An ostringstream's `<<` for text and integers, appending to a std::string.
class source_text {
 public:
  source_text& operator<<(std::string_view s) {
    text_ += s;
    return *this;
  }
  source_text& operator<<(char c) {
    text_ += c;
    return *this;
  }
  template <std::integral I>
  requires(!std::same_as<I, char> && !std::same_as<I, bool>) source_text& operator<<(I v) {
    text_ += std::to_string(v);
    return *this;
  }
  [[nodiscard]] const std::string& str() const& noexcept { return text_; }
  [[nodiscard]] std::string str() && noexcept { return std::move(text_); }

 private:
  std::string text_;
};

}  // namespace ufunc::cuda::rtc
