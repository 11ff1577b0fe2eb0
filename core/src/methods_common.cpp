#include <ufunc/core/detail/methods.hpp>

#include <ufunc/core/backend.hpp>
#include <ufunc/core/casting.hpp>
#include <ufunc/core/detail/execute.hpp>
#include <ufunc/core/error.hpp>

#include <string_view>

namespace ufunc::detail {

std::string method_label(const function& f, const char* method) { return "ufunc '" + f.name() + "'." + method; }

void require_reduce_like(const function& f, const char* method) {
  if (f.nin() != 2)
    throw value_error(std::string(method) + " only supported for binary functions (" + method_label(f, method) +
                      " takes " + std::to_string(f.nin()) + " input" + (f.nin() == 1 ? "" : "s") + ")");
  if (f.nout() != 1)
    throw value_error(std::string(method) + " only supported for functions returning a single value (" +
                      method_label(f, method) + " has " + std::to_string(f.nout()) + " outputs)");
}

int normalize_axis(int axis, int ndim, const function& f, const char* method) {
  if (axis < -ndim || axis >= ndim)
    throw index_error(method_label(f, method) + ": axis " + std::to_string(axis) +
                      " is out of bounds for array of dimension " + std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

namespace {

bool upcast_for_add_multiply(const function& f, dtype input) {
  if (f.name() != "add" && f.name() != "multiply") return false;
  return input == bool_ || (input.is_integer() && input.itemsize() < 8);
}

bool is_logical(const function& f) {
  return f.name() == "logical_and" || f.name() == "logical_or" || f.name() == "logical_xor";
}

}  // namespace

reduce_like_loop resolve_reduce_like(const function& f, const char* method, dtype input, std::optional<dtype> requested,
                                     const array* out) {
  const dtype pair[2] = {input, input};
  loop_entry loop;
  bool found = false;
  if (!requested && out == nullptr && upcast_for_add_multiply(f, input)) {
    // NumPy: "make sure at least a long is used for add and multiply reduction".
    call_options opt;
    opt.casting = casting::unsafe;
    opt.dtype = input.kind() == dtype_kind::unsigned_int ? uint64 : int64;
    try {
      loop = f.resolve_loop(pair, opt);
      found = loop.types.output(0) == *opt.dtype;
    } catch (const no_loop_error&) {
      found = false;  // a user's "add" without 64-bit loops: the ordinary rules
    }
  }
  if (!found && !requested && is_logical(f)) {
    // NumPy's logical ufuncs promote every operand to bool (logical_ufunc_promoter).
    call_options opt;
    opt.casting = casting::unsafe;
    opt.signature = "?\?->?";  // "?\?": "??-" would be a trigraph to older compilers (-Wtrigraphs)
    loop = f.resolve_loop(pair, opt);
    found = true;
  }
  if (!found) {
    if (requested) {
      // NumPy's dtype= of a reduction is the signature (dtype, dtype, dtype) for the loop
      // search: less_equal.reduce(complex, dtype=bool) runs ??->? on the input cast to
      // bool; only reduce then accepts a loop with another second input (below).
      call_options opt;
      opt.casting = casting::unsafe;
      const std::string code(1, requested->char_code());
      const std::string same = code + code + "->" + code;  // call_options holds a view
      opt.signature = same;
      try {
        loop = f.resolve_loop(pair, opt);
      } catch (const no_loop_error&) {
        if (std::string_view(method) != "reduce") throw;
        // NumPy's reduce then takes a loop (dtype, U -> dtype): the one whose U is the
        // input's dtype, else the first in search order that the input casts to safely
        // (ldexp.reduce(int64s, dtype='f') runs fl->f, not fi->f; uint64s and floats
        // have none: "No loop matching the specified signature").
        const auto signatures = f.types();
        const std::string* pick = nullptr;
        for (const auto& sig : signatures) {
          const auto t = type_signature::parse(sig);
          if (t.input(0) != *requested || t.output(0) != *requested) continue;
          if (t.input(1) == input) {
            pick = &sig;
            break;
          }
          if (pick == nullptr && can_cast(input, t.input(1), casting::safe)) pick = &sig;
        }
        if (pick == nullptr) throw;
        opt.signature = *pick;
        loop = f.resolve_loop(pair, opt);
      }
    } else if (out != nullptr) {
      const dtype with_out[2] = {out->type(), input};
      loop = f.resolve_loop(with_out);
    } else {
      loop = f.resolve_loop(pair);
    }
  }
  const auto& t = loop.types;
  // NumPy's reduce only requires the first input and the output to agree: it folds
  // acc = f(acc, x) with x cast to the second input's dtype (ldexp.reduce of int64s
  // runs dl->d); accumulate and reduceat require all three to agree.
  const bool only_second = t.input(0) == t.output(0) && t.input(1) != t.output(0);
  if (t.input(0) != t.output(0) ||
      (t.input(1) != t.output(0) && !(only_second && std::string_view(method) == "reduce")))
    throw no_loop_error(method_label(f, method) + ": the resolved dtypes are not compatible with " + f.name() + "." +
                        method + ". Resolved (" + std::string(t.input(0).name()) + ", " +
                        std::string(t.input(1).name()) + ", " + std::string(t.output(0).name()) + "): loop " + t.str());
  if (requested && t.output(0) != *requested)
    throw no_loop_error(method_label(f, method) + ": no loop computes in " + std::string(requested->name()) +
                        "; registered signatures:" + [&] {
                          std::string s;
                          for (const auto& sig : f.types()) s += " " + sig;
                          return s;
                        }());
  const dtype type = t.output(0);
  return {std::move(loop), type};
}

method_placement place_method(const function& f, const char* method, std::optional<target_id> requested,
                              std::initializer_list<const array*> arrays) {
  const target_id t = resolve_target(requested);
  bool any_device = false, any_host = false;
  for (const array* a : arrays) {
    if (a == nullptr || !a->valid()) continue;
    (a->device().is_host() ? any_host : any_device) = true;
  }
  if (any_device && any_host)
    throw target_error(method_label(f, method) +
                       ": mixed host and device operands; move them with ufunc::to_device() or ufunc::to_host() "
                       "first (calls never copy device data implicitly)");
  if (any_device && requested && (*requested == target_id::cpu || *requested == target_id::parallel))
    throw target_error(method_label(f, method) + ": the data is on a GPU, but target '" +
                       std::string(to_string(*requested)) + "' runs on the host; use target cuda or to_host()");
  const bool on_device = any_device || t == target_id::cuda;
  return {any_device && t != target_id::cuda ? target_id::cuda : t, on_device};
}

void method_not_on_target(const function& f, const char* method, target_id t) {
  throw target_error(method_label(f, method) + " is not implemented on target '" + std::string(to_string(t)) +
                     "' in this build");
}

namespace {

// The device backend's methods, or method_not_on_target's target_error for `method`.
const device_methods& methods_on_device(const function& f, const char* method) {
  const backend* b = device_backend();
  if (b == nullptr || b->methods == nullptr) method_not_on_target(f, method, target_id::cuda);
  return *b->methods;
}

}  // namespace

array reduce_on_device(const function& f, const array& a, const reduce_options& options, const reduce_plan& plan) {
  return methods_on_device(f, "reduce").reduce(f, a, options, plan);
}

array accumulate_on_device(const function& f, const array& a, const accumulate_options& options,
                           const accumulate_plan& plan) {
  return methods_on_device(f, "accumulate").accumulate(f, a, options, plan);
}

array reduceat_on_device(const function& f, const array& a, std::span<const std::int64_t> indices,
                         const accumulate_options& options, const accumulate_plan& plan) {
  return methods_on_device(f, "reduceat").reduceat(f, a, indices, options, plan);
}

void at_on_device(const function& f, const array& a, const array& b, const at_plan& plan, const call_options& options) {
  methods_on_device(f, "at").at(f, a, b, plan, options);
}

array restride(const array& a, const dim_vector& shape, const dim_vector& strides, std::byte* data) {
  return array(data, a.type(), shape, strides, a.owner(), a.device());
}

}  // namespace ufunc::detail
