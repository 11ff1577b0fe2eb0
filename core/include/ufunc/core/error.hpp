// The exception hierarchy: every error the library raises derives from ufunc::error,
// and each kind of bad input has its own type so callers can catch precisely.
#pragma once

#include <stdexcept>
#include <string>

namespace ufunc {

/// Base of every exception thrown by ufunc.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Operand shapes that do not broadcast together, or an `out` of the wrong shape
/// (NumPy: ValueError "operands could not be broadcast together").
class broadcast_error : public error {
 public:
  using error::error;
};

/// No registered loop accepts the input dtypes (NumPy: UFuncNoLoopError).
class no_loop_error : public error {
 public:
  using error::error;
};

/// A cast that the `casting` policy forbids (NumPy: UFuncTypeError / _UFuncOutputCastingError).
class casting_error : public error {
 public:
  using error::error;
};

/// A dtype that does not fit the request: typed access with the wrong element type,
/// an unknown dtype name or character code.
class dtype_error : public error {
 public:
  using error::error;
};

/// An `out` operand that partially overlaps an input, or that is not writeable.
class overlap_error : public error {
 public:
  using error::error;
};

/// Index, slice or axis out of range.
class index_error : public error {
 public:
  using error::error;
};

/// A value that does not fit: a weak integer scalar out of the bounds of the
/// operation's dtype, or sizes whose byte count overflows 64 bits.
class overflow_error : public error {
 public:
  using error::error;
};

/// Any other invalid argument: reshape to a different size, bad signature string,
/// wrong number of operands.
class value_error : public error {
 public:
  using error::error;
};

/// A target (backend) that is unknown or was not compiled into this build.
class target_error : public error {
 public:
  using error::error;
};

/// A floating-point error whose policy is `raise` (NumPy: FloatingPointError), e.g.
/// "divide by zero encountered in divide"; see errstate.hpp.
class floating_point_error : public error {
 public:
  using error::error;
  floating_point_error(const std::string& what, unsigned flag) : error(what), flag_(flag) {}
  /// The ufunc::fp_flag bit that raised it (0 when made from a message alone).
  [[nodiscard]] unsigned flag() const noexcept { return flag_; }

 private:
  unsigned flag_ = 0;
};

}  // namespace ufunc

namespace ufunc {

/// An allocation that failed (NumPy: MemoryError); says how many bytes and where.
class memory_error : public error {
 public:
  using error::error;
};

/// Source compiled at run time that did not compile (a kernel body, a module): the
/// message has the compiler's log and the source with line numbers.
class compile_error : public error {
 public:
  using error::error;
};

/// The kernel cache's folder or one of its files cannot be trusted or used (owned by
/// another user, reached through a symbolic link, open to other users, unwritable).
class cache_error : public error {
 public:
  using error::error;
};

}  // namespace ufunc
