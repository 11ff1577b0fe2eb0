// Replaying a case through the library: the call or method with the case's operands and
// options, then the comparison of what came back with NumPy's outcome.
#include "replay.hpp"

#include <complex>
#include <exception>
#include <optional>
#include <type_traits>
#include <vector>

#include "compare.hpp"
#include "operands.hpp"
#include "tolerance.hpp"
#include "user_ufuncs.hpp"

namespace differential {
namespace {

// What a replay produced: the arrays to compare with NumPy's results, in order, and
// every operand's base with the view of it that the call may write (none: untouched).
struct replay {
  std::vector<array> got;
  std::vector<std::pair<const built_array*, std::optional<array>>> bases;
};

// A Python scalar of the case (reduce's initial=) as the library's weak scalar.
ufunc::weak_scalar weak(const scalar_spec& s) {
  switch (s.kind) {
    case 'b':
      return ufunc::weak_scalar(s.i != 0);
    case 'i':
      return ufunc::weak_scalar(static_cast<long long>(s.i));
    case 'u':
      return ufunc::weak_scalar(static_cast<unsigned long long>(s.u));
    case 'f':
      return ufunc::weak_scalar(s.re);
    default:
      return ufunc::weak_scalar(std::complex<double>(s.re, s.im));
  }
}

// The methods (function::reduce, accumulate, reduceat, outer, at; core/methods.hpp).
// Each is compiled only when the library has it with the options used here, so that
// a change there makes the runner skip those cases (and say so) rather than break the build.
template <class F = ufunc::function>
std::optional<run_result> run_method(const test_case& c, const F& f, ufunc::target_id target,
                                     std::vector<built_array>& ins, built_array& out, built_array& where,
                                     built_array& indices, replay& rp) {
  const bool device = target == ufunc::target_id::cuda;
  const auto& m = c.method;
  auto axes_of = [&](auto& o) {
    if (!c.has_axis) return;
    if (c.axis_none)
      o.axis = ufunc::all_axes;
    else if (c.axis_scalar)
      o.axis = static_cast<int>(c.axis[0]);
    else
      o.axis = std::vector<int>(c.axis.begin(), c.axis.end());
  };
  if (!c.outs.empty()) out = build(c.outs[0].arr, device);
  if (c.where) where = build(*c.where, device);
  if (c.indices) indices = build(*c.indices, device);
  const array& a = ins[0].view;
  if (m == "reduce") {
    if constexpr (requires(const F& g, ufunc::reduce_options o) {
                    g.reduce(a, o);
                    o.axis = ufunc::all_axes;
                    o.axis = 1;
                    o.axis = std::vector<int>{};
                    o.keepdims = true;
                    o.initial = ufunc::weak_scalar(1);
                    o.where = a;
                    o.out = a;
                    o.dtype = ufunc::float64;
                    o.target = target;
                  }) {
      ufunc::reduce_options o;
      axes_of(o);
      if (c.keepdims) o.keepdims = *c.keepdims;
      if (c.initial) o.initial = weak(*c.initial);
      if (c.where) o.where = where.view;
      if (!c.outs.empty()) o.out = out.view;
      o.dtype = c.out_dtype;
      o.target = target;
      rp.got.push_back(f.reduce(a, o));
    } else {
      return skip("method reduce: function::reduce or reduce_options differ from what the runner expects");
    }
  } else if (m == "accumulate" || m == "reduceat") {
    if constexpr (requires(const F& g, ufunc::accumulate_options o) {
                    g.accumulate(a, o);
                    g.reduceat(a, a, o);
                    o.axis = 1;
                    o.out = a;
                    o.dtype = ufunc::float64;
                    o.target = target;
                  }) {
      ufunc::accumulate_options o;
      if (c.has_axis) {
        if (c.axis_none || !c.axis_scalar) return skip("method " + m + ": axis other than one integer");
        o.axis = static_cast<int>(c.axis[0]);
      }
      if (!c.outs.empty()) o.out = out.view;
      o.dtype = c.out_dtype;
      o.target = target;
      rp.got.push_back(m == "accumulate" ? f.accumulate(a, o) : f.reduceat(a, indices.view, o));
    } else {
      return skip("method " + m + ": function::" + m + " or accumulate_options differ from what the runner expects");
    }
  } else if (m == "outer") {
    if constexpr (requires(const F& g, ufunc::call_options o) { g.outer(a, a, o); }) {
      ufunc::call_options o;
      if (c.where) o.where = where.view;
      if (!c.outs.empty()) o.out = {out.view};
      o.dtype = c.out_dtype;
      o.target = target;
      if constexpr (requires(const F& g, ufunc::call_options o) { g.outer_all(a, a, o); }) {
        for (auto& r : f.outer_all(ins[0].view, ins[1].view, o)) rp.got.push_back(std::move(r));
      } else {
        rp.got.push_back(f.outer(ins[0].view, ins[1].view, o));
      }
    } else {
      return skip("method outer: function::outer differs from what the runner expects");
    }
  } else if (m == "at") {
    if constexpr (requires(const F& g, ufunc::call_options o) {
                    g.at(a, a, a, o);
                    g.at(a, a, o);
                  }) {
      ufunc::call_options o;
      o.target = target;
      if (c.inputs.size() > 1) {
        const ufunc::operand b = c.inputs[1].is_scalar ? c.inputs[1].scalar.operand() : ufunc::operand(ins[1].view);
        f.at(a, indices.view, b, o);
      } else {
        f.at(a, indices.view, o);
      }
      rp.got.push_back(a);
    } else {
      return skip("method at: function::at differs from what the runner expects");
    }
  } else {
    return skip("method " + m + ": unknown to the runner");
  }
  if (!c.outs.empty() && rp.got[0].data() != out.view.data())
    return fail("result: the returned array is not the out= array");
  if (!c.outs.empty()) rp.got[0] = out.view;
  return std::nullopt;
}

}  // namespace

std::string class_of(const std::exception& e) {
  if (dynamic_cast<const ufunc::broadcast_error*>(&e)) return "broadcast_error";
  if (dynamic_cast<const ufunc::no_loop_error*>(&e)) return "no_loop_error";
  if (dynamic_cast<const ufunc::casting_error*>(&e)) return "casting_error";
  if (dynamic_cast<const ufunc::dtype_error*>(&e)) return "dtype_error";
  if (dynamic_cast<const ufunc::overlap_error*>(&e)) return "overlap_error";
  if (dynamic_cast<const ufunc::index_error*>(&e)) return "index_error";
  if (dynamic_cast<const ufunc::overflow_error*>(&e)) return "overflow_error";
  if (dynamic_cast<const ufunc::value_error*>(&e)) return "value_error";
  if (dynamic_cast<const ufunc::target_error*>(&e)) return "target_error";
  if (dynamic_cast<const ufunc::memory_error*>(&e)) return "memory_error";
  if (dynamic_cast<const ufunc::error*>(&e)) return "ufunc::error";
  return "std::exception";
}

namespace {

// A call case of `f`: a ufunc::function (every method) or a gufunc::function (calls only).
template <class F>
run_result run_case_of(const test_case& c, const F& f, ufunc::target_id target, bool user, fp_mode mode) {
  const bool device = target == ufunc::target_id::cuda;
  if (!c.unknown_tags.empty()) return skip("case fields this runner does not know (a newer generator)");
  // Device loops exist only where user_ufuncs.cpp was compiled as CUDA (a CUDA build).
  if (device && user && !user_device_loops()) return skip("the runner's vectorize'd ufuncs have host loops only");

  std::vector<built_array> ins(c.inputs.size());
  std::vector<ufunc::operand> operands;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (c.inputs[i].is_scalar) {
      operands.push_back(c.inputs[i].scalar.operand());
    } else {
      ins[i] = build(c.inputs[i].arr, device);
      operands.emplace_back(ins[i].view);
    }
  }
  std::vector<built_array> outs(c.outs.size());
  built_array where, indices, method_out;
  replay rp;
  std::string error_class, error_message;
  ufunc::call_options opt;
  unsigned compared = compared_flags(c, c.canonical.empty() ? f.name() : c.canonical);
  if (device) compared = device_compared_flags(c, compared);
  std::optional<fp_replay> fp;
  fp.emplace(mode, compared);
  unsigned raised = 0;  // fp_mode::raise: the kind of the floating_point_error thrown
  try {
    if (c.method != "call") {
      if constexpr (std::is_same_v<F, ufunc::gufunc::function>) return skip("gufuncs have no methods");
      if (auto r = run_method(c, f, target, ins, method_out, where, indices, rp)) return *r;
      if (c.method == "at")
        rp.bases.emplace_back(&ins[0], ins[0].view);
      else
        rp.bases.emplace_back(&ins[0], std::nullopt);
      if (ins.size() > 1) rp.bases.emplace_back(&ins[1], std::nullopt);
      if (!c.outs.empty()) rp.bases.emplace_back(&method_out, method_out.view);
    } else {
      for (std::size_t j = 0; j < c.outs.size(); ++j) {
        if (c.outs[j].alias >= 0) {
          opt.out.push_back(ins[static_cast<std::size_t>(c.outs[j].alias)].view);
        } else {
          outs[j] = build(c.outs[j].arr, device);
          opt.out.push_back(outs[j].view);
        }
      }
      if (c.where) {
        where = build(*c.where, device);
        opt.where = where.view;
      }
      opt.dtype = c.out_dtype;
      opt.signature = c.signature;
      if (c.casting) opt.casting = *c.casting;
      opt.target = target;
      if constexpr (requires { f.call(operands, opt); })
        rp.got = f.call(operands, opt);
      else
        return skip("calls are not replayed through this function");
      if (!c.outs.empty()) {
        for (std::size_t j = 0; j < rp.got.size() && j < opt.out.size(); ++j) {
          if (rp.got[j].data() != opt.out[j].data())
            return fail("output " + std::to_string(j) + ": the returned array is not the out= array");
          rp.got[j] = opt.out[j];
        }
      }
      for (std::size_t i = 0; i < ins.size(); ++i) {
        std::optional<array> written;
        for (std::size_t j = 0; j < c.outs.size(); ++j)
          if (c.outs[j].alias == static_cast<int>(i)) written = opt.out[j];
        rp.bases.emplace_back(&ins[i], written);
      }
      for (std::size_t j = 0; j < outs.size(); ++j)
        if (c.outs[j].alias < 0) rp.bases.emplace_back(&outs[j], opt.out[j]);
    }
    if (device && !rp.got.empty()) (void)ufunc::to_host(rp.got[0]);  // waits for the stream: errors surface here
  } catch (const ufunc::floating_point_error& e) {
    if (mode == fp_mode::raise) {
      raised = e.flag();
    } else {  // no policy raises: a library error like any other
      error_class = class_of(e);
    }
    error_message = e.what();
  } catch (const std::exception& e) {
    error_class = class_of(e);
    error_message = e.what();
  }
  const unsigned ours_flags = fp->flags(), warned = fp->warned();
  fp.reset();  // the comparison below computes with the library: under the runner's policies (ignore)
  if (error_class == "target_error" && device) return skip("cuda: " + error_message.substr(0, 120));
  if (mode == fp_mode::raise) {
    // NumPy's 'raise' throws FloatingPointError for the first kind it saw, in the order divide,
    // overflow, underflow, invalid (the library's order too): the lowest bit compared.
    const unsigned want = c.np_flags & compared, first = want & (~want + 1);
    if (raised != first)
      return fail("errstate raise: ours " +
                  (raised ? "throws floating_point_error for " + flag_names(raised) + " (" + error_message + ")"
                          : std::string("throws nothing")) +
                  ", NumPy raises " + (first ? "FloatingPointError for " + flag_names(first) : std::string("nothing")) +
                  " (compared: " + flag_names(compared) + ")");
    if (raised) return {};  // the outputs may be partly written, as in NumPy: nothing more to compare
  }
  if (mode == fp_mode::warn && !c.expect_error && error_class.empty() && warned != (c.np_flags & compared))
    return fail("errstate warn: ours warns " + flag_names(warned) + ", NumPy " + flag_names(c.np_flags & compared) +
                " (compared: " + flag_names(compared) + ")");
  if (c.expect_error) {
    if (error_class.empty())
      return fail("NumPy raises " + c.np_error + " (" + c.np_message + "), ours returns " +
                  (rp.got.empty() ? std::string("nothing")
                                  : std::string(rp.got[0].type().name()) + array::shape_string(rp.got[0].shape())));
    if (error_class != c.our_error)
      return fail("NumPy raises " + c.np_error + " (" + c.np_message + ") = " + c.our_error + ", ours " + error_class +
                  " (" + error_message + ")");
    return {};
  }
  if (!error_class.empty())
    return fail("ours raises " + error_class + " (" + error_message + "), NumPy returns " +
                (c.expected.empty()
                     ? std::string("?")
                     : std::string(c.expected[0].type.name()) + array::shape_string(c.expected[0].shape)));
  if (rp.got.size() != c.expected.size())
    return fail("ours returns " + std::to_string(rp.got.size()) + " outputs, NumPy " +
                std::to_string(c.expected.size()));

