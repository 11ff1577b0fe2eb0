#include <ufunc/backends/cuda/rtc/elementwise_kernel.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <set>

#include <ufunc/backends/cuda/rtc/compiler.hpp>
#include <ufunc/backends/cuda/rtc/elementwise_source.hpp>
#include <ufunc/backends/cuda/rtc/generated_loop.hpp>
#include <ufunc/backends/cuda/rtc/library_headers.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::cuda {

namespace {

// Whether a body names the flat index (`i`, `_ind`) as an identifier. A scan, not std::regex:
// no locale (source_text.hpp says why).
bool reads_index(std::string_view body) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  for (std::size_t k = 0; k < body.size();) {
    if (!word(body[k])) {
      ++k;
      continue;
    }
    std::size_t end = k;
    while (end < body.size() && word(body[end])) ++end;
    const std::string_view name = body.substr(k, end - k);
    if (name == "i" || name == "_ind") return true;
    k = end;
  }
  return false;
}

// What a compiled loop keeps alive: its device code and its form as a fused node.
struct loop_state {
  std::shared_ptr<rtc::generated_loop> loop;
  rtc::fused_node_source node;
};

}  // namespace

struct elementwise_kernel::state {
  std::string name;
  rtc::parameter_list params;
  std::string operation;
  kernel_options options;
  function f;
  bool raw_inputs = false, raw_outputs = false;
  mutable std::mutex mutex;
  mutable std::set<std::string> compiled;  // signatures with a loop in f
  // The signature each combination of argument dtypes resolved to (argument_key, which
  // covers the raw arrays' dtypes too, checked once).
  mutable std::map<std::string, std::string> signature_of;

  state(std::string_view in_params, std::string_view out_params, std::string_view op, std::string_view n,
        kernel_options o)
      : name(n),
        params(checked(rtc::parse_parameters(in_params, out_params), n)),
        operation(op),
        options(std::move(o)),
        f(std::string(n), count_broadcast(params, false), count_broadcast(params, true)) {
    for (const auto& q : params.params) (q.output ? raw_outputs : raw_inputs) |= q.raw;
  }

  // What the ufunc behind the kernel cannot take, said in the kernel's terms.
  static rtc::parameter_list checked(rtc::parameter_list p, std::string_view name) {
    if (count_broadcast(p, false) == 0)
      throw value_error("elementwise_kernel " + std::string(name) +
                        ": needs at least one input that is not raw (the broadcast inputs give the call its shape)");
    return p;
  }

  static int count_broadcast(const rtc::parameter_list& p, bool outputs) {
    int n = 0;
    for (const auto& q : p.params) n += q.output == outputs && !q.raw ? 1 : 0;
    return n;
  }

  // The loop as a node of a fused expression (fusion/src/device_source.cpp): the body as the
  // call operator of a functor in a namespace of its own (with the kernel's preamble and
  // placeholder typedefs), inputs by value, outputs returned. A body with raw parameters or
  // that reads the index (i, _ind) has no such form: op stays empty.
  [[nodiscard]] rtc::fused_node_source fused_node(std::span<const dtype> bound, const type_signature& sig) const {
    rtc::fused_node_source node;
    for (const auto& q : params.params)
      if (q.raw) return node;
    if (reads_index(operation)) return node;
    std::string space = "_ufunc_kernel_" + name + "_" + sig.str();
    for (char& c : space)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    // float16 / bfloat16 values come in and go out as the library's types; the body sees
    // floats, as in the kernel's own loop (elementwise_source's widen_half).
    std::string args, outs, declared, widened, returned;
    for (int k = 0; k < params.nin + params.nout; ++k) {
      const auto& q = params.params[std::size_t(k)];
      const dtype t = rtc::parameter_type(params, k, bound);
      const bool half = rtc::is_half_precision(t);
      const std::string type(rtc::device_type_name(t));
      if (q.output) {
        declared += "    " + std::string(half ? "float" : type) + " " + q.name + "{};\n";
        returned += (returned.empty() ? "" : ", ") + (half ? type + "(" + q.name + ")" : q.name);
        outs += (outs.empty() ? "" : ", ") + type;
      } else if (half) {
        args += (args.empty() ? "" : ", ") + std::string("const ") + type + " _h_" + q.name;
        widened += "    const float " + q.name + " = static_cast<float>(_h_" + q.name + ");\n";
      } else {
        args += (args.empty() ? "" : ", ") + std::string("const ") + type + " " + q.name;
      }
    }
    const bool several = params.nout > 1;
    node.preamble = "namespace " + space + " {\n";
    for (std::size_t k = 0; k < params.placeholders.size(); ++k)
      node.preamble +=
          "typedef " + std::string(rtc::computed_type_name(bound[k])) + " " + params.placeholders[k] + ";\n";
    node.preamble += options.preamble + "\nstruct op {\n  __device__ " +
                     (several ? "::cuda::std::tuple<" + outs + ">" : outs) + " operator()(" + args + ") const {\n" +
                     widened + declared + "    {\n" + operation + "\n    ;\n    }\n    return " +
                     (several ? "::cuda::std::make_tuple(" + returned + ")" : returned) +
                     ";\n  }\n};\n}  // namespace " + space + "\n";
    node.op = space + "::op";
    return node;
  }

