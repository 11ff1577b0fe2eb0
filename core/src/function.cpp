#include <ufunc/core/function.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <shared_mutex>

#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/execute.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/layout.hpp>
#include <ufunc/core/detail/run_loop.hpp>
#include <ufunc/core/detail/streaming.hpp>
#include <ufunc/core/elementwise.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc {

namespace detail {

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
  bool safe_dtype_search = false;
  // Names this function's loop table as it is now, for the resolution cache: unique
  // across every function and every change (each change under `mutex` takes a new
  // one), so a cached loop of a destroyed function or an older table never matches.
  std::atomic<std::uint64_t> stamp{0};
  // The keepalives of replaced loops. A call that found its loop in the cache runs it
  // without a lock or a reference, so its state lives as long as the function.
  std::vector<std::shared_ptr<const void>> retired;
};

}  // namespace detail

namespace {

// Kinds in the order NEP 50 compares a weak scalar with the array dtypes: a weak
// scalar adopts the arrays' dtype unless its kind is higher.
int kind_rank(dtype_kind k) noexcept {
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
int kind_rank(weak_scalar::kind k) noexcept { return static_cast<int>(k); }

// What NumPy checks when it converts a Python int for input `i` to the loop's dtype
// `t`: under 'equiv' only int64 takes it, refused before its value is looked at (even
// 2**63 for uint64: "cannot cast Python int to uint8 under the casting rule 'equiv'");
// otherwise the value must fit an integer `t`. The overflow message names `named`.
void check_python_int(const std::string& ufunc, int i, const weak_scalar& w, dtype t, casting rule, dtype named) {
  if (rule == casting::equiv && t != int64)
    throw casting_error("Cannot cast ufunc '" + ufunc + "' input " + std::to_string(i) + " from Python int to " +
                        std::string(t.name()) + " with casting rule 'equiv'");
  if (t.is_integer() && !w.fits(t))
    throw overflow_error("ufunc '" + ufunc + "': Python integer " + w.str() + " out of bounds for " +
                         std::string(named.name()));
}

std::string dtype_list(std::span<const dtype> types) {
  std::string s = "(";
  for (std::size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + std::string(types[i].name());
  return s + ")";
}

// An input as the resolver sees it: a dtype, or a weak scalar still free to take
// the dtype of the loop's slot.
struct resolver_input {
  dtype type;
  const weak_scalar* weak;     // non-null while the scalar stays weak
  bool out_of_bounds = false;  // a weak integer that does not fit the arrays' dtype
};

// NEP 50: weak scalars take the dtype of the arrays unless their kind is higher,
// in which case they become their kind's default dtype (at the arrays' precision
// for complex over float32).
void apply_weak_promotion(std::span<resolver_input> in) {
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
      r.type = (r.weak->value_kind() == weak_scalar::kind::complex && *strong == float32) ? complex64
                                                                                          : r.weak->default_dtype();
      r.weak = nullptr;
      continue;
    }
    // An error unless the ufunc's own type resolver picks a loop it fits (int8 / 300
    // is float64 in NumPy): find_loop decides.
    r.out_of_bounds = !r.weak->fits(*strong);
    r.type = *strong;  // what it is reported as in messages
  }
}

bool input_matches(const resolver_input& in, dtype loop_type, casting rule) {
  // A weak scalar selects a loop by its kind alone, never by its value: a Python int
  // too large for the loop's dtype still selects it (np.ldexp(float32, 2**31) runs
  // fi->f and then raises overflow_error, as NumPy does).
  if (in.weak) return kind_rank(in.weak->value_kind()) <= kind_rank(loop_type.kind());
  return can_cast(in.type, loop_type, rule);
}

// The requested fixed types (signature= or dtype=), with unset slots empty.
struct fixed_types {
  std::optional<dtype> slot[max_operands];
  bool any = false;
};

fixed_types fixed_from_options(const call_options& opt, int nin, int nout, const std::string& name) {
  fixed_types f;
  if (!opt.signature.empty()) {
    const auto sig = type_signature::parse(opt.signature);
    if (sig.nin() != nin || sig.nout() != nout)
      throw value_error("ufunc '" + name + "': signature '" + std::string(opt.signature) + "' has " +
                        std::to_string(sig.nin()) + " inputs and " + std::to_string(sig.nout()) +
                        " outputs; the ufunc takes " + std::to_string(nin) + " and " + std::to_string(nout));
    for (int i = 0; i < nin + nout; ++i) f.slot[i] = sig[i];
    f.any = true;
  }
  if (opt.dtype) {
    for (int i = nin; i < nin + nout; ++i) {
      if (f.slot[i] && *f.slot[i] != *opt.dtype)
        throw value_error("ufunc '" + name + "': dtype= and signature= disagree on output " + std::to_string(i - nin));
      f.slot[i] = *opt.dtype;
    }
    f.any = true;
  }
  return f;
}

bool inputs_fixed(const fixed_types& fixed, int nin) {
  return std::any_of(fixed.slot, fixed.slot + nin, [](const std::optional<dtype>& t) { return t.has_value(); });
}

bool fits_fixed(const loop_entry& loop, const fixed_types& fixed, int nargs) {
  for (int i = 0; i < nargs; ++i)
    if (fixed.slot[i] && *fixed.slot[i] != loop.types[i]) return false;
  return true;
}

const loop_entry& select_loop(const detail::function_state& st, std::span<const resolver_input> in,
                              const fixed_types& fixed, casting rule);

// The loop for these inputs; a weak integer that does not fit the loop's dtype is an
// overflow_error (NumPy: "Python integer 300 out of bounds for int8").
const loop_entry& find_loop(const detail::function_state& st, std::span<const resolver_input> in_given,
                            const fixed_types& fixed, casting rule) {
  // NumPy's logical ufuncs send a call with a Python scalar through their promoter,
  // which picks the all-bool loop unless signature= fixes the inputs: the scalar is
  // tested for truth as given (np.logical_or(zeros_float32, 1e-310) is true; a float32
  // loop would flush the scalar to 0).
  if (st.truth_inputs && !inputs_fixed(fixed, st.nin) &&
      std::any_of(in_given.begin(), in_given.end(), [](const resolver_input& r) { return r.weak != nullptr; }))
    for (const auto& loop : st.loops) {
      bool all_bool = fits_fixed(loop, fixed, st.nin + st.nout);
      for (int i = 0; i < st.nin && all_bool; ++i) all_bool = loop.types.input(i) == bool_;
      if (all_bool) return loop;
    }
  resolver_input exact[max_operands];
  std::span<const resolver_input> in = in_given;
  if (st.exact_weak_integers &&
      std::any_of(in.begin(), in.end(), [](const resolver_input& r) { return r.out_of_bounds; })) {
    std::copy(in.begin(), in.end(), exact);
    for (auto& r : std::span(exact, in.size()))
      if (r.out_of_bounds) r = {r.weak->fits(int64) ? int64 : uint64, nullptr, false};
    in = std::span<const resolver_input>(exact, in.size());
  }
  const loop_entry& loop = select_loop(st, in, fixed, rule);
  for (int i = 0; i < st.nin; ++i)
    if (in[i].out_of_bounds && !in[i].weak->fits(loop.types.input(i)))
      check_python_int(st.name, i, *in[i].weak, loop.types.input(i), rule, in[i].type);
  return loop;
}

const loop_entry& select_loop(const detail::function_state& st, std::span<const resolver_input> in,
                              const fixed_types& fixed, casting rule) {
  // NumPy refuses these inputs in its type resolver, which dtype= and signature= bypass
  // (np.subtract(b, b, dtype=np.int8) runs the int8 loop).
  for (const auto& [types, reason] : st.rejected)
    if (!fixed.any && std::equal(types.begin(), types.end(), in.begin(), in.end(),
                                 [](dtype t, const resolver_input& r) { return t == r.type; }))
      throw no_loop_error("ufunc '" + st.name + "': " + reason);
  if (st.resolver && !fixed.any) {
    dtype types[max_operands];
    for (int i = 0; i < st.nin; ++i) types[i] = in[i].type;
    if (const auto sig = st.resolver(std::span<const dtype>(types, st.nin))) {
      for (const auto& loop : st.loops)
        if (loop.types == *sig) return loop;
      throw no_loop_error("ufunc '" + st.name + "': its type resolver chose " + sig->str() +
                          ", which is not registered");
    }
  }
  // NumPy searches for the first loop every input casts to safely (or, with fixed
  // types, under the caller's rule); the chosen loop is validated afterwards.
  // An exact match first (NumPy does the same), which is also the common, cheap case.
  if (!fixed.any) {
    for (const auto& loop : st.loops) {
      bool exact = true;
      for (int i = 0; i < st.nin && exact; ++i) exact = !in[i].weak && in[i].type == loop.types.input(i);
      if (exact) return loop;
    }
  }
  // With fixed types (dtype=, signature=), NumPy still prefers the loop the inputs
  // promote to: first exact inputs, then safe casts, then the caller's rule.
  const loop_entry* first_fixed_match = nullptr;
  const int nargs = st.nin + st.nout;
  if (fixed.any) {
    for (const auto& loop : st.loops) {
      if (!fits_fixed(loop, fixed, nargs)) continue;
      if (!first_fixed_match) first_fixed_match = &loop;
      bool exact = true;
      for (int i = 0; i < st.nin && exact; ++i) exact = !in[i].weak && in[i].type == loop.types.input(i);
      if (exact) return loop;
    }
  }
  // Safe casts first; the caller's own rule only with fixed types.
  auto first_matching = [&](casting search_rule) -> const loop_entry* {
    for (const auto& loop : st.loops) {
      bool ok = fits_fixed(loop, fixed, nargs);
      for (int i = 0; i < st.nin && ok; ++i) ok = input_matches(in[i], loop.types.input(i), search_rule);
      if (ok) return &loop;
    }
    return nullptr;
  };
  if (const auto* loop = first_matching(casting::safe)) return *loop;
  // NumPy's legacy type resolvers (ufuncs with mixed-type loops, ldexp) take dtype=
  // as a loop to search for by safe casts only, whatever casting= says:
  // np.ldexp(float64, int64, dtype='float32') has no loop even with casting='unsafe'.
  const bool safe_search_only = st.safe_dtype_search && !inputs_fixed(fixed, st.nin);
  if (fixed.any && rule != casting::safe && !safe_search_only)
    if (const auto* loop = first_matching(rule)) return *loop;
  // As NumPy: with fixed types, the first loop that has them is chosen anyway, and
  // the caller's cast check then names the input that cannot be converted.
  if (first_fixed_match && !safe_search_only) return *first_fixed_match;
  std::vector<dtype> types;
  for (const auto& r : in) types.push_back(r.type);
  std::string msg = "ufunc '" + st.name + "' has no loop for input dtypes " + dtype_list(types);
  if (fixed.any) msg += " with the requested signature/dtype and casting '" + std::string(to_string(rule)) + "'";
  msg += "; registered signatures:";
  if (st.loops.empty()) msg += " none";
  for (const auto& loop : st.loops) msg += " " + loop.types.str();
  throw no_loop_error(msg);
}

std::uint64_t new_stamp() noexcept {
  static std::atomic<std::uint64_t> next{1};  // 0: an empty cache slot
  return next.fetch_add(1, std::memory_order_relaxed);
}

// The resolved loop of a call, without its keepalive (function_state::retired keeps
// the loop's state alive instead).
struct resolved_loop {
  type_signature types;
  inner_loop_fn host = nullptr;
  const void* host_data = nullptr;
  device_loop_fn device = nullptr;
  const void* device_data = nullptr;
};

resolved_loop resolved_from(const loop_entry& loop) noexcept {
  return {loop.types, loop.host, loop.host_data, loop.device, loop.device_data};
}

// Each thread remembers the loops its recent calls resolved, so that a repeated call
// skips the loop search and the table's lock: nothing is shared, so threads calling
// the same ufunc touch no common cache line. An entry is valid for one function_state
// stamp, so a loop registered, replaced or rejected later (vectorize, add_loop,
// reject_inputs, set_*) is seen by the next call.
//
// The key is everything find_loop reads of a call besides the table: per input, its
// dtype after NEP 50's weak promotion, whether it is still a weak scalar, and the
// scalar's kind; dtype= and casting=. A weak integer that does not fit the arrays'
// dtype (out_of_bounds) makes the answer depend on its value (NumPy 2's exact
// comparisons, overflow errors), so such calls are not cached; nor are calls with
// signature= (parsed text) or more inputs than a key holds. Errors are never cached.
constexpr int cached_max_inputs = 6;

struct resolution_key {
  std::uint64_t stamp = 0;
  std::uint64_t call = 0;  // inputs (a byte each), dtype=, casting=
};

struct resolution_cache_entry {
  resolution_key key;
  resolved_loop loop;
};

constexpr std::size_t resolution_cache_size = 32;  // a power of two
thread_local resolution_cache_entry t_resolution_cache[resolution_cache_size];

// The key of a call, or nothing where the call is not cacheable.
std::optional<std::uint64_t> resolution_call_key(std::span<const resolver_input> in, const call_options& options) {
  if (in.size() > cached_max_inputs || !options.signature.empty()) return std::nullopt;
  std::uint64_t k = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& r = in[i];
    if (r.out_of_bounds) return std::nullopt;
    // dtype index (4 bits), weak (1 bit), weak kind (2 bits); never 0, so a key
    // also tells the number of inputs.
    std::uint64_t b = static_cast<std::uint64_t>(r.type.index()) + 1;
    if (r.weak) b |= 0x10u | (static_cast<std::uint64_t>(r.weak->value_kind()) << 5);
    k |= b << (8 * i);
  }
  const std::uint64_t dt = options.dtype ? static_cast<std::uint64_t>(options.dtype->index()) + 1 : 0;
  k |= dt << 48;
  k |= static_cast<std::uint64_t>(options.casting) << 56;
  return k;
}

