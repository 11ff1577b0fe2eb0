#include <ufunc/backends/cuda/rtc/elementwise_kernel.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include <ufunc/backends/cuda/rtc/compiler.hpp>
#include <ufunc/backends/cuda/rtc/elementwise_source.hpp>
#include <ufunc/core/device_call.hpp>
#include <ufunc/core/error.hpp>

#include "cache_entry.hpp"
#include "driver.hpp"

namespace ufunc::cuda {

namespace {

constexpr std::size_t dim_buckets = std::size(rtc::elementwise_dims);

// One dtype combination: its source, and on each device it ran on, the instantiations (a
// dimension bucket, with or without where=) that its calls needed, each compiled (or taken
// from the cache) and loaded at its first use: a first call compiles one kernel, not eight.
struct compiled_loop {
  std::string name;
  rtc::elementwise_program program;
  std::vector<std::string> options;

  struct on_device {
    int architecture = 0;  // 0 until the device's architecture is read
    std::array<rtc::detail::cu_function, 2 * dim_buckets> functions{};
  };
  std::mutex mutex;
  std::map<int, on_device> devices;  // by device ordinal
};

// The raw arrays of the call being made on this thread: elementwise_kernel::call sets them
// around its ufunc call, whose launch (below) runs on the same thread before it returns.
thread_local const std::vector<array>* current_raw_arrays = nullptr;

// _ufunc::raw<T> of the generated source: { char* data; long long n; int ndim;
// long long shape[64]; long long strides[64]; } (ndim padded to 8 bytes).
struct raw_parameter {
  const std::byte* data;
  long long n;
  int ndim;
  int padding;
  long long shape[64];
  long long strides[64];
};
static_assert(sizeof(raw_parameter) == 8 * (3 + 64 + 64));

// Instantiation `which` (elementwise_program::name_expressions' order) of `loop` on device
// `ordinal`, the call's device, whose primary context the cuda backend has made current.
rtc::detail::cu_function function_on_device(compiled_loop& loop, int ordinal, std::size_t which) {
  const std::lock_guard<std::mutex> lock(loop.mutex);
  auto& d = loop.devices[ordinal];
  if (d.functions[which] != nullptr) return d.functions[which];
  if (d.architecture == 0) d.architecture = rtc::detail::architecture_of(ordinal);
  rtc::compile_request request;
  request.source = loop.program.source;
  request.name = loop.name + ".cu";
  request.options = loop.options;
  request.name_expressions = {loop.program.name_expressions[which]};
  request.architecture = d.architecture;
  const auto entry = rtc::detail::compile_cached("ufunc elementwise_kernel 2", request);
  const auto [names, cubin] = rtc::detail::unpack(*entry);
  if (names.size() != 1) throw compile_error("kernel cache: an entry with the wrong kernel count");
  const auto& cu = rtc::detail::driver();
  rtc::detail::cu_module module = nullptr;
  rtc::detail::check_driver(cu.module_load_data(&module, cubin.data()), "cuModuleLoadData");
  rtc::detail::cu_function function = nullptr;
  rtc::detail::check_driver(cu.module_get_function(&function, module, names.front().c_str()), "cuModuleGetFunction");
  d.functions[which] = function;
  return function;
}

// device_loop_fn: the cuda backend has made the call's device current (its primary
// context) and planned the operands; this picks the instantiation and launches it.
void launch(const device_call& c, const void* data) {
  if (c.size == 0) return;
  auto& loop = *const_cast<compiled_loop*>(static_cast<const compiled_loop*>(data));
  std::size_t bucket = 0;
  while (rtc::elementwise_dims[bucket] < c.ndim) ++bucket;
  const auto function = function_on_device(loop, c.device, (c.has_where ? dim_buckets : 0) + bucket);
  const int nd = rtc::elementwise_dims[bucket];
  const int operands = c.nin + c.nout + (c.has_where ? 1 : 0);
  // _ufunc::call<ND, B>: size, shape[ND], strides[B][ND], base[B], all 8-byte words; on the
  // stack for the small instantiations (a call's host time is the launch's at small sizes).
  const auto count = static_cast<std::size_t>(1 + nd + operands * nd + operands);
  long long small_words[64] = {};
  std::vector<long long> large_words(count > std::size(small_words) ? count : 0, 0);
  long long* const words = large_words.empty() ? small_words : large_words.data();
  words[0] = c.size;
  for (int k = 0; k < nd; ++k) words[std::size_t(1 + k)] = k < c.ndim ? c.shape[k] : 1;
  for (int a = 0; a < operands; ++a)
    for (int k = 0; k < c.ndim; ++k) words[std::size_t(1 + nd + a * nd + k)] = c.strides[a][k];
  for (int a = 0; a < operands; ++a) {
    static_assert(sizeof(long long) == sizeof(std::byte*));
    std::memcpy(&words[std::size_t(1 + nd + operands * nd + a)], &c.base[a], sizeof(std::byte*));
  }
  // _ufunc::fp_sink: the call's device_fp_sink as it is (null flags: errstate ignores all).
  static_assert(sizeof(device_fp_sink) == 3 * sizeof(long long));
  device_fp_sink fp = c.fp;
  void* call_only[] = {words, &fp};
  void** kernel_params = call_only;
  std::vector<raw_parameter> raws;
  std::vector<void*> params;  // with the raw arrays' parameters
  if (current_raw_arrays != nullptr) {
    raws.reserve(current_raw_arrays->size());
    params.assign(std::begin(call_only), std::end(call_only));
    for (const array& r : *current_raw_arrays) {
      if (r.device() != device::cuda(c.device))
        throw target_error("elementwise_kernel '" + loop.name + "': a raw array is on " + r.device().str() +
                           ", the call runs on cuda:" + std::to_string(c.device));
      raw_parameter p{};
      p.data = static_cast<const std::byte*>(r.data());
      p.n = r.size();
      p.ndim = static_cast<int>(r.ndim());
      for (std::size_t k = 0; k < r.ndim(); ++k) {
        p.shape[k] = r.shape()[k];
        p.strides[k] = r.strides()[k];
      }
      raws.push_back(p);
    }
    for (auto& r : raws) params.push_back(&r);
    kernel_params = params.data();
  }
  // One tile per block (the generated kernel has no grid-stride loop).
  constexpr long long tile = rtc::elementwise_block_threads * rtc::elementwise_items_per_thread;
  const long long blocks = (c.size + tile - 1) / tile;
  if (blocks > 0x7fffffffLL)
    throw value_error("elementwise_kernel '" + loop.name + "': " + std::to_string(c.size) +
                      " elements are more than one launch takes (" + std::to_string(0x7fffffffLL * tile) + ")");
  const auto& cu = rtc::detail::driver();
  rtc::detail::check_driver(cu.launch_kernel(function, static_cast<unsigned>(blocks), 1, 1,
                                             rtc::elementwise_block_threads, 1, 1, 0, c.stream, kernel_params, nullptr),
                            "cuLaunchKernel");
}

}  // namespace

struct elementwise_kernel::state {
  std::string name;
  rtc::parameter_list params;
  std::string operation;
  kernel_options options;
  function f;
  mutable std::mutex mutex;
  mutable std::set<std::string> compiled;  // signatures with a loop in f

