#include <ufunc/fusion/graph.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include <ufunc/core/array.hpp>
#include <ufunc/core/casting.hpp>
#include <ufunc/core/detail/streaming.hpp>
#include <ufunc/core/error.hpp>

#include <ufunc/backends/cuda/rtc/generated_loop.hpp>
#include <ufunc/core/device_call.hpp>

#include "device_source.hpp"
#include "plan.hpp"

namespace ufunc::fusion {

namespace {

using plan = compiled_graph::plan;

// A constant's kind and exact value as bytes: equal keys, equal constants.
std::string constant_bits(const weak_scalar& w) {
  std::array<std::byte, 32> bytes{};
  if (w.value_kind() == weak_scalar::kind::integer) {
    w.store(int64, bytes.data());  // with uint64: every integer a weak scalar holds, exactly
    w.store(uint64, bytes.data() + 8);
  } else {
    w.store(complex128, bytes.data());
  }
  std::string s(1, char('0' + int(w.value_kind())));
  for (std::byte b : bytes) s += char('a' + (int(b) >> 4)), s += char('a' + (int(b) & 15));
  return s;
}

class compiler {
 public:
  compiler(plan& p, std::span<const dtype> input_types, std::span<const std::optional<weak_scalar>> weak_inputs)
      : p_(p), input_types_(input_types), weak_inputs_(weak_inputs) {}

  // The slot of a value that is not a bare constant.
  int value(const expr& e) {
    const node& n = e.get();
    switch (n.what) {
      case node::kind::input: {
        if (n.index < 0 || n.index >= static_cast<int>(input_types_.size()))
          throw value_error("fuse: input " + std::to_string(n.index) + " of a call with " +
                            std::to_string(input_types_.size()) + " inputs");
        if (auto it = inputs_.find(n.index); it != inputs_.end()) return it->second;
        const int s = p_.add_slot(slot::kind::operand, n.index, input_types_[std::size_t(n.index)]);
        if (!weak_inputs_.empty()) p_.slots[std::size_t(s)].weak = weak_inputs_[std::size_t(n.index)];
        return inputs_[n.index] = s;
      }
      case node::kind::constant:
        throw value_error("fuse: an output of the fused function is a constant (" + n.value->str() +
                          "); return an expression of the inputs");
      case node::kind::reduction:
        throw value_error("fuse: " + n.site->f.name() +
                          ".reduce is taken only at the end: as the fused function's one output, not as an "
                          "argument of another node");
      case node::kind::call:
        break;
    }
    if (n.site->truth_test && n.site->args.front().get().what != node::kind::constant) {
      const int x = value(n.site->args.front());
      const slot& v = p_.slots[std::size_t(x)];
      if (v.type == bool_ && !v.weak) return x;  // x != 0 is x
    }
    return call(*n.site)[std::size_t(n.index)];
  }

