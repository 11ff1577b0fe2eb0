#include <ufunc/backends/cuda/rtc/generated_loop.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>

#include <ufunc/backends/cuda/rtc/compiler.hpp>
#include <ufunc/core/device_call.hpp>
#include <ufunc/core/error.hpp>

#include "cache_entry.hpp"
#include "driver.hpp"

namespace ufunc::cuda::rtc {

namespace {
constexpr std::size_t dim_buckets = std::size(elementwise_dims);
}  // namespace

// One program (one dtype combination of a kernel): its source, and on each device it ran on,
// the instantiations (a dimension bucket, with or without where=) that its calls needed, each
// compiled (or taken from the cache) and loaded at its first use: a first call compiles one
// kernel, not eight.
struct generated_loop {
  std::string name;
  elementwise_program program;
  std::vector<std::string> options;
  std::vector<header> headers;

  struct on_device {
    int architecture = 0;  // 0 until the device's architecture is read
    std::array<detail::cu_function, 2 * dim_buckets> functions{};
  };
  std::mutex mutex;
  std::map<int, on_device> devices;  // by device ordinal
  // The loaded functions of the first devices again, read without the lock: a launch is a
  // few microseconds, and a lock per launch was a measurable part of it.
  static constexpr int fast_devices = 8;
  std::array<std::array<std::atomic<detail::cu_function>, 2 * dim_buckets>, fast_devices> loaded{};
};

namespace {

// The raw arrays of the call being made on this thread: elementwise_kernel::call sets them
// (raw_arguments_scope) around its ufunc call, whose launch (below) runs on the same thread
// before it returns.
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
detail::cu_function function_on_device(generated_loop& loop, int ordinal, std::size_t which) {
  const bool fast = ordinal >= 0 && ordinal < generated_loop::fast_devices;
  if (fast)
    if (const auto f = loop.loaded[std::size_t(ordinal)][which].load(std::memory_order_acquire)) return f;
  const std::lock_guard<std::mutex> lock(loop.mutex);
  auto& d = loop.devices[ordinal];
  if (d.functions[which] != nullptr) return d.functions[which];
  if (d.architecture == 0) d.architecture = detail::architecture_of(ordinal);
  compile_request request;
  request.source = loop.program.source;
  request.name = loop.name + ".cu";
  request.options = loop.options;
  request.name_expressions = {loop.program.name_expressions[which]};
  request.architecture = d.architecture;
  request.headers = loop.headers;
  const auto entry = detail::compile_cached("ufunc elementwise_kernel 2", request);
  const auto [names, cubin] = detail::unpack(*entry);
  if (names.size() != 1) throw compile_error("kernel cache: an entry with the wrong kernel count");
  const auto& cu = detail::driver();
  detail::cu_module module = nullptr;
  detail::check_driver(cu.module_load_data(&module, cubin.data()), "cuModuleLoadData");
  detail::cu_function function = nullptr;
  detail::check_driver(cu.module_get_function(&function, module, names.front().c_str()), "cuModuleGetFunction");
  d.functions[which] = function;
  if (fast) loop.loaded[std::size_t(ordinal)][which].store(function, std::memory_order_release);
  return function;
}

}  // namespace

std::size_t instantiation_for(const elementwise_program& program, const device_call& c, std::string_view name) {
  const int operands = c.nin + c.nout + (c.has_where ? 1 : 0);
  const auto& bytes = program.operand_bytes;
  for (int a = 0; a < operands; ++a)
    if (std::size_t(a) < bytes.size() && bytes[std::size_t(a)] == 0)
      for (int k = 0; k < c.ndim; ++k)
        if (c.strides[a][k] != 0)
          throw value_error("generated kernel '" + std::string(name) + "': operand " + std::to_string(a) +
                            " is read once (a 0-d argument), but the call steps through it (stride " +
                            std::to_string(c.strides[a][k]) + " in dimension " + std::to_string(k) + ")");
  // ND 0 where every operand (the mask last) steps by its element's size (0 for an input the
  // kernel reads once); else the first bucket of ND > 0 that holds the call's dimensions.
  bool contiguous = c.ndim <= 1;
  for (int a = 0; a < operands && c.ndim == 1; ++a)
    contiguous &= std::size_t(a) < bytes.size() && c.strides[a][0] == bytes[std::size_t(a)];
  std::size_t bucket = 0;
  if (!contiguous) {
    bucket = 1;
    while (elementwise_dims[bucket] < c.ndim) ++bucket;
  }
  return (c.has_where ? dim_buckets : 0) + bucket;
}

namespace {

// device_loop_fn: the cuda backend has made the call's device current (its primary
// context) and planned the operands; this picks the instantiation and launches it.
void launch(const device_call& c, const void* data) {
  if (c.size == 0) return;
  auto& loop = *const_cast<generated_loop*>(static_cast<const generated_loop*>(data));
  const int operands = c.nin + c.nout + (c.has_where ? 1 : 0);
  const std::size_t which = instantiation_for(loop.program, c, loop.name);
  const auto function = function_on_device(loop, c.device, which);
  const int nd = std::max(elementwise_dims[which % dim_buckets], 1);
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
  static_assert(sizeof(device_fp_sink) == 4 * sizeof(long long));
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
  constexpr long long tile = elementwise_block_threads * elementwise_items_per_thread;
  const long long blocks = (c.size + tile - 1) / tile;
  if (blocks > 0x7fffffffLL)
    throw value_error("generated kernel '" + loop.name + "': " + std::to_string(c.size) +
                      " elements are more than one launch takes (" + std::to_string(0x7fffffffLL * tile) + ")");
  // A dependent launch where the operands are one dimension (contiguous, or one stride each),
  // as the built-in contiguous kernel's; the built-in rows kernel ran its broadcast and outer
  // cases slower so (backends/cuda loops.hpp).
  detail::launch(function, {static_cast<unsigned>(blocks), 1, 1}, {elementwise_block_threads, 1, 1}, 0, c.stream,
                 kernel_params, c.ndim <= 1 && detail::dependent_launch_available(c.device));
}

}  // namespace

std::shared_ptr<generated_loop> make_generated_loop(std::string name, elementwise_program program,
                                                    std::vector<std::string> options, std::vector<header> headers) {
  auto loop = std::make_shared<generated_loop>();
  loop->name = std::move(name);
  loop->program = std::move(program);
  loop->options = std::move(options);
  loop->headers = std::move(headers);
  return loop;
}

const std::string& name_of(const generated_loop& loop) noexcept { return loop.name; }

const std::string& source_of(const generated_loop& loop) noexcept { return loop.program.source; }

void attach_device(loop_entry& e, const std::shared_ptr<generated_loop>& loop) {
  e.devices.set({target_id::cuda, &launch, nullptr, loop.get()});
}

raw_arguments_scope::raw_arguments_scope(const std::vector<array>* raw) noexcept : saved_(current_raw_arrays) {
  current_raw_arrays = raw;
}

raw_arguments_scope::~raw_arguments_scope() { current_raw_arrays = saved_; }

}  // namespace ufunc::cuda::rtc
