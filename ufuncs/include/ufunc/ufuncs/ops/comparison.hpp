// Comparison ufuncs: greater, greater_equal, less, less_equal, equal, not_equal,
// logical_and, logical_or, logical_xor, logical_not, maximum, minimum, fmax, fmin
// (NumPy 2 semantics, loops.c.src and loops_minmax).
#pragma once

#include <ufunc/ufuncs/ops/common.hpp>
#include <ufunc/ufuncs/ops/floating.hpp>

namespace ufunc::ops {

namespace detail {
struct op_gt {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return a > b;
  }
};
struct op_ge {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return a >= b;
  }
};
struct op_lt {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return a < b;
  }
};
struct op_le {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return a <= b;
  }
};
struct op_eq {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return a == b;
  }
};
struct op_ne {
  template <class T, class U>
  UFUNC_HOST_DEVICE constexpr bool operator()(T a, U b) const {
    return a != b;
  }
};

// Op on reals. Integers of different types (NumPy 2's int64/uint64 loops) are compared mathematically, not
// after C's conversion to unsigned: the signs first, then the values, which then fit in uint64.
// Complex numbers are ordered lexicographically as NumPy's CGT/CGE/CLT/CLE do: the order of the real parts
// counts only if neither imaginary part is nan. Strict is the strict order on the real parts (void for == and
// !=, which compare both parts).
template <class Op, class Strict>
struct comparison {
  template <real T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    return Op{}(a, b);
  }
  template <integer T, integer U>
  UFUNC_HOST_DEVICE bool operator()(T a, U b) const {
    const bool na = negative(a), nb = negative(b);
    return na != nb ? Op{}(!na, !nb) : Op{}(std::uint64_t(a), std::uint64_t(b));
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    if constexpr (std::is_void_v<Strict>) {
      return Op{}(a, b);
    } else {
      return (Strict{}(a.real(), b.real()) && !m::isnan(a.imag()) && !m::isnan(b.imag())) ||
             (a.real() == b.real() && Op{}(a.imag(), b.imag()));
    }
  }

 private:
  template <integer T>
  UFUNC_HOST_DEVICE static constexpr bool negative(T a) {
    if constexpr (signed_integer<T>) return a < 0;
    return false;
  }
};
}  // namespace detail

struct greater : detail::comparison<detail::op_gt, detail::op_gt> {};
struct greater_equal : detail::comparison<detail::op_ge, detail::op_gt> {};
struct less : detail::comparison<detail::op_lt, detail::op_lt> {};
struct less_equal : detail::comparison<detail::op_le, detail::op_lt> {};
struct equal : detail::comparison<detail::op_eq, void> {};
struct not_equal : detail::comparison<detail::op_ne, void> {};

namespace detail {
// NumPy's truth of an element: nonzero, nan included; a complex number is true if either part is.
template <scalar T>
UFUNC_HOST_DEVICE constexpr bool truth(T a) {
  if constexpr (complex_number<T>) {
    return a.real() != 0 || a.imag() != 0;
  } else {
    return a != 0;
  }
}
}  // namespace detail

struct logical_and {
  template <scalar T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    return detail::truth(a) && detail::truth(b);
  }
};
struct logical_or {
  template <scalar T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    return detail::truth(a) || detail::truth(b);
  }
};
struct logical_xor {
  template <scalar T>
  UFUNC_HOST_DEVICE bool operator()(T a, T b) const {
    return detail::truth(a) != detail::truth(b);
  }
};
struct logical_not {
  template <scalar T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return !detail::truth(a);
  }
};

namespace detail {
// a if KeepA(a, b) or if a is nan (Propagate: maximum's nan is the first one met), else b; without Propagate
// the nan test is on b, so a nan loses to a number. Ties (0.0 and -0.0) go as in NumPy on x86-64: to b in real
// maximum/minimum, to a in the complex loops; real fmax/fmin ties vary there with the SIMD path taken, and go to
// a here, as in NumPy's one-element loop.
template <class RealKeepA, class ComplexKeepA, bool Propagate>
struct extremum {
  template <real T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return (ops::isnan{}(Propagate ? a : b) || RealKeepA{}(a, b)) ? a : b;
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return (ops::isnan{}(Propagate ? a : b) || ComplexKeepA{}(a, b)) ? a : b;
  }
};
}  // namespace detail

struct maximum : detail::extremum<detail::op_gt, greater_equal, true> {};
struct minimum : detail::extremum<detail::op_lt, less_equal, true> {};
struct fmax : detail::extremum<detail::op_ge, greater_equal, false> {};
struct fmin : detail::extremum<detail::op_le, less_equal, false> {};

}  // namespace ufunc::ops