 private:
  const std::vector<int>& call(const call_site& site) {
    if (auto it = calls_.find(&site); it != calls_.end()) return it->second;
    const int nin = site.f.nin();
    // The operands as the ufunc's resolution sees them: arrays of the flowing dtypes
    // (empty ones: only their dtype is read), constants and weak values as weak scalars.
    std::vector<operand> operands;
    std::vector<int> arg_slots(std::size_t(nin), -1);
    bool weak_operands_only = true;
    for (int i = 0; i < nin; ++i) {
      const node& a = site.args[std::size_t(i)].get();
      if (a.what == node::kind::constant) {
        operands.emplace_back(*a.value);
        continue;
      }
      arg_slots[std::size_t(i)] = value(site.args[std::size_t(i)]);
      const slot& v = p_.slots[std::size_t(arg_slots[std::size_t(i)])];
      if (v.weak) {
        operands.emplace_back(*v.weak);
      } else {
        operands.emplace_back(array::empty({0}, v.type));
        weak_operands_only = false;
      }
    }
    // The same ufunc on the same values is computed once (the Black-Scholes example traces
    // its cumulative normal four times, twice on each argument): ufuncs have no side effects,
    // and the flags a node raises are the same raised once or twice.
    std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(&site.f.name()));
    for (int i = 0; i < nin; ++i) {
      const node& a = site.args[std::size_t(i)].get();
      key += a.what == node::kind::constant ? " c" + constant_bits(*a.value)
                                            : " s" + std::to_string(arg_slots[std::size_t(i)]);
    }
    if (auto it = same_calls_.find(key); it != same_calls_.end()) return calls_[&site] = it->second;
    loop_entry loop;
    try {
      loop = site.f.resolve_loop(std::span<const operand>(operands));
    } catch (const no_loop_error& e) {
      std::string types;
      for (int i = 0; i < nin; ++i) {
        const node& a = site.args[std::size_t(i)].get();
        types += (i ? ", " : "") + (a.what == node::kind::constant
                                        ? "a C++ scalar " + a.value->str()
                                        : std::string(p_.slots[std::size_t(arg_slots[std::size_t(i)])].type.name()));
      }
      throw no_loop_error("fuse: node " + std::to_string(p_.steps.size()) + ", " + site.f.name() + "(" + types +
                          "): " + e.what());
    }
    plan::step s{site.f, loop.host,      loop.host_data,      loop.types, {}, {}, false, loop.host_fixed_run,
                 {},     loop.source_op, loop.source_preamble};
    for (int i = 0; i < nin; ++i) {
      const dtype want = loop.types.input(i);
      const node& a = site.args[std::size_t(i)].get();
      if (a.what == node::kind::constant) {
        // Converted once, into the loop's dtype, as a call converts a scalar argument.
        std::array<std::byte, 16> bytes{};
        a.value->store(want, bytes.data());
        if (a.value->overflows(want)) ++p_.overflowing_constants;
        p_.constants.push_back(bytes);
        s.inputs.push_back({p_.add_slot(slot::kind::constant, static_cast<int>(p_.constants.size()) - 1, want)});
        continue;
      }
      plan::argument arg{arg_slots[std::size_t(i)]};
      const dtype have = p_.slots[std::size_t(arg.slot)].type;
      if (have != want) {
        arg.cast = get_cast_loop(have, want);
        arg.cast_temp = p_.add_temp(want);
      }
      s.inputs.push_back(arg);
    }
    for (int o = 0; o < loop.types.nout(); ++o) {
      const int out = p_.add_temp(loop.types.output(o));
      if (weak_operands_only) p_.slots[std::size_t(out)].weak = weak_result(loop.types.output(o));
      s.outputs.push_back(out);
    }
    p_.steps.push_back(std::move(s));
    same_calls_[key] = p_.steps.back().outputs;
    return calls_[&site] = p_.steps.back().outputs;
  }

