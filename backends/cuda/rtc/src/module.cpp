#include <ufunc/backends/cuda/rtc/module.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

#include <ufunc/backends/cuda/rtc/compiler.hpp>
#include <ufunc/core/backend.hpp>
#include <ufunc/core/error.hpp>

#include "cache_entry.hpp"
#include "driver.hpp"

namespace ufunc::cuda {

struct module::state {
  std::string source;
  module_options options;

  // A kernel found in a loaded module, with its parameters' sizes where the driver tells them
  // (read once: they are checked at every launch).
  struct loaded_kernel {
    rtc::detail::cu_function function = nullptr;
    std::optional<std::vector<std::size_t>> parameter_sizes;
  };
  struct on_device {
    rtc::detail::cu_module module = nullptr;
    std::vector<std::string> lowered;  // per name expression
    std::map<std::string, loaded_kernel, std::less<>> functions;
  };
  std::mutex mutex;
  std::map<int, on_device> devices;  // by ordinal

  // The compiled program for sm_`sm`, from the cache or NVRTC.
  std::shared_ptr<const std::string> compiled(int sm) const {
    rtc::compile_request request;
    request.source = source;
    request.name = options.name + ".cu";
    request.options = options.options;
    request.name_expressions = options.name_expressions;
    request.architecture = sm;
    return rtc::detail::compile_cached("ufunc module 1", request);
  }
};

namespace {

std::string describe(const kernel_argument& a) {
  if (a.as_array() != nullptr) return "an array (a pointer, 8 bytes)";
  return "a scalar of " + std::to_string(a.size()) + " bytes";
}

}  // namespace

module::module(std::string source, module_options options) :state_(std::make_shared<state>()) {
  state_->source = std::move(source);
  state_->options = std::move(options);
}

const std::string& module::source() const noexcept { return state_->source; }

std::vector<std::string> module::lowered_names(int sm) const {
  return rtc::detail::unpack(*state_->compiled(sm)).first;
}

kernel module::function(std::string_view name) const {
  if (name.empty()) throw value_error("module '" + state_->options.name + "': a kernel name is empty");
  return kernel(state_, std::string(name));
}

const void* kernel::loaded(int ordinal) const {
  auto& st = *const_cast<module::state*>(static_cast<const module::state*>(state_.get()));
  rtc::detail::make_primary_context_current(ordinal);
  const auto& cu = rtc::detail::driver();
  const std::lock_guard<std::mutex> lock(st.mutex);
  auto& d = st.devices[ordinal];
  if (d.module == nullptr) {
    const auto entry = st.compiled(rtc::detail::architecture_of(ordinal));
    auto [lowered, cubin] = rtc::detail::unpack(*entry);
    rtc::detail::check_driver(cu.module_load_data(&d.module, cubin.data()), "cuModuleLoadData");
    d.lowered = std::move(lowered);
  }
  auto it = d.functions.find(name_);
  if (it == d.functions.end()) {
    std::string symbol = name_;
    const auto& exprs = st.options.name_expressions;
    if (const auto e = std::find(exprs.begin(), exprs.end(), name_); e != exprs.end())
      symbol = d.lowered[static_cast<std::size_t>(e - exprs.begin())];
    module::state::loaded_kernel k;
    const auto r = cu.module_get_function(&k.function, d.module, symbol.c_str());
    if (r != 0)
      throw value_error("kernel '" + name_ + "' of module '" + st.options.name +
                        "': the module has no kernel of that name (extern \"C\" kernels by their name, "
                        "templates through module_options::name_expressions)");
    if (cu.func_get_param_info != nullptr) {
      k.parameter_sizes.emplace();
      std::size_t offset = 0, size = 0;
      while (cu.func_get_param_info(k.function, k.parameter_sizes->size(), &offset, &size) == 0)
        k.parameter_sizes->push_back(size);
    }
    it = d.functions.emplace(name_, std::move(k)).first;
  }
  return &it->second;
}

int kernel::max_active_blocks_per_multiprocessor(unsigned block_threads, std::size_t shared_bytes, int device) const {
  const auto function = static_cast<const module::state::loaded_kernel*>(loaded(device))->function;
  int blocks = 0;
  rtc::detail::check_driver(rtc::detail::driver().occupancy_max_active_blocks(
                                &blocks, function, static_cast<int>(block_threads), shared_bytes),
                            "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return blocks;
}

void kernel::launch(dim3 grid, dim3 block, std::initializer_list<kernel_argument> args,
                    const launch_options& options) const {
  auto& st = *const_cast<module::state*>(static_cast<const module::state*>(state_.get()));
  const auto who = [&] { return "kernel '" + name_ + "' of module '" + st.options.name + "'"; };  // for errors
  if (grid.x * grid.y * grid.z == 0 || block.x * block.y * block.z == 0)
    throw value_error(who() + ": the grid and the block need at least one thread each");
  // The device: given, or the first array's.
  int ordinal = options.device;
  for (const auto& a : args)
    if (ordinal < 0 && a.as_array() != nullptr && !a.as_array()->device().is_host())
      ordinal = a.as_array()->device().index;
  if (ordinal < 0) ordinal = 0;
  int k = 0;
  for (const auto& a : args) {
    if (const array* arr = a.as_array(); arr != nullptr && arr->device() != device::cuda(ordinal))
      throw target_error(who() + ": argument " + std::to_string(k) + " is on " + arr->device().str() +
                         ", the launch on cuda:" + std::to_string(ordinal) + " (kernels take device arrays)");
    ++k;
  }
  const auto& loaded_kernel = *static_cast<const module::state::loaded_kernel*>(loaded(ordinal));
  // The arguments against the kernel's parameters, where the driver can tell them.
  const kernel_argument* values = args.begin();
  if (const auto& sizes = loaded_kernel.parameter_sizes) {
    for (std::size_t k = 0; k < sizes->size(); ++k)
      if (k < args.size() && (*sizes)[k] != values[k].size())
        throw value_error(who() + ": argument " + std::to_string(k) + " is " + describe(values[k]) + ", parameter " +
                          std::to_string(k) + " takes " + std::to_string((*sizes)[k]) + " bytes");
    if (sizes->size() != args.size())
      throw value_error(who() + " takes " + std::to_string(sizes->size()) + " parameters, not " +
                        std::to_string(args.size()));
  }
  // The parameter array on the stack for the usual argument counts (a launch is on the host's
  // hot path of a reduction_kernel call, which makes two).
  void* small[16];
  std::vector<void*> large(args.size() > std::size(small) ? args.size() : 0);
  void** pointers = large.empty() ? small : large.data();
  for (std::size_t k = 0; k < args.size(); ++k) pointers[k] = values[k].bytes();
  // The library's current stream by default: the one to_device and ufunc calls enqueue on.
  void* stream = options.stream.handle;
  if (stream == nullptr) stream = ufunc::detail::memory_of(device::cuda(ordinal)).current_stream().handle;
  rtc::detail::launch(loaded_kernel.function, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z},
                      static_cast<unsigned>(options.shared_bytes), stream, pointers,
                      options.programmatic_dependent_launch && rtc::detail::dependent_launch_available(ordinal));
}

}  // namespace ufunc::cuda
