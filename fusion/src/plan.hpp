// The plan of a compiled graph (graph.hpp): where each value lives while a block runs and
// the steps that compute them. Shared by the host's fused loop (graph.cpp) and the CUDA
// source generated from the same plan (device_source.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ufunc/core/casting.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/fusion/graph.hpp>

namespace ufunc::cuda::rtc {
struct generated_loop;
}

namespace ufunc::fusion {

// Elements per block: the temporaries of a few nodes stay in the L1 data cache (4 float32
// temporaries: 16 KiB), as numexpr's blocks; a node's loop call costs tens of ns of
// dispatch, small beside 1024 elements. Measured on the 2-core VM (hyp, bench/fuse_bench):
// 1024 and 4096 within noise of each other, 512 slower (call overhead), 8192 slower (L2).
inline constexpr std::int64_t block = 1024;

inline std::size_t round_up(std::size_t n) { return (n + 63) / 64 * 64; }

// Where a value lives while a block runs: an operand of the fused call (strided), a
// constant (stride 0) or a temporary of one block (contiguous).
struct slot {
  enum class kind { operand, constant, temp, output };
  kind where;
  int index;  // operand position, constant number or temporary number
  dtype type;
  // Set where the value is weak (NEP 50), as a later node's loop resolution sees it: a C++
  // scalar argument of the fused call, or a value computed from weak operands only
  // (weak_result). The value itself still flows in `type`, cast to each loop's dtype.
  std::optional<weak_scalar> weak = std::nullopt;
};

struct compiled_graph::plan {
  struct argument {
    int slot;
    cast_loop_fn cast = nullptr;  // to the loop's dtype, into temporary cast_temp
    int cast_temp = -1;
  };
  struct step {
    function f;  // keeps the loop's code and state alive
    inner_loop_fn fn;
    const void* data;
    type_signature loop_types;
    std::vector<argument> inputs;
    std::vector<int> outputs;      // slots
    bool writes_output = false;    // a fused output is one of its results (write_outputs_in_place)
    fixed_run_fn fixed = nullptr;  // loop_entry::host_fixed_run
    std::array<std::int64_t, max_operands> run_steps{};  // without `fixed`: fn's steps over a run (contiguous)
    const char* source_op = nullptr;                     // the loop's operation as C++ (loop_entry::source_op)
    const char* source_preamble = nullptr;               // what source_op needs defined (loop_entry::source_preamble)
  };

  type_signature types;
  std::vector<slot> slots;
  std::vector<std::array<std::byte, 16>> constants;
  std::vector<dtype> temps;
  std::vector<std::size_t> temp_offsets;  // in one block's scratch
  std::size_t scratch_bytes = 0;
  std::vector<step> steps;
  // Runs of fixed_run elements (fused_loop): where most nodes have a fixed-run loop, a call
  // on contiguous operands computes run by run (the other nodes' loops over a run);
  // temporaries and casts get one run's room (temp_run_offsets, after the block scratch),
  // constants are spread over a run.
  bool runs = false;
  std::vector<std::size_t> temp_run_offsets;
  std::size_t run_scratch_bytes = 0;
  std::vector<std::vector<std::byte>> constant_runs;
  std::size_t run_pointers = 0;      // arguments of all steps: the per-call table of run pointers
  std::size_t run_spread_bytes = 0;  // that table and a run of each input, for broadcast ones
  std::vector<int> outputs;          // slots of the fused outputs
  std::vector<cast_loop_fn> output_copies;
  int overflowing_constants = 0;
  // The CUDA kernel of the graph (device_source.hpp), or why there is none.
  std::shared_ptr<cuda::rtc::generated_loop> device;
  std::string device_refusal;

  int add_slot(slot::kind k, int index, dtype t) {
    slots.push_back({k, index, t});
    return static_cast<int>(slots.size()) - 1;
  }
  int add_temp(dtype t) {
    temps.push_back(t);
    temp_offsets.push_back(scratch_bytes);
    scratch_bytes += round_up(static_cast<std::size_t>(block) * t.itemsize());
    return add_slot(slot::kind::temp, static_cast<int>(temps.size()) - 1, t);
  }
};

/// A slot's name in explain() and in generated code: x0 (operand), c0, t0, out0.
std::string value_name(const compiled_graph::plan& p, int s);

}  // namespace ufunc::fusion