  // The loop's signature: the broadcast (non-raw) parameters' dtypes.
  [[nodiscard]] type_signature signature(std::span<const dtype> bound) const {
    type_signature sig;
    sig.resize(f.nin(), f.nout());
    int operand = 0;
    for (int k = 0; k < params.nin + params.nout; ++k)
      if (!params.params[std::size_t(k)].raw) sig.set(operand++, rtc::parameter_type(params, k, bound));
    return sig;
  }
};

namespace {

// The host side of a GPU-only loop: calls on a host target say where the kernel runs.
void host_refuses(char* const*, std::int64_t, const std::int64_t*, const void* data) {
  const auto& name = rtc::name_of(*static_cast<const rtc::generated_loop*>(data));
  throw target_error("elementwise_kernel '" + name +
                     "' runs on target cuda only (its loops are GPU code compiled at run time)");
}

}  // namespace

elementwise_kernel::elementwise_kernel(std::string_view in_params, std::string_view out_params,
                                       std::string_view operation, std::string_view name, kernel_options options)
    : state_(std::make_shared<state>(in_params, out_params, operation, name, std::move(options))) {
  if (!rtc::is_c_identifier(name))
    throw value_error("elementwise_kernel: the name \"" + std::string(name) + "\" is not a C identifier");
}

namespace {

// One byte per argument: its dtype's id + 1, 0 for a scalar (scalars bind no placeholder),
// then one per given output. Short enough to stay in std::string's own buffer, so a call
// whose dtypes were seen before allocates nothing to find them.
std::string argument_key(std::span<const operand> inputs, const out_arrays& outs) {
  std::string key(inputs.size() + outs.size(), '\0');
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (!inputs[k].is_scalar()) key[k] = static_cast<char>(static_cast<int>(inputs[k].as_array().type().type_id()) + 1);
  for (std::size_t k = 0; k < outs.size(); ++k)
    key[inputs.size() + k] = static_cast<char>(static_cast<int>(outs[k].type().type_id()) + 1);
  return key;
}

}  // namespace

// The signature the arguments resolve to, its loop compiled (registered in f) at the first
// call that needs it. Under s.mutex.
const std::string& elementwise_kernel::resolve(std::span<const operand> inputs, const out_arrays& outs) const {
  auto& s = *state_;
  auto key = argument_key(inputs, outs);
  if (const auto it = s.signature_of.find(key); it != s.signature_of.end()) return it->second;
  std::vector<std::optional<dtype>> types;
  for (const auto& in : inputs) types.push_back(in.is_scalar() ? std::nullopt : std::optional(in.as_array().type()));
  for (const auto& out : outs) types.push_back(out.type());
  const auto bound = rtc::bind_placeholders(s.params, types);
  for (std::size_t k = 0; k < s.params.params.size(); ++k) {
    const auto& param = s.params.params[k];
    if (!param.raw || k >= types.size()) continue;
    const dtype want = rtc::parameter_type(s.params, int(k), bound);
    if (types[k] != want)
      throw no_loop_error("elementwise_kernel " + s.name + ": raw parameter " + param.name + " is " +
                          std::string(want.name()) + ", its array " + std::string(types[k]->name()) +
                          " (raw arrays are not cast)");
  }
  const type_signature sig = s.signature(bound);
  std::string text = sig.str();
  if (s.compiled.count(text) == 0) {
    auto program = rtc::elementwise_source(s.params, bound, s.operation, s.name, s.options.preamble);
    std::vector<std::string> compile_options;
    std::vector<rtc::header> headers;
    if (program.library_headers) {  // float16 / bfloat16: the library's own types
      compile_options = rtc::library_header_options();
      headers = rtc::library_headers();
    }
    compile_options.insert(compile_options.end(), s.options.compile_options.begin(), s.options.compile_options.end());
    auto loop = rtc::make_generated_loop(s.name, std::move(program), std::move(compile_options), std::move(headers));
    auto state = std::make_shared<loop_state>();
    state->loop = loop;
    state->node = s.fused_node(bound, sig);
    loop_entry e;
    e.types = sig;
    e.host = &host_refuses;
    e.host_data = loop.get();
    rtc::attach_device(e, loop);
    if (!state->node.op.empty()) {
      e.source_op = state->node.op.c_str();
      e.source_preamble = state->node.preamble.c_str();
    }
    e.keepalive = state;
    s.f.add_loop(std::move(e));
    s.compiled.insert(text);
  }
  return s.signature_of.emplace(std::move(key), std::move(text)).first->second;
}

