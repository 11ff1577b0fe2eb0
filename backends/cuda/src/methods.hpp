// The ufunc methods on target cuda (host side, no CUDA headers): placement, casts on
// the device, the accumulator and its start value, then the loop's device method
// launcher (ufunc/backends/cuda/methods.hpp). Device data never goes through the host;
// host data on target cuda is copied in and the result copied back (host-in/host-out,
// as calls). The only host copies of device data are index arrays (reduceat, at), which
// the host must read to check them before anything is written.
//
// One driver per method (reduce.cpp, reduceat.cpp, accumulate.cpp, at.cpp); what they
// share is here, so that every method places its operands, finds its loop's device
// code and hands its result back the same way. Private to the backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/array.hpp>
#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/device_method.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/loop.hpp>

namespace ufunc::detail::cuda_methods {

namespace cuda = backends::cuda;

struct device_context {
  int device = 0;
  stream_ref s;
  bool host_io = false;  // every operand on the host: copy in, copy the result back
};

// Every method's driver starts here, which also names the method for the flags its
// launches report (cuda::launch_method attaches the slots): as NumPy, the method for
// reduce, accumulate and reduceat ("overflow encountered in reduce"), `fp_name` where
// given (at: at_plan::fp_name, the ufunc or "at"), and whether its loop may refuse
// values (fp_reports::refuses_values).
device_context context_of(const function& f, const char* method, std::initializer_list<const array*> arrays,
                          stream_ref requested, const loop_entry& loop, std::string_view fp_name = {});

// The loop's method launcher on this backend, or null.
const device_code* method_code(const loop_entry& loop);

void launch_method(const loop_entry& loop, const device_method_call& c);

void require_device_code(const function& f, const char* method, const loop_entry& loop);

array device_empty(const dim_vector& shape, dtype t, const device_context& ctx);

// With dense `strides` (core/detail/layout.hpp): the results, laid out as on the host.
array device_empty(const dim_vector& shape, const dim_vector& strides, dtype t, const device_context& ctx);

array on_device(const array& a, const device_context& ctx);

// The input of a reduction on the device, a dense host array keeping its layout.
array input_on_device(const array& a, const device_context& ctx);

array as_type(const array& a, dtype t, const device_context& ctx);

bool has_zero_stride(const array& a);

// Folds x (device, loop dtype) into acc (initialized): one box with a start value,
// else the boxes that leave out the element copied in first (as the host engine).
// start_in_kernel: acc is not initialized; the kernels start every output from p.start.
void device_folds(const reduce_plan& p, const device_context& ctx, const array& x, const array& where, const array& acc,
                  bool keepdims, bool start_in_kernel = false);

array slice_along(const array& a, int axis, std::int64_t i, std::int64_t n = 1);

// The result back where the caller wants it.
array deliver(const array& computed, const array* out, const device_context& ctx);

}  // namespace ufunc::detail::cuda_methods
