#include "device_source.hpp"

#include "nonfinite.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include <ufunc/backends/cuda/rtc/elementwise_source.hpp>
#include <ufunc/backends/cuda/rtc/generated_loop.hpp>
#include <ufunc/backends/cuda/rtc/library_headers.hpp>
#include <ufunc/backends/cuda/rtc/parameters.hpp>

namespace ufunc::fusion {

namespace {

// What a fused kernel includes: the operations, their device flag rules and the casts.
constexpr std::string_view preamble = R"(#include <ufunc/ufuncs/ops.hpp>
#include <ufunc/ufuncs/device_fp_rules.hpp>
#include <ufunc/backends/cuda/device_cast.hpp>
namespace _ufunc {
using complex64 = ::cuda::std::complex<float>;
using complex128 = ::cuda::std::complex<double>;
}  // namespace _ufunc
namespace _fused = ::ufunc::backends::cuda;
namespace _ufunc {
// The probe of a fused kernel's fast path: p = v * 0 + p stays 0 while every v is finite and
// becomes NaN at the first infinite or NaN one (complex: either part). One fused multiply-add
// per value (the kernel is compiled with --fmad=false, so the intrinsic says it).
__device__ __forceinline__ void probe(float& p, float v) { p = __fmaf_rn(v, 0.0f, p); }
__device__ __forceinline__ void probe(double& p, double v) { p = __fma_rn(v, 0.0, p); }
__device__ __forceinline__ void probe(float& p, const complex64& v) { probe(p, v.real()); probe(p, v.imag()); }
__device__ __forceinline__ void probe(double& p, const complex128& v) { probe(p, v.real()); probe(p, v.imag()); }
__device__ __forceinline__ void probe(float& p, ::ufunc::float16_t v) { probe(p, static_cast<float>(v)); }
__device__ __forceinline__ void probe(float& p, ::ufunc::bfloat16_t v) { probe(p, static_cast<float>(v)); }
// A step of a 16-bit loop runs what the built-in device loop runs (ufuncs/src/kernels_cuda.cu):
// the operation itself where it takes the 16-bit types (nextafter, spacing, comparisons: exact
// on the bits), else the operation in float with one rounding back (half_in_float).
template <class Op, class Sig>
struct half_step;
template <class Op, class R, class... A>
struct half_step<Op, R(A...)> {
  using type = ::cuda::std::conditional_t<::cuda::std::is_invocable_r_v<R, const Op&, A...>, Op,
                                          ::ufunc::detail::half_in_float<Op, R(A...)>>;
};
}  // namespace _ufunc
)";

std::string type_name(dtype t) { return std::string(cuda::rtc::device_type_name(t)); }

template <class Bits>
std::string hex_bits(const std::byte* b) {
  Bits v{};
  std::memcpy(&v, b, sizeof v);
  char text[32];
  std::snprintf(text, sizeof text, "0x%llxull", static_cast<unsigned long long>(v));
  return text;
}

// A constant, exactly: integers by value, floats by their bits (NaN payloads and -0.0 too).
std::string literal(dtype t, const std::byte* b) {
  const std::string type = type_name(t);
  switch (t.type_id()) {
    case dtype::id::bool_:
      return *reinterpret_cast<const bool*>(b) ? "true" : "false";
    case dtype::id::float32:
      return "__uint_as_float(" + hex_bits<std::uint32_t>(b) + ")";
    case dtype::id::float64:
      return "__longlong_as_double(" + hex_bits<std::uint64_t>(b) + ")";
    case dtype::id::float16:
    case dtype::id::bfloat16:
      return type + "::from_bits(" + hex_bits<std::uint16_t>(b) + ")";
    case dtype::id::complex64:
      return type + "(__uint_as_float(" + hex_bits<std::uint32_t>(b) + "), __uint_as_float(" +
             hex_bits<std::uint32_t>(b + 4) + "))";
    case dtype::id::complex128:
      return type + "(__longlong_as_double(" + hex_bits<std::uint64_t>(b) + "), __longlong_as_double(" +
             hex_bits<std::uint64_t>(b + 8) + "))";
    default: {
      // Integers: their bits reinterpreted as the type (two's complement).
      const std::size_t n = t.itemsize();
      return n == 8   ? "(" + type + ")" + hex_bits<std::uint64_t>(b)
             : n == 4 ? "(" + type + ")" + hex_bits<std::uint32_t>(b)
             : n == 2 ? "(" + type + ")" + hex_bits<std::uint16_t>(b)
                      : "(" + type + ")" + hex_bits<std::uint8_t>(b);
    }
  }
}

// The functor a step calls: its loop's operation, or for a loop with a 16-bit operand the
// built-in device loop's choice between the operation and the operation in float.
std::string step_operation(const compiled_graph::plan::step& s) {
  const type_signature& t = s.loop_types;
  bool half = false;
  std::string args, results;
  for (int i = 0; i < t.nin(); ++i) {
    half |= cuda::rtc::is_half_precision(t.input(i));
    args += (i ? ", " : "") + type_name(t.input(i));
  }
  for (int o = 0; o < t.nout(); ++o) {
    half |= cuda::rtc::is_half_precision(t.output(o));
    results += (o ? ", " : "") + type_name(t.output(o));
  }
  if (!half) return s.source_op;
  const std::string result = t.nout() == 1 ? results : "::cuda::std::tuple<" + results + ">";
  return "typename _ufunc::half_step<" + std::string(s.source_op) + ", " + result + "(" + args + ")>::type";
}

}  // namespace