  bool device_operands = false;
  for (const auto& in : c.inputs) device_operands |= device && !in.is_scalar;
  device_operands |= device && (!c.outs.empty() || c.where.has_value());
  tolerance tol = ulp_bound(c.canonical.empty() ? f.name() : c.canonical);
  if (c.ulps_override >= 0) tol.real_ulps = tol.complex_ulps = c.ulps_override;
  if (c.half_zero_sign_free && !c.expected.empty() && c.expected[0].type == ufunc::float16) tol.zero_sign = false;
  bool complex_inputs = false;
  for (const auto& in : c.inputs) complex_inputs |= in.is_scalar ? in.scalar.kind == 'c' : in.arr.type.is_complex();
  condition_bound cond;  // ill-conditioned ufuncs: a bound from the case's inputs (see condition_bound)
  if (!c.expected.empty() && !c.expect_error)
    cond = condition_scales(c, condition_of(c.canonical.empty() ? f.name() : c.canonical, c.expected[0].type));
  for (std::size_t j = 0; j < c.expected.size(); ++j) {
    const std::string what = c.expected.size() > 1 ? "output " + std::to_string(j) : std::string("result");
    const array& got = rp.got[j];
    // Device operands give device results; a call on Python scalars alone stays on the host.
    if (got.device().is_host() == device_operands && got.size() > 0)
      return fail(what + " is on " + got.device().str() + ", the operands on " +
                  (device_operands ? "cuda" : "the host"));
    auto got_bytes = host_bytes(got);
    const auto* expected = &c.expected[j];
    const auto narrow = at_loop_precision(c.loop, j, *expected, got.type(), got_bytes);
    if (narrow) expected = &*narrow;
    const auto msg = compare_result(*expected, narrow ? expected->type : got.type(), got.shape(), got_bytes, tol,
                                    complex_inputs, c.abs_tol, what, j == 0 && !cond.scale.empty() ? &cond : nullptr);
    if (!msg.empty()) return fail(msg);
  }
  // Nothing outside the written views changed; inputs are untouched.
  for (std::size_t k = 0; k < rp.bases.size(); ++k) {
    const auto& [b, written] = rp.bases[k];
    if (!b->base.valid()) continue;
    const auto after = host_bytes(b->base);
    std::vector<char> inside(after.size(), 0);
    if (written) {
      const auto item = static_cast<std::int64_t>(written->itemsize());
      for (auto off : element_offsets(b->base, *written))
        for (std::int64_t i = 0; i < item; ++i) inside[static_cast<std::size_t>(off + i)] = 1;
    }
    for (std::size_t i = 0; i < after.size(); ++i)
      if (!inside[i] && after[i] != b->original[i])
        return fail(std::string(written ? "an output" : "an input") + ": byte " + std::to_string(i) +
                    " of its base array changed" + (written ? " outside the written view" : ""));
  }
  if (mode == fp_mode::call && (ours_flags ^ c.np_flags) & compared) {
    run_result r = fail(
        "floating-point flags: ours " + flag_names(ours_flags) + ", NumPy " + flag_names(c.np_flags) + " (differ in " +
        flag_names((ours_flags ^ c.np_flags) & compared) +
        (compared != all_fp_flags ? "; not compared: " + flag_names(all_fp_flags & ~compared) : std::string()) + ")");
    r.flags = ours_flags;
    return r;
  }
  run_result r;
  r.flags = ours_flags;
  return r;
}

}  // namespace

