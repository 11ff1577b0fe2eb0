// The run-time kernels' parameter lists ("T x, raw float32 y") and the code generator
// behind them (backends/cuda/rtc): whatever the strings, parse_parameters returns a
// list or throws a ufunc::error; a list that parses prints back (type, raw, name) to
// one that parses the same; binding placeholders from any dtypes either binds each
// argument's own dtype or throws; the generated source has every parameter's
// declaration and the body, and no NUL byte. No GPU or NVRTC is needed.
#include <string>
#include <vector>

#include <ufunc/backends/cuda/rtc/elementwise_source.hpp>
#include <ufunc/backends/cuda/rtc/parameters.hpp>

#include "fuzz_common.hpp"

namespace {

namespace rtc = ufunc::cuda::rtc;

std::string print(std::span<const rtc::kernel_parameter> params) {
  std::string s;
  for (const auto& p : params) {
    if (!s.empty()) s += ", ";
    if (p.raw) s += "raw ";
    s += p.type ? std::string(p.type->name()) : std::string(1, p.placeholder);
    s += " " + p.name;
  }
  return s;
}

bool same(const rtc::parameter_list& a, const rtc::parameter_list& b) {
  if (a.nin != b.nin || a.nout != b.nout || a.placeholders != b.placeholders) return false;
  for (std::size_t k = 0; k < a.params.size(); ++k) {
    const auto &x = a.params[k], &y = b.params[k];
    if (x.name != y.name || x.type != y.type || x.placeholder != y.placeholder || x.raw != y.raw ||
        x.output != y.output)
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string inputs = in.ConsumeRandomLengthString(60);
  const std::string outputs = in.ConsumeRandomLengthString(40);
  const std::string body = in.ConsumeRandomLengthString(40);
  rtc::parameter_list p;
  if (!fuzz::accepted([&] { p = rtc::parse_parameters(inputs, outputs); })) return 0;
  fuzz::require(p.nout >= 1 && p.nin + p.nout == static_cast<int>(p.params.size()),
                "parse_parameters: bad counts for '" + inputs + "' / '" + outputs + "'");
  rtc::parameter_list again;
  fuzz::require(fuzz::accepted([&] { again = rtc::parse_parameters(print(p.inputs()), print(p.outputs())); }),
                "parse_parameters: '" + inputs + "' / '" + outputs + "' prints as a list that does not parse");
  fuzz::require(same(p, again), "parse_parameters: '" + inputs + "' / '" + outputs + "' does not round-trip");

  // Bind from dtypes the input chooses (some arguments without one: scalars).
  std::vector<std::optional<ufunc::dtype>> types;
  for (int k = 0; k < p.nin + p.nout; ++k) {
    const int code = in.ConsumeIntegralInRange<int>(-1, ufunc::dtype::count - 1);
    types.push_back(code < 0 ? std::nullopt : std::optional(ufunc::dtype::from_index(code)));
  }
  std::vector<ufunc::dtype> bound;
  if (!fuzz::accepted([&] { bound = rtc::bind_placeholders(p, types); })) return 0;
  for (int k = 0; k < p.nin + p.nout; ++k)
    if (types[std::size_t(k)] && p.params[std::size_t(k)].placeholder)
      fuzz::require(rtc::parameter_type(p, k, bound) == *types[std::size_t(k)],
                    "bind_placeholders: an argument's placeholder is bound to another dtype");
  rtc::elementwise_program program;
  if (!fuzz::accepted([&] { program = rtc::elementwise_source(p, bound, body, "fuzzed", ""); })) return 0;
  fuzz::require(program.source.find(body) != std::string::npos, "elementwise_source: the body is missing");
  // Each broadcast operand's element size, then the mask's: the strides of the contiguous instantiation.
  fuzz::require(program.operand_bytes.size() == static_cast<std::size_t>(program.broadcast_operands) + 1 &&
                    program.operand_bytes.back() == 1,
                "elementwise_source: operand_bytes does not list every broadcast operand and the mask");
  fuzz::require(program.source.find('\0') == std::string::npos || body.find('\0') != std::string::npos,
                "elementwise_source: a NUL byte in the source");
  for (const auto& param : p.params)
    fuzz::require(program.source.find(" " + param.name) != std::string::npos,
                  "elementwise_source: parameter " + param.name + " is not declared");
  return 0;
}
