// Type resolution of a ufunc call: the loop search (NumPy 2's rules, the ufunc's own
// resolvers), the checks of Python scalars against the chosen loop, and the per-thread
// resolution cache that lets a repeated call skip the search and the table's lock.
#include "resolution.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include <ufunc/core/error.hpp>
#include <ufunc/core/signature.hpp>

namespace ufunc::detail {

void check_python_int(const std::string& ufunc, int i, const weak_scalar& w, dtype t, casting rule, dtype named) {
  if (rule == casting::equiv && t != int64)
    throw casting_error("Cannot cast ufunc '" + ufunc + "' input " + std::to_string(i) + " from Python int to " +
                        std::string(t.name()) + " with casting rule 'equiv'");
  if (t.is_integer() && !w.fits(t))
    throw overflow_error("ufunc '" + ufunc + "': Python integer " + w.str() + " out of bounds for " +
                         std::string(named.name()));
}

namespace {

std::string dtype_list(std::span<const dtype> types) {
  std::string s = "(";
  for (std::size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + std::string(types[i].name());
  return s + ")";
}

bool input_matches(const resolver_input& in, dtype loop_type, casting rule) {
  // A weak scalar selects a loop by its kind alone, never by its value: a Python int
  // too large for the loop's dtype still selects it (np.ldexp(float32, 2**31) runs
  // fi->f and then raises overflow_error, as NumPy does).
  // ml_dtypes' bfloat16 is no float kind to NumPy: a Python float passes over its loops
  // (np.add(bfloat16s, 2.5) is float32; a Python int keeps bfloat16).
  if (in.weak && loop_type == bfloat16 && in.weak->value_kind() == weak_scalar::kind::floating) return false;
  if (in.weak) return kind_rank(in.weak->value_kind()) <= kind_rank(loop_type.kind());
  return can_cast(in.type, loop_type, rule);
}

bool inputs_fixed(const fixed_types& fixed, int nin) {
  return std::any_of(fixed.slot, fixed.slot + nin, [](const std::optional<dtype>& t) { return t.has_value(); });
}

bool fits_fixed(const loop_entry& loop, const fixed_types& fixed, int nargs) {
  for (int i = 0; i < nargs; ++i)
    if (fixed.slot[i] && *fixed.slot[i] != loop.types[i]) return false;
  return true;
}

const loop_entry& select_loop(const function_state& st, std::span<const resolver_input> in, const fixed_types& fixed,
                              casting rule);

}  // namespace

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

const loop_entry& find_loop(const function_state& st, std::span<const resolver_input> in_given,
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

namespace {

const loop_entry& select_loop(const function_state& st, std::span<const resolver_input> in, const fixed_types& fixed,
                              casting rule) {
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
  // With fixed types (dtype=, signature=), NumPy's dispatcher first takes a loop that
  // has the fixed types and exactly the inputs' dtypes.
  const int nargs = st.nin + st.nout;
  if (fixed.any) {
    for (const auto& loop : st.loops) {
      if (!fits_fixed(loop, fixed, nargs)) continue;
      bool exact = true;
      for (int i = 0; i < st.nin && exact; ++i) exact = !in[i].weak && in[i].type == loop.types.input(i);
      if (exact) return loop;
    }
  }
  // NumPy's search (type_tuple_type_resolver): the first loop that has the fixed types
  // and that every other input casts to safely (or under casting='no'/'equiv', when the
  // caller asks for those); inputs fixed by signature= are not checked here, the
  // caller's cast check does that once the loop is chosen.
  const casting search_rule = fixed.any && rule < casting::safe ? rule : casting::safe;
  auto first_matching = [&](const fixed_types& fx) -> const loop_entry* {
    for (const auto& loop : st.loops) {
      bool ok = fits_fixed(loop, fx, nargs);
      for (int i = 0; i < st.nin && ok; ++i)
        ok = fx.slot[i].has_value() || input_matches(in[i], loop.types.input(i), search_rule);
      if (ok) return &loop;
    }
    return nullptr;
  };
  if (const auto* loop = first_matching(fixed)) return *loop;
  // Then NumPy's legacy meaning of dtype=: when every output is fixed to one dtype, the
  // inputs not fixed take it too ("homogeneous"), and the first loop with those types
  // is chosen whatever the inputs are; the caller's cast check then names the input that
  // cannot be converted (np.absolute(complex128, dtype='float32') picks f->f and raises
  // "Cannot cast ufunc 'absolute' input ...", not F->f; np.ldexp(float64, int64,
  // dtype='float32') has no loop even with casting='unsafe').
  if (fixed.any && st.nout > 0) {
    std::optional<dtype> same = fixed.slot[st.nin];
    for (int i = st.nin + 1; i < nargs && same; ++i)
      if (fixed.slot[i] != same) same.reset();
    if (same) {
      fixed_types homogeneous = fixed;
      for (int i = 0; i < st.nin; ++i)
        if (!homogeneous.slot[i]) homogeneous.slot[i] = same;
      if (const auto* loop = first_matching(homogeneous)) return *loop;
    }
  }
  std::vector<dtype> types;
  for (const auto& r : in) types.push_back(r.type);
  std::string msg = "ufunc '" + st.name + "' has no loop for input dtypes " + dtype_list(types);
  if (fixed.any) msg += " with the requested signature/dtype and casting '" + std::string(to_string(rule)) + "'";
  msg += "; registered signatures:";
  if (st.loops.empty()) msg += " none";
  for (const auto& loop : st.loops) msg += " " + loop.types.str();
  throw no_loop_error(msg);
}

resolved_loop resolved_from(const loop_entry& loop) noexcept {
  return {loop.types, loop.host, loop.host_data, loop.devices};
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
// comparisons, overflow errors), so such calls are not cached; nor are calls with more
// inputs than a key holds. signature= enters the key as the fixed types it gave (4 bits a
// slot), so that a run-time kernel's calls, which always name their loop, are cached too.
// Errors are never cached.
constexpr int cached_max_inputs = 6;

struct resolution_key {
  std::uint64_t stamp = 0;
  std::uint64_t call = 0;   // inputs (a byte each), dtype=, casting=
  std::uint64_t fixed = 0;  // signature='s types, 4 bits a slot
};

struct resolution_cache_entry {
  resolution_key key;
  resolved_loop loop;
};

constexpr std::size_t resolution_cache_size = 32;  // a power of two
thread_local resolution_cache_entry t_resolution_cache[resolution_cache_size];

// The key of a call, or nothing where the call is not cacheable.
std::optional<std::uint64_t> resolution_call_key(std::span<const resolver_input> in, const call_options& options) {
  if (in.size() > cached_max_inputs) return std::nullopt;
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

// The types signature= fixed, a dtype index + 1 (0: free) in 4 bits per slot, or nothing
// where they do not fit a key.
std::optional<std::uint64_t> resolution_fixed_key(const fixed_types& fixed) {
  if (!fixed.any) return 0;
  std::uint64_t k = 0;
  for (int i = 0; i < max_operands; ++i) {
    if (!fixed.slot[i]) continue;
    const auto v = static_cast<std::uint64_t>(fixed.slot[i]->index()) + 1;
    if (i >= 16 || v > 15) return std::nullopt;
    k |= v << (4 * i);
  }
  return k;
}

resolution_cache_entry& resolution_slot(std::uint64_t stamp, std::uint64_t call, std::uint64_t fixed) noexcept {
  const std::uint64_t h =
      (stamp * 0x9E3779B97F4A7C15ull) ^ (call * 0xC2B2AE3D27D4EB4Full) ^ (fixed * 0x165667B19E3779F9ull);
  return t_resolution_cache[(h >> 40) & (resolution_cache_size - 1)];
}

}  // namespace

std::uint64_t new_stamp() noexcept {
  static std::atomic<std::uint64_t> next{1};  // 0: an empty cache slot
  return next.fetch_add(1, std::memory_order_relaxed);
}

resolved_loop find_loop_cached(const function_state& st, std::span<const resolver_input> in, const fixed_types& fixed,
                               const call_options& options) {
  auto call = resolution_call_key(in, options);
  const auto fixed_key = resolution_fixed_key(fixed);
  if (!fixed_key) call.reset();
  if (call) {
    const std::uint64_t stamp = st.stamp.load(std::memory_order_acquire);
    const auto& e = resolution_slot(stamp, *call, *fixed_key);
    if (e.key.stamp == stamp && e.key.call == *call && e.key.fixed == *fixed_key) return e.loop;
  }
  std::shared_lock lock(st.mutex);
  const resolved_loop r = resolved_from(find_loop(st, in, fixed, options.casting));
  if (call) {
    // The stamp read under the lock is the table find_loop searched.
    const std::uint64_t stamp = st.stamp.load(std::memory_order_relaxed);
    resolution_slot(stamp, *call, *fixed_key) = {{stamp, *call, *fixed_key}, r};
  }
  return r;
}

}  // namespace ufunc::detail