resolution_cache_entry& resolution_slot(std::uint64_t stamp, std::uint64_t call) noexcept {
  const std::uint64_t h = (stamp * 0x9E3779B97F4A7C15ull) ^ (call * 0xC2B2AE3D27D4EB4Full);
  return t_resolution_cache[(h >> 40) & (resolution_cache_size - 1)];
}

// find_loop through the calling thread's cache.
resolved_loop find_loop_cached(const detail::function_state& st, std::span<const resolver_input> in,
                               const fixed_types& fixed, const call_options& options) {
  const auto call = resolution_call_key(in, options);
  if (call) {
    const std::uint64_t stamp = st.stamp.load(std::memory_order_acquire);
    const auto& e = resolution_slot(stamp, *call);
    if (e.key.stamp == stamp && e.key.call == *call) return e.loop;
  }
  std::shared_lock lock(st.mutex);
  const resolved_loop r = resolved_from(find_loop(st, in, fixed, options.casting));
  if (call) {
    // The stamp read under the lock is the table find_loop searched.
    const std::uint64_t stamp = st.stamp.load(std::memory_order_relaxed);
    resolution_slot(stamp, *call) = {{stamp, *call}, r};
  }
  return r;
}

// out= arrays that are read-only (null ones are left to the caller's own message).
void check_outputs_writeable(std::string_view name, std::span<const array> out) {
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i].valid() && !out[i].writeable())
      throw overlap_error("ufunc '" + std::string(name) + "': out[" + std::to_string(i) + "] (" + out[i].describe() +
                          ") is read-only");
}