  state(std::string_view in_params, std::string_view out_params, std::string_view op, std::string_view n,
        kernel_options o)
      : name(n),
        params(checked(rtc::parse_parameters(in_params, out_params), n)),
        operation(op),
        options(std::move(o)),
        f(std::string(n), count_broadcast(params, false), count_broadcast(params, true)) {}

  // What the ufunc behind the kernel cannot take, said in the kernel's terms.
  static rtc::parameter_list checked(rtc::parameter_list p, std::string_view name) {
    for (const auto& q : p.params)
      if (q.raw && q.output)
        throw value_error("elementwise_kernel " + std::string(name) + ": output " + q.name +
                          " is raw; raw outputs are not supported (raw inputs are)");
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
  const auto& loop = *static_cast<const compiled_loop*>(data);
  throw target_error("elementwise_kernel '" + loop.name +
                     "' runs on target cuda only (its loops are GPU code compiled at run time)");
}

}  // namespace

elementwise_kernel::elementwise_kernel(std::string_view in_params, std::string_view out_params,
                                       std::string_view operation, std::string_view name, kernel_options options)
    : state_(std::make_shared<state>(in_params, out_params, operation, name, std::move(options))) {
  if (!rtc::is_c_identifier(name))
    throw value_error("elementwise_kernel: the name \"" + std::string(name) + "\" is not a C identifier");
}

std::vector<array> elementwise_kernel::call(std::span<const operand> inputs, const call_options& options) const {
  auto& s = *state_;
  if (static_cast<int>(inputs.size()) != s.params.nin)
    throw value_error("elementwise_kernel " + s.name + " takes " + std::to_string(s.params.nin) + " inputs, not " +
                      std::to_string(inputs.size()));
  if (!options.signature.empty() || options.dtype)
    throw value_error("elementwise_kernel " + s.name +
                      ": signature= and dtype= do not apply; the dtypes come from the arguments' placeholders");
  // Raw inputs go to the kernel as they are; the others are the ufunc's operands.
  std::vector<std::optional<dtype>> types;
  std::vector<operand> broadcast;
  std::vector<array> raw;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const auto& param = s.params.params[k];
    const operand& in = inputs[k];
    types.push_back(in.is_scalar() ? std::nullopt : std::optional(in.as_array().type()));
    if (!param.raw) {
      broadcast.push_back(in);
      continue;
    }
    if (in.is_scalar())
      throw value_error("elementwise_kernel " + s.name + ": raw parameter " + param.name +
                        " needs an array, not a scalar");
    raw.push_back(in.as_array());
  }
  for (const auto& out : options.out) types.push_back(out.type());
  const auto bound = rtc::bind_placeholders(s.params, types);
  for (std::size_t k = 0, r = 0; k < inputs.size(); ++k)
    if (s.params.params[k].raw) {
      const dtype want = rtc::parameter_type(s.params, int(k), bound);
      if (raw[r].type() != want)
        throw no_loop_error("elementwise_kernel " + s.name + ": raw parameter " + s.params.params[k].name + " is " +
                            std::string(want.name()) + ", its array " + std::string(raw[r].type().name()) +
                            " (raw arrays are not cast)");
      ++r;
    }
  const type_signature sig = s.signature(bound);
  const std::string text = sig.str();
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.compiled.count(text) == 0) {
      auto loop = std::make_shared<compiled_loop>();
      loop->name = s.name;
      loop->program = rtc::elementwise_source(s.params, bound, s.operation, s.name, s.options.preamble);
      loop->options = s.options.compile_options;
      loop_entry e;
      e.types = sig;
      e.host = &host_refuses;
      e.host_data = loop.get();
      e.device = &launch;
      e.device_data = loop.get();
      e.keepalive = loop;
      s.f.add_loop(std::move(e));
      s.compiled.insert(text);
    }
  }
  call_options o = options;
  o.signature = text;
  if (!o.target) o.target = target_id::cuda;
  struct raw_scope {
    const std::vector<array>* saved = current_raw_arrays;
    explicit raw_scope(const std::vector<array>* r) { current_raw_arrays = r; }
    ~raw_scope() { current_raw_arrays = saved; }
  } scope(raw.empty() ? nullptr : &raw);
  return s.f.call(broadcast, o);
}

array elementwise_kernel::operator()(const operand& a, const call_options& options) const {
  return call(std::span<const operand>(&a, 1), options).front();
}

array elementwise_kernel::operator()(const operand& a, const operand& b, const call_options& options) const {
  const operand in[] = {a, b};
  return call(in, options).front();
}

array elementwise_kernel::operator()(const operand& a, const operand& b, const operand& c,
                                     const call_options& options) const {
  const operand in[] = {a, b, c};
  return call(in, options).front();
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
