#include <ufunc/fusion/astype.hpp>

#include <array>
#include <memory>
#include <mutex>
#include <string>

#include <ufunc/backends/cuda/rtc/elementwise_source.hpp>
#include <ufunc/core/casting.hpp>

namespace ufunc::fusion {

namespace {

// A cast loop as an inner loop: its data is the cast_loop_fn (in a loop's state).
struct cast_state {
  cast_loop_fn cast;
  std::string source_op;  // "_fused::convert_op<To, From>": the fused kernel's device cast
};

void cast_inner_loop(char* const* args, std::int64_t n, const std::int64_t* steps, const void* data) {
  static_cast<const cast_state*>(data)->cast(reinterpret_cast<const std::byte*>(args[0]), steps[0],
                                             reinterpret_cast<std::byte*>(args[1]), steps[1], n);
}

function make_astype(dtype to) {
  function f(
      "cast", 1, 1, std::nullopt,
      "ndarray.astype as a ufunc step: the element converted to " + std::string(to.name()) + " (unsafe casting).");
  for (int k = 0; k < dtype::count; ++k) {
    const dtype from = dtype::from_index(k);
    auto state = std::make_shared<cast_state>();
    state->cast = get_cast_loop(from, to);
    state->source_op = "_fused::convert_op<" + std::string(cuda::rtc::device_type_name(to)) + ", " +
                       std::string(cuda::rtc::device_type_name(from)) + ">";
    loop_entry e;
    e.types = type_signature({from}, {to});
    e.host = &cast_inner_loop;
    e.host_data = state.get();
    e.source_op = state->source_op.c_str();
    e.keepalive = state;
    f.add_loop(std::move(e));
  }
  return f;
}

}  // namespace

const function& astype_function(dtype to) {
  static std::array<std::unique_ptr<const function>, dtype::count> made;
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& f = made[static_cast<std::size_t>(to.index())];
  if (!f) f = std::make_unique<const function>(make_astype(to));
  return *f;
}

}  // namespace ufunc::fusion
