#include <ufunc/core/dtype.hpp>

#include <string>

#include <ufunc/core/error.hpp>

namespace ufunc {

dtype dtype::from_char(char c) {
  for (int i = 0; i < count; ++i)
    if (table_[i].code == c) return from_index(i);
  // NumPy's other spellings of the same types on LP64 platforms.
  if (c == 'q') return int64;
  if (c == 'Q') return uint64;
  throw dtype_error(std::string("unknown or unsupported dtype character code '") + c +
                    "' (supported: ?bBhHiIlLqQeEfdFD)");
}

dtype dtype::from_string(std::string_view s) {
  for (int i = 0; i < count; ++i)
    if (table_[i].name == s) return from_index(i);
  if (s == "bool_") return bool_;
  if (s.size() == 1) return from_char(s[0]);
  throw dtype_error("unknown or unsupported dtype '" + std::string(s) +
                    "' (supported: bool, int8..int64, uint8..uint64, float16, bfloat16, float32, float64, complex64, "
                    "complex128)");
}

}  // namespace ufunc
