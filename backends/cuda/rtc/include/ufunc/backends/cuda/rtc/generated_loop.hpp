// A generated elementwise program (elementwise_source.hpp) as the device code of a ufunc
// loop: each instantiation a call needs (dimension bucket, with or without where=) is
// compiled through the kernel cache on first use on a device, loaded and launched over the
// call's planned operands. elementwise_kernel's loops and fused expressions on cuda
// (fusion/) both run this way.
//
//   auto loop = rtc::make_generated_loop("hyp", rtc::elementwise_source(p, bound, body, "hyp", ""), {});
//   ufunc::loop_entry e;
//   e.types = ...;
//   rtc::attach_device(e, loop);   // e.devices' cuda slot
//   e.keepalive = loop;
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <ufunc/backends/cuda/rtc/elementwise_source.hpp>
#include <ufunc/backends/cuda/rtc/library_headers.hpp>
#include <ufunc/core/array.hpp>
#include <ufunc/core/device_call.hpp>
#include <ufunc/core/loop.hpp>

namespace ufunc::cuda::rtc {

struct generated_loop;

/// A loop's operation as generated code can call it (loop_entry::source_op and
/// source_preamble): `preamble` defines `op`, a functor type called as op{}(inputs...).
struct fused_node_source {
  std::string op;
  std::string preamble;
};

/// `program` with the NVRTC options (after the defaults) and in-memory headers its source
/// needs; `name` names it in compile errors and launch errors. Compiles nothing yet.
[[nodiscard]] std::shared_ptr<generated_loop> make_generated_loop(std::string name, elementwise_program program,
                                                                  std::vector<std::string> options,
                                                                  std::vector<header> headers = {});

/// The name given to make_generated_loop.
[[nodiscard]] const std::string& name_of(const generated_loop& loop) noexcept;
/// The program's CUDA source (what NVRTC compiles).
[[nodiscard]] const std::string& source_of(const generated_loop& loop) noexcept;

/// Puts `loop` in `e`'s cuda slot (its elementwise launcher; no methods); the caller keeps
/// `loop` alive while `e` is registered (e.keepalive or an owner of it).
void attach_device(loop_entry& e, const std::shared_ptr<generated_loop>& loop);

/// Which of `program`'s instantiations (its name_expressions' index) runs call `c`: the
/// contiguous one (ND 0) where the call is one dimension and every operand steps by its
/// operand_bytes (0 for an input read once), else the smallest ND that holds the call's
/// dimensions; the masked ones where the call has where=. A value_error where the call steps
/// through an input that the program reads once.
[[nodiscard]] std::size_t instantiation_for(const elementwise_program& program, const device_call& c,
                                            std::string_view name);

/// The raw parameters' arrays of the launches this thread makes while the scope lives
/// (elementwise_kernel's `raw T x` inputs, in declaration order).
class raw_arguments_scope {
 public:
  explicit raw_arguments_scope(const std::vector<array>* raw) noexcept;
  ~raw_arguments_scope();
  raw_arguments_scope(const raw_arguments_scope&) = delete;
  raw_arguments_scope& operator=(const raw_arguments_scope&) = delete;

 private:
  const std::vector<array>* saved_;
};

}  // namespace ufunc::cuda::rtc