  plan& p_;
  std::span<const dtype> input_types_;
  std::span<const std::optional<weak_scalar>> weak_inputs_;
  std::map<int, int> inputs_;
  std::map<const call_site*, std::vector<int>> calls_;
  std::map<std::string, std::vector<int>> same_calls_;  // by ufunc and argument values
};

// Pointer and byte step of slot `s` for the block starting at element k.
struct located {
  char* pointer;
  std::int64_t step;
};

located locate(const plan& p, int s, char* const* args, const std::int64_t* steps, std::int64_t k, std::byte* scratch) {
  const slot& v = p.slots[std::size_t(s)];
  switch (v.where) {
    case slot::kind::operand:
      return {args[v.index] + k * steps[v.index], steps[v.index]};
    case slot::kind::constant:
      return {reinterpret_cast<char*>(const_cast<std::byte*>(p.constants[std::size_t(v.index)].data())), 0};
    case slot::kind::output: {
      const int out = p.types.nin() + v.index;
      return {args[out] + k * steps[out], steps[out]};
    }
    case slot::kind::temp:
      break;
  }
  return {reinterpret_cast<char*>(scratch + p.temp_offsets[std::size_t(v.index)]),
          static_cast<std::int64_t>(v.type.itemsize())};
}

// One scratch area per nesting depth on each thread: a node may itself be a fused ufunc.
struct scratch_stack {
  std::vector<std::vector<std::byte>> areas;
  std::size_t depth = 0;
};
thread_local scratch_stack scratch_areas;

// The area starts on a cache line, as the temporaries' offsets in it do (round_up): a
// vector load of a temporary then never straddles two lines (with AVX-512, from a
// 16-byte-aligned area every one would).
struct scratch_scope {
  std::byte* data;
  explicit scratch_scope(std::size_t bytes) {
    auto& s = scratch_areas;
    if (s.areas.size() <= s.depth) s.areas.resize(s.depth + 1);
    auto& area = s.areas[s.depth++];
    if (area.size() < bytes + 64) area.resize(bytes + 64);
    const auto address = reinterpret_cast<std::uintptr_t>(area.data());
    data = area.data() + (64 - address % 64) % 64;
  }
  ~scratch_scope() { --scratch_areas.depth; }
  scratch_scope(const scratch_scope&) = delete;
  scratch_scope& operator=(const scratch_scope&) = delete;
};

// `value` (`size` bytes) copied into each element of one run at `run`: constants and
// broadcast inputs, read by the fixed-run loops as contiguous operands.
void spread_over_run(std::byte* run, const void* value, std::size_t size) {
  for (std::int64_t j = 0; j < fixed_run; ++j) std::memcpy(run + std::size_t(j) * size, value, size);
}

// Where a value of run k is: base + k * stride (stride: the element size for the call's
// operands, 0 for a temporary, a constant or a broadcast operand, which one run's room holds).
struct run_pointer {
  char* base;
  std::int64_t stride;
};

// The whole runs of fixed_run elements from element 0, each node's fixed-run loop in turn
// (plan::runs); returns where they end: 0 where an operand is not contiguous (or broadcast,
// for an input), and the blocks take the call. A run's outputs are written after its inputs
// were read, as a block's.
std::int64_t fused_runs(const plan& p, char* const* args, std::int64_t n, const std::int64_t* steps, std::byte* scratch,
                        bool stream_outputs) {
  const int nin = p.types.nin(), nargs = p.types.nargs();
  for (int i = 0; i < nargs; ++i) {
    const auto size = static_cast<std::int64_t>(p.types[i].itemsize());
    if (steps[i] != size && !(i < nin && steps[i] == 0)) return 0;
  }
  // The table of run pointers, then a run of each broadcast input, after the temporaries.
  auto* table = reinterpret_cast<run_pointer*>(scratch + p.run_scratch_bytes);
  std::byte* spread = scratch + p.run_scratch_bytes + round_up(p.run_pointers * sizeof(run_pointer));
  run_pointer operands[max_operands];
  bool aligned_outputs = true;
  for (int i = 0; i < nargs; ++i) {
    const auto size = static_cast<std::size_t>(p.types[i].itemsize());
    operands[i] = {args[i], static_cast<std::int64_t>(size)};
    if (i >= nin) aligned_outputs &= reinterpret_cast<std::uintptr_t>(args[i]) % 64 == 0;
    if (i >= nin || steps[i] != 0) continue;
    spread_over_run(spread, args[i], size);
    operands[i] = {reinterpret_cast<char*>(spread), 0};
    spread += round_up(std::size_t(fixed_run) * size);
  }
  auto where = [&](int s) -> run_pointer {
    const slot& v = p.slots[std::size_t(s)];
    switch (v.where) {
      case slot::kind::operand:
        return operands[v.index];
      case slot::kind::output:
        return operands[nin + v.index];
      case slot::kind::constant:
        return {reinterpret_cast<char*>(const_cast<std::byte*>(p.constant_runs[std::size_t(v.index)].data())), 0};
      case slot::kind::temp:
        break;
    }
    return {reinterpret_cast<char*>(scratch + p.temp_run_offsets[std::size_t(v.index)]), 0};
  };
  std::size_t t = 0;
  for (const auto& s : p.steps) {
    for (const auto& arg : s.inputs) table[t++] = where(arg.cast != nullptr ? arg.cast_temp : arg.slot);
    for (int o : s.outputs) table[t++] = where(o);
  }
  // Outputs stream only where every one is aligned to 64 bytes (a batch of any instruction set).
  const bool stream = stream_outputs && aligned_outputs;
  std::int64_t k = 0;
  char* a[max_operands];
  for (; k + fixed_run <= n; k += fixed_run) {
    const run_pointer* r = table;
    for (const auto& s : p.steps) {
      int j = 0;
      for (const auto& arg : s.inputs) {
        if (arg.cast != nullptr) {
          const run_pointer from = where(arg.slot);
          arg.cast(reinterpret_cast<const std::byte*>(from.base + k * from.stride),
                   static_cast<std::int64_t>(p.slots[std::size_t(arg.slot)].type.itemsize()),
                   reinterpret_cast<std::byte*>(r[j].base),
                   static_cast<std::int64_t>(p.slots[std::size_t(arg.cast_temp)].type.itemsize()), fixed_run);
        }
        a[j] = r[j].base + k * r[j].stride;
        ++j;
      }
      for (std::size_t o = 0; o < s.outputs.size(); ++o, ++j) a[j] = r[j].base + k * r[j].stride;
      if (s.fixed != nullptr) {
        s.fixed(a, s.data, stream && s.writes_output);
      } else {
        ufunc::detail::stream_stores = stream && s.writes_output;
        s.fn(a, fixed_run, s.run_steps.data(), s.data);
        ufunc::detail::stream_stores = false;
      }
      r += j;
    }
    for (std::size_t o = 0; o < p.outputs.size(); ++o) {
      if (p.output_copies[o] == nullptr) continue;  // its node wrote it
      const run_pointer from = where(p.outputs[o]);
      const int out = nin + static_cast<int>(o);
      const auto size = static_cast<std::int64_t>(p.types[out].itemsize());
      p.output_copies[o](reinterpret_cast<const std::byte*>(from.base + k * from.stride), size,
                         reinterpret_cast<std::byte*>(args[out] + k * size), size, fixed_run);
    }
  }
  if (stream) ufunc::detail::store_fence();
  return k;
}

// The fused loop: the whole graph over blocks of the run, each node's own loop in turn.
// A block's outputs are written after all of its inputs were read, so an output may be
// an input (in place). Where the plan runs by runs (plan_runs), contiguous calls go run by
// run (fused_runs) and only the last partial run takes a block.
void fused_loop(char* const* args, std::int64_t n, const std::int64_t* steps, const void* data) {
  const plan& p = *static_cast<const plan*>(data);
  const scratch_scope scratch(p.scratch_bytes + (p.runs ? p.run_scratch_bytes + p.run_spread_bytes : 0));
  // A large call streams its output stores (core/detail/streaming.hpp): only the nodes
  // that write a fused output may; a temporary written that way would be read back from memory.
  const bool stream_outputs = ufunc::detail::stream_stores;
  const ufunc::detail::stream_stores_scope restore(false);
  const int nin = p.types.nin();
  char* a[max_operands];
  std::int64_t st[max_operands];
  const std::int64_t start =
      p.runs && n >= fixed_run ? fused_runs(p, args, n, steps, scratch.data + p.scratch_bytes, stream_outputs) : 0;
  for (std::int64_t k = start; k < n; k += block) {
    const std::int64_t m = std::min(block, n - k);
    for (const auto& s : p.steps) {
      int j = 0;
      for (const auto& arg : s.inputs) {
        located l = locate(p, arg.slot, args, steps, k, scratch.data);
        if (arg.cast != nullptr) {
          const located to = locate(p, arg.cast_temp, args, steps, k, scratch.data);
          arg.cast(reinterpret_cast<const std::byte*>(l.pointer), l.step, reinterpret_cast<std::byte*>(to.pointer),
                   to.step, m);
          l = to;
        }
        a[j] = l.pointer;
        st[j++] = l.step;
      }
      for (int o : s.outputs) {
        const located l = locate(p, o, args, steps, k, scratch.data);
        a[j] = l.pointer;
        st[j++] = l.step;
      }
      ufunc::detail::stream_stores = stream_outputs && s.writes_output;
      s.fn(a, m, st, s.data);
    }
    ufunc::detail::stream_stores = false;
    for (std::size_t o = 0; o < p.outputs.size(); ++o) {
      if (p.output_copies[o] == nullptr) continue;  // its node wrote it
      const located from = locate(p, p.outputs[o], args, steps, k, scratch.data);
      const int out = nin + static_cast<int>(o);
      p.output_copies[o](reinterpret_cast<const std::byte*>(from.pointer), from.step,
                         reinterpret_cast<std::byte*>(args[out] + k * steps[out]), steps[out], m);
    }
  }
}

// A node whose result is a fused output writes it straight into the output instead of a
// temporary (saving a copy), where no later node reads an operand of the call: the output
// may be an input (in place), and those reads would see the block already written.
void write_outputs_in_place(plan& p) {
  auto reads_operands = [&](const plan::step& s) {
    return std::any_of(s.inputs.begin(), s.inputs.end(), [&](const plan::argument& a) {
      return p.slots[std::size_t(a.slot)].where == slot::kind::operand;
    });
  };
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    slot& v = p.slots[std::size_t(p.outputs[o])];
    if (v.where != slot::kind::temp) continue;  // an input returned as it is, or an output already
    std::size_t producer = p.steps.size();
    for (std::size_t k = 0; k < p.steps.size(); ++k)
      for (int s : p.steps[k].outputs)
        if (s == p.outputs[o]) producer = k;
    if (producer == p.steps.size()) continue;
    if (std::any_of(p.steps.begin() + std::ptrdiff_t(producer) + 1, p.steps.end(), reads_operands)) continue;
    v.where = slot::kind::output;
    v.index = static_cast<int>(o);
    p.output_copies[o] = nullptr;
    p.steps[producer].writes_output = true;
  }
}

