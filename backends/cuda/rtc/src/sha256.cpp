// SHA-256 as FIPS 180-4 section 6.2 describes it: the message is padded to whole 512-bit
// blocks (a 1 bit, zeros, the message length in bits as a 64-bit big-endian number) and
// each block is mixed into eight 32-bit words of state by 64 rounds.
#include <ufunc/backends/cuda/rtc/sha256.hpp>

#include <algorithm>
#include <bit>

namespace ufunc::cuda::rtc {

namespace {

// FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the cube roots of
// the first 64 primes.
constexpr std::array<std::uint32_t, 64> round_constants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// Section 5.3.3: the first 32 bits of the fractional parts of the square roots of the
// first 8 primes.
constexpr std::array<std::uint32_t, 8> initial_state = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

constexpr std::uint32_t choose(std::uint32_t x, std::uint32_t y, std::uint32_t z) { return (x & y) ^ (~x & z); }
constexpr std::uint32_t majority(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return (x & y) ^ (x & z) ^ (y & z);
}
constexpr std::uint32_t big_sigma0(std::uint32_t x) { return std::rotr(x, 2) ^ std::rotr(x, 13) ^ std::rotr(x, 22); }
constexpr std::uint32_t big_sigma1(std::uint32_t x) { return std::rotr(x, 6) ^ std::rotr(x, 11) ^ std::rotr(x, 25); }
constexpr std::uint32_t small_sigma0(std::uint32_t x) { return std::rotr(x, 7) ^ std::rotr(x, 18) ^ (x >> 3); }
constexpr std::uint32_t small_sigma1(std::uint32_t x) { return std::rotr(x, 17) ^ std::rotr(x, 19) ^ (x >> 10); }

}  // namespace

void sha256_hasher::reset() noexcept {
  state_ = initial_state;
  block_used_ = 0;
  message_bytes_ = 0;
}

void sha256_hasher::compress(const std::uint8_t* block) noexcept {
  // The message schedule (section 6.2.2 step 1): the block's 16 big-endian words, then 48 more.
  std::array<std::uint32_t, 64> w{};
  for (std::size_t t = 0; t < 16; ++t)
    w[t] = (std::uint32_t{block[4 * t]} << 24) | (std::uint32_t{block[4 * t + 1]} << 16) |
           (std::uint32_t{block[4 * t + 2]} << 8) | std::uint32_t{block[4 * t + 3]};
  for (std::size_t t = 16; t < 64; ++t) w[t] = small_sigma1(w[t - 2]) + w[t - 7] + small_sigma0(w[t - 15]) + w[t - 16];

  std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  std::uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (std::size_t t = 0; t < 64; ++t) {
    const std::uint32_t t1 = h + big_sigma1(e) + choose(e, f, g) + round_constants[t] + w[t];
    const std::uint32_t t2 = big_sigma0(a) + majority(a, b, c);
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void sha256_hasher::update(std::string_view data) noexcept {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t left = data.size();
  message_bytes_ += left;
  // Top up a partly filled block first; whole blocks of the input are then hashed in place.
  if (block_used_ > 0) {
    const std::size_t take = std::min(left, block_.size() - block_used_);
    std::copy_n(bytes, take, block_.begin() + static_cast<std::ptrdiff_t>(block_used_));
    block_used_ += take;
    bytes += take;
    left -= take;
    if (block_used_ < block_.size()) return;
    compress(block_.data());
    block_used_ = 0;
  }
  for (; left >= block_.size(); bytes += block_.size(), left -= block_.size()) compress(bytes);
  std::copy_n(bytes, left, block_.begin());
  block_used_ = left;
}

sha256_digest sha256_hasher::finish() noexcept {
  // Section 5.1.1: the length is in bits, modulo 2^64.
  const std::uint64_t message_bits = message_bytes_ * 8;
  block_[block_used_++] = 0x80;
  if (block_used_ > block_.size() - 8) {
    std::fill(block_.begin() + static_cast<std::ptrdiff_t>(block_used_), block_.end(), std::uint8_t{0});
    compress(block_.data());
    block_used_ = 0;
  }
  std::fill(block_.begin() + static_cast<std::ptrdiff_t>(block_used_), block_.end() - 8, std::uint8_t{0});
  for (std::size_t i = 0; i < 8; ++i)
    block_[block_.size() - 1 - i] = static_cast<std::uint8_t>(message_bits >> (8 * i));
  compress(block_.data());

  sha256_digest digest{};
  for (std::size_t i = 0; i < state_.size(); ++i)
    for (std::size_t j = 0; j < 4; ++j) digest[4 * i + j] = static_cast<std::uint8_t>(state_[i] >> (24 - 8 * j));
  reset();
  return digest;
}

sha256_digest sha256(std::string_view data) noexcept {
  sha256_hasher h;
  h.update(data);
  return h.finish();
}

std::string to_hex(const sha256_digest& digest) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex(2 * digest.size(), '0');
  for (std::size_t i = 0; i < digest.size(); ++i) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 0xf];
  }
  return hex;
}

std::string sha256_hex(std::string_view data) { return to_hex(sha256(data)); }

}  // namespace ufunc::cuda::rtc
