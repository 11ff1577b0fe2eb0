#include "driver.hpp"

#include <array>
#include <atomic>
#include <map>
#include <mutex>

#include <ufunc/core/error.hpp>

#include "toolkit.hpp"

namespace ufunc::cuda::rtc::detail {

namespace {

struct loaded_driver {
  shared_library library{{"libcuda.so.1", "libcuda.so"}, "the CUDA driver (libcuda, installed with the GPU driver)"};
  driver_api api{};

  template <class F>
  void bind(F& f, const char* name) {
    f = reinterpret_cast<F>(library.symbol(name));
  }
  loaded_driver() {
    bind(api.init, "cuInit");
    bind(api.get_error_string, "cuGetErrorString");
    bind(api.device_get_attribute, "cuDeviceGetAttribute");
    bind(api.module_load_data, "cuModuleLoadData");
    bind(api.module_get_function, "cuModuleGetFunction");
    bind(api.launch_kernel, "cuLaunchKernel");
    bind(api.device_get, "cuDeviceGet");
    bind(api.device_primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    bind(api.ctx_get_current, "cuCtxGetCurrent");
    bind(api.ctx_set_current, "cuCtxSetCurrent");
    bind(api.occupancy_max_active_blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    api.func_get_param_info =
        reinterpret_cast<decltype(api.func_get_param_info)>(library.optional_symbol("cuFuncGetParamInfo"));
    api.launch_kernel_ex =
        reinterpret_cast<decltype(api.launch_kernel_ex)>(library.optional_symbol("cuLaunchKernelEx"));
    check_driver_with(api, api.init(0), "cuInit");
  }
  static void check_driver_with(const driver_api& a, cu_result r, const char* what) {
    if (r == 0) return;
    const char* text = nullptr;
    if (a.get_error_string(r, &text) != 0 || text == nullptr) text = "unknown error";
    throw target_error(std::string(what) + " failed: " + text + " (CUresult " + std::to_string(r) + ")");
  }
};

}  // namespace

const driver_api& driver() { return load_once<loaded_driver>().api; }

void check_driver(cu_result r, const char* what) {
  if (r != 0) loaded_driver::check_driver_with(driver(), r, what);
}

int device_attribute(int ordinal, int attribute) {
  const auto& cu = driver();
  cu_device device = 0;
  check_driver(cu.device_get(&device, ordinal), "cuDeviceGet");
  int value = 0;
  check_driver(cu.device_get_attribute(&value, attribute, device), "cuDeviceGetAttribute");
  return value;
}

int architecture_of(int ordinal) {
  return device_attribute(ordinal, attribute_compute_capability_major) * 10 +
         device_attribute(ordinal, attribute_compute_capability_minor);
}

bool dependent_launch_available(int ordinal) {
  const auto read = [ordinal] { return architecture_of(ordinal) >= 90 && driver().launch_kernel_ex != nullptr; };
  static std::array<std::atomic<signed char>, 64> known{};  // 0 unread, 1 yes, -1 no
  if (ordinal < 0 || ordinal >= static_cast<int>(known.size())) return read();
  auto& slot = known[static_cast<std::size_t>(ordinal)];
  signed char v = slot.load(std::memory_order_relaxed);
  if (v == 0) {
    v = read() ? 1 : -1;
    slot.store(v, std::memory_order_relaxed);
  }
  return v > 0;
}

void launch(cu_function f, const unsigned (&grid)[3], const unsigned (&block)[3], unsigned shared_bytes,
            cu_stream stream, void** params, bool dependent) {
  const auto& cu = driver();
  if (!dependent) {
    check_driver(cu.launch_kernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes, stream,
                                  params, nullptr),
                 "cuLaunchKernel");
    return;
  }
  launch_attribute attribute{};
  attribute.id = launch_attribute_programmatic_stream_serialization;
  attribute.value.programmatic_stream_serialization_allowed = 1;
  const launch_config config{grid[0],  grid[1],      grid[2], block[0],   block[1],
                             block[2], shared_bytes, stream,  &attribute, 1};
  check_driver(cu.launch_kernel_ex(&config, f, params, nullptr), "cuLaunchKernelEx");
}

void make_primary_context_current(int ordinal) {
  const auto& cu = driver();
  static std::mutex mutex;
  static std::map<int, cu_context> retained;
  cu_context want = nullptr;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    auto& slot = retained[ordinal];
    if (slot == nullptr) {
      cu_device device = 0;
      check_driver(cu.device_get(&device, ordinal), "cuDeviceGet");
      check_driver(cu.device_primary_ctx_retain(&slot, device), "cuDevicePrimaryCtxRetain");
    }
    want = slot;
  }
  cu_context have = nullptr;
  check_driver(cu.ctx_get_current(&have), "cuCtxGetCurrent");
  if (have != want) check_driver(cu.ctx_set_current(want), "cuCtxSetCurrent");
}

}  // namespace ufunc::cuda::rtc::detail