// Exactly the same elements in the same order: in-place operation is safe.
bool same_view(const array& in, std::span<const std::int64_t> in_strides, const array& out) {
  if (in.data() != out.data() || in.itemsize() != out.itemsize()) return false;
  for (std::size_t d = 0; d < out.ndim(); ++d)
    if (out.shape()[d] != 1 && in_strides[d] != out.strides()[d]) return false;
  return true;
}

}  // namespace

namespace detail {

void validate_loop_call(const loop_call& c) {
  const auto& types = c.types;
  const auto& options = c.options;
  // Messages are built only when something is wrong: this runs on every call.
  auto ufunc_name = [&] { return "ufunc '" + std::string(c.name) + "'"; };
  // NumPy checks that outputs are writeable before any cast.
  for (int i = 0; i < static_cast<int>(options.out.size()); ++i)
    if (!options.out[i].valid()) throw value_error(ufunc_name() + ": out[" + std::to_string(i) + "] is a null array");
  check_outputs_writeable(c.name, options.out);
  // Scalars are weak (NEP 50) where there is something to be weak against: the sole
  // input of a unary ufunc is converted to its default dtype first and then cast like
  // an array (np.sqrt(127, casting='no') refuses int64 -> float64; np.trunc(2**32,
  // signature='i->i') wraps), as NumPy does.
  const bool weak_scalars = types.nin() > 1;
  // signature= fixes every input: NumPy then converts each Python scalar to its slot's
  // dtype, bypassing the logical ufuncs' truth test and the comparisons' exact Python
  // int loops (np.not_equal(3, 256, signature='BB->?') is an OverflowError).
  const bool signature_fixed = !options.signature.empty();
  auto is_weak_integer = [&](int i) {
    return c.inputs[i].is_scalar() && c.inputs[i].as_scalar().value_kind() == weak_scalar::kind::integer;
  };
  // NumPy 2 compares a Python int with an integer array through loops of its own that
  // take any value and cast nothing, under every casting rule
  // (np.less_equal(uint16_array, -1, casting='equiv') is all false).
  bool exact_int_comparison = false;
  if (c.exact_weak_integers && !signature_fixed && weak_scalars)
    for (int i = 0; i < types.nin(); ++i) exact_int_comparison |= is_weak_integer(i) && types.input(i).is_integer();
  auto exempt_scalar = [&](int i) {
    return !signature_fixed && ((c.truth_inputs && types.input(i) == bool_) ||
                                (c.exact_weak_integers && is_weak_integer(i) && types.input(i).is_integer()));
  };
  auto exempt_array = [&](int i) {
    return (c.truth_inputs && types.input(i) == bool_) ||
           (exact_int_comparison && c.input_types[i].is_integer() && types.input(i).is_integer());
  };
  // NumPy converts Python integers to the loop's integer dtype before it checks any
  // cast: np.bitwise_xor(256, bools, dtype='uint8') is an OverflowError, whatever the rule.
  for (int i = 0; i < types.nin() && weak_scalars; ++i) {
    if (!c.inputs[i].is_scalar() || exempt_scalar(i)) continue;
    const auto& w = c.inputs[i].as_scalar();
    if (w.value_kind() == weak_scalar::kind::integer)
      check_python_int(std::string(c.name), i, w, types.input(i), options.casting, types.input(i));
  }
  for (int i = 0; i < types.nin(); ++i) {
    // Weak scalars convert as NumPy's Python scalars do. Under 'equiv', only into their
    // default dtype (int64, float64, complex128, bool); under 'no', into any dtype of
    // their kind or a higher one, bool only into bool (NumPy 2's rules, measured).
    // Otherwise a scalar of a higher kind than the loop's input (6.87 into an int8
    // loop, forced by dtype= or signature=) is cast from its default dtype. A bool
    // slot fixed by signature= takes any scalar's truth value but under 'equiv'
    // (np.add(2.5, bools, signature='??->?') is bool).
    if (c.inputs[i].is_scalar() && !exempt_scalar(i)) {
      const auto& w = c.inputs[i].as_scalar();
      const dtype t = types.input(i);
      const bool is_bool = w.value_kind() == weak_scalar::kind::boolean;
      bool refused = false;
      if (!weak_scalars)
        refused = !can_cast(w.default_dtype(), t, options.casting);
      else if (options.casting == casting::equiv)
        refused = t != w.default_dtype();
      else if (signature_fixed && t == bool_)
        refused = false;
      else if (options.casting == casting::no)
        refused = kind_rank(w.value_kind()) > kind_rank(t.kind()) || is_bool != (t == bool_);
      else
        refused = kind_rank(w.value_kind()) > kind_rank(t.kind()) && !can_cast(w.default_dtype(), t, options.casting);
      if (refused)
        throw casting_error("Cannot cast " + ufunc_name() + " input " + std::to_string(i) + " from Python " +
                            std::string(w.default_dtype().name()) + " scalar to " + std::string(types.input(i).name()) +
                            " with casting rule '" + std::string(to_string(options.casting)) + "'");
    }
    // A dtype casts to itself under every rule: the common case skips can_cast.
    if (!c.inputs[i].is_scalar() && c.input_types[i] != types.input(i) && !exempt_array(i) &&
        !can_cast(c.input_types[i], types.input(i), options.casting))
      throw casting_error("Cannot cast " + ufunc_name() + " input " + std::to_string(i) + " from " +
                          std::string(c.input_types[i].name()) + " to " + std::string(types.input(i).name()) +
                          " with casting rule '" + std::string(to_string(options.casting)) + "'");
  }
  for (int i = 0; i < static_cast<int>(options.out.size()); ++i) {  // valid and writeable: checked first
    const auto& o = options.out[i];
    if (types.output(i) != o.type() && !can_cast(types.output(i), o.type(), options.casting))
      throw casting_error("Cannot cast " + ufunc_name() + " output " + std::to_string(i) + " from " +
                          std::string(types.output(i).name()) + " to " + std::string(o.type().name()) +
                          " with casting rule '" + std::string(to_string(options.casting)) + "'");
  }
  if (options.where.valid() && options.where.type() != bool_)
    throw dtype_error(ufunc_name() + ": where= must be a bool array, not " + options.where.describe());
}

dim_vector broadcast_call_shape(const loop_call& c) {
  // Outputs take part so that inputs broadcast up to a given out, but an out must
  // already have the full shape.
  const auto& options = c.options;
  dim_vector shapes[max_operands + 1];
  int nshapes = 0;
  for (const auto& in : c.inputs)
    if (!in.is_scalar()) shapes[nshapes++] = in.as_array().shape();
  if (options.where.valid()) shapes[nshapes++] = options.where.shape();
  for (const auto& o : options.out) shapes[nshapes++] = o.shape();
  dim_vector shape = broadcast_shapes({shapes, static_cast<std::size_t>(nshapes)});
  for (std::size_t i = 0; i < options.out.size(); ++i)
    if (!(options.out[i].shape() == shape))
      throw broadcast_error("ufunc '" + std::string(c.name) + "': non-broadcastable output operand with shape " +
                            array::shape_string(options.out[i].shape()) + " doesn't match the broadcast shape " +
                            array::shape_string(shape));
  return shape;
}

void check_out_overlap(const loop_call& c, std::span<const dim_vector> in_strides) {
  // An output may be an input exactly (in-place operation), nothing else.
  auto ufunc_name = [&] { return "ufunc '" + std::string(c.name) + "'"; };
  const auto& outs = c.options.out;
  for (std::size_t o = 0; o < outs.size(); ++o) {
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      if (c.inputs[i].is_scalar()) continue;
      const auto& a = c.inputs[i].as_array();
      if (may_share_memory(a, outs[o]) && !same_view(a, in_strides[i], outs[o]))
        throw overlap_error(ufunc_name() + ": out[" + std::to_string(o) + "] partially overlaps input " +
                            std::to_string(i) + "; pass a copy of the input or a separate output");
    }
    for (std::size_t p = 0; p < o; ++p)
      if (may_share_memory(outs[p], outs[o]))
        throw overlap_error(ufunc_name() + ": out[" + std::to_string(p) + "] and out[" + std::to_string(o) +
                            "] overlap");
    if (c.options.where.valid() && may_share_memory(c.options.where, outs[o]))
      throw overlap_error(ufunc_name() + ": out[" + std::to_string(o) + "] overlaps the where mask");
  }
}

