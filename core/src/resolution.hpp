// What the files of ufunc::function share of type resolution (not installed):
// function.cpp (the class) owns the loop table and asks for loops; resolution.cpp
// searches the table (NumPy 2's rules, NEP 50) through a per-thread cache;
// run_loop.cpp checks a resolved call's casts with the same rules.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <ufunc/core/casting.hpp>
#include <ufunc/core/config.hpp>
#include <ufunc/core/dtype.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/loop.hpp>
#include <ufunc/core/scalar.hpp>

namespace ufunc::detail {

// What a ufunc::function is (function.hpp holds it by shared_ptr): its loop table and
// the flags that steer the loop search.
struct function_state {
  std::string name;
  std::string doc;
  int nin;
  int nout;
  std::optional<weak_scalar> identity;
  mutable std::shared_mutex mutex;  // guards `loops` against add_loop during calls
  std::vector<loop_entry> loops;
  std::vector<std::pair<std::vector<dtype>, std::string>> rejected;
  function::type_resolver resolver = nullptr;
  bool truth_inputs = false;
  bool exact_weak_integers = false;
  // Names this function's loop table as it is now, for the resolution cache: unique
  // across every function and every change (each change under `mutex` takes a new
  // one), so a cached loop of a destroyed function or an older table never matches.
  std::atomic<std::uint64_t> stamp{0};
  // The keepalives of replaced loops. A call that found its loop in the cache runs it
  // without a lock or a reference, so its state lives as long as the function.
  std::vector<std::shared_ptr<const void>> retired;
};

// Kinds in the order NEP 50 compares a weak scalar with the array dtypes: a weak
// scalar adopts the arrays' dtype unless its kind is higher.
inline int kind_rank(dtype_kind k) noexcept {
  switch (k) {
    case dtype_kind::boolean:
      return 0;
    case dtype_kind::unsigned_int:
    case dtype_kind::signed_int:
      return 1;
    case dtype_kind::floating:
      return 2;
    case dtype_kind::complex:
      break;
  }
  return 3;
}
inline int kind_rank(weak_scalar::kind k) noexcept { return static_cast<int>(k); }

// What NumPy checks when it converts a Python int for input `i` to the loop's dtype
// `t`: under 'equiv' only int64 takes it, refused before its value is looked at (even
// 2**63 for uint64: "cannot cast Python int to uint8 under the casting rule 'equiv'");
// otherwise the value must fit an integer `t`. The overflow message names `named`.
void check_python_int(const std::string& ufunc, int i, const weak_scalar& w, dtype t, casting rule, dtype named);

// An input as the resolver sees it: a dtype, or a weak scalar still free to take
// the dtype of the loop's slot.
struct resolver_input {
  dtype type;
  const weak_scalar* weak;     // non-null while the scalar stays weak
  bool out_of_bounds = false;  // a weak integer that does not fit the arrays' dtype
};

// NEP 50: weak scalars take the dtype of the arrays unless their kind is higher,
// in which case they become their kind's default dtype (at the arrays' precision
// for complex over float32, float16 and bfloat16: complex64).
// Inline: every call runs it, and most find no scalar and return at once.
inline void apply_weak_promotion(std::span<resolver_input> in) {
  if (std::none_of(in.begin(), in.end(), [](const resolver_input& r) { return r.weak != nullptr; })) return;
  std::optional<dtype> strong;
  for (const auto& r : in)
    if (!r.weak) strong = strong ? promote_types(*strong, r.type) : r.type;
  for (auto& r : in) {
    if (!r.weak) continue;
    if (!strong) {  // only scalars: each is its default dtype, as np.add(1, 2.0)
      r.type = r.weak->default_dtype();
      r.weak = nullptr;
      continue;
    }
    if (kind_rank(r.weak->value_kind()) > kind_rank(strong->kind())) {
      const bool single = *strong == float32 || *strong == float16 || *strong == bfloat16;
      r.type = (r.weak->value_kind() == weak_scalar::kind::complex && single) ? complex64 : r.weak->default_dtype();
      r.weak = nullptr;
      continue;
    }
    // An error unless the ufunc's own type resolver picks a loop it fits (int8 / 300
    // is float64 in NumPy): find_loop decides.
    r.out_of_bounds = !r.weak->fits(*strong);
    r.type = *strong;  // what it is reported as in messages
  }
}

// The requested fixed types (signature= or dtype=), with unset slots empty.
struct fixed_types {
  std::optional<dtype> slot[max_operands];
  bool any = false;
};

// The fixed types of signature= and dtype= (value_error where they disagree with the
// ufunc or each other).
fixed_types fixed_from_options(const call_options& opt, int nin, int nout, const std::string& name);

// The loop for these inputs; a weak integer that does not fit the loop's dtype is an
// overflow_error (NumPy: "Python integer 300 out of bounds for int8").
// Called with st.mutex held (shared).
const loop_entry& find_loop(const function_state& st, std::span<const resolver_input> in_given,
                            const fixed_types& fixed, casting rule);

// A fresh function_state::stamp, for a new function or each change of its table.
std::uint64_t new_stamp() noexcept;

// The resolved loop of a call, without its keepalive (function_state::retired keeps
// the loop's state alive instead).
struct resolved_loop {
  type_signature types;
  inner_loop_fn host = nullptr;
  const void* host_data = nullptr;
  device_code_slots devices;
};

// find_loop through the calling thread's cache (resolution.cpp); takes st.mutex
// only where the cache has no answer.
resolved_loop find_loop_cached(const function_state& st, std::span<const resolver_input> in, const fixed_types& fixed,
                               const call_options& options);

}  // namespace ufunc::detail