std::vector<array> elementwise_kernel::call(std::span<const operand> inputs, const call_options& options) const {
  std::vector<array> results;
  run(inputs, options, &results);
  return results;
}

// The call; the outputs go to `all` (every output, in the parameters' order), or the first
// is returned where `all` is null (operator(), which then makes no vector).
array elementwise_kernel::run(std::span<const operand> inputs, const call_options& options,
                              std::vector<array>* all) const {
  auto& s = *state_;
  if (static_cast<int>(inputs.size()) != s.params.nin)
    throw value_error("elementwise_kernel " + s.name + " takes " + std::to_string(s.params.nin) + " inputs, not " +
                      std::to_string(inputs.size()));
  if (!options.signature.empty() || options.dtype)
    throw value_error("elementwise_kernel " + s.name +
                      ": signature= and dtype= do not apply; the dtypes come from the arguments' placeholders");
  // A raw output's shape is the body's to choose, so it is never allocated: with one,
  // out= names every output (CuPy refuses the call without them too).
  const int nout = s.params.nout;
  if (!options.out.empty() && static_cast<int>(options.out.size()) != nout)
    throw value_error("elementwise_kernel " + s.name + " has " + std::to_string(nout) + " outputs, but out= names " +
                      std::to_string(options.out.size()));
  if (options.out.empty() && s.raw_outputs)
    for (int k = 0; k < nout; ++k)
      if (const auto& q = s.params.params[std::size_t(s.params.nin + k)]; q.raw)
        throw value_error("elementwise_kernel " + s.name + ": output " + q.name +
                          " is raw; pass every output with out= (a raw output is never allocated: its shape is the "
                          "body's to choose)");
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (s.params.params[k].raw && inputs[k].is_scalar())
      throw value_error("elementwise_kernel " + s.name + ": raw parameter " + s.params.params[k].name +
                        " needs an array, not a scalar");
  const std::string* signature = nullptr;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    signature = &resolve(inputs, options.out);  // entries are never removed: it outlives the lock
  }
  call_options o = options;
  o.signature = *signature;
  if (!o.target) o.target = target_id::cuda;
  if (!s.raw_inputs && !s.raw_outputs) {
    if (all != nullptr) {
      *all = s.f.call(inputs, o);
      return {};
    }
    if (s.f.nout() == 1) switch (inputs.size()) {
        case 1:
          return s.f(inputs[0], o);
        case 2:
          return s.f(inputs[0], inputs[1], o);
        case 3:
          return s.f(inputs[0], inputs[1], inputs[2], o);
        default:
          break;
      }
    return s.f.call(inputs, o).front();
  }
  // Raw arguments go to the kernel as they are (raw inputs, then raw outputs, as in the
  // kernel's parameter list); the others are the ufunc's operands.
  std::vector<operand> broadcast;
  std::vector<array> raw;
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (s.params.params[k].raw)
      raw.push_back(inputs[k].as_array());
    else
      broadcast.push_back(inputs[k]);
  o.out.clear();
  for (int k = 0; k < static_cast<int>(options.out.size()); ++k) {
    const array& out = options.out[std::size_t(k)];
    const auto& param = s.params.params[std::size_t(s.params.nin + k)];
    if (!param.raw) {
      o.out.push_back(out);
      continue;
    }
    if (!out.writeable())
      throw value_error("elementwise_kernel " + s.name + ": raw output " + param.name + " is read-only");
    raw.push_back(out);
  }
  const rtc::raw_arguments_scope scope(&raw);
  auto computed = s.f.call(broadcast, o);
  // Every output in the parameters' order: the raw ones are the caller's arrays.
  std::vector<array> results;
  for (int k = 0, c = 0; k < nout; ++k)
    results.push_back(s.params.params[std::size_t(s.params.nin + k)].raw ? options.out[std::size_t(k)]
                                                                         : computed[std::size_t(c++)]);
  if (all == nullptr) return results.front();
  *all = std::move(results);
  return {};
}

array elementwise_kernel::operator()(const operand& a, const call_options& options) const {
  return run(std::span<const operand>(&a, 1), options, nullptr);
}

array elementwise_kernel::operator()(const operand& a, const operand& b, const call_options& options) const {
  const operand in[] = {a, b};
  return run(in, options, nullptr);
}

array elementwise_kernel::operator()(const operand& a, const operand& b, const operand& c,
                                     const call_options& options) const {
  const operand in[] = {a, b, c};
  return run(in, options, nullptr);
}

const function& elementwise_kernel::ufunc() const noexcept { return state_->f; }

const rtc::parameter_list& elementwise_kernel::parameters() const noexcept { return state_->params; }

std::string elementwise_kernel::source(std::span<const dtype> input_types) const {
  std::vector<std::optional<dtype>> types(input_types.begin(), input_types.end());
  const auto bound = rtc::bind_placeholders(state_->params, types);
  return rtc::elementwise_source(state_->params, bound, state_->operation, state_->name, state_->options.preamble)
      .source;
}

}  // namespace ufunc::cuda