dim_vector output_axes(const loop_call& c, std::span<const std::int64_t> shape) {
  if (shape.size() <= 1) return c_order_axes(shape.size());
  const auto& types = c.types;
  const auto& options = c.options;
  layout_operand ops[max_operands + 1];
  std::size_t n = 0;
  for (int i = 0; i < types.nin(); ++i) {
    if (c.inputs[i].is_scalar()) continue;  // NumPy's 0-d arrays: no stride to compare
    const array& a = c.inputs[i].as_array();
    ops[n++] = {a.shape(), a.strides(), a.itemsize(), a.type() != types.input(i)};
  }
  for (std::size_t o = 0; o < options.out.size(); ++o) {
    const array& a = options.out[o];
    ops[n++] = {a.shape(), a.strides(), a.itemsize(), a.type() != types.output(static_cast<int>(o)), true};
  }
  if (options.where.valid())
    ops[n++] = {options.where.shape(), options.where.strides(), options.where.itemsize(), false};
  return call_output_axes(shape, options.order, {ops, n}, types.nout(), options.where.valid());
}

namespace {

// may_share_memory for two dense host arrays: each spans its nbytes from data()
// (extents of 1 may have any stride, and add nothing).
bool contiguous_overlap(const array& a, const array& b) noexcept {
  if (a.size() == 0 || b.size() == 0) return false;
  return a.data() < b.data() + b.nbytes() && b.data() < a.data() + a.nbytes();
}

// The common call: host data, no mask, no casts, every array operand C-ordered (or
// every one F-ordered) with the result's shape (scalars aside), run on this thread.
// One inner-loop call, none of the broadcasting and planning machinery. Returns false
// if it does not apply.
bool try_contiguous_call(const loop_call& c, result_list& outs) {
  const auto& types = c.types;
  const auto& options = c.options;
  const int nin = types.nin(), nout = types.nout();
  if (options.where.valid()) return false;
  const array* first = nullptr;
  bool all_c = true, all_f = true;
  for (int i = 0; i < nin; ++i) {
    if (c.inputs[i].is_scalar()) continue;
    const auto& a = c.inputs[i].as_array();
    if (a.type() != types.input(i) || !a.device().is_host()) return false;
    all_c = all_c && a.is_c_contiguous();
    all_f = all_f && a.is_f_contiguous();
    if (!all_c && !all_f) return false;
    if (first == nullptr)
      first = &a;
    else if (!(a.shape() == first->shape()))
      return false;
  }
  if (first == nullptr) return false;  // only scalars: the general path handles 0-d results
  // The outputs are laid out as NumPy's single-loop path does (layout.hpp): C for
  // C-contiguous inputs, else F, unless order= forces one. Several outputs take NumPy's
  // iterator instead, whose order='K' differs from F along axes of length 1.
  bool f_order = false;
  switch (options.order) {
    case order::C:
      if (!all_c) return false;
      break;
    case order::F:
      if (!all_f) return false;
      f_order = true;
      break;
    case order::K:
    case order::A:
      f_order = !all_c;
      if (f_order && nout != 1) return false;
      break;
  }
  for (int o = 0; o < static_cast<int>(options.out.size()); ++o) {
    const auto& out = options.out[o];
    if (out.type() != types.output(o) || !out.device().is_host() ||
        !(f_order ? out.is_f_contiguous() : out.is_c_contiguous()) || !(out.shape() == first->shape()))
      return false;
    // Same shape and both dense in one order: any overlap other than the same start is partial.
    for (int i = 0; i < nin; ++i)
      if (!c.inputs[i].is_scalar() && c.inputs[i].as_array().data() != out.data() &&
          contiguous_overlap(c.inputs[i].as_array(), out))
        return false;  // let the general path raise the overlap error
    for (int p = 0; p < o; ++p)
      if (contiguous_overlap(options.out[p], out)) return false;
  }
  const std::int64_t n = first->size();
  if (!runs_inline(c.target, n)) return false;

  alignas(16) std::byte scalar_storage[max_operands][16];
  char* args[max_operands];
  std::int64_t steps[max_operands];
  for (int i = 0; i < nin; ++i) {
    if (c.inputs[i].is_scalar()) {
      c.inputs[i].as_scalar().store(types.input(i), scalar_storage[i]);
      args[i] = reinterpret_cast<char*>(scalar_storage[i]);
      steps[i] = 0;
    } else {
      args[i] = reinterpret_cast<char*>(c.inputs[i].as_array().data());
      steps[i] = static_cast<std::int64_t>(types.input(i).itemsize());
    }
  }
  for (int o = 0; o < nout; ++o) {
    if (options.out.empty())
      outs.push_back(array::empty(first->shape(), types.output(o), f_order ? order::F : order::C));
    else
      outs.push_back(options.out[o]);
    args[nin + o] = reinterpret_cast<char*>(outs[o].data());
    steps[nin + o] = static_cast<std::int64_t>(types.output(o).itemsize());
  }
  if (n > 0) {
    std::int64_t out_bytes = 0;
    for (int o = 0; o < nout; ++o) out_bytes += steps[nin + o];
    const stream_stores_scope streaming(streams(n * out_bytes));  // large outputs: streaming stores
    c.fn(args, n, steps, c.data);
  }
  return true;
}

}  // namespace