run_result run_case(const test_case& c, const ufunc::function& f, ufunc::target_id target, bool user, fp_mode mode) {
  return run_case_of(c, f, target, user, mode);
}

run_result replay_gufunc(const test_case& c, const ufunc::gufunc::function& g, ufunc::target_id target) {
  // The generator leaves the flags out of these cases (NumPy's matmul may run a BLAS): one
  // run, under 'call'.
  try {
    return run_case_of(c, g, target, false, fp_mode::call);
  } catch (const std::exception& e) {
    return fail(std::string("the runner could not build the case: ") + e.what());
  }
}

namespace {

// f.reduce through another function (replay_reduce_case).
struct reduce_adapter {
  const ufunc::function& f;
  const reduce_through& through;
  [[nodiscard]] const std::string& name() const { return f.name(); }
  [[nodiscard]] ufunc::array reduce(const ufunc::array& a, const ufunc::reduce_options& o) const {
    return through(a, o);
  }
};

template <class F>
run_result replay_case_of(const test_case& c, const F& f, ufunc::target_id target, bool user) {
  run_result r;
  try {
    r = run_case_of(c, f, target, user, fp_mode::call);
    // The other policies act on the same flags: checked where there are flags (ours or
    // NumPy's) and on every 8th case, where neither may raise or warn.
    unsigned compared = compared_flags(c, c.canonical.empty() ? f.name() : c.canonical);
    if (target == ufunc::target_id::cuda) compared = device_compared_flags(c, compared);
    if (r.k == run_result::kind::pass && compared && !c.expect_error &&
        (((r.flags | c.np_flags) & compared) || c.index % 8 == 0)) {
      for (auto mode : {fp_mode::raise, fp_mode::warn}) {
        if (r.k != run_result::kind::pass) break;
        r = run_case_of(c, f, target, user, mode);
      }
    }
  } catch (const std::exception& e) {
    r = fail(std::string("the runner could not build the case: ") + e.what());
  }
  return r;
}

}  // namespace

run_result replay_case(const test_case& c, const ufunc::function& f, ufunc::target_id target, bool user) {
  return replay_case_of(c, f, target, user);
}

run_result replay_reduce_case(const test_case& c, const ufunc::function& f, const reduce_through& reduce,
                              ufunc::target_id target, bool user) {
  if (c.method != "reduce") return skip("replay_reduce_case: not a reduce case");
  return replay_case_of(c, reduce_adapter{f, reduce}, target, user);
}

}  // namespace differential