// Temporaries whose lives do not overlap share scratch memory: a temporary lives from the
// step that writes it to the last step that reads it (a cast's temporary, within its step),
// and the inputs and outputs of one step never share. Offsets are reassigned here, after
// write_outputs_in_place turned some temporaries into outputs. `elements`: the room of
// each temporary (a block or a run); returns the bytes of them all.
std::size_t share_scratch(const plan& p, std::int64_t elements, std::vector<std::size_t>& offsets) {
  const std::size_t ntemps = p.temps.size();
  std::vector<std::size_t> first(ntemps, p.steps.size()), last(ntemps, 0);
  std::vector<bool> used(ntemps, false);
  auto touch = [&](int slot_index, std::size_t step) {
    const slot& v = p.slots[std::size_t(slot_index)];
    if (v.where != slot::kind::temp) return;
    const auto t = std::size_t(v.index);
    used[t] = true;
    first[t] = std::min(first[t], step);
    last[t] = std::max(last[t], step);
  };
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    for (const auto& a : p.steps[k].inputs) {
      touch(a.slot, k);
      if (a.cast_temp >= 0) touch(a.cast_temp, k);
    }
    for (int o : p.steps[k].outputs) touch(o, k);
  }
  for (int o : p.outputs) touch(o, p.steps.size());  // copied out after the last step
  // First fit over the temporaries in the order they are written.
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < ntemps; ++t)
    if (used[t]) order.push_back(t);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return first[a] < first[b]; });
  struct region {
    std::size_t offset, bytes, busy_until;
  };
  std::vector<region> regions;
  std::size_t total = 0;
  for (std::size_t t : order) {
    const std::size_t bytes = round_up(static_cast<std::size_t>(elements) * p.temps[t].itemsize());
    region* fit = nullptr;
    for (auto& r : regions)
      if (r.bytes >= bytes && r.busy_until < first[t] && (fit == nullptr || r.bytes < fit->bytes)) fit = &r;
    if (fit == nullptr) {
      regions.push_back({total, bytes, 0});
      total += bytes;
      fit = &regions.back();
    }
    offsets[t] = fit->offset;
    fit->busy_until = last[t];
  }
  return total;
}

