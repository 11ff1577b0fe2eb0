// Generalized ufunc signatures (gufunc/): every string of tests/data/numpy_gufunc_signatures.inc
// (hand-picked and random, with NumPy's outcome) parses to NumPy's core dimensions or fails
// with NumPy's ValueError message; canonical spellings parse back to the same signature.
#include <cstdint>
#include <string>
#include <vector>

#include <ufunc/core/error.hpp>
#include <ufunc/gufunc/signature.hpp>

#include "test_support.hpp"

namespace {

struct numpy_case {
  int nin, nout;
  const char* text;
  const char* error;
  std::vector<int> ndims, ixs, flags;
  std::vector<std::int64_t> sizes;
};

const numpy_case numpy_cases[] = {
#include "../data/numpy_gufunc_signatures.inc"
};

// NumPy's flags of a core dimension: UFUNC_CORE_DIM_SIZE_INFERRED 2, UFUNC_CORE_DIM_CAN_IGNORE 4.
int numpy_flags(const ufunc::gufunc::core_dimension& d) { return (d.size < 0 ? 2 : 0) | (d.optional ? 4 : 0); }

}  // namespace

TEST_CASE("gufunc signature: NumPy's parse of every string in the table, dimensions or message") {
  int parsed = 0, refused = 0;
  for (const auto& c : numpy_cases) {
    const std::string text = c.text;
    CAPTURE(text);
    CAPTURE(c.nin);
    CAPTURE(c.nout);
    const std::string error = c.error;
    if (!error.empty()) {
      CHECK_THROWS_WITH_AS((void)ufunc::gufunc::parse_signature(c.text, c.nin, c.nout), error.c_str(),
                           ufunc::value_error);
      ++refused;
      continue;
    }
    const auto s = ufunc::gufunc::parse_signature(c.text, c.nin, c.nout);
    ++parsed;
    REQUIRE(s.operands.size() == c.ndims.size());
    std::vector<int> ixs;
    for (std::size_t k = 0; k < s.operands.size(); ++k) {
      CHECK(static_cast<int>(s.operands[k].size()) == c.ndims[k]);
      ixs.insert(ixs.end(), s.operands[k].begin(), s.operands[k].end());
    }
    CHECK(ixs == c.ixs);
    REQUIRE(s.dims.size() == c.flags.size());
    for (std::size_t d = 0; d < s.dims.size(); ++d) {
      CHECK(numpy_flags(s.dims[d]) == c.flags[d]);
      CHECK(s.dims[d].size == c.sizes[d]);
    }
    // The canonical spelling parses back to the same signature, with or without the counts.
    CHECK(ufunc::gufunc::parse_signature(s.str(), c.nin, c.nout) == s);
    if (c.nout > 0) CHECK(ufunc::gufunc::parse_signature(s.str()) == s);
  }
  MESSAGE(parsed << " signatures parsed as NumPy parses them, " << refused << " refused with its messages");
  CHECK(parsed >= 100);
  CHECK(refused >= 100);
}

TEST_CASE("gufunc signature: the dimensions of matmul's signature, and counts taken from the string") {
  const auto s = ufunc::gufunc::parse_signature("(n?,k),(k,m?)->(n?,m?)");
  CHECK(s.nin == 2);
  CHECK(s.nout == 1);
  REQUIRE(s.dims.size() == 3);
  CHECK(s.dims[0].name == "n");
  CHECK(s.dims[0].optional);
  CHECK(!s.dims[1].optional);
  CHECK(s.dims[1].size == -1);
  CHECK(s.operands == std::vector<std::vector<int>>{{0, 1}, {1, 2}, {0, 2}});
  CHECK(s.str() == "(n?,k),(k,m?)->(n?,m?)");
  const auto cross = ufunc::gufunc::parse_signature(" (3) , (3) -> (3) ");
  CHECK(cross.dims.size() == 1);
  CHECK(cross.dims[0].size == 3);
  CHECK(cross.str() == "(3),(3)->(3)");
  // No arrow, or nothing after it: the parser says where the output was expected.
  CHECK_THROWS_WITH_AS((void)ufunc::gufunc::parse_signature("(i),(i)"),
                       "incomplete signature: not all arguments found at position 7 in \"(i),(i)\"",
                       ufunc::value_error);
  CHECK_THROWS_WITH_AS((void)ufunc::gufunc::parse_signature("(i)->"), "expect '(' at position 5 in \"(i)->\"",
                       ufunc::value_error);
  CHECK_THROWS_AS((void)ufunc::gufunc::parse_signature("(i)->()", -1, 1), ufunc::value_error);
}