result_list run_loop(const loop_call& c) {
  validate_loop_call(c);
#if defined(UFUNC_HAS_CUDA)
  if (c.target == target_id::cuda) return run_loop_on_device(c);
  if (c.target == target_id::automatic || !c.target_named) {  // data on a GPU runs there
    bool on_device = c.options.where.valid() && !c.options.where.device().is_host();
    for (const auto& in : c.inputs) on_device |= !in.is_scalar() && !in.as_array().device().is_host();
    for (const auto& o : c.options.out) on_device |= !o.device().is_host();
    if (on_device) return run_loop_on_device(c);
  }
#endif
  // errstate: the flags are cleared here and checked once the loops finished (on
  // every thread that ran a piece: the task gathers them); the policies apply once.
  fp_scope fp;
  result_list outs;
  if (try_contiguous_call(c, outs)) {
    fp.finish(c.name);
    return outs;
  }

  const auto& types = c.types;
  const auto& options = c.options;
  const auto& inputs = c.inputs;
  const int nin = types.nin(), nout = types.nout(), nargs = nin + nout;
  const bool has_where = options.where.valid();

  auto check_host = [&](const array& a, auto label) {
    if (!a.device().is_host())
      throw target_error("ufunc '" + std::string(c.name) + "': " + label() + " is on " + a.device().str() +
                         ", but target '" + std::string(to_string(c.target)) +
                         "' runs on the host; use target cuda or to_host()");
  };
  for (int i = 0; i < nin; ++i)
    if (!inputs[i].is_scalar()) check_host(inputs[i].as_array(), [i] { return "input " + std::to_string(i); });
  for (std::size_t i = 0; i < options.out.size(); ++i)
    check_host(options.out[i], [i] { return "out[" + std::to_string(i) + "]"; });
  if (has_where) check_host(options.where, [] { return std::string("where"); });

  const dim_vector shape = broadcast_call_shape(c);
  dim_vector in_strides[max_operands];
  for (int i = 0; i < nin; ++i)
    if (!inputs[i].is_scalar()) {
      const auto& a = inputs[i].as_array();
      in_strides[i] = broadcast_strides(a.shape(), a.strides(), shape);
    }
  check_out_overlap(c, {in_strides, static_cast<std::size_t>(nin)});

  if (!options.out.empty()) {
    for (int i = 0; i < nout; ++i) outs.push_back(options.out[i]);
  } else {
    const dim_vector axes = output_axes(c, shape);
    for (int i = 0; i < nout; ++i) {
      const dtype t = types.output(i);
      outs.push_back(empty_strided(shape, dense_strides(shape, axes, t.itemsize()), t));
      // Dense: its bytes are the nbytes from data().
      if (has_where) std::memset(outs.back().data(), 0, static_cast<std::size_t>(outs.back().nbytes()));
    }
  }
  if (shape_size(shape) == 0) return outs;

  // Scalars become 0-d operands in the loop's dtype, stored on the stack.
  alignas(16) std::byte scalar_storage[max_operands][16];
  dim_vector zero_strides(shape.size(), 0);
  dtype operand_types[max_operands + 1];
  plan_operand ops[max_operands + 1];
  for (int i = 0; i < nin; ++i) {
    if (inputs[i].is_scalar()) {
      const dtype t = c.input_types[i];
      inputs[i].as_scalar().store(t, scalar_storage[i]);
      operand_types[i] = t;
      ops[i] = {scalar_storage[i], zero_strides};
    } else {
      operand_types[i] = inputs[i].as_array().type();
      ops[i] = {inputs[i].as_array().data(), in_strides[i]};
    }
  }
  for (int o = 0; o < nout; ++o) {
    operand_types[nin + o] = outs[o].type();
    ops[nin + o] = {outs[o].data(), outs[o].strides()};
  }
  dim_vector where_strides;
  if (has_where) {
    where_strides = broadcast_strides(options.where.shape(), options.where.strides(), shape);
    ops[nargs] = {options.where.data(), where_strides};
  }

  const iteration_plan plan(shape, {ops, static_cast<std::size_t>(nargs + (has_where ? 1 : 0))});
  elementwise_task task(plan, nin, nout, has_where, c.fn, c.data, {operand_types, static_cast<std::size_t>(nargs)},
                        types);
  task.gather_fp_flags(fp.active());
  fp.collect();  // what this thread raised before the loops (weak scalars stored in the loop's dtype)
  execute(c.target, task);
  fp.finish(c.name, task.fp_flags());
  return outs;
}

}  // namespace detail