// Whether the graph runs run by run (fused_runs): at least half of its nodes have a
// fixed-run loop (the others' loops cost a call setup per run, which blocks share among
// more elements). Lays out one run's temporaries, constants spread over a run, the room of
// the per-call table.
void plan_runs(plan& p) {
  const auto fixed = std::count_if(p.steps.begin(), p.steps.end(), [](const plan::step& s) { return s.fixed; });
  p.runs = fixed > 0 && 2 * std::size_t(fixed) >= p.steps.size();
  if (!p.runs) return;
  for (auto& s : p.steps)
    for (int i = 0; i < s.loop_types.nargs(); ++i)
      s.run_steps[std::size_t(i)] = static_cast<std::int64_t>(s.loop_types[i].itemsize());
  p.temp_run_offsets.assign(p.temps.size(), 0);
  p.run_scratch_bytes = share_scratch(p, fixed_run, p.temp_run_offsets);
  p.constant_runs.resize(p.constants.size());
  for (const slot& v : p.slots) {
    if (v.where != slot::kind::constant) continue;
    const std::size_t size = v.type.itemsize();
    auto& run = p.constant_runs[std::size_t(v.index)];
    run.resize(std::size_t(fixed_run) * size);
    spread_over_run(run.data(), p.constants[std::size_t(v.index)].data(), size);
  }
  p.run_pointers = 0;
  for (const auto& s : p.steps) p.run_pointers += s.inputs.size() + s.outputs.size();
  p.run_spread_bytes = round_up(p.run_pointers * sizeof(run_pointer));
  for (int i = 0; i < p.types.nin(); ++i)
    p.run_spread_bytes += round_up(std::size_t(fixed_run) * p.types[i].itemsize());
}