void generate_device_loop(compiled_graph::plan& p, std::string_view name) {
  for (const auto& s : p.steps)
    if (s.source_op == nullptr) {
      p.device_refusal = "node " + s.f.name() + " (" + s.loop_types.str() +
                         ") has no source for generated code (its loop is a functor compiled into the program, or an "
                         "elementwise_kernel with raw parameters or a body that reads i); on cuda, fuse built-in "
                         "ufuncs and elementwise_kernels, or run the chain unfused";
      return;
    }
  const int nin = p.types.nin();
  std::string in_params, out_params;
  for (int i = 0; i < nin; ++i)
    in_params += (i ? ", " : "") + std::string(p.types.input(i).name()) + " x" + std::to_string(i);
  for (int o = 0; o < p.types.nout(); ++o)
    out_params += (o ? ", " : "") + std::string(p.types.output(o).name()) + " y" + std::to_string(o);
  const auto params = cuda::rtc::parse_parameters(in_params, out_params);

  // The body: constants, then each step (its casts, the operation, its flags), then the
  // outputs. Values keep their explain() names; a slot that is a fused output in the host
  // plan is a local here (out0), stored to the output parameter at the end.
  const auto local = [&](int s) { return value_name(p, s); };
  std::string constants;
  for (std::size_t c = 0; c < p.constants.size(); ++c)
    for (std::size_t s = 0; s < p.slots.size(); ++s)
      if (p.slots[s].where == slot::kind::constant && p.slots[s].index == static_cast<int>(c)) {
        constants += "const " + type_name(p.slots[s].type) + " " + local(int(s)) + " = " +
                     literal(p.slots[s].type, p.constants[c].data()) + ";\n";
        break;
      }
  // A C++ scalar argument (weak) comes to every call of this trace as a 0-d operand: the
  // kernel reads it once, and a call whose arrays are contiguous runs the contiguous
  // instantiation, not the strided one (Black-Scholes' kernel at 2^28 float32, H200, event
  // time: 2.19 ms contiguous against 2.46 strided). Such inputs, the constants and the
  // results of steps whose operands all are uniform are the same for every element.
  std::vector<bool> read_once(std::size_t(nin), false);
  for (const auto& v : p.slots)
    if (v.where == slot::kind::operand && v.index < nin && v.weak) read_once[std::size_t(v.index)] = true;
  std::vector<bool> uniform(p.slots.size(), false), uniform_step(p.steps.size(), false);
  for (std::size_t s = 0; s < p.slots.size(); ++s)
    uniform[s] =
        p.slots[s].where == slot::kind::constant ||
        (p.slots[s].where == slot::kind::operand && p.slots[s].index < nin && read_once[std::size_t(p.slots[s].index)]);
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    uniform_step[k] = std::all_of(p.steps[k].inputs.begin(), p.steps[k].inputs.end(),
                                  [&](const auto& a) { return uniform[std::size_t(a.slot)]; });
    for (const int o : p.steps[k].outputs) uniform[std::size_t(o)] = uniform_step[k];
  }
  // The probe of value `v` of dtype t (the fast path's, below), for floating and complex values,
  // into the accumulators _pf / _pd (an element's) or _upf / _upd (the uniform values').
  const auto probe_of = [](const std::string& v, dtype t, bool of_uniform) -> std::string {
    if (!(t.is_floating() || t.is_complex())) return {};
    const bool single = t == float32 || t == complex64 || cuda::rtc::is_half_precision(t);
    return std::string("_ufunc::probe(") + (of_uniform ? "_u" : "_") + (single ? "pf" : "pd") + ", " + v + ");\n";
  };
  // A value needs a probe of its own only where no use of it carries a non-finite value into
  // the use's result (nonfinite.hpp): every value is then probed or reaches a probed one,
  // which is NaN if it is, so the fast path still sees every non-finite value, with one
  // probe per value that ends a chain (the outputs, exp's argument, a divisor, where's
  // branches) instead of one per value (Black-Scholes: 9 per element instead of 55).
  const auto real_floating = [](dtype t) { return t.is_floating(); };
  std::vector<bool> probed(p.slots.size(), true);
  for (const auto& s : p.steps) {
    const bool real_step = s.outputs.size() == 1 && real_floating(s.loop_types.output(0));
    const unsigned carrying = real_step ? nonfinite_carrying_operands(s.source_op ? s.source_op : "") : 0u;
    for (std::size_t i = 0; i < s.inputs.size(); ++i) {
      const auto& a = s.inputs[i];
      // A cast between real floating dtypes carries infinities and NaN into its result.
      const bool cast_carries = a.cast != nullptr && real_floating(p.slots[std::size_t(a.slot)].type) &&
                                real_floating(p.slots[std::size_t(a.cast_temp)].type);
      if (cast_carries) probed[std::size_t(a.slot)] = false;
      if ((carrying >> i & 1u) != 0 && real_floating(s.loop_types.input(int(i))))
        probed[std::size_t(a.cast == nullptr ? a.slot : a.cast_temp)] = false;
    }
  }
  // The steps, each followed by its classification (`flags`) or by the probe of its values
  // (`probes`: floating and complex results and casts). With `hoist`, the uniform steps and the
  // casts of uniform values go to `prologue` (once per thread), the rest to the returned body.
  struct generated {
    std::string prologue, body;
  };
  const auto steps = [&](bool flags, bool probes, bool hoist) {
    generated g;
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
      const auto& s = p.steps[k];
      const std::string r = "_r" + std::to_string(k);
      std::string& body = hoist && uniform_step[k] ? g.prologue : g.body;
      std::string args;
      for (std::size_t i = 0; i < s.inputs.size(); ++i) {
        const auto& a = s.inputs[i];
        std::string v = local(a.slot);
        if (a.cast != nullptr) {
          const bool once = hoist && uniform[std::size_t(a.slot)];
          std::string& at = once ? g.prologue : body;
          const dtype to_type = p.slots[std::size_t(a.cast_temp)].type;
          const std::string cast =
              "_fused::convert_op<" + type_name(to_type) + ", " + type_name(p.slots[std::size_t(a.slot)].type) + ">";
          const std::string to = local(a.cast_temp);
          at += "const auto " + to + " = " + cast + "{}(" + v + ");\n";
          if (flags) at += "if (_fp.flags) _flags |= _fused::fp_flags_of<" + cast + ">(" + to + ", " + v + ");\n";
          if (probes && probed[std::size_t(a.cast_temp)]) at += probe_of(to, to_type, once);
          v = to;
        }
        args += (i ? ", " : "") + v;
      }
      const std::string op = step_operation(s);
      body += "// " + s.f.name() + " " + s.loop_types.str() + "\n";
      body += "const auto " + r + " = " + op + "{}(" + args + ");\n";
      if (flags)
        body += "if (_fp.flags) _flags |= _fused::fp_flags_of<" + op + ">(" + r + (args.empty() ? "" : ", ") + args +
                ");\n";
      for (std::size_t o = 0; o < s.outputs.size(); ++o) {
        const dtype t = p.slots[std::size_t(s.outputs[o])].type;
        const std::string value = s.outputs.size() == 1 ? r : "::cuda::std::get<" + std::to_string(o) + ">(" + r + ")";
        body += "const " + type_name(t) + " " + local(s.outputs[o]) + " = static_cast<" + type_name(t) + ">(" + value +
                ");\n";
        if (probes && probed[std::size_t(s.outputs[o])])
          body += probe_of(local(s.outputs[o]), t, hoist && uniform_step[k]);
      }
    }
    return g;
  };
  std::string stores;
  for (std::size_t o = 0; o < p.outputs.size(); ++o)
    stores += "y" + std::to_string(o) + " = " + local(p.outputs[o]) + ";\n";

  // Where every value is finite, the only flags a chain of floating-point operations can
  // raise are underflows (a pole, an overflow or an invalid operation gives an infinite or a
  // NaN result). So a graph whose nodes compute in floating point (or give bools: comparisons,
  // np.where's truth test of its condition) runs its nodes once without classifying them,
  // probing every floating value (the inputs too), and classifies the element's nodes only
  // where the probe found a non-finite value or underflow is wanted: computing them again, to
  // the same values, in the same order. Graphs with integer arithmetic (division by zero and
  // negative powers flag finite results) or casts from floats to integers (invalid) classify
  // every node as they go.
  const auto real_or_bool = [](dtype t) { return t.is_floating() || t.is_complex() || t == bool_; };
  bool probe_safe = true;
  for (const auto& s : p.steps) {
    bool all_real = true, bool_outputs = true;
    for (int i = 0; i < s.loop_types.nin(); ++i) all_real &= real_or_bool(s.loop_types.input(i));
    for (int o = 0; o < s.loop_types.nout(); ++o) {
      all_real &= real_or_bool(s.loop_types.output(o));
      bool_outputs &= s.loop_types.output(o) == bool_;
    }
    probe_safe &= all_real || bool_outputs;
    for (const auto& a : s.inputs)
      if (a.cast != nullptr) {
        const dtype from = p.slots[std::size_t(a.slot)].type, to = p.slots[std::size_t(a.cast_temp)].type;
        probe_safe &= !((from.is_floating() || from.is_complex()) && to.is_integer());
      }
  }
  // The classification of the probed path is a function of its own, never inlined: inline,
  // the compiler shares the fast path's values with it (the same expressions) and keeps all of
  // them live across the fast path, and the rarely taken branch sets the kernel's register
  // count (Black-Scholes on the H100: 96 registers and 3.9 ms at 2^28 float32, 51 and 2.8 ms
  // outlined, the same bits and flags).
  //
  // On the fast path the uniform steps run once per thread, before its elements (the
  // kernel's prologue), probed on their own: computed per element they kept their operands
  // live (Black-Scholes' r and v, doubles) and cost registers, and the compiler did not hoist
  // them out of the element loop. An element whose probe or the uniform values' probe found a
  // non-finite value is classified as before, from its inputs, all of its steps again (so an
  // element that where= skips, or a thread without elements, reports nothing).
  std::string body, classify, prologue;
  if (!probe_safe) {
    body = constants + steps(true, false, false).body + stores;
  } else {
    std::string input_probes, uniform_probes, classify_params, classify_args;
    for (int i = 0; i < nin; ++i) {
      const std::string x = "x" + std::to_string(i);
      const bool needs_probe = std::any_of(p.slots.begin(), p.slots.end(), [&](const slot& v) {
        return v.where == slot::kind::operand && v.index == i && probed[std::size_t(&v - p.slots.data())];
      });
      if (needs_probe)
        (read_once[std::size_t(i)] ? uniform_probes : input_probes) +=
            probe_of(x, p.types.input(i), read_once[std::size_t(i)]);
      classify_params += ", const " + type_name(p.types.input(i)) + " " + x;
      classify_args += ", " + x;
    }
    classify = "__device__ __noinline__ unsigned _ufunc_classify(const _ufunc::fp_sink& _fp" + classify_params +
               ") {\nunsigned _flags = 0;\n" + constants + steps(true, false, false).body + "return _flags;\n}\n";
    const generated fast = steps(false, true, true);
    const bool any_uniform = !(uniform_probes.empty() && fast.prologue.empty());
    prologue = constants;
    if (any_uniform)
      prologue += "float _upf = 0;\ndouble _upd = 0;\n" + uniform_probes + fast.prologue +
                  "const bool _uniform_nonfinite = _upf != _upf || _upd != _upd;\n";
    body = "float _pf = 0;\ndouble _pd = 0;\n" + input_probes + "{\n" + fast.body + stores + "}\n" +
           "if (_fp.flags && (" + (any_uniform ? "_uniform_nonfinite || " : "") +
           "_pf != _pf || _pd != _pd || (_fp.active & _ufunc::fp_underflow) != 0))\n" +
           "_flags |= _ufunc_classify(_fp" + classify_args + ");\n";
  }

  const std::string kernel_name = cuda::rtc::is_c_identifier(name) ? std::string(name) : std::string("fused");
  // The definitions the nodes' operations need (elementwise_kernel bodies as functors), once each.
  std::string definitions(preamble);
  std::vector<std::string_view> defined;
  for (const auto& st : p.steps)
    if (st.source_preamble != nullptr &&
        std::find(defined.begin(), defined.end(), st.source_preamble) == defined.end()) {
      defined.emplace_back(st.source_preamble);
      definitions += st.source_preamble;
    }
  definitions += classify;
  cuda::rtc::source_options source;
  source.body_flags = true;
  source.widen_half = false;     // each step converts its 16-bit values itself
  source.read_once = read_once;  // inputs only; outputs are never read once
  source.prologue = prologue;
  auto program = cuda::rtc::elementwise_source(params, {}, body, kernel_name, definitions, source);
  std::vector<std::string> options = cuda::rtc::library_header_options();
  // Each node rounds its result as its own device loop does: no a * b + c contracted across
  // two nodes into one rounding (a node's own code is compiled as the built-in's, bar that).
  options.emplace_back("--fmad=false");
  p.device =
      cuda::rtc::make_generated_loop(kernel_name, std::move(program), std::move(options), cuda::rtc::library_headers());
}

}  // namespace ufunc::fusion