function::function(std::string name, int nin, int nout, std::optional<weak_scalar> identity, std::string doc)
    : state_(std::make_shared<detail::function_state>()) {
  if (nin < 1 || nout < 1 || nin + nout > max_operands)
    throw value_error("ufunc '" + name + "': needs at least one input and one output, at most " +
                      std::to_string(max_operands) + " operands in all");
  state_->name = std::move(name);
  state_->doc = std::move(doc);
  state_->nin = nin;
  state_->nout = nout;
  state_->identity = identity;
  state_->stamp.store(new_stamp(), std::memory_order_relaxed);
}

const std::string& function::name() const noexcept { return state_->name; }
const std::string& function::doc() const noexcept { return state_->doc; }
int function::nin() const noexcept { return state_->nin; }
int function::nout() const noexcept { return state_->nout; }
const std::optional<weak_scalar>& function::identity() const noexcept { return state_->identity; }

std::size_t function::ntypes() const {
  std::shared_lock lock(state_->mutex);
  return state_->loops.size();
}

std::vector<std::string> function::types() const {
  std::shared_lock lock(state_->mutex);
  std::vector<std::string> out;
  for (const auto& l : state_->loops) out.push_back(l.types.str());
  return out;
}

void function::add_loop(loop_entry loop) {
  if (loop.types.nin() != nin() || loop.types.nout() != nout())
    throw value_error("ufunc '" + name() + "' takes " + std::to_string(nin()) + " inputs and " +
                      std::to_string(nout()) + " outputs; loop " + loop.types.str() + " does not");
  if (loop.host == nullptr) throw value_error("ufunc '" + name() + "': loop " + loop.types.str() + " has no code");
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(new_stamp(), std::memory_order_release);
  for (auto& l : state_->loops)
    if (l.types == loop.types) {
      if (l.keepalive) state_->retired.push_back(std::move(l.keepalive));
      l = std::move(loop);
      return;
    }
  state_->loops.push_back(std::move(loop));
}

