#include <ufunc/backends/cuda/rtc/parameters.hpp>

#include <algorithm>
#include <array>
#include <string>

#include <ufunc/core/config.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::cuda::rtc {

namespace {

// C++20 and CUDA keywords (and a few names of the generated code's prelude): a
// parameter with one of these names would not compile, or would change the code around it.
constexpr std::array<std::string_view, 101> reserved_words = {
    "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
    "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
    "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
    "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
    "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
    "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
    "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
    "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
    "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
    "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
    "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
    "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
    "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
    "xor_eq",      "threadIdx", "blockIdx",   "blockDim",  "gridDim",  "warpSize",     "i",
    "complex",     "std",       "cuda"};

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Splits on commas; keeps empty pieces so that "x,,y" is an error at its position.
std::vector<std::string_view> split_commas(std::string_view list) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  for (std::size_t k = 0; k <= list.size(); ++k)
    if (k == list.size() || list[k] == ',') {
      pieces.push_back(list.substr(start, k - start));
      start = k + 1;
    }
  return pieces;
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t k = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (k < s.size()) {
    while (k < s.size() && space(s[k])) ++k;
    const std::size_t start = k;
    while (k < s.size() && !space(s[k])) ++k;
    if (k > start) words.push_back(s.substr(start, k - start));
  }
  return words;
}

void parse_list(std::string_view list, bool output, parameter_list& out) {
  const char* which = output ? "out_params" : "in_params";
  auto fail = [&](std::size_t position, std::string_view piece, const std::string& what) {
    const auto words = split_words(piece);
    piece = words.empty() ? std::string_view()
                          : std::string_view(words.front().data(),
                                             words.back().data() + words.back().size() - words.front().data());
    throw value_error(std::string(which) + " " + quoted(list) + ": parameter " + std::to_string(position + 1) + " (" +
                      quoted(piece) + ") " + what);
  };
  // An empty input list is a kernel without inputs; an empty piece elsewhere is a typo.
  if (split_words(list).empty() && !output) return;
  const auto pieces = split_commas(list);
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const auto words = split_words(pieces[k]);
    if (words.size() < 2)
      fail(k, pieces[k], words.empty() ? "is empty" : "needs a type and a name, as \"float32 x\" or \"T x\"");
    kernel_parameter p;
    p.output = output;
    for (std::size_t w = 0; w + 2 < words.size(); ++w) {
      if (words[w] != "raw") fail(k, pieces[k], "has an unknown keyword " + quoted(words[w]) + " (known: raw)");
      if (p.raw) fail(k, pieces[k], "says raw twice");
      p.raw = true;
    }
    const std::string_view type = words[words.size() - 2];
    const std::string_view name = words.back();
    if (type.size() == 1) {
      if (type[0] < 'A' || type[0] > 'Z')
        fail(k, pieces[k], "has type " + quoted(type) + ": a placeholder is one capital letter (T, U, ...)");
      p.placeholder = type[0];
    } else {
      try {
        p.type = ufunc::dtype::from_string(type);
      } catch (const error&) {
        p.type.reset();
      }
      // Exact NumPy names only ("float" is not float64 here, as in CuPy).
      if (!p.type || p.type->name() != type)
        fail(k, pieces[k],
             "has type " + quoted(type) +
                 ", which is neither a dtype name (bool, int8..int64, uint8..uint64, float16, bfloat16, float32, "
                 "float64, complex64, complex128) nor a placeholder (one capital letter)");
    }
    if (!is_c_identifier(name)) fail(k, pieces[k], "has name " + quoted(name) + ", which is not a C identifier");
    if (name[0] == '_' || std::find(reserved_words.begin(), reserved_words.end(), name) != reserved_words.end())
      fail(
          k, pieces[k],
          "has name " + quoted(name) +
              ", which is reserved (C++ and CUDA keywords, i, and names starting with _ belong to the generated code)");
    for (const auto& q : out.params)
      if (q.name == name) fail(k, pieces[k], "repeats the name " + quoted(name));
    if (p.placeholder && out.placeholders.find(p.placeholder) == std::string::npos) {
      if (output)
        fail(k, pieces[k],
             std::string("has placeholder ") + p.placeholder +
                 ", which no input has: an output's placeholder is bound from the inputs");
      out.placeholders += p.placeholder;
    }
    p.name = std::string(name);
    out.params.push_back(std::move(p));
    ++(output ? out.nout : out.nin);
  }
}

}  // namespace

bool is_c_identifier(std::string_view s) noexcept {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

parameter_list parse_parameters(std::string_view inputs, std::string_view outputs) {
  parameter_list p;
  parse_list(inputs, false, p);
  parse_list(outputs, true, p);
  if (p.nin + p.nout > max_operands)
    throw value_error("in_params and out_params: " + std::to_string(p.nin + p.nout) + " parameters; at most " +
                      std::to_string(max_operands) + " are supported");
  return p;
}

std::vector<ufunc::dtype> bind_placeholders(const parameter_list& p,
                                            std::span<const std::optional<ufunc::dtype>> argument_types) {
  std::vector<std::optional<ufunc::dtype>> bound(p.placeholders.size());
  std::vector<int> binder(p.placeholders.size(), -1);
  const std::size_t n = std::min(argument_types.size(), p.params.size());
  for (std::size_t k = 0; k < n; ++k) {
    const auto& param = p.params[k];
    if (!param.placeholder || !argument_types[k]) continue;
    const auto slot = p.placeholders.find(param.placeholder);
    if (!bound[slot]) {
      bound[slot] = argument_types[k];
      binder[slot] = static_cast<int>(k);
    } else if (*bound[slot] != *argument_types[k]) {
      const auto& first = p.params[static_cast<std::size_t>(binder[slot])];
      throw no_loop_error(std::string("placeholder ") + param.placeholder + " is " + std::string(bound[slot]->name()) +
                          " from " + first.name + " but " + std::string(argument_types[k]->name()) + " from " +
                          param.name + ": the arguments of one placeholder must have one dtype");
    }
  }
  std::vector<ufunc::dtype> out;
  for (std::size_t s = 0; s < bound.size(); ++s) {
    if (!bound[s]) throw no_loop_error(std::string("placeholder ") + p.placeholders[s] + " is bound by no argument");
    out.push_back(*bound[s]);
  }
  return out;
}

bool is_half_precision(ufunc::dtype t) noexcept { return t == ufunc::float16 || t == ufunc::bfloat16; }

void refuse_half_precision(const parameter_list& p, std::span<const ufunc::dtype> bound, std::string_view who) {
  for (int k = 0; k < static_cast<int>(p.params.size()); ++k) {
    const ufunc::dtype t = parameter_type(p, k, bound);
    if (is_half_precision(t))
      throw dtype_error(std::string(who) + ": parameter " + p.params[std::size_t(k)].name + " is " +
                        std::string(t.name()) +
                        ", which reduction kernels do not compute (elementwise kernels and the built-in reductions "
                        "do); cast to float32 first");
  }
}

ufunc::dtype parameter_type(const parameter_list& p, int k, std::span<const ufunc::dtype> bound) {
  const auto& param = p.params[static_cast<std::size_t>(k)];
  if (param.type) return *param.type;
  return bound[p.placeholders.find(param.placeholder)];
}

}  // namespace ufunc::cuda::rtc
