// Generalized ufunc signatures (gufunc/signature.hpp): whatever the string and counts,
// parse_signature returns a signature or throws ufunc::value_error; a signature has nin +
// nout operands whose dimension indices are in range, every dimension used, frozen sizes
// positive, and its canonical spelling parses back to the same signature (with the counts
// given, and taken from the string).
#include <string>

#include <ufunc/gufunc/signature.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int nin = in.ConsumeIntegralInRange(0, 4), nout = in.ConsumeIntegralInRange(0, 3);
  const std::string text = in.ConsumeRemainingBytesAsString();
  ufunc::gufunc::signature s;
  if (!fuzz::accepted([&] { s = ufunc::gufunc::parse_signature(text, nin, nout); })) return 0;
  fuzz::require(s.nin == nin && s.nout == nout && static_cast<int>(s.operands.size()) == nin + nout,
                "operand count of \"" + text + "\"");
  std::vector<bool> used(s.dims.size(), false);
  for (const auto& op : s.operands)
    for (int ix : op) {
      fuzz::require(ix >= 0 && static_cast<std::size_t>(ix) < s.dims.size(), "dimension index of \"" + text + "\"");
      used[static_cast<std::size_t>(ix)] = true;
    }
  for (std::size_t d = 0; d < s.dims.size(); ++d) {
    fuzz::require(used[d], "an unused dimension in \"" + text + "\"");
    fuzz::require(s.dims[d].size == -1 || s.dims[d].size > 0, "a frozen size in \"" + text + "\"");
  }
  const std::string canonical = s.str();
  ufunc::gufunc::signature again;
  fuzz::require(fuzz::accepted([&] { again = ufunc::gufunc::parse_signature(canonical, nin, nout); }),
                "\"" + canonical + "\" (from \"" + text + "\") does not parse");
  fuzz::require(again == s, "\"" + canonical + "\" parses to another signature than \"" + text + "\"");
  if (nout > 0)
    fuzz::require(fuzz::accepted([&] { again = ufunc::gufunc::parse_signature(canonical); }) && again == s,
                  "\"" + canonical + "\" without counts");
  return 0;
}
