// Python objects as the library's operands, without copies: NumPy arrays (and anything NumPy's
// asarray takes), NumPy scalars (strongly typed, as 0-d arrays), Python scalars (NEP 50's weak
// scalars), and device arrays through DLPack or __cuda_array_interface__ (CuPy, PyTorch, JAX,
// Numba), ufunc's own device arrays included.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <nanobind/nanobind.h>

#include <ufunc/core/function.hpp>

namespace ufunc::python {

namespace nb = nanobind;

/// A weak scalar (NEP 50) from a Python bool, int, float or complex; nothing for other objects, NumPy
/// scalars included (they are typed). An int outside int64 sets `beyond_int64` to 1 (up to 2^64 - 1,
/// kept as uint64) or 2 (further, kept as a float): NumPy takes those only beside operands that can hold
/// them (import_context::check_python_ints), so a caller that has none refuses them.
[[nodiscard]] std::optional<weak_scalar> weak_scalar_of(PyObject* o, int& beyond_int64);

/// One call's imports: the Python objects behind its arrays, which results that alias them map back
/// to, and the temporaries (asarray's copies) that live as long as the call.
class import_context {
 public:
  /// The CUDA stream a call runs on, as DLPack numbers streams (1: the legacy default stream).
  std::int64_t dlpack_stream = 1;
  /// The Python stream object of stream=, which the call's device results keep alive: their memory
  /// is freed in the order of that stream.
  nb::object stream_owner;
  /// Whether results may view inputs (methods): then inputs are remembered for owner_of. A ufunc
  /// call's results are new arrays or its outputs, so its inputs need no bookkeeping.
  bool results_may_view_inputs = true;

  /// The operand for an input: weak scalars stay weak, everything else becomes an array.
  [[nodiscard]] ufunc::operand input(nb::handle object);
  /// Python ints outside int64 among the inputs: OverflowError unless an array operand can hold them
  /// (NumPy's rule; called once every input is imported).
  void check_python_ints(std::span<const ufunc::operand> inputs) const;
  /// The array for an input that must be an array (a method's operand, an index).
  [[nodiscard]] ufunc::array input_array(nb::handle object);
  /// The array for an output: written in place, so it must be an array that ufunc can write
  /// (NumPy array, DLPack or CUDA array interface producer), never a converted copy.
  [[nodiscard]] ufunc::array output_array(nb::handle object);
  /// Whether any array so far lives on a CUDA device (calls without a target then run there).
  [[nodiscard]] bool saw_device_array() const noexcept { return device_array_; }
  /// The Python object an array came from, where `a` is exactly that array (out= results).
  [[nodiscard]] nb::object source_of(const ufunc::array& a) const;
  /// The Python object whose memory holds `a`'s first element (results that view an input).
  [[nodiscard]] nb::object owner_of(const ufunc::array& a) const;

 private:
  ufunc::array import_object(nb::handle object, bool for_output);
  ufunc::array remember(nb::handle object, ufunc::array a, bool for_output);

  struct entry {
    nb::object object;
    ufunc::array array;
  };
  // The first few inline: a call's outputs are remembered on every call, and a heap block per call
  // costs as much as a small array's loop.
  static constexpr std::size_t inline_entries = 4;
  std::array<entry, inline_entries> first_{};
  std::size_t count_ = 0;
  std::vector<entry> more_;
  template <class F>
  void for_each_entry(F&& f) const {
    for (std::size_t i = 0; i < std::min(count_, inline_entries); ++i) f(first_[i]);
    for (const auto& e : more_) f(e);
  }
  std::vector<nb::object> temporaries_;  // converted copies, alive for the call
  bool device_array_ = false;
  int beyond_int64_ = 0;  // weak_scalar_of's note: 1 an int in (int64, uint64], 2 one outside uint64
};

}  // namespace ufunc::python
