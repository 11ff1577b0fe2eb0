// Fused expressions on cuda without a GPU: the kernel generated from a graph (each node
// calling its built-in operation from the library's embedded device headers) compiles
// under NVRTC for every built-in ufunc and dtype (test suite "nvrtc", ctest unit.nvrtc),
// its constants are exact, and a graph with a node that has no source says which.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <ufunc/backends/cuda/rtc/compiler.hpp>
#include <ufunc/backends/cuda/rtc/elementwise_kernel.hpp>
#include <ufunc/fuse.hpp>
#include <ufunc/fusion/graph.hpp>
#include <ufunc/vectorize.hpp>

#include <doctest/doctest.h>

#include "../../examples/black_scholes.hpp"
#include "nvrtc_support.hpp"

namespace rtc = ufunc::cuda::rtc;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// How often `what` occurs in `s` from `from` on.
std::size_t count(const std::string& s, const std::string& what, std::size_t from) {
  std::size_t n = 0;
  for (auto at = s.find(what, from); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The graph's kernel compiled for sm_90, one instantiation (as a first call compiles).
void compile_for_sm90(const std::string& source, const std::string& name,
                      const std::string& instantiation = "_ufunc_elementwise<1, false>") {
  rtc::compile_request r;
  r.source = source;
  r.name = name + ".cu";
  r.architecture = 90;
  r.name_expressions = {instantiation};
  r.headers = rtc::library_headers();
  r.options = rtc::library_header_options();
  r.options.emplace_back("--fmad=false");
  ufunc_test::compile_check_only(r);
  const auto out = rtc::compile(r);
  CHECK(out.cubin.compare(0, 4,
                          "\x7f"
                          "ELF") == 0);
}

std::shared_ptr<const ufunc::fusion::compiled_graph> graph_of(const ufunc::function& f,
                                                              const std::vector<ufunc::dtype>& types) {
  std::vector<ufunc::fusion::expr> inputs;
  for (int i = 0; i < f.nin(); ++i) inputs.push_back(ufunc::fusion::input(i));
  const auto outputs = ufunc::fusion::apply_all(f, inputs);
  return ufunc::fusion::compile_graph(outputs, types, {}, f.name());
}

}  // namespace

TEST_CASE("fused cuda source: each node calls its operation, casts and flags per node, exact constants") {
  auto f = ufunc::fuse([](auto a, auto b) { return ufunc::sqrt(a * a + b * 2.5) < 1.0; }, "hypish");
  const std::string s = f.device_source({ufunc::int8, ufunc::float32});
  CHECK(contains(s, "ufunc::ops::multiply{}("));
  CHECK(contains(s, "_fused::fp_flags_of<ufunc::ops::sqrt>("));
  CHECK(contains(s, "_fused::convert_op<float, signed char>"));  // int8 * int8 stays int8; + 2.5 -> float32
  CHECK(contains(s, "__uint_as_float(0x40200000ull)"));          // 2.5f, by its bits
  CHECK(contains(s, "y0 = out0;"));
  CHECK(contains(f.explain({ufunc::float32, ufunc::float32}), "cuda: one kernel generated from these nodes"));

  // A node whose loop is a functor compiled into the program has no source: said, not hidden.
  const auto twice =
      ufunc::vectorize<ufunc::signatures<float(float)>, ufunc::target::cpu>([](float x) { return 2 * x; }, "twice");
  const ufunc::function& node = twice.ufunc();
  auto g = ufunc::fuse([&node](auto a) { return ufunc::fusion::apply(node, {{a + 1.0f}}); }, "with_twice");
  CHECK(contains(g.explain({ufunc::float32}), "cuda: not fused: node twice (f->f) has no source"));
  CHECK_THROWS_WITH_AS((void)g.device_source({ufunc::float32}), doctest::Contains("node twice"), ufunc::value_error);
}

TEST_CASE("fused cuda source: a C++ scalar argument is read once, so contiguous calls run the contiguous kernel") {
  // x * r + 1 with r a weak float (a C++ double argument): float32 throughout, r cast once per
  // element from the double it is read as.
  std::vector<ufunc::fusion::expr> in{ufunc::fusion::input(0), ufunc::fusion::input(1)};
  const auto outputs = std::vector<ufunc::fusion::expr>{in[0] * in[1] + 1.0};
  const std::vector<std::optional<ufunc::weak_scalar>> weak{std::nullopt, ufunc::weak_scalar(2.5)};
  const std::vector<ufunc::dtype> types{ufunc::float32, ufunc::float64};
  const auto g = ufunc::fusion::compile_graph(outputs, types, weak, "scaled");
  REQUIRE(g->runs_on_device());
  const std::string& s = g->device_source();
  const auto loop = s.find("for (int _u = 0;");
  const auto once = s.find("const double x1 = *reinterpret_cast<const double*>(_c.base[1]);");
  REQUIRE(once != std::string::npos);
  CHECK(once < loop);
  CHECK_FALSE(contains(s, "_in1"));
  // Its cast to float32 is made once per thread, before the elements. It is not probed there:
  // the product carries an infinite or NaN r into its result, probed with the element's.
  const auto cast = s.find("_fused::convert_op<float, double>{}(x1)", once);
  CHECK(cast > once);
  CHECK(cast < loop);
  CHECK_FALSE(contains(s, "_ufunc::probe(_upd, x1);"));
  CHECK(contains(s, "_ufunc::probe(_pf, out0);"));
  // The same graph of two arrays reads both per element.
  const auto arrays = ufunc::fusion::compile_graph(outputs, types, {}, "scaled");
  CHECK(contains(arrays->device_source(), "_in1[_u] = *reinterpret_cast<const double*>(_c.base[1] + _off[_u][1]);"));
  if (rtc::nvrtc_available()) compile_for_sm90(s, "scaled", "_ufunc_elementwise<0, false>");
}

TEST_CASE("fused cuda source: steps of constants and C++ scalars only run once per thread, not per element") {
  // x * (r * r + 0.5): r * r + 0.5 (double, weak) is uniform, the product per element.
  std::vector<ufunc::fusion::expr> in{ufunc::fusion::input(0), ufunc::fusion::input(1)};
  const auto outputs = std::vector<ufunc::fusion::expr>{in[0] * (in[1] * in[1] + 0.5)};
  const std::vector<std::optional<ufunc::weak_scalar>> weak{std::nullopt, ufunc::weak_scalar(2.5)};
  const std::vector<ufunc::dtype> types{ufunc::float32, ufunc::float64};
  const auto g = ufunc::fusion::compile_graph(outputs, types, weak, "uniform");
  REQUIRE(g->runs_on_device());
  const std::string& s = g->device_source();
  const auto loop = s.find("for (int _u = 0;");
  const auto kernel = s.find("_ufunc_elementwise(");
  const auto square = s.find("ufunc::ops::multiply{}(x1, x1)", kernel);
  REQUIRE(square != std::string::npos);
  CHECK(square < loop);
  CHECK(s.find("ufunc::ops::add{}(", kernel) < loop);
  // The product with the array's element is in the loop.
  const auto product = s.find("ufunc::ops::multiply{}(x0, ", kernel);
  REQUIRE(product != std::string::npos);
  CHECK(product > loop);
  // The classification, out of line, still computes every step from the inputs.
  const auto classify = s.find("_ufunc_classify(const _ufunc::fp_sink& _fp");
  REQUIRE(classify != std::string::npos);
  CHECK(s.find("ufunc::ops::multiply{}(x1, x1)", classify) < kernel);
  // Without a C++ scalar, nothing is hoisted but the constants.
  const auto arrays = ufunc::fusion::compile_graph(outputs, types, {}, "uniform");
  CHECK_FALSE(contains(arrays->device_source(), "_uniform_nonfinite"));
  if (rtc::nvrtc_available()) compile_for_sm90(s, "uniform", "_ufunc_elementwise<0, false>");
}

TEST_CASE("fused cuda source: a value is probed only where no use of it carries inf and NaN on") {
  // exp(a * 2) / b + c: a * 2 feeds exp (exp(-inf) is 0): probed; b is a divisor (x / inf is 0):
  // probed; the sum is the output: probed. a, exp's result and c reach the sum through a
  // product, a numerator and a sum: not probed.
  auto f = ufunc::fuse([](auto a, auto b, auto c) { return ufunc::exp(a * 2.0f) / b + c; }, "probes");
  const std::string s = f.device_source({ufunc::float32, ufunc::float32, ufunc::float32});
  const auto kernel = s.find("_ufunc_elementwise(");
  REQUIRE(kernel != std::string::npos);
  CHECK(count(s, "_ufunc::probe(", kernel) == 3);
  CHECK(contains(s, "_ufunc::probe(_pf, x1);"));
  CHECK(contains(s, "_ufunc::probe(_pf, out0);"));
  CHECK_FALSE(contains(s, "_ufunc::probe(_pf, x0);"));
  CHECK_FALSE(contains(s, "_ufunc::probe(_pf, x2);"));
  // With a float64: a * 2 is float64, b and c are cast to it; the casts carry b and c, the
  // divisor's cast is probed.
  const std::string mixed = f.device_source({ufunc::float64, ufunc::float32, ufunc::float32});
  CHECK(count(mixed, "_ufunc::probe(", mixed.find("_ufunc_elementwise(")) == 3);
  // A C++ scalar whose only use is exp is probed once per thread, before the elements.
  std::vector<ufunc::fusion::expr> in{ufunc::fusion::input(0), ufunc::fusion::input(1)};
  const auto outputs = std::vector<ufunc::fusion::expr>{in[0] * ufunc::exp(in[1])};
  const std::vector<ufunc::dtype> types{ufunc::float32, ufunc::float64};
  const std::vector<std::optional<ufunc::weak_scalar>> weak{std::nullopt, ufunc::weak_scalar(2.5)};
  const auto g = ufunc::fusion::compile_graph(outputs, types, weak, "scaled_exp");
  CHECK(contains(g->device_source(), "_ufunc::probe(_upd, x1);"));
  CHECK(contains(g->device_source(), "_uniform_nonfinite || _pf != _pf"));
  if (rtc::nvrtc_available()) compile_for_sm90(s, "probes", "_ufunc_elementwise<0, false>");
}

TEST_SUITE("nvrtc") {
  TEST_CASE("fused cuda source: every built-in ufunc's every loop compiles as a node under NVRTC") {
    if (!ufunc_test::nvrtc_or_skip()) return;
    // One graph per loop; their kernels are compiled together, 64 to a program (renamed
    // apart, after their common prelude: the same for all but the complex and the 16-bit
    // ones), since a compile costs about a second for the headers.
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> by_prelude;  // kernel, name
    std::size_t count = 0, half_loops = 0;
    for (const ufunc::function& f : ufunc::builtin_list)
      for (const auto& types : f.types()) {
        CAPTURE(f.name());
        CAPTURE(types);
        const auto sig = ufunc::type_signature::parse(types);
        std::vector<ufunc::dtype> in;
        for (int i = 0; i < sig.nin(); ++i) in.push_back(sig.input(i));
        const auto g = graph_of(f, in);
        REQUIRE(g->runs_on_device());
        half_loops += types.find_first_of("eE") != std::string::npos ? 1 : 0;
        const std::string& source = g->device_source();
        const auto kernel_at = source.find("template <int ND, bool WHERE>");
        REQUIRE(kernel_at != std::string::npos);
        // The graph's own classification function (probed graphs) goes with its kernel, renamed
        // apart too, so that the preludes stay few.
        const std::string classify = "_ufunc_classify";
        const auto at = std::min(kernel_at, source.find("__device__ __noinline__ unsigned " + classify + "("));
        std::string kernel = source.substr(at);
        const std::string suffix = "_" + std::to_string(count++);
        const std::string name = "_ufunc_elementwise" + suffix;
        kernel.replace(kernel.find("_ufunc_elementwise("), std::string("_ufunc_elementwise").size(), name);
        for (auto k = kernel.find(classify + "("); k != std::string::npos; k = kernel.find(classify + "(", k + 1))
          kernel.insert(k + classify.size(), suffix);
        by_prelude[source.substr(0, at)].emplace_back(kernel, name + "<1, false>");
      }
    CHECK(count > 600);
    CHECK(half_loops > 140);
    struct chunk {
      const std::string* prelude;
      std::span<const std::pair<std::string, std::string>> kernels;
    };
    std::vector<chunk> chunks;
    // UFUNC_TEST_NVRTC_SAMPLE (sanitized builds): one program of 8 kernels per prelude.
    const char* sample = std::getenv("UFUNC_TEST_NVRTC_SAMPLE");
    const bool first_only = sample != nullptr && std::string_view(sample) == "1";
    const std::size_t per_program = first_only ? 8 : 64;
    for (const auto& [prelude, kernels] : by_prelude)
      for (std::size_t first = 0; first < kernels.size() && !(first_only && first > 0); first += per_program)
        chunks.push_back(
            {&prelude, std::span(kernels).subspan(first, std::min<std::size_t>(per_program, kernels.size() - first))});
    // The programs compile on every core at once (NVRTC compiles separate programs in
    // parallel); the checks run here, on this thread.
    const auto program = [&](const chunk& c) {
      rtc::compile_request r;
      r.source = *c.prelude;
      for (const auto& [kernel, name] : c.kernels) {
        r.source += kernel;
        r.name_expressions.push_back(name);
      }
      r.name = "builtin_nodes.cu";
      r.architecture = 90;
      r.headers = rtc::library_headers();
      r.options = rtc::library_header_options();
      r.options.emplace_back("--fmad=false");
      ufunc_test::compile_check_only(r);
      return r;
    };
    std::vector<std::size_t> lowered(chunks.size()), wanted(chunks.size());
    std::vector<std::string> errors(chunks.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
      for (std::size_t j; (j = next++) < chunks.size();) {
        try {
          const auto r = program(chunks[j]);
          wanted[j] = r.name_expressions.size();
          lowered[j] = rtc::compile(r).lowered_names.size();
        } catch (const std::exception& e) {
          errors[j] = e.what();
        }
      }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < std::max(1u, std::thread::hardware_concurrency()); ++t) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
    for (std::size_t j = 0; j < chunks.size(); ++j) {
      CAPTURE(chunks[j].kernels.front().second);
      CHECK(errors[j] == "");
      CHECK(lowered[j] == wanted[j]);
    }
  }

  TEST_CASE("fused cuda source: Black-Scholes, where, astype, mixed dtypes, complex, several outputs compile") {
    if (!ufunc_test::nvrtc_or_skip()) return;
    auto mixed = ufunc::fuse([](auto a, auto b, auto c) { return ufunc::where(a > 0, a * b + c, c - 1); }, "mixed");
    compile_for_sm90(mixed.device_source({ufunc::int8, ufunc::float32, ufunc::uint16}), "mixed");
    auto cplx = ufunc::fuse([](auto z, auto w) { return ufunc::exp(z * w) + ufunc::absolute(z); }, "cplx");
    compile_for_sm90(cplx.device_source({ufunc::complex64, ufunc::float64}), "cplx");
    auto bs = ufunc::fuse([](auto s, auto x, auto t, auto r, auto v) { return black_scholes(s, x, t, r, v); },
                          "black_scholes");
    for (const auto type : {ufunc::float32, ufunc::float64})
      compile_for_sm90(bs.device_source({type, type, type, ufunc::float64, ufunc::float64}), "black_scholes");
    auto share = ufunc::fuse([](auto c, auto t) { return ufunc::astype(c, ufunc::float64) / t; }, "share");
    compile_for_sm90(share.device_source({ufunc::int32, ufunc::complex64}), "share");
    auto both = ufunc::fuse([](auto p, auto q) { return std::make_tuple(ufunc::floor_divide(p, q), p % q); }, "both");
    compile_for_sm90(both.device_source({ufunc::int32, ufunc::int64}), "both");
    // 16-bit values: float16 and bfloat16 arrays, a weak float, a cast into float32.
    for (const auto type : {ufunc::float16, ufunc::bfloat16})
      compile_for_sm90(mixed.device_source({type, type, ufunc::float32}), "mixed_half");
  }
}

TEST_SUITE("nvrtc") {
  TEST_CASE("fused cuda source: an elementwise_kernel is a node (its body as a functor); one that reads i is not") {
    if (!ufunc_test::nvrtc_or_skip()) return;
    const ufunc::cuda::elementwise_kernel sqdiff("T x, T y", "T z", "z = (x - y) * (x - y);", "squared_diff",
                                                 {.preamble = "__device__ int unused_helper() { return 1; }"});
    // Loops are made by calls; without a GPU the call raises target_error after adding it
    // (on a GPU host, where this suite runs too, the call runs).
    const auto x = ufunc::array::zeros({4}, ufunc::float32);
    auto call_adds_loop = [](auto&& call, const ufunc::function& f, const std::string& loop) {
      try {
        call();
      } catch (const ufunc::target_error&) {
      }
      CHECK(f.types() == std::vector<std::string>{loop});
    };
    call_adds_loop([&] { (void)sqdiff(x, x); }, sqdiff.ufunc(), "ff->f");
    const ufunc::function& node = sqdiff.ufunc();
    auto f = ufunc::fuse(
        [&node](auto a, auto b) {
          return ufunc::sqrt(ufunc::fusion::apply(node, {{a, b}}) + 1.0f);
        },
        "dist");
    const std::string s = f.device_source({ufunc::float32, ufunc::float32});
    CHECK(contains(s, "_ufunc_kernel_squared_diff_ff__f::op{}(x0, x1)"));
    CHECK(contains(s, "typedef float T;"));
    compile_for_sm90(s, "dist");
    const ufunc::cuda::elementwise_kernel indexed("T x", "T z", "z = x * i;", "indexed");
    call_adds_loop([&] { (void)indexed(x); }, indexed.ufunc(), "f->f");
    const ufunc::function& by_index = indexed.ufunc();
    auto g = ufunc::fuse([&by_index](auto a) { return ufunc::fusion::apply(by_index, {{a}}); }, "by_index");
    CHECK(contains(g.explain({ufunc::float32}), "cuda: not fused: node indexed (f->f) has no source"));
  }
}
