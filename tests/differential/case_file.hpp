// The case files of generate_cases.py (format UFDIFF02, docs/testing.md): a header of
// key=value lines, then the cases. Each case is a list of tagged, length-prefixed fields,
// so that a new field only needs a new tag: a case with a tag this runner does not know
// keeps it in unknown_tags and is skipped, not misread.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <ufunc/ufunc.hpp>

namespace differential {

using ufunc::dtype;

// One view transform of an operand, applied to its base in order.
struct transform {
  int kind = 0;  // 1 slice, 2 transpose, 3 broadcast_to
  std::vector<ufunc::slice> slices;
  std::vector<std::int64_t> values;
};

// An array as the generator made it: a base of `shape` holding `data` (C order), and the
// view transforms that give the operand (operands.hpp builds it).
struct array_spec {
  dtype type;
  ufunc::dim_vector shape;
  std::vector<transform> transforms;
  std::vector<std::byte> data;
};

// A Python scalar operand (or reduce's initial=).
struct scalar_spec {
  char kind = 'i';  // b i u f c
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double re = 0, im = 0;
  [[nodiscard]] ufunc::operand operand() const {
    switch (kind) {
      case 'b':
        return ufunc::operand(i != 0);
      case 'i':
        return ufunc::operand(static_cast<long long>(i));
      case 'u':
        return ufunc::operand(static_cast<unsigned long long>(u));
      case 'f':
        return ufunc::operand(re);
      default:
        return ufunc::operand(std::complex<double>(re, im));
    }
  }
  [[nodiscard]] std::string str() const {
    std::ostringstream s;
    s.precision(17);
    switch (kind) {
      case 'b':
        s << (i ? "True" : "False");
        break;
      case 'i':
        s << i;
        break;
      case 'u':
        s << u;
        break;
      case 'f':
        s << re;
        break;
      default:
        s << "(" << re << "+" << im << "j)";
        break;
    }
    return s.str();
  }
};

struct input_spec {
  bool is_scalar = false;
  array_spec arr;
  scalar_spec scalar;
};

struct out_spec {
  int alias = -1;  // index of the input it is, or -1 for its own array
  array_spec arr;
};

struct expected_result {
  dtype type;
  ufunc::dim_vector shape;
  std::vector<std::byte> data;
  std::vector<std::uint8_t> mask;  // empty: compare every element
};

// One case: the call (ufunc, method, operands, options) and NumPy's outcome.
struct test_case {
  char mode = 'r';
  std::uint64_t index = 0;
  std::string ufunc_name, canonical, method = "call", desc;
  std::vector<input_spec> inputs;
  std::vector<out_spec> outs;
  std::optional<array_spec> where, indices;
  std::optional<dtype> out_dtype;
  std::string signature;
  std::optional<ufunc::casting> casting;
  bool has_axis = false, axis_none = false, axis_scalar = false;
  std::vector<std::int64_t> axis;
  std::optional<bool> keepdims;
  std::optional<scalar_spec> initial;
  std::vector<expected_result> expected;
  bool expect_error = false;
  std::string np_error, our_error, np_message;
  int ulps_override = -1;       // reductions: ulps allowed instead of ulp_bound()'s
  std::vector<double> abs_tol;  // reductions by add: per element of result 0, absolute
  std::string loop;             // the loop NumPy ran ("ff->f"), where the generator knows it
  bool has_flags = false;       // the generator recorded NumPy's floating-point flags
  unsigned np_flags = 0;        // fp_flag bits NumPy raised
  unsigned flags_free = 0;      // fp_flag bits the comparison leaves out for this case (generate_cases.py)
  std::vector<int> unknown_tags;
  // NumPy before 2.5 gave x for float16 nextafter(x, y) where x == y (numpy#31472); the library
  // gives y, as NumPy 2.5 and C do. Set for such cases of an older NumPy's case file: the sign of a
  // zero float16 result is then that version's choice, not compared.
  bool half_zero_sign_free = false;

  [[nodiscard]] std::string id() const { return std::string(1, mode) + std::to_string(index); }
};

// A case file: its header (NumPy's version, the seed, the generator's command line) and its cases.
struct case_file {
  std::string path, numpy_version, seed;
  std::vector<std::string> repro;  // generator command line, without --index
  std::vector<test_case> cases;
};

// Reads a whole case file; throws std::runtime_error for a file that cannot be read, of
// another format version, or truncated.
case_file read_case_file(const std::string& path);

}  // namespace differential