// The device launcher of a graph that has no kernel: says which node keeps it from one.
void refuse_device(const device_call&, const void* data) {
  throw value_error("fuse: cannot run on cuda: " + static_cast<const plan*>(data)->device_refusal);
}

}  // namespace

std::string value_name(const compiled_graph::plan& p, int s) {
  const slot& v = p.slots[std::size_t(s)];
  switch (v.where) {
    case slot::kind::operand:
      return "x" + std::to_string(v.index);
    case slot::kind::constant:
      return "c" + std::to_string(v.index);
    case slot::kind::output:
      return "out" + std::to_string(v.index);
    case slot::kind::temp:
      break;
  }
  return "t" + std::to_string(v.index);
}

std::shared_ptr<const compiled_graph> compile_graph(std::span<const expr> outputs, std::span<const dtype> input_types,
                                                    std::span<const std::optional<weak_scalar>> weak_inputs,
                                                    std::string_view name) {
  if (outputs.empty()) throw value_error("fuse: the fused function returns nothing");
  if (input_types.empty()) throw value_error("fuse: a fused function takes at least one input");
  if (input_types.size() + outputs.size() > std::size_t(max_operands))
    throw value_error("fuse: " + std::to_string(input_types.size() + outputs.size()) + " inputs and outputs; at most " +
                      std::to_string(max_operands));
  auto p = std::make_unique<plan>();
  if (!weak_inputs.empty() && weak_inputs.size() != input_types.size())
    throw value_error("fuse: " + std::to_string(weak_inputs.size()) + " weak inputs for " +
                      std::to_string(input_types.size()) + " inputs");
  compiler c(*p, input_types, weak_inputs);
  for (const auto& e : outputs) p->outputs.push_back(c.value(e));
  p->types.resize(static_cast<int>(input_types.size()), static_cast<int>(outputs.size()));
  for (std::size_t i = 0; i < input_types.size(); ++i) p->types.set(static_cast<int>(i), input_types[i]);
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const dtype t = p->slots[std::size_t(p->outputs[o])].type;
    p->types.set(static_cast<int>(input_types.size() + o), t);
    p->output_copies.push_back(get_cast_loop(t, t));
  }
  write_outputs_in_place(*p);
  p->scratch_bytes = share_scratch(*p, block, p->temp_offsets);
  plan_runs(*p);
  try {
    generate_device_loop(*p, name);
  } catch (const error& e) {  // the host targets run the graph all the same; a cuda call says why not
    p->device.reset();
    p->device_refusal = std::string("its kernel could not be generated: ") + e.what();
  }
  return std::make_shared<const compiled_graph>(std::move(p));
}

