// The fixed-run loops (loop_entry::host_fixed_run) that fused expressions call node by
// node: every built-in loop that has one computes what its ordinary loop computes on the
// same fixed_run elements, bit for bit, and raises the same floating-point flags, with
// ordinary and with streaming stores. Fused equality with the chain (tests/unit/test_fuse.cpp)
// rests on it.
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <ufunc/core/detail/streaming.hpp>
#include <ufunc/ufunc.hpp>
#include <ufunc/vectorize.hpp>

#include "test_support.hpp"

namespace {

// fixed_run values of dtype t: sample values, and for floating dtypes the special ones
// (inf, -inf, NaN, zeros, the largest and smallest magnitudes) among them.
ufunc::array run_values(ufunc::dtype t, unsigned seed) {
  auto v = ufunc_test::sample_values<double>(std::size_t(ufunc::fixed_run), seed);
  if (t.is_floating() || t.is_complex()) {
    const double specials[] = {std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::quiet_NaN(),
                               0.0,
                               -0.0,
                               1e300,
                               -1e-300,
                               1e-310,
                               88.8,
                               -745.2,
                               1.0,
                               -1.0};
    for (std::size_t k = 0; k < std::size(specials); ++k) v[(k * 37 + seed) % v.size()] = specials[k];
  }
  auto a = ufunc::empty<double>({ufunc::fixed_run});
  std::copy(v.begin(), v.end(), a.data());
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  return ufunc::array(a).astype(t);
}

struct axpb {
  template <class T>
  T operator()(T x, T y) const {
    return x * T(3) + y;
  }
};
struct branchy {
  std::int64_t operator()(std::int64_t x) const { return x % 3 == 0 ? x : -x; }
};

struct outcome {
  std::vector<ufunc::array> outputs;
  int flags;
};

// Runs `e` over the inputs, by its ordinary loop (fixed = false) or its fixed-run loop.
outcome run(const ufunc::loop_entry& e, const std::vector<ufunc::array>& inputs, bool fixed, bool stream) {
  const auto& types = e.types;
  outcome r;
  char* args[ufunc::max_operands];
  std::int64_t steps[ufunc::max_operands];
  for (int i = 0; i < types.nin(); ++i) {
    args[i] = reinterpret_cast<char*>(const_cast<std::byte*>(inputs[std::size_t(i)].data()));
    steps[i] = static_cast<std::int64_t>(types.input(i).itemsize());
  }
  for (int o = 0; o < types.nout(); ++o) {
    r.outputs.push_back(ufunc::array::zeros({ufunc::fixed_run}, types.output(o)));
    args[types.nin() + o] = reinterpret_cast<char*>(r.outputs.back().data());
    steps[types.nin() + o] = static_cast<std::int64_t>(types.output(o).itemsize());
  }
  std::feclearexcept(FE_ALL_EXCEPT);
  if (fixed) {
    e.host_fixed_run(args, e.host_data, stream);
    if (stream) ufunc::detail::store_fence();
  } else {
    e.host(args, ufunc::fixed_run, steps, e.host_data);
  }
  r.flags = std::fetestexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW | FE_UNDERFLOW);
  return r;
}

bool same_bytes(const ufunc::array& a, const ufunc::array& b) {
  return a.type() == b.type() && std::memcmp(a.data(), b.data(), std::size_t(a.nbytes())) == 0;
}

}  // namespace

TEST_CASE("fixed-run loops: every built-in loop that has one equals its ordinary loop, values and flags") {
  int checked = 0, without = 0;
  for (const ufunc::function& f : ufunc::builtin_list) {
    for (const std::string& sig : f.types()) {
      std::vector<ufunc::dtype> in;
      for (char c : sig.substr(0, sig.find("->"))) in.push_back(ufunc::dtype::from_char(c));
      ufunc::loop_entry e;
      try {
        e = f.resolve_loop(std::span<const ufunc::dtype>(in));
      } catch (const ufunc::error&) {
        continue;
      }
      if (e.types.str() != sig) continue;  // resolution picks another loop for these inputs
      if (e.host_fixed_run == nullptr) {
        ++without;
        continue;
      }
      CAPTURE(f.name());
      CAPTURE(sig);
      std::vector<ufunc::array> inputs;
      for (std::size_t i = 0; i < in.size(); ++i) inputs.push_back(run_values(in[i], unsigned(11 * i + 3)));
      const outcome want = run(e, inputs, false, false);
      for (bool stream : {false, true}) {
        CAPTURE(stream);
        const outcome got = run(e, inputs, true, stream);
        REQUIRE(got.outputs.size() == want.outputs.size());
        for (std::size_t o = 0; o < got.outputs.size(); ++o) CHECK(same_bytes(got.outputs[o], want.outputs[o]));
        CHECK(got.flags == want.flags);
      }
      ++checked;
    }
  }
  MESSAGE(checked << " built-in loops have a fixed-run loop, " << without << " do not");
  CHECK(checked > 100);  // 160 with the baseline's SSE2, more with AVX2 (integer products, conversions)
}

TEST_CASE("fixed-run loops: a vectorized functor gets one; a functor without a SIMD path does not") {
  auto v = ufunc::vectorize<ufunc::signatures<float(float, float), double(double, double)>, ufunc::target::cpu>(axpb{},
                                                                                                                "axpb");
  for (ufunc::dtype t : {ufunc::float32, ufunc::float64}) {
    const ufunc::dtype in[] = {t, t};
    const auto e = v.ufunc().resolve_loop(std::span<const ufunc::dtype>(in));
    REQUIRE((e.host_fixed_run != nullptr));
    const std::vector<ufunc::array> inputs{run_values(t, 1), run_values(t, 2)};
    CHECK(same_bytes(run(e, inputs, true, false).outputs[0], run(e, inputs, false, false).outputs[0]));
  }
  auto s = ufunc::vectorize<ufunc::signatures<std::int64_t(std::int64_t)>, ufunc::target::cpu>(branchy{}, "branchy");
  const ufunc::dtype in[] = {ufunc::int64};
  CHECK((s.ufunc().resolve_loop(std::span<const ufunc::dtype>(in)).host_fixed_run == nullptr));
}
