// The CUDA driver API, loaded with dlopen (libcuda.so.1 comes with the GPU driver): the
// few functions run-time kernels need to load a CUBIN and launch it. Declared here from
// the driver API's documentation so that the library builds without the toolkit's headers.
#pragma once

#include <cstddef>
#include <string>

namespace ufunc::cuda::rtc::detail {

using cu_result = int;  // CUresult; 0 is CUDA_SUCCESS
using cu_device = int;
using cu_module = struct cu_module_opaque*;
using cu_function = struct cu_function_opaque*;
using cu_stream = void*;
using cu_context = struct cu_context_opaque*;

// CUlaunchAttribute and CUlaunchConfig, as cuda.h lays them out.
struct launch_attribute {
  int id;
  char padding[4];
  union {
    char bytes[64];
    int programmatic_stream_serialization_allowed;
  } value;
};
static_assert(sizeof(launch_attribute) == 72);
struct launch_config {
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
  cu_stream stream;
  launch_attribute* attributes;
  unsigned attribute_count;
};
static_assert(sizeof(launch_config) == 56);
inline constexpr int launch_attribute_programmatic_stream_serialization = 6;

struct driver_api {
  cu_result (*init)(unsigned);
  cu_result (*get_error_string)(cu_result, const char**);
  cu_result (*device_get_attribute)(int*, int, cu_device);
  cu_result (*module_load_data)(cu_module*, const void*);
  cu_result (*module_get_function)(cu_function*, cu_module, const char*);
  cu_result (*launch_kernel)(cu_function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             cu_stream, void**, void**);
  cu_result (*device_get)(cu_device*, int);
  cu_result (*device_primary_ctx_retain)(cu_context*, cu_device);
  cu_result (*ctx_get_current)(cu_context*);
  cu_result (*ctx_set_current)(cu_context);
  cu_result (*occupancy_max_active_blocks)(int*, cu_function, int, std::size_t);
  /// cuFuncGetParamInfo (drivers of CUDA 12.4 and later); null on older drivers.
  cu_result (*func_get_param_info)(cu_function, std::size_t, std::size_t*, std::size_t*);
  /// cuLaunchKernelEx (drivers of CUDA 12.0 and later); null on older drivers.
  cu_result (*launch_kernel_ex)(const launch_config*, cu_function, void**, void**);
};

/// The first statements of a generated kernel that may be launched as a dependent launch
/// (launch() with dependent): on sm_90 and later it waits for the stream's previous kernel
/// to complete (its writes visible) before anything else, then lets the next dependent
/// kernel be scheduled. Without the attribute the wait returns at once.
inline constexpr const char* wait_for_previous_grid_source =
    "#if __CUDA_ARCH__ >= 900\n"
    "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
    "  asm volatile(\"griddepcontrol.launch_dependents;\" ::: \"memory\");\n"
    "#endif\n";

/// Whether kernels on GPU `ordinal` (compiled for its architecture) launch as dependent
/// launches with this driver: sm_90 and later, and a driver with cuLaunchKernelEx. Read once
/// per device: launches ask at every call.
[[nodiscard]] bool dependent_launch_available(int ordinal);

/// cuLaunchKernel; where `dependent`, a programmatic dependent launch (the kernel may be
/// scheduled while the stream's previous kernel still runs, which saves the host and the
/// GPU part of a launch's cost; bench/launch_probe.cu), for kernels that begin with
/// wait_for_previous_grid_source, on a device that dependent_launch_available allows.
void launch(cu_function f, const unsigned (&grid)[3], const unsigned (&block)[3], unsigned shared_bytes,
            cu_stream stream, void** params, bool dependent);

// Device attributes (CUdevice_attribute values).
inline constexpr int attribute_multiprocessor_count = 16;
inline constexpr int attribute_compute_capability_major = 75;
inline constexpr int attribute_compute_capability_minor = 76;

/// The driver, loaded and initialized once; target_error (naming what was tried) where
/// there is none, as on a machine without a GPU driver.
[[nodiscard]] const driver_api& driver();

/// Throws target_error "<what> failed: <the driver's message>" unless `r` is success.
void check_driver(cu_result r, const char* what);

/// Attribute `attribute` (attribute_...) of the GPU with ordinal `ordinal`.
[[nodiscard]] int device_attribute(int ordinal, int attribute);

/// The architecture NVRTC compiles for on GPU `ordinal`: 90 for sm_90.
[[nodiscard]] int architecture_of(int ordinal);

/// Makes GPU `ordinal`'s primary context (the one the CUDA runtime and the library's device
/// arrays use) current on this thread; each primary context is retained once per process.
void make_primary_context_current(int ordinal);

}  // namespace ufunc::cuda::rtc::detail