compiled_graph::compiled_graph(std::unique_ptr<plan> p) : plan_(std::move(p)) {}
compiled_graph::~compiled_graph() = default;

const type_signature& compiled_graph::types() const noexcept { return plan_->types; }

int compiled_graph::overflowing_constants() const noexcept { return plan_->overflowing_constants; }

loop_entry compiled_graph::loop(const std::shared_ptr<const compiled_graph>& self) const {
  loop_entry e;
  e.types = plan_->types;
  e.host = &fused_loop;
  e.host_data = plan_.get();
  e.keepalive = self;
  if (plan_->device)
    cuda::rtc::attach_device(e, plan_->device);
  else
    e.devices.set({target_id::cuda, &refuse_device, nullptr, plan_.get()});
  return e;
}

const std::string& compiled_graph::device_source() const noexcept {
  return plan_->device ? cuda::rtc::source_of(*plan_->device) : plan_->device_refusal;
}

bool compiled_graph::runs_on_device() const noexcept { return plan_->device != nullptr; }

std::string compiled_graph::explain() const {
  const plan& p = *plan_;
  std::string s;
  for (const auto& step : p.steps) {
    for (std::size_t o = 0; o < step.outputs.size(); ++o) s += (o ? ", " : "") + value_name(p, step.outputs[o]);
    s += " = " + step.f.name() + "(";
    for (std::size_t i = 0; i < step.inputs.size(); ++i) {
      const auto& arg = step.inputs[i];
      s += i ? ", " : "";
      if (arg.cast != nullptr)
        s += std::string(step.loop_types.input(int(i)).name()) + "(" + value_name(p, arg.slot) + ")";
      else
        s += value_name(p, arg.slot);
    }
    s += ")  " + step.loop_types.str() + "\n";
  }
  for (std::size_t o = 0; o < p.outputs.size(); ++o)
    if (p.output_copies[o] != nullptr)  // not written by its node: copied after each block
      s += "out" + std::to_string(o) + " = " + value_name(p, p.outputs[o]) + "  " +
           std::string(p.slots[std::size_t(p.outputs[o])].type.name()) + "\n";
  // Which nodes have no fixed-run loop (they cost a loop call per run, or keep the graph in blocks).
  std::string slow;
  for (std::size_t k = 0; k < p.steps.size(); ++k)
    if (!p.steps[k].fixed)
      slow += (slow.empty() ? "" : ", ") + std::to_string(k) + " " + p.steps[k].f.name() + " (" +
              p.steps[k].loop_types.str() + ")";
  if (p.runs)
    s += "host: runs of " + std::to_string(fixed_run) + " contiguous elements, blocks of " + std::to_string(block) +
         " otherwise" + (slow.empty() ? "" : "; nodes without a fixed-run loop: " + slow) + "\n";
  else
    s += "host: blocks of " + std::to_string(block) + " elements" +
         (slow.empty() ? "" : "; nodes without a fixed-run loop: " + slow) + "\n";
  return s;
}

}  // namespace ufunc::fusion