void function::reject_inputs(std::vector<dtype> inputs, std::string reason) {
  if (static_cast<int>(inputs.size()) != nin())
    throw value_error("ufunc '" + name() + "' takes " + std::to_string(nin()) + " inputs; reject_inputs got " +
                      std::to_string(inputs.size()));
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(new_stamp(), std::memory_order_release);
  state_->rejected.emplace_back(std::move(inputs), std::move(reason));
}

void function::set_exact_weak_integers() {
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(new_stamp(), std::memory_order_release);
  state_->exact_weak_integers = true;
}

void function::set_safe_dtype_search() {
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(new_stamp(), std::memory_order_release);
  state_->safe_dtype_search = true;
}

void function::set_truth_inputs() {
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(new_stamp(), std::memory_order_release);
  state_->truth_inputs = true;
}

void function::set_type_resolver(type_resolver resolver) {
  std::unique_lock lock(state_->mutex);
  state_->stamp.store(new_stamp(), std::memory_order_release);
  state_->resolver = resolver;
}

namespace {

// What resolve() and resolve_loop() search with: array inputs of the given dtypes.
std::array<resolver_input, max_operands> dtype_inputs(const function& f, std::span<const dtype> inputs) {
  if (static_cast<int>(inputs.size()) != f.nin())
    throw value_error("ufunc '" + f.name() + "' takes " + std::to_string(f.nin()) + " inputs, got " +
                      std::to_string(inputs.size()));
  std::array<resolver_input, max_operands> in{};
  for (std::size_t i = 0; i < inputs.size(); ++i) in[i] = {inputs[i], nullptr};
  return in;
}

}  // namespace

type_signature function::resolve(std::span<const dtype> inputs, const call_options& options) const {
  const auto in = dtype_inputs(*this, inputs);
  const auto fixed = fixed_from_options(options, nin(), nout(), name());
  return find_loop_cached(*state_, {in.data(), inputs.size()}, fixed, options).types;
}

loop_entry function::resolve_loop(std::span<const dtype> inputs, const call_options& options) const {
  const auto in = dtype_inputs(*this, inputs);
  const auto fixed = fixed_from_options(options, nin(), nout(), name());
  std::shared_lock lock(state_->mutex);
  return find_loop(*state_, {in.data(), inputs.size()}, fixed, options.casting);
}

array function::operator()(const operand& a, const call_options& options) const {
  const operand ops[] = {{operand::view_tag{}, a}};
  return call_single(ops, options);
}
array function::operator()(const operand& a, const operand& b, const call_options& options) const {
  const operand ops[] = {{operand::view_tag{}, a}, {operand::view_tag{}, b}};
  return call_single(ops, options);
}
array function::operator()(const operand& a, const operand& b, const operand& c, const call_options& options) const {
  const operand ops[] = {{operand::view_tag{}, a}, {operand::view_tag{}, b}, {operand::view_tag{}, c}};
  return call_single(ops, options);
}

