#include <ufunc/core/scalar.hpp>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include <ufunc/core/detail/convert.hpp>

namespace ufunc {

bool weak_scalar::fits(dtype t) const noexcept {
  if (kind_ != kind::integer || !t.is_integer()) return true;
  return visit_dtype(t, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      return int_ >= static_cast<detail::int128>(std::numeric_limits<T>::min()) &&
             int_ <= static_cast<detail::int128>(std::numeric_limits<T>::max());
    else
      return true;
  });
}

void weak_scalar::store(dtype t, void* dst) const noexcept {
  visit_dtype(t, [&](auto v) {
    using T = decltype(v);
    T out{};
    if constexpr (std::is_same_v<T, bool>) {
      out = kind_ == kind::integer ? int_ != 0 : (real_ != 0 || imag_ != 0);
    } else if constexpr (std::is_integral_v<T>) {
      // Only reached with values that fit (checked during resolution) or with
      // unsafe casting; wrap modulo 2^N as NumPy's C casts do.
      out = kind_ == kind::integer ? static_cast<T>(static_cast<std::uint64_t>(int_))
                                   : static_cast<T>(std::isfinite(real_) && std::fabs(real_) < 9.2e18
                                                        ? static_cast<std::int64_t>(real_)
                                                        : std::numeric_limits<std::int64_t>::min());
    } else if constexpr (detail::is_half<T>) {
      out = detail::convert<T>(kind_ == kind::integer ? static_cast<double>(int_) : real_);
    } else if constexpr (std::is_floating_point_v<T>) {
      out = kind_ == kind::integer ? static_cast<T>(int_) : static_cast<T>(real_);
    } else {
      using R = typename T::value_type;
      out = kind_ == kind::integer ? T(static_cast<R>(int_), 0) : T(static_cast<R>(real_), static_cast<R>(imag_));
    }
    std::memcpy(dst, &out, sizeof(T));
  });
}

bool weak_scalar::overflows(dtype t) const noexcept {
  // float16, bfloat16, float32 and complex64 are narrower than the double the
  // value is held in. Doubles from FLT_MAX plus half an ulp up round to infinity
  // (NumPy tests isinf(float(v)) && !isinf(v); a comparison raises no flag itself).
  if (kind_ == kind::boolean) return false;
  if (t == float16 || t == bfloat16) {
    const double v = kind_ == kind::integer ? static_cast<double>(int_) : real_;
    if (std::isinf(v)) return false;
    if (std::fabs(v) >= 0x1.ffffffp127) return true;  // before converting: that would raise the flag
    return visit_dtype(t, [&](auto h) {
      using T = decltype(h);
      if constexpr (detail::is_half<T>)
        return std::isinf(static_cast<float>(detail::convert<T>(v)));
      else
        return false;
    });
  }
  if (t != float32 && t != complex64) return false;
  constexpr double rounds_to_infinity = 0x1.ffffffp127;
  auto over = [](double v) { return std::fabs(v) >= rounds_to_infinity && !std::isinf(v); };
  return over(real_) || (t == complex64 && kind_ == kind::complex && over(imag_));
}

std::string weak_scalar::str() const {
  // snprintf, not an ostringstream: no locale (the rtc sources' source_text.hpp says why).
  const auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return std::string(text);
  };
  switch (kind_) {
    case kind::boolean:
      return int_ ? "True" : "False";
    case kind::integer:
      // __int128 has no to_string; every value that reaches here fits in 65 bits, so split off the sign.
      return int_ < 0 ? "-" + std::to_string(static_cast<unsigned long long>(-int_))
                      : std::to_string(static_cast<unsigned long long>(int_));
    case kind::floating:
      return number(real_);
    case kind::complex:
      return "(" + number(real_) + (imag_ < 0 ? "" : "+") + number(imag_) + "j)";
  }
  return {};
}

}  // namespace ufunc
