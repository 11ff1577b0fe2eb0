// SHA-256 (FIPS 180-4), for the kernel cache: a cache file is named after the hash of its
// key, and carries the hash of its own bytes so that a torn or damaged file is never loaded.
// Written here rather than taken from a crypto library so that the layer needs nothing but
// the C++ standard library and POSIX.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ufunc::cuda::rtc {

/// The 32 bytes of a SHA-256 digest, most significant byte of the first word first.
using sha256_digest = std::array<std::uint8_t, 32>;

/// SHA-256 of data given in pieces: the digest of the concatenation of every update()
/// since construction or the last finish().
///
///     ufunc::cuda::rtc::sha256_hasher h;
///     h.update("ab");
///     h.update("c");
///     const auto digest = h.finish();  // == sha256("abc"); h is ready for a new message
class sha256_hasher {
 public:
  sha256_hasher() noexcept { reset(); }

  /// Appends `data` to the message.
  ///
  ///     h.update(std::string_view(buffer.data(), buffer.size()));
  void update(std::string_view data) noexcept;

  /// The digest of the message so far; the hasher then starts a new, empty message.
  ///
  ///     const ufunc::cuda::rtc::sha256_digest d = h.finish();
  [[nodiscard]] sha256_digest finish() noexcept;

  /// Forgets the message so far.
  ///
  ///     h.reset();
  void reset() noexcept;

 private:
  void compress(const std::uint8_t* block) noexcept;

  std::array<std::uint32_t, 8> state_{};
  std::array<std::uint8_t, 64> block_{};
  std::size_t block_used_ = 0;
  std::uint64_t message_bytes_ = 0;
};

/// The SHA-256 digest of `data`.
///
///     const auto d = ufunc::cuda::rtc::sha256("abc");  // d[0] == 0xba, d[31] == 0xad
[[nodiscard]] sha256_digest sha256(std::string_view data) noexcept;

/// The SHA-256 digest of `data` as 64 lowercase hexadecimal digits.
///
///     ufunc::cuda::rtc::sha256_hex("abc");  // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
[[nodiscard]] std::string sha256_hex(std::string_view data);

/// A digest as 64 lowercase hexadecimal digits.
///
///     ufunc::cuda::rtc::to_hex(h.finish());
[[nodiscard]] std::string to_hex(const sha256_digest& digest);

}  // namespace ufunc::cuda::rtc
