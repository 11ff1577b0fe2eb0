#include "driver.hpp"

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
    bind(api.ctx_get_device, "cuCtxGetDevice");
    bind(api.device_get_attribute, "cuDeviceGetAttribute");
    bind(api.module_load_data, "cuModuleLoadData");
    bind(api.module_get_function, "cuModuleGetFunction");
    bind(api.launch_kernel, "cuLaunchKernel");
    bind(api.device_get, "cuDeviceGet");
    bind(api.device_primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    bind(api.ctx_get_current, "cuCtxGetCurrent");
    bind(api.ctx_set_current, "cuCtxSetCurrent");
    api.func_get_param_info =
        reinterpret_cast<decltype(api.func_get_param_info)>(library.optional_symbol("cuFuncGetParamInfo"));
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

}  // namespace ufunc::cuda::rtc::detail
