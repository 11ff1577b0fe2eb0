#include <ufunc/fusion/select.hpp>

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>

#include <ufunc/backends/cuda/rtc/elementwise_source.hpp>
#include <ufunc/backends/cuda/rtc/generated_loop.hpp>
#include <ufunc/backends/cuda/rtc/parameters.hpp>
#include <ufunc/core/signature.hpp>

namespace ufunc::fusion {
namespace {

// The step in generated code (a node of a fused kernel, fusion/src/device_source.cpp): its
// result is one of its inputs, so the generic flag rule never reports anything for it, as its
// host loop raises nothing.
constexpr const char* select_source_op = "_ufunc_fusion::select";
constexpr const char* select_source_preamble = R"(namespace _ufunc_fusion {
struct select {
  template <class T>
  __device__ T operator()(bool c, T x, T y) const { return c ? x : y; }
};
}  // namespace _ufunc_fusion
)";

template <class T>
void select_loop(char* const* args, std::int64_t n, const std::int64_t* steps, const void*) {
  for (std::int64_t i = 0; i < n; ++i) {
    bool c;
    std::memcpy(&c, args[0] + i * steps[0], sizeof c);
    std::memcpy(args[3] + i * steps[3], args[c ? 1 : 2] + i * steps[c ? 1 : 2], sizeof(T));
  }
}

// Over one fixed run (loop_entry::host_fixed_run), in a form compilers turn into blends.
template <class T>
void select_run(char* const* args, const void*, bool) {
  const auto* c = reinterpret_cast<const bool*>(args[0]);
  const auto* x = reinterpret_cast<const T*>(args[1]);
  const auto* y = reinterpret_cast<const T*>(args[2]);
  auto* out = reinterpret_cast<T*>(args[3]);
  for (std::int64_t i = 0; i < fixed_run; ++i) out[i] = c[i] ? x[i] : y[i];
}

template <class T>
void add_select(function& f) {
  loop_entry e;
  e.types = signature_traits<T(bool, T, T)>::types();
  e.host = &select_loop<T>;
  e.host_fixed_run = &select_run<T>;
  e.source_op = select_source_op;
  e.source_preamble = select_source_preamble;
  // On cuda (the unfused chain of a fused function calls it), a kernel generated at run time
  // and compiled on first use, as elementwise_kernel's.
  const std::string type(e.types.output(0).name());
  auto device = cuda::rtc::make_generated_loop(
      "where",
      cuda::rtc::elementwise_source(cuda::rtc::parse_parameters("bool c, " + type + " x, " + type + " y", type + " z"),
                                    {}, "z = c ? x : y;", "where", ""),
      {});
  cuda::rtc::attach_device(e, device);
  e.keepalive = device;
  f.add_loop(std::move(e));
}

function make_select() {
  function f("where", 3, 1, std::nullopt, "np.where(cond, x, y) as a ufunc step: x where cond, else y.");
  add_select<bool>(f);
  add_select<std::int8_t>(f);
  add_select<std::uint8_t>(f);
  add_select<std::int16_t>(f);
  add_select<std::uint16_t>(f);
  add_select<std::int32_t>(f);
  add_select<std::uint32_t>(f);
  add_select<std::int64_t>(f);
  add_select<std::uint64_t>(f);
  add_select<float>(f);
  add_select<double>(f);
  add_select<std::complex<float>>(f);
  add_select<std::complex<double>>(f);
  return f;
}

}  // namespace

const function& select_function() {
  static const function f = make_select();
  return f;
}

}  // namespace ufunc::fusion
