// ufunc::cuda::module: PyCUDA's SourceModule and CuPy's RawModule for C++. CUDA source
// compiled at run time (NVRTC) for the GPU it runs on, its kernels launched by name with a
// grid, a block and their arguments: device arrays pass as pointers to their first element,
// C++ scalars by value, each checked against the kernel's parameters before the launch.
//
//   ufunc::cuda::module m(R"(
//     extern "C" __global__ void doublify(float* a, int n) {
//       int i = blockIdx.x * blockDim.x + threadIdx.x;
//       if (i < n) a[i] *= 2;
//     }
//     template <class T> __global__ void scale(T* a, T s, int n) { ... })",
//     {.name_expressions = {"scale<float>"}});
//   m.function("doublify").launch({4}, {256}, {a_dev, 1000});                 // a_dev: float32 on the GPU
//   m.function("scale<float>").launch({4}, {256}, {a_dev, 3.0f, 1000}, {.stream = s});
//
// Compiled once per GPU architecture on first use, through the kernel cache (memory and
// disk, as elementwise_kernel's); a compile error is a ufunc::compile_error with NVRTC's log
// and the numbered source. A launch checks the arguments' count and sizes against the
// kernel's parameters (value_error naming both), that arrays are on the launch's device
// (target_error), and every driver call's result.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <ufunc/core/array.hpp>
#include <ufunc/core/device_call.hpp>

namespace ufunc::cuda {

struct module_options {
  /// NVRTC options after the defaults (rtc::default_options()), e.g. "-DBLOCK=256".
  std::vector<std::string> options;
  /// Template kernels to instantiate, as C++ names ("scale<float>"); function() finds them so.
  std::vector<std::string> name_expressions;
  /// The source's name in compile errors.
  std::string name = "module";
};

/// A grid or block extent.
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct launch_options {
  /// Dynamic shared memory per block, in bytes.
  std::size_t shared_bytes = 0;
  /// The stream the launch is enqueued on (default: the library's current stream, where
  /// to_device and ufunc calls enqueue).
  stream_ref stream;
  /// The GPU; -1: the device of the first array argument, else 0.
  int device = -1;
  /// A programmatic dependent launch (CUDA's cudaLaunchAttributeProgrammaticStreamSerialization)
  /// on GPUs of sm_90 and later: the kernel may be scheduled while the stream's previous kernel
  /// still runs, which takes 0.5 to 1 us off a small launch. The kernel must then wait for that
  /// kernel before it reads or writes anything, as its first statement:
  ///   asm volatile("griddepcontrol.wait;" ::: "memory");
  /// An ordinary launch on older GPUs and drivers.
  bool programmatic_dependent_launch = false;
};

/// One kernel argument: a device array (its data pointer) or a scalar (its bytes).
class kernel_argument {
 public:
  kernel_argument(const array& a) : array_(&a), size_(sizeof(void*)) {  // NOLINT(google-explicit-constructor)
    const void* p = a.data();
    std::memcpy(bytes_.data(), &p, sizeof p);
  }
  template <class T>
  requires(std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      kernel_argument(T value)
      : size_(sizeof(T)) {  // NOLINT(google-explicit-constructor)
    static_assert(sizeof(T) <= 16);
    std::memcpy(bytes_.data(), &value, sizeof(T));
  }

  /// A trivially copyable struct passed by value (its layout must be the kernel's
  /// parameter's); `value` must outlive the launch call.
  template <class T>
  requires std::is_trivially_copyable_v<T>
  [[nodiscard]] static kernel_argument by_value(const T& value) noexcept {
    kernel_argument a(0);
    a.external_ = &value;
    a.size_ = sizeof(T);
    return a;
  }

  [[nodiscard]] const array* as_array() const noexcept { return array_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Where the argument's bytes are, for the launch.
  /// (Non-const for cuLaunchKernel's parameter array, which the driver only reads.)
  [[nodiscard]] void* bytes() const noexcept {
    return const_cast<void*>(external_ != nullptr ? external_ : static_cast<const void*>(bytes_.data()));
  }

 private:
  alignas(16) std::array<std::byte, 16> bytes_{};
  const array* array_ = nullptr;
  const void* external_ = nullptr;
  std::size_t size_;
};

class module;

/// A kernel of a module, found by name.
class kernel {
 public:
  /// Launches the kernel on `grid` x `block` threads with `args` (checked first).
  void launch(dim3 grid, dim3 block, std::initializer_list<kernel_argument> args,
              const launch_options& options = {}) const;
  /// How many blocks of `block_threads` threads (and `shared_bytes` of dynamic shared
  /// memory) fit on one multiprocessor of `device` at once, as
  /// cudaOccupancyMaxActiveBlocksPerMultiprocessor: a grid of that many per multiprocessor
  /// runs in one wave. Compiles and loads the kernel as its first launch would.
  ///
  ///     const int per_sm = k.max_active_blocks_per_multiprocessor(256);
  [[nodiscard]] int max_active_blocks_per_multiprocessor(unsigned block_threads, std::size_t shared_bytes = 0,
                                                         int device = 0) const;
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

 private:
  friend class module;
  // The kernel loaded on device `ordinal` (whose primary context is made current): its
  // module::state::loaded_kernel (function handle, parameter sizes).
  [[nodiscard]] const void* loaded(int ordinal) const;
  kernel(std::shared_ptr<const void> state, std::string name) : state_(std::move(state)), name_(std::move(name)) {}
  std::shared_ptr<const void> state_;
  std::string name_;
};

class module {
 public:
  /// Keeps the source; compiles nothing yet (a kernel's first launch compiles for its GPU).
  explicit module(std::string source, module_options options = {});

  /// The kernel `name`: an extern "C" kernel's name, or one of options.name_expressions.
  [[nodiscard]] kernel function(std::string_view name) const;

  /// Compiles for the GPU architecture `sm` (90 for sm_90) without a GPU, through the cache:
  /// the lowered (mangled) name of each name expression, in order. compile_error on a bad
  /// source.
  [[nodiscard]] std::vector<std::string> lowered_names(int sm) const;

  [[nodiscard]] const std::string& source() const noexcept;

  struct state;

 private:
  std::shared_ptr<state> state_;
};

}  // namespace ufunc::cuda
