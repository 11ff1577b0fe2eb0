// NumPy's _parse_signature (numpy/_core/src/umath/ufunc_object.c), step for step, so that
// every string NumPy accepts parses to the same dimensions here and every string it refuses
// gets its message and position.
#include <ufunc/gufunc/signature.hpp>

#include <climits>
#include <cstddef>

#include <ufunc/core/error.hpp>

namespace ufunc::gufunc {
namespace {

bool alpha_underscore(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool alnum_underscore(char c) { return alpha_underscore(c) || (c >= '0' && c <= '9'); }

class parser {
 public:
  parser(std::string_view text, int nin, int nout) : text_(text.substr(0, text.find('\0'))), nin_(nin), nout_(nout) {}

  signature run() {
    signature s;
    s.nin = nin_;
    s.nout = nout_;
    const int nargs = nin_ + nout_;
    std::size_t i = skip_space(0);
    while (at(i) != '\0') {
      if (static_cast<int>(s.operands.size()) == nin_) {
        if (at(i) != '-' || at(i + 1) != '>') fail("expect '->'", i);
        i = skip_space(i + 2);
      }
      if (at(i) != '(') fail("expect '('", i);
      i = skip_space(i + 1);
      std::vector<int> dims;
      while (at(i) != ')') {
        if (at(i) == '\0') fail("unexpected end of signature string", i);
        std::int64_t frozen = -1;
        if (!alpha_underscore(at(i))) {
          frozen = frozen_size(i);
          if (frozen <= 0) fail("expect dimension name or non-zero frozen size", i);
        }
        std::size_t end = i;
        while (alnum_underscore(at(end))) ++end;
        const std::size_t name_end = end;
        if (at(end) == '?') ++end;
        const bool optional = end > 0 && at(end - 1) == '?';
        const std::string name(text_.substr(i, name_end - i));
        // A frozen size is the dimension of that size ("(3),(03)" name one), a name the one of that name.
        std::size_t ix = 0;
        while (ix < s.dims.size() && (frozen > 0 ? s.dims[ix].size != frozen : s.dims[ix].name != name)) ++ix;
        if (ix == s.dims.size()) {
          s.dims.push_back({name, frozen, optional});
        } else if (optional && !s.dims[ix].optional) {
          fail("? cannot be used, name already seen without ?", i);
        } else if (!optional && s.dims[ix].optional) {
          fail("? must be used, name already seen with ?", i);
        }
        dims.push_back(static_cast<int>(ix));
        i = skip_space(end);
        if (at(i) != ',' && at(i) != ')') fail("expect ',' or ')'", i);
        if (at(i) == ',') {
          i = skip_space(i + 1);
          if (at(i) == ')') fail("',' must not be followed by ')'", i);
        }
      }
      s.operands.push_back(std::move(dims));
      i = skip_space(i + 1);
      const int done = static_cast<int>(s.operands.size());
      if (done != nin_ && done != nargs) {
        if (at(i) != ',') fail("expect ','", i);
        i = skip_space(i + 1);
      }
    }
    if (static_cast<int>(s.operands.size()) != nargs) fail("incomplete signature: not all arguments found", i);
    return s;
  }

 private:
  [[nodiscard]] char at(std::size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

  [[nodiscard]] std::size_t skip_space(std::size_t i) const {
    while (at(i) == ' ' || at(i) == '\t') ++i;
    return i;
  }

  // NumPy's _get_size: strtoll (leading white space, a sign, decimal digits), -1 when no
  // number starts there, a letter or '_' follows it, or it reaches NPY_MAX_INTP.
  [[nodiscard]] std::int64_t frozen_size(std::size_t i) const {
    while (at(i) == ' ' || (at(i) >= '\t' && at(i) <= '\r')) ++i;
    bool negative = false;
    if (at(i) == '+' || at(i) == '-') negative = at(i++) == '-';
    const std::size_t first = i;
    unsigned long long value = 0;
    bool overflow = false;
    for (; at(i) >= '0' && at(i) <= '9'; ++i) {
      const unsigned digit = static_cast<unsigned>(at(i) - '0');
      if (value > (ULLONG_MAX - digit) / 10) overflow = true;
      if (!overflow) value = value * 10 + digit;
    }
    if (i == first || alpha_underscore(at(i))) return -1;
    if (negative) return -1;  // strtoll gives a negative number or zero: NumPy refuses it as not positive
    if (overflow || value >= static_cast<unsigned long long>(LLONG_MAX)) return -1;
    return static_cast<std::int64_t>(value);
  }

  [[noreturn]] void fail(const char* what, std::size_t i) const {
    throw value_error(std::string(what) + " at position " + std::to_string(i) + " in \"" + std::string(text_) + "\"");
  }

  std::string_view text_;
  int nin_, nout_;
};

}  // namespace

std::string signature::str() const {
  std::string s;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    if (static_cast<int>(k) == nin)
      s += "->";
    else if (k > 0)
      s += ",";
    s += '(';
    for (std::size_t d = 0; d < operands[k].size(); ++d) {
      const auto& dim = dims[static_cast<std::size_t>(operands[k][d])];
      s += (d > 0 ? "," : "") + dim.name + (dim.optional ? "?" : "");
    }
    s += ')';
  }
  return s;  // no outputs: no arrow, as NumPy parses such a signature
}

signature parse_signature(std::string_view text, int nin, int nout) {
  if (nin < 0 || nout < 0) throw value_error("gufunc signature: negative numbers of inputs or outputs");
  return parser(text, nin, nout).run();
}

signature parse_signature(std::string_view text) {
  const std::string_view until_nul = text.substr(0, text.find('\0'));
  const std::size_t arrow = until_nul.find("->");
  int nin = 0, nout = 0;
  for (std::size_t k = 0; k < until_nul.size(); ++k)
    if (until_nul[k] == '(') ++(arrow == std::string_view::npos || k < arrow ? nin : nout);
  // A gufunc has an output: without one, the parser says where it expected it.
  return parse_signature(text, nin, nout == 0 ? 1 : nout);
}

}  // namespace ufunc::gufunc