array function::call_single(std::span<const operand> inputs, const call_options& options) const {
  if (nout() != 1)
    throw value_error("ufunc '" + name() + "' has " + std::to_string(nout()) +
                      " outputs; use call() to receive all of them");
  auto outs = call_list(inputs, options);
  return std::move(outs[0]);
}

std::vector<array> function::call(std::span<const operand> inputs, const call_options& options) const {
  return call_list(inputs, options).to_vector();
}

namespace {

// A Python float given for an input that signature= fixes to an integer dtype is
// converted as NumPy does it, by Python's int() (truncation), and then checked like a
// Python int: np.remainder(-21.9, a, signature='II->I') is "Python integer -21 out of
// bounds for uint32", np.left_shift(a, 2.5, signature='ii->i') shifts by 2. Under
// 'equiv' NumPy refuses the float instead (the usual scalar cast check), and the sole
// scalar of a unary ufunc is cast like an array (float64 -> int16 refused). Returns the
// inputs, or `storage` holding them with such floats replaced.
std::span<const operand> fixed_float_scalars(std::span<const operand> inputs, const fixed_types& fixed,
                                             std::vector<operand>& storage, const std::string& name) {
  auto float_for_integer = [&](std::size_t i) {
    return inputs[i].is_scalar() && inputs[i].as_scalar().value_kind() == weak_scalar::kind::floating &&
           fixed.slot[i] && fixed.slot[i]->is_integer();
  };
  bool any = false;
  for (std::size_t i = 0; i < inputs.size(); ++i) any |= float_for_integer(i);
  if (!any) return inputs;
  storage.assign(inputs.begin(), inputs.end());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!float_for_integer(i)) continue;
    double v = 0;
    inputs[i].as_scalar().store(float64, &v);
    if (std::isnan(v)) throw value_error("ufunc '" + name + "': cannot convert float NaN to integer");
    if (std::isinf(v)) throw overflow_error("ufunc '" + name + "': cannot convert float infinity to integer");
    v = std::trunc(v);
    // Beyond 64 bits no integer dtype holds the value: NumPy's own message there is
    // "Python int too large to convert to C long".
    if (v >= 0x1p64 || v < -0x1p63)
      throw overflow_error("ufunc '" + name + "': Python integer " + inputs[i].as_scalar().str() +
                           " out of bounds for " + std::string(fixed.slot[i]->name()));
    if (v >= 0x1p63)
      storage[i] = static_cast<std::uint64_t>(v);
    else
      storage[i] = static_cast<std::int64_t>(v);
  }
  return storage;
}

}  // namespace

detail::result_list function::call_list(std::span<const operand> inputs, const call_options& options) const {
  const detail::function_state& st = *state_;
  const int nin = st.nin, nout = st.nout;
  if (static_cast<int>(inputs.size()) != nin)
    throw value_error("ufunc '" + st.name + "' takes " + std::to_string(nin) + " inputs, got " +
                      std::to_string(inputs.size()));
  if (!options.out.empty() && static_cast<int>(options.out.size()) != nout)
    throw value_error("ufunc '" + st.name + "' has " + std::to_string(nout) + " outputs, but out= names " +
                      std::to_string(options.out.size()));

  // NumPy refuses a read-only out= while it parses the arguments, before any loop is
  // resolved: np.gcd(1j, 2, out=read_only) says read-only, not "no loop".
  check_outputs_writeable(st.name, options.out);

  const target_id where_to_run = detail::resolve_target(options.target);

  const auto fixed = fixed_from_options(options, nin, nout, st.name);

  // 1. Resolve the loop.
  resolver_input rin[max_operands];
  for (int i = 0; i < nin; ++i) {
    if (inputs[i].is_scalar()) {
      rin[i] = {dtype{}, &inputs[i].as_scalar()};
    } else {
      const auto& a = inputs[i].as_array();
      if (!a.valid()) throw value_error("ufunc '" + st.name + "': input " + std::to_string(i) + " is a null array");
      rin[i] = {a.type(), nullptr};
    }
  }
  apply_weak_promotion({rin, static_cast<std::size_t>(nin)});
  const resolved_loop loop = find_loop_cached(st, {rin, static_cast<std::size_t>(nin)}, fixed, options);
  const type_signature& types = loop.types;

  // After the loop search: a signature without a loop is refused first, whatever the scalars.
  std::vector<operand> converted;
  if (!options.signature.empty() && options.casting != casting::equiv && nin > 1)
    inputs = fixed_float_scalars(inputs, fixed, converted, st.name);
  dtype input_types[max_operands];
  // A scalar for a bool slot is converted by its truth, never through the dtype it was
  // promoted to (np.logical_or(zeros_float32, 1e-310j) is true; complex64 flushes it).
  for (int i = 0; i < nin; ++i)
    input_types[i] = rin[i].weak || (inputs[i].is_scalar() && types.input(i) == bool_) ? types.input(i) : rin[i].type;
  return detail::run_loop({st.name,
                           types,
                           loop.host,
                           loop.host_data,
                           loop.device,
                           loop.device_data,
                           inputs,
                           {input_types, static_cast<std::size_t>(nin)},
                           options,
                           where_to_run,
                           options.target.has_value(),
                           st.truth_inputs,
                           st.exact_weak_integers});
}

}  // namespace ufunc
