// Where an array's memory lives.
#pragma once

#include <string>

namespace ufunc {

enum class device_kind : unsigned char { host, cuda };

/// A memory location: the host, or CUDA device `index`.
struct device {
  device_kind kind = device_kind::host;
  int index = 0;

  [[nodiscard]] static constexpr device host() noexcept { return {}; }
  [[nodiscard]] static constexpr device cuda(int index = 0) noexcept { return {device_kind::cuda, index}; }
  [[nodiscard]] constexpr bool is_host() const noexcept { return kind == device_kind::host; }
  /// "cpu" or "cuda:N", the spelling PyTorch and CuPy users know.
  [[nodiscard]] std::string str() const { return is_host() ? std::string("cpu") : "cuda:" + std::to_string(index); }
  friend constexpr bool operator==(const device&, const device&) noexcept = default;
};

}  // namespace ufunc
