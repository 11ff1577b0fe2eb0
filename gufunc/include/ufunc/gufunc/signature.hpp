// A generalized ufunc's signature: the core dimensions of each operand, in NumPy's grammar
// (numpy.org, "Generalized universal function API"), parsed as NumPy parses it, with its
// error messages:
//
//   auto s = ufunc::gufunc::parse_signature("(m,n),(n,p)->(m,p)");
//   s.nin == 2; s.nout == 1; s.dims.size() == 3;          // m, n, p
//   s.operands[1] == std::vector<int>{1, 2};              // (n,p): dims 1 and 2
//   s.str() == "(m,n),(n,p)->(m,p)"
//
// A dimension is a name ([A-Za-z_][A-Za-z0-9_]*), whose size the operands give, or a
// positive frozen size ("(3)"); a '?' right after it makes it optional (matmul's
// "(n?,k),(k,m?)->(n?,m?)": an operand may lack it). The same name (or size) in several
// places is one dimension; '?' must then be used everywhere or nowhere. Spaces and tabs may
// go between the tokens. A bad string is a ufunc::value_error whose message is NumPy's:
// "expect ',' or ')' at position 4 in \"(i,i->()\"".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ufunc::gufunc {

struct core_dimension {
  std::string name;        // the name, or the frozen size's digits as written
  std::int64_t size = -1;  // a frozen size, or -1: the operands give it
  bool optional = false;   // '?'
};

struct signature {
  int nin = 0, nout = 0;
  /// Every distinct core dimension, in order of first appearance.
  std::vector<core_dimension> dims;
  /// Per operand (the inputs, then the outputs): its core dimensions, outermost first, as
  /// indices into dims.
  std::vector<std::vector<int>> operands;

  /// The signature in canonical spelling (no spaces): parses back to an equal signature.
  [[nodiscard]] std::string str() const;
  friend bool operator==(const signature&, const signature&) = default;
};

inline bool operator==(const core_dimension& a, const core_dimension& b) {
  return a.name == b.name && a.size == b.size && a.optional == b.optional;
}

/// Parses `text` for a gufunc of `nin` inputs and `nout` outputs, as NumPy's
/// _parse_signature does (its messages, positions counted in `text`).
[[nodiscard]] signature parse_signature(std::string_view text, int nin, int nout);

/// The same, with nin and nout taken from `text`: the parenthesized groups before and after
/// its first "->".
[[nodiscard]] signature parse_signature(std::string_view text);

}  // namespace ufunc::gufunc
