// The seam between core and the backends: one table of entry points per target.
//
// Core calls a backend only through its table; it includes no backend header. The
// library's backends fill their tables in their own folders (backends/<name>/src/backend.cpp,
// a function ufunc::backends::<name>::register_backend()), and the build generates the one
// file that calls the register function of every backend it compiles (cmake/ufunc_backends.cmake:
// a static library drops objects that nothing names, so a registering static object
// would not do). A program may register a host backend of its own under a new target id
// and name; docs/adding_a_backend.md says how (tests/backends/serial is one).
//
//   void run_in_order(const ufunc::elementwise_task& task) { task.run(0, task.size()); }
//   ufunc::backend b;
//   b.id = ufunc::target_id{16};
//   b.name = "in_order";
//   b.execute = &run_in_order;
//   ufunc::register_backend(b);
//   ufunc::call_options o;
//   o.target = ufunc::target_from_string("in_order");   // or UFUNC_TARGET=in_order
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include <ufunc/core/device.hpp>
#include <ufunc/core/device_call.hpp>
#include <ufunc/core/loop.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc {

class array;
class elementwise_task;
class function;
class type_signature;
struct call_options;
struct reduce_options;
struct accumulate_options;

namespace detail {
class unit_task;
class result_list;
struct loop_call;
struct reduce_plan;
struct accumulate_plan;
struct at_plan;
}  // namespace detail

/// Memory on a backend's devices, and copies between it and the host.
struct device_memory {
  int (*device_count)() noexcept;
  /// Throws target_error naming why `device` cannot be used (no driver, no such device).
  void (*require_device)(int device);
  /// The stream that calls enqueue on unless one is given.
  stream_ref (*current_stream)() noexcept;
  std::shared_ptr<void> (*allocate)(std::size_t bytes, int device, stream_ref s);
  void (*fill_zero)(void* dst, std::size_t bytes, int device, stream_ref s);
  void (*copy_to_device)(void* dst, const void* src, std::size_t bytes, int device, stream_ref s);
  void (*copy_to_host)(void* dst, const void* src, std::size_t bytes, int device, stream_ref s);
  /// Copies src into dst (same device, any strides), converting the dtype.
  void (*cast)(const array& src, const array& dst, stream_ref s);
};

/// The ufunc methods on data a backend owns (device arrays); core has checked the
/// arguments and planned the method.
struct device_methods {
  array (*reduce)(const function& f, const array& a, const reduce_options& o, const detail::reduce_plan& p);
  array (*accumulate)(const function& f, const array& a, const accumulate_options& o, const detail::accumulate_plan& p);
  array (*reduceat)(const function& f, const array& a, std::span<const std::int64_t> indices,
                    const accumulate_options& o, const detail::accumulate_plan& p);
  void (*at)(const function& f, const array& a, const array& b, const detail::at_plan& p, const call_options& o);
};

/// One cast of a device task: *dst = *src converted to dst's dtype (src broadcast to
/// dst's shape), only where *where is true when `where` is set.
struct device_cast_step {
  const array* src = nullptr;
  const array* dst = nullptr;
  const array* where = nullptr;
};

/// An elementwise call on a device backend's devices, which core has checked, placed,
/// allocated and planned: the casts of inputs into the loop's dtypes, the launch of the
/// loop's device code, then the casts of its results into the caller's outputs, in that
/// order on `stream`. The backend enqueues them as one call of ufunc `name`: their
/// floating-point errors report together under its name (errstate), as the host targets'
/// buffer casts do within the call. Host copies around it are core's.
struct device_task {
  std::string_view name;
  const type_signature& types;  // the loop's
  const device_code& code;
  int device = 0;
  stream_ref stream;
  std::span<const device_cast_step> casts_in;
  /// The loop's launch over device operands; the backend sets its `fp` sink. Null: the call
  /// is empty, nothing is launched or cast.
  device_call* call = nullptr;
  std::span<const device_cast_step> casts_out;
};

/// What core asks of the backend of one target. A host backend sets the executors;
/// a device backend sets execute_device, methods and memory. Unset entries are null.
struct backend {
  target_id id = target_id::cpu;
  /// The target's name (to_string, target_from_string, UFUNC_TARGET); the library's
  /// targets may leave it empty (cpu, parallel, cuda).
  std::string_view name;
  /// Runs every element of a planned task on host data.
  void (*execute)(const elementwise_task& task) = nullptr;
  /// Runs every unit of a method's task (reduce, accumulate) on host data.
  void (*execute_units)(const detail::unit_task& task) = nullptr;
  /// Calls of at most this many elements may run in one piece on the calling thread
  /// without the executor (the contiguous fast path); null: none, execute sees every call.
  std::int64_t (*inline_limit)() = nullptr;
  /// Runs a planned elementwise call on the backend's devices (placement, outputs and
  /// masks are core's: core/src/run_loop_device.cpp).
  void (*execute_device)(const device_task& task) = nullptr;
  const device_methods* methods = nullptr;
  const device_memory* memory = nullptr;
};

/// Adds `b` to the registry, under b.id and b.name. Throws value_error where the id is
/// automatic or has a backend already, where the name is empty, taken or not an
/// identifier ([a-z0-9_]+). The library registers its own backends before the first
/// lookup; a program registers its own before its first call that names them, and
/// before its first ufunc call at all if UFUNC_TARGET names it (the variable is read
/// once, on that call). Entries are never removed, and a registration may run while
/// calls on other targets run.
void register_backend(const backend& b);

namespace detail {

/// register_backend without filling the registry first: for the library's backends,
/// which register while it is filled.
void register_backend(const backend& b);

/// The registered name of `t`, empty where `t` has no backend.
[[nodiscard]] std::string_view registered_name(target_id t) noexcept;

/// The target registered under `name`, if any.
[[nodiscard]] std::optional<target_id> registered_target(std::string_view name) noexcept;

/// The backend of target `t`, or null where this build has none (automatic has none:
/// it picks a host or device backend per call).
[[nodiscard]] const backend* find_backend(target_id t) noexcept;

/// The backend whose devices hold non-host arrays, or null in a host-only build.
[[nodiscard]] const backend* device_backend() noexcept;

/// The memory functions of the backend whose devices hold `where` (not the host);
/// throws target_error naming `where` in a build without one.
[[nodiscard]] const device_memory& memory_of(const device& where);

/// The backend that runs host data for target `t` (automatic: parallel where built,
/// else cpu); throws target_error where there is none.
[[nodiscard]] const backend& host_backend(target_id t);

}  // namespace detail

}  // namespace ufunc
