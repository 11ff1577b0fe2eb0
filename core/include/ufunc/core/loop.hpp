// Loops and their type signatures: the entries of a ufunc's loop table.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <ufunc/core/config.hpp>
#include <ufunc/core/device_call.hpp>
#include <ufunc/core/device_method.hpp>
#include <ufunc/core/dtype.hpp>
#include <ufunc/core/target.hpp>

namespace ufunc {

/// A 1-d inner loop, the shape of NumPy's PyUFuncGenericFunction: args[i] points at
/// the first element of operand i (inputs, then outputs), steps[i] is its byte
/// stride, n the element count, data the loop's own state (its functor).
using inner_loop_fn = void (*)(char* const* args, std::int64_t n, const std::int64_t* steps, const void* data);

/// A fold for reductions, for loops of signature T(T, T): *acc = f(*acc, in[0]), then
/// in[1], ..., in[n-1] (byte step `step`; `data` is the loop's host_data). A
/// reorderable loop may regroup (SIMD lanes, pairwise sums), always the same way for
/// a given n. See backends::cpu::reduce_loop.
using reduce_loop_fn = void (*)(char* acc, const char* in, std::int64_t n, std::int64_t step, const void* data);

/// An inner loop over exactly `fixed_run` contiguous elements of every operand (inputs, then
/// outputs; no steps), for fused expressions: they run their nodes run by run, so that the
/// nodes' temporaries stay in L1 and the out-of-order core overlaps one node's work with the
/// next's, which a loop over a long block cannot (fusion/src/graph.cpp). `stream`: the
/// outputs may be written by non-temporal stores (each output is aligned to 64 bytes then).
/// Computes what `host` computes on the same elements, bit for bit, raising the same
/// floating-point flags.
using fixed_run_fn = void (*)(char* const* args, const void* data, bool stream);
inline constexpr std::int64_t fixed_run = 256;

/// The dtypes of one loop, NumPy's `types` entry ("ff->f").
class type_signature {
 public:
  type_signature() = default;
  type_signature(std::initializer_list<dtype> inputs, std::initializer_list<dtype> outputs);

  /// Parses "ff->f" (character codes) or "float32,float32->float32"; throws value_error.
  [[nodiscard]] static type_signature parse(std::string_view text);

  [[nodiscard]] int nin() const noexcept { return nin_; }
  [[nodiscard]] int nout() const noexcept { return nout_; }
  [[nodiscard]] int nargs() const noexcept { return nin_ + nout_; }
  [[nodiscard]] dtype input(int i) const noexcept { return types_[i]; }
  [[nodiscard]] dtype output(int i) const noexcept { return types_[nin_ + i]; }
  [[nodiscard]] dtype operator[](int i) const noexcept { return types_[i]; }
  /// "ff->f"
  [[nodiscard]] std::string str() const;

  void set(int i, dtype t) noexcept { types_[i] = t; }
  void resize(int nin, int nout) noexcept {
    nin_ = static_cast<std::uint8_t>(nin);
    nout_ = static_cast<std::uint8_t>(nout);
  }

  friend bool operator==(const type_signature& a, const type_signature& b) noexcept {
    if (a.nin_ != b.nin_ || a.nout_ != b.nout_) return false;
    for (int i = 0; i < a.nargs(); ++i)
      if (a.types_[i] != b.types_[i]) return false;
    return true;
  }

 private:
  std::uint8_t nin_ = 0;
  std::uint8_t nout_ = 0;
  dtype types_[max_operands] = {};
};

/// A loop's code for the devices of one device backend (core/backend.hpp): the launcher
/// of elementwise calls, the launcher of the methods, and the state both receive (a
/// copy of the functor, a kernel compiled at run time). Core only carries it to the
/// backend registered under `target`.
struct device_code {
  /// The device backend the code was compiled for; automatic: an empty slot.
  target_id target = target_id::automatic;
  device_loop_fn elementwise = nullptr;
  /// reduce/accumulate/reduceat/at; null: the loop runs no method on these devices.
  device_method_fn methods = nullptr;
  const void* data = nullptr;
};

/// How many device backends one loop may carry code for.
inline constexpr std::size_t max_device_backends = 2;

/// A loop's device code, one slot per device backend it was compiled for.
class device_code_slots {
 public:
  /// The code for target `t`, or null where the loop has none.
  [[nodiscard]] const device_code* find(target_id t) const noexcept {
    for (const auto& c : slots_)
      if (c.target == t && t != target_id::automatic) return &c;
    return nullptr;
  }
  /// Sets the code for c.target, replacing what that target had; throws value_error
  /// where c.target is automatic or every slot holds another target. Inline: the typed
  /// path of vectorize fills a set on every call.
  void set(const device_code& c) {
    if (c.target == target_id::automatic) refuse(c.target);
    device_code* free_slot = nullptr;
    for (auto& s : slots_) {
      if (s.target == c.target) {
        s = c;
        return;
      }
      if (s.target == target_id::automatic && free_slot == nullptr) free_slot = &s;
    }
    if (free_slot == nullptr) refuse(c.target);
    *free_slot = c;
  }

 private:
  [[noreturn]] static void refuse(target_id t);

  std::array<device_code, max_device_backends> slots_{};
};

/// One registered loop: its signature, the host code that runs it, and the device
/// code where the loop was compiled for a device backend.
struct loop_entry {
  type_signature types;
  inner_loop_fn host = nullptr;
  const void* host_data = nullptr;
  /// Keeps host_data (a functor copy, say) alive while the loop is registered.
  std::shared_ptr<const void> keepalive;
  /// True when the inner loop runs SIMD batches on contiguous data.
  bool vectorized = false;
  /// `host` over one fixed run of contiguous elements (host_data is its state); null where
  /// the loop has none (fused expressions call `host` for that node instead).
  fixed_run_fn host_fixed_run = nullptr;
  /// The loop's code per device backend (empty where it runs on the host only).
  device_code_slots devices;
  /// The fold reductions use along a run (host_data is its state); null: reductions
  /// call `host` one element at a time instead (correct, slow).
  reduce_loop_fn reduce = nullptr;
  /// True when reductions may regroup the operations (integer add/multiply, max/min,
  /// bitwise, logical, gcd/lcm; float add/multiply, pairwise as NumPy). Reductions
  /// of loops that are not reorderable fold each output strictly in order, and over
  /// one axis at most.
  bool reorderable = false;
  /// NumPy's scalar (non-SIMD) loop where its bits differ from `host`'s (complex multiply
  /// and square: no fma); null elsewhere. NumPy's SIMD loops fall back to it on
  /// overlapping operands and zero strides, so ufunc.at, accumulate over more than two
  /// steps and reductions along a run (the accumulator's stride 0) run it
  /// (host_scalar_data is its state).
  inner_loop_fn host_scalar = nullptr;
  const void* host_scalar_data = nullptr;
  /// The scalar operation the loop applies, as C++ that code generated at run time can
  /// call with the library's device headers ("ufunc::ops::add": `ufunc::ops::add{}(a, b)`
  /// on the loop's types); fused expressions on cuda are built from it. Null where the loop
  /// has no such source (a functor compiled into the program).
  const char* source_op = nullptr;
  /// Definitions source_op needs, placed before a generated kernel that calls it (an
  /// elementwise_kernel's body as a functor); null where it needs none beyond the library's.
  const char* source_preamble = nullptr;
};

}  // namespace ufunc
