// Run-time kernels without a GPU (backends/cuda/rtc): the parameter lists of
// ElementwiseKernel's syntax, placeholder binding, the generated source, and (test
// suite "nvrtc", ctest unit.nvrtc) compiling it with NVRTC to a CUBIN, with compile
// errors that name the body's line.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ufunc/backends/cuda/rtc/compiler.hpp>
#include <ufunc/backends/cuda/rtc/elementwise_kernel.hpp>
#include <ufunc/backends/cuda/rtc/elementwise_source.hpp>
#include <ufunc/backends/cuda/rtc/generated_loop.hpp>
#include <ufunc/backends/cuda/rtc/module.hpp>
#include <ufunc/backends/cuda/rtc/parameters.hpp>
#include <ufunc/backends/cuda/rtc/reduction_kernel.hpp>
#include <ufunc/core/array.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/function.hpp>

#include <doctest/doctest.h>

#include "nvrtc_support.hpp"

#include "../rtc_test_sources.hpp"

namespace rtc = ufunc::cuda::rtc;

namespace {

std::string parse_error(const char* inputs, const char* outputs) {
  try {
    (void)rtc::parse_parameters(inputs, outputs);
  } catch (const ufunc::value_error& e) {
    return e.what();
  }
  return "(parsed)";
}

std::string bind_error(const rtc::parameter_list& p, std::vector<std::optional<ufunc::dtype>> types) {
  try {
    (void)rtc::bind_placeholders(p, types);
  } catch (const ufunc::no_loop_error& e) {
    return e.what();
  }
  return "(bound)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("rtc parameters: CuPy's syntax, placeholders, explicit dtypes, raw") {
  const auto p = rtc::parse_parameters("T x,  raw   float32 table, U n", "T z, complex128 w");
  REQUIRE(p.nin == 3);
  REQUIRE(p.nout == 2);
  CHECK(p.placeholders == "TU");
  CHECK(p.params[0].name == "x");
  CHECK(p.params[0].placeholder == 'T');
  CHECK_FALSE(p.params[0].raw);
  CHECK(p.params[1].raw);
  CHECK(p.params[1].type == ufunc::float32);
  CHECK(p.params[3].output);
  CHECK(p.params[4].type == ufunc::complex128);
  // No inputs at all is a kernel that writes its outputs from i.
  const auto q = rtc::parse_parameters("", "int64 z");
  CHECK(q.nin == 0);
  CHECK(q.nout == 1);
}

TEST_CASE("rtc parameters: bad lists are value_errors naming the list, the parameter and the fault") {
  CHECK(contains(parse_error("T x, T", "T z"), "in_params \"T x, T\": parameter 2 (\"T\") needs a type and a name"));
  CHECK(contains(parse_error("T x,, T y", "T z"), "parameter 2 (\"\") is empty"));
  CHECK(contains(parse_error("T x", ""), "out_params \"\": parameter 1 (\"\") is empty"));
  CHECK(contains(parse_error("float x", "float z"), "has type \"float\", which is neither a dtype name"));
  CHECK(contains(parse_error("f x", "f z"), "a placeholder is one capital letter"));
  CHECK(contains(parse_error("T 1x", "T z"), "not a C identifier"));
  CHECK(contains(parse_error("T i", "T z"), "reserved"));
  CHECK(contains(parse_error("T _x", "T z"), "reserved"));
  CHECK(contains(parse_error("T float", "T z"), "reserved"));
  CHECK(contains(parse_error("T x, T x", "T z"), "repeats the name \"x\""));
  CHECK(contains(parse_error("T x", "T x"), "repeats the name \"x\""));
  CHECK(contains(parse_error("const T x", "T z"), "unknown keyword \"const\" (known: raw)"));
  CHECK(contains(parse_error("raw raw T x", "T z"), "says raw twice"));
  CHECK(contains(parse_error("T x", "U z"), "has placeholder U, which no input has"));
  std::string many;
  for (int k = 0; k < 17; ++k) many += (k ? ", T x" : "T x") + std::to_string(k);
  CHECK(contains(parse_error(many.c_str(), "T z"), "at most 16"));
}

TEST_CASE("rtc parameters: placeholders bind from the first argument that has them; others must agree") {
  const auto p = rtc::parse_parameters("T x, U y, T w", "T z");
  CHECK(
      rtc::bind_placeholders(p, std::vector<std::optional<ufunc::dtype>>{ufunc::int16, ufunc::float64, ufunc::int16}) ==
      std::vector<ufunc::dtype>{ufunc::int16, ufunc::float64});
  // A scalar argument (no dtype of its own) takes its placeholder's type.
  CHECK(
      rtc::bind_placeholders(p, std::vector<std::optional<ufunc::dtype>>{std::nullopt, ufunc::uint8, ufunc::float32}) ==
      std::vector<ufunc::dtype>{ufunc::float32, ufunc::uint8});
  CHECK(contains(bind_error(p, {ufunc::int16, ufunc::float64, ufunc::int32}),
                 "placeholder T is int16 from x but int32 from w"));
  CHECK(contains(bind_error(p, {std::nullopt, ufunc::float64, std::nullopt}), "placeholder T is bound by no argument"));
  CHECK(rtc::parameter_type(p, 1, std::vector<ufunc::dtype>{ufunc::int8, ufunc::bool_}) == ufunc::bool_);
}

TEST_CASE("rtc source: declarations per parameter, placeholders as types, the body, every instantiation") {
  const auto p = rtc::parse_parameters("T x, raw int32 table, complex64 c", "T z, bool m");
  const auto s = rtc::elementwise_source(p, std::vector<ufunc::dtype>{ufunc::float64}, "z = x + table[i % 3];",
                                         "lookup", "__device__ int helper() { return 1; }");
  CHECK(s.broadcast_operands == 4);
  CHECK(contains(s.source, "typedef double T;"));
  // Inputs are loaded (all of a thread's items first), then bound by value; outputs by reference.
  CHECK(contains(s.source, "_in0[_u] = *reinterpret_cast<const double*>(_c.base[0] + _off[_u][0]);"));
  CHECK(contains(s.source, "const double x = _in0[_u];"));
  CHECK(contains(s.source, "const _ufunc::raw<int> table"));
  CHECK(contains(s.source, "const _ufunc::complex64 c = "));
  CHECK(contains(s.source, "double& z = *reinterpret_cast<double*>(_c.base[2] + _off[_u][2]);"));
  CHECK(contains(s.source, "bool& m = *reinterpret_cast<bool*>(_c.base[3] + _off[_u][3]);"));
  CHECK(contains(s.source, "#include <cuda/std/complex>"));
  CHECK(contains(s.source, "#line 1 \"lookup\"\nz = x + table[i % 3];\n"));
  CHECK(contains(s.source, "__device__ int helper()"));
  // Launched as dependent launches on sm_90 and later: the kernel's first statement waits for
  // the stream's previous kernel, before any load.
  const auto wait = s.source.find("griddepcontrol.wait;");
  REQUIRE(wait != std::string::npos);
  CHECK(wait > s.source.find("_ufunc_elementwise("));
  CHECK(wait < s.source.find("_off[_u][_a] = 0;"));
  CHECK(s.name_expressions.size() == 10);
  CHECK(s.name_expressions.front() == "_ufunc_elementwise<0, false>");  // one contiguous dimension
  CHECK(s.operand_bytes == std::vector<long long>{8, 8, 8, 1, 1});      // x, c, z, m (table is raw), the mask
  CHECK(s.name_expressions.back() == "_ufunc_elementwise<64, true>");
  // Real-only kernels do not pull in libcu++.
  const auto r = rtc::elementwise_source(rtc::parse_parameters("T x", "T z"), std::vector<ufunc::dtype>{ufunc::int8},
                                         "z = x;", "copy", "");
  CHECK_FALSE(contains(r.source, "cuda/std/complex"));
  CHECK(contains(r.source, "typedef signed char T;"));
  CHECK_THROWS_WITH_AS(rtc::elementwise_source(rtc::parse_parameters("raw T x", "raw T z"),
                                               std::vector<ufunc::dtype>{ufunc::int8}, "z[i] = x[i];", "allraw", ""),
                       doctest::Contains("every parameter is raw"), ufunc::value_error);
  CHECK_THROWS_WITH_AS(rtc::elementwise_source(rtc::parse_parameters("T x", "T z"),
                                               std::vector<ufunc::dtype>{ufunc::int8}, "z = x;", "bad name", ""),
                       doctest::Contains("is not a C identifier"), ufunc::value_error);
}

TEST_CASE("rtc source: an input read once is loaded before the elements, its operand_bytes 0") {
  const auto p = rtc::parse_parameters("T x, float64 r", "T z");
  rtc::source_options o;
  o.read_once = {false, true, false};
  const auto s = rtc::elementwise_source(p, std::vector<ufunc::dtype>{ufunc::float32}, "z = x * r;", "scale", "", o);
  CHECK(s.operand_bytes == std::vector<long long>{4, 0, 4, 1});  // x, r (read once), z, the mask
  const auto once = s.source.find("const double r = *reinterpret_cast<const double*>(_c.base[1]);");
  REQUIRE(once != std::string::npos);
  CHECK(once > s.source.find("griddepcontrol.wait;"));  // after the previous grid's writes
  CHECK(once < s.source.find("for (int _u = 0;"));      // before the elements
  CHECK_FALSE(contains(s.source, "_in1"));
  CHECK(contains(s.source, "_in0[_u] = *reinterpret_cast<const float*>(_c.base[0] + _off[_u][0]);"));
  // The prologue runs once per thread, after the read-once inputs and before the elements; the
  // body sees what it declares.
  o.prologue = "const double r2 = r * r;";
  const auto with_prologue =
      rtc::elementwise_source(p, std::vector<ufunc::dtype>{ufunc::float32}, "z = x * r2;", "scale2", "", o);
  const auto prologue = with_prologue.source.find("const double r2 = r * r;");
  REQUIRE(prologue != std::string::npos);
  CHECK(prologue > with_prologue.source.find("const double r = *reinterpret_cast"));
  CHECK(prologue < with_prologue.source.find("for (int _u = 0;"));
  // Only a broadcast input can be read once.
  o.prologue.clear();
  o.read_once = {false, false, true};
  CHECK_THROWS_WITH_AS(
      (void)rtc::elementwise_source(p, std::vector<ufunc::dtype>{ufunc::float32}, "z = x;", "k", "", o),
      doctest::Contains("parameter z is read once, so it must be a non-raw input"), ufunc::value_error);
}

TEST_CASE("rtc source: a call runs the contiguous instantiation where every operand steps by its element") {
  // x (float32), r (float64, read once), z (float32): operand_bytes 4, 0, 4 and the mask's 1.
  const auto p = rtc::parse_parameters("T x, float64 r", "T z");
  rtc::source_options o;
  o.read_once = {false, true, false};
  const auto s = rtc::elementwise_source(p, std::vector<ufunc::dtype>{ufunc::float32}, "z = x * r;", "scale", "", o);
  ufunc::device_call c{};
  c.nin = 2;
  c.nout = 1;
  c.ndim = 1;
  c.size = c.shape[0] = 1000;
  c.strides[0][0] = 4;
  c.strides[1][0] = 0;
  c.strides[2][0] = 4;
  const auto chosen = [&] { return s.name_expressions.at(rtc::instantiation_for(s, c, "scale")); };
  CHECK(chosen() == "_ufunc_elementwise<0, false>");
  c.has_where = true;
  c.strides[3][0] = 1;
  CHECK(chosen() == "_ufunc_elementwise<0, true>");
  c.strides[3][0] = 0;  // a broadcast mask
  CHECK(chosen() == "_ufunc_elementwise<1, true>");
  c.has_where = false;
  c.strides[0][0] = -4;  // reversed
  CHECK(chosen() == "_ufunc_elementwise<1, false>");
  c.strides[0][0] = 4;
  c.ndim = 2;
  c.shape[0] = 10;
  c.shape[1] = 100;
  c.strides[0][1] = c.strides[2][1] = 40;
  c.strides[1][1] = 0;
  CHECK(chosen() == "_ufunc_elementwise<2, false>");
  c.ndim = 4;
  c.shape[2] = c.shape[3] = 1;
  CHECK(chosen() == "_ufunc_elementwise<64, false>");
  c.ndim = 0;  // a 0-d call
  CHECK(chosen() == "_ufunc_elementwise<0, false>");
  // A call that steps through the input read once is refused.
  c.ndim = 1;
  c.strides[1][0] = 8;
  CHECK_THROWS_WITH_AS((void)chosen(), doctest::Contains("operand 1 is read once"), ufunc::value_error);
}

TEST_CASE("rtc source: numbered_source numbers every line") {
  CHECK(rtc::numbered_source("a\nb\n") == "   1 | a\n   2 | b\n");
}

TEST_SUITE("nvrtc") {
  TEST_CASE("nvrtc: a generated kernel of every dtype compiles to a CUBIN with one kernel per instantiation") {
    if (!ufunc_test::nvrtc_or_skip()) return;
    CHECK(rtc::nvrtc_version() >= 12000);
    for (int k = 0; k < ufunc::dtype::count; ++k) {
      const auto t = ufunc::dtype::from_index(k);
      CAPTURE(t.name());
      // float16 / bfloat16: computed in float, with the library's types (so its headers); the
      // body also assigns to a raw element and updates the output in place.
      const bool half = t == ufunc::float16 || t == ufunc::bfloat16;
      const auto s =
          rtc::elementwise_source(rtc::parse_parameters("T x, T y, raw T table", "T z"), std::vector<ufunc::dtype>{t},
                                  half ? "T w = x + y * table[0];\nz = w;\nz += 1;\ntable[1] = z;"
                                       : "z = x + y * table[0]" /* no ';', as CuPy allows */,
                                  "muladd", "");
      CHECK(s.library_headers == half);
      rtc::compile_request r;
      r.source = s.source;
      r.name = "muladd.cu";
      r.architecture = 90;
      r.name_expressions = s.name_expressions;
      if (half) {
        CHECK(contains(s.source, "typedef float T;"));
        r.headers = rtc::library_headers();
        r.options = rtc::library_header_options();
      }
      ufunc_test::compile_check_only(r);
      const auto out = rtc::compile(r);
      // An ELF image, with the lowered name of every instantiation in it.
      REQUIRE(out.cubin.size() > 4);
      CHECK(out.cubin.compare(0, 4,
                              "\x7f"
                              "ELF") == 0);
      REQUIRE(out.lowered_names.size() == s.name_expressions.size());
      for (const auto& name : out.lowered_names) CHECK(contains(out.cubin, name));
    }
  }

  TEST_CASE("nvrtc: a typo in the body is a compile_error naming the body's line, with the source") {
    if (!ufunc_test::nvrtc_or_skip()) return;
    const auto s =
        rtc::elementwise_source(rtc::parse_parameters("T x", "T z"), std::vector<ufunc::dtype>{ufunc::float32},
                                "z = x;\nz = x +* 2;", "typo", "");
    rtc::compile_request r;
    r.source = s.source;
    r.name = "typo.cu";
    r.architecture = 90;
    r.name_expressions = s.name_expressions;  // the body is checked where the kernel is instantiated
    try {
      (void)rtc::compile(r);
      FAIL("compiled");
    } catch (const ufunc::compile_error& e) {
      const std::string what = e.what();
      CHECK(contains(what, "typo.cu did not compile"));
      CHECK(contains(what, "typo(2): error"));
      CHECK(contains(what, " | z = x +* 2;"));
    }
    r.architecture = 11;  // no such GPU
    CHECK_THROWS_WITH_AS((void)rtc::compile(r), doctest::Contains("cannot compile for sm_11"), ufunc::value_error);
  }
}

TEST_SUITE("nvrtc") {
  TEST_CASE("module: compiled without a GPU for an architecture, template kernels lowered by their C++ names") {
    if (!ufunc_test::nvrtc_or_skip()) return;
    ufunc::cuda::module m(ufunc_test::doublify_and_scale,
                          {.name_expressions = {"scale<float>", "scale<double>"}, .name = "kernels"});
    const auto lowered = m.lowered_names(90);
    REQUIRE(lowered.size() == 2);
    CHECK(lowered[0] != lowered[1]);
    CHECK(contains(lowered[0], "scale"));
    CHECK(m.lowered_names(90) == lowered);  // the second time from the cache
    ufunc::cuda::module bad("extern \"C\" __global__ void k(float* a) {\n  a[0] = b;\n}", {.name = "bad"});
    try {
      (void)bad.lowered_names(90);
      FAIL("compiled");
    } catch (const ufunc::compile_error& e) {
      CHECK(contains(e.what(), "bad.cu did not compile"));
      CHECK(contains(e.what(), "identifier \"b\" is undefined"));
    }
    CHECK_THROWS_AS((void)m.function(""), ufunc::value_error);
  }
}

TEST_SUITE("nvrtc") {
  TEST_CASE("reduction_kernel: the generated kernels compile for every dtype; errors name the expression") {
    if (!ufunc_test::nvrtc_or_skip()) return;
    ufunc::cuda::reduction_kernel sum_sq("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_sq");
    for (int k = 0; k < ufunc::dtype::count; ++k) {
      const auto t = ufunc::dtype::from_index(k);
      CAPTURE(t.name());
      if (t == ufunc::float16 || t == ufunc::bfloat16) {
        CHECK_THROWS_WITH_AS(
            (void)sum_sq.source(std::vector<ufunc::dtype>{t}),
            doctest::Contains(
                ("parameter x is " + std::string(t.name()) + ", which reduction kernels do not compute").c_str()),
            ufunc::dtype_error);
        continue;
      }
      rtc::compile_request r;
      r.source = sum_sq.source(std::vector<ufunc::dtype>{t});
      r.name = "sum_sq.cu";
      r.architecture = 90;
      ufunc_test::compile_check_only(r);
      const auto out = rtc::compile(r);
      CHECK(contains(out.cubin, "_ufunc_reduce_partial"));
      CHECK(contains(out.cubin, "_ufunc_reduce_final"));
    }
    // A reduce type other than the output's: int32 squares summed in float64, the root in float32.
    ufunc::cuda::reduction_kernel norm("T x", "float32 y", "x * x", "a + b", "y = sqrt(a)", "0", "norm",
                                       {.reduce_type = ufunc::float64});
    const std::string source = norm.source(std::vector<ufunc::dtype>{ufunc::int32});
    CHECK(contains(source, "typedef double _type_reduce;"));
    // Each of the three kernels waits for the stream's previous kernel first (dependent launches).
    std::size_t waits = 0;
    for (auto at = source.find("griddepcontrol.wait;"); at != std::string::npos;
         at = source.find("griddepcontrol.wait;", at + 1))
      ++waits;
    CHECK(waits == 3);
    rtc::compile_request r;
    r.source = source;
    r.name = "norm.cu";
    r.architecture = 90;
    CHECK(!rtc::compile(r).cubin.empty());
    ufunc::cuda::reduction_kernel typo("T x", "T y", "x", "a +* b", "y = a", "0", "typo");
    r.source = typo.source(std::vector<ufunc::dtype>{ufunc::float32});
    r.name = "typo.cu";
    CHECK_THROWS_WITH_AS((void)rtc::compile(r), doctest::Contains("typo.reduce(1): error"), ufunc::compile_error);
  }
}

TEST_CASE("reduction_kernel without a GPU: what it refuses, and host arrays") {
  CHECK_THROWS_WITH_AS(ufunc::cuda::reduction_kernel("raw T x", "T y", "x[0]", "a + b", "y = a", "0", "k"),
                       doctest::Contains("raw parameters are not supported"), ufunc::value_error);
  CHECK_THROWS_WITH_AS(ufunc::cuda::reduction_kernel("T x", "T y, T z", "x", "a + b", "y = a", "0", "k"),
                       doctest::Contains("takes one output, not 2"), ufunc::value_error);
  CHECK_THROWS_WITH_AS(ufunc::cuda::reduction_kernel("T x", "T y", "x", "a + b", "y = a", "", "k"),
                       doctest::Contains("needs an identity"), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::cuda::reduction_kernel("T x", "T y", "x", "a + b", "y = a", "0", "not a name"),
                  ufunc::value_error);
  ufunc::cuda::reduction_kernel sum("T x", "T y", "x", "a + b", "y = a", "0", "sum");
  CHECK_THROWS_WITH_AS((void)sum(ufunc::full<float>({3}, 1.0f)), doctest::Contains("input 0 is on cpu"),
                       ufunc::target_error);
  CHECK(sum.parameters().nin == 1);
}

TEST_CASE("elementwise_kernel without a GPU: parsed, its source inspectable, its calls a target_error") {
  ufunc::cuda::elementwise_kernel hyp("T x, T y", "T z", "z = sqrt(x * x + y * y);", "hyp");
  CHECK(hyp.ufunc().name() == "hyp");
  CHECK(hyp.ufunc().nin() == 2);
  CHECK(hyp.ufunc().nout() == 1);
  CHECK(hyp.ufunc().types().empty());
  const std::string source = hyp.source(std::vector<ufunc::dtype>{ufunc::float64, ufunc::float64});
  CHECK(contains(source, "typedef double T;"));
  CHECK(contains(source, "z = sqrt(x * x + y * y);"));
  CHECK_THROWS_WITH_AS((void)hyp.source(std::vector<ufunc::dtype>{ufunc::float64, ufunc::float32}),
                       doctest::Contains("placeholder T is float64 from x but float32 from y"), ufunc::no_loop_error);

  const ufunc::array a = ufunc::full<float>({2}, 3.0f), b = ufunc::full<float>({2}, 4.0f);
  // The kernel's calls go to target cuda: where it is not compiled in or there is no GPU, a
  // target_error; on a GPU machine, the kernel's result.
  try {
    const auto on_gpu = hyp(a, b, {.target = ufunc::target_id::cuda}).to_vector<float>();
    CHECK(on_gpu == std::vector<float>{5.0f, 5.0f});
  } catch (const ufunc::target_error& e) {
    MESSAGE("no GPU here: " << std::string(e.what()));
  }
  CHECK(hyp.ufunc().types() == std::vector<std::string>{"ff->f"});  // the loop of the dtypes called so far
  // On a host target the loop says where it runs.
  CHECK_THROWS_WITH_AS((void)hyp(a, b, {.target = ufunc::target_id::cpu}),
                       doctest::Contains("elementwise_kernel 'hyp' runs on target cuda only"), ufunc::target_error);
  // A scalar takes its placeholder's dtype from the array.
  CHECK_THROWS_AS((void)hyp(a, 2.0, {.target = ufunc::target_id::cpu}), ufunc::target_error);
  CHECK(hyp.ufunc().types() == std::vector<std::string>{"ff->f"});
  CHECK_THROWS_WITH_AS((void)hyp(a, ufunc::full<double>({2}, 1.0)),
                       doctest::Contains("placeholder T is float32 from x but float64 from y"), ufunc::no_loop_error);
  CHECK_THROWS_WITH_AS((void)hyp(a), doctest::Contains("takes 2 inputs, not 1"), ufunc::value_error);
  CHECK_THROWS_WITH_AS((void)hyp(a, b, {.signature = "ff->f"}), doctest::Contains("signature= and dtype= do not apply"),
                       ufunc::value_error);
  CHECK_THROWS_WITH_AS(ufunc::cuda::elementwise_kernel("raw T x", "T z", "z = x[i];", "k"),
                       doctest::Contains("needs at least one input that is not raw"), ufunc::value_error);
  CHECK_THROWS_WITH_AS(ufunc::cuda::elementwise_kernel("T x", "T z", "z = x;", "not a name"),
                       doctest::Contains("is not a C identifier"), ufunc::value_error);
}

TEST_CASE("elementwise_kernel without a GPU: raw inputs bind placeholders, are not cast, are not broadcast") {
  ufunc::cuda::elementwise_kernel lookup("T x, raw U table", "T z", "z = x + (T)table[i % table.size()];", "lookup");
  CHECK(lookup.ufunc().nin() == 1);  // the ufunc's operands are the broadcast parameters
  CHECK(lookup.ufunc().nout() == 1);
  const ufunc::array x = ufunc::full<float>({4}, 1.0f), table = ufunc::full<std::int32_t>({3}, 2);
  CHECK_THROWS_AS((void)lookup(x, table), ufunc::target_error);  // no GPU or no cuda backend here
  CHECK(lookup.ufunc().types() == std::vector<std::string>{"f->f"});
  CHECK(
      contains(lookup.source(std::vector<ufunc::dtype>{ufunc::float32, ufunc::int32}), "const _ufunc::raw<int> table"));
  CHECK_THROWS_WITH_AS((void)lookup(x, 2), doctest::Contains("raw parameter table needs an array, not a scalar"),
                       ufunc::value_error);
  ufunc::cuda::elementwise_kernel typed("T x, raw int64 table", "T z", "z = x;", "typed");
  CHECK_THROWS_WITH_AS((void)typed(x, table),
                       doctest::Contains("raw parameter table is int64, its array int32 (raw arrays are not cast)"),
                       ufunc::no_loop_error);
}

TEST_CASE("elementwise_kernel without a GPU: raw outputs are the caller's arrays, named in out=, never allocated") {
  ufunc::cuda::elementwise_kernel reverse("T x", "raw T y", "y[y.size() - 1 - i] = x;", "reverse_into");
  CHECK(reverse.ufunc().nin() == 1);
  CHECK(reverse.ufunc().nout() == 0);  // every output raw: a ufunc run for the body's writes
  const ufunc::array x = ufunc::full<float>({4}, 1.0f), y = ufunc::zeros<float>({4});
  CHECK_THROWS_WITH_AS(
      (void)reverse(x),
      doctest::Contains("output y is raw; pass every output with out= (a raw output is never allocated"),
      ufunc::value_error);
  CHECK_THROWS_AS((void)reverse(x, {.out = {y}}), ufunc::target_error);  // no GPU or no cuda backend here
  CHECK(reverse.ufunc().types() == std::vector<std::string>{"f->"});
  CHECK(contains(reverse.source(std::vector<ufunc::dtype>{ufunc::float32}), "const _ufunc::raw<float> y"));
  CHECK_THROWS_WITH_AS((void)reverse(x, {.out = {ufunc::zeros<double>({4})}}),
                       doctest::Contains("placeholder T is float32 from x but float64 from y"), ufunc::no_loop_error);
  CHECK_THROWS_WITH_AS((void)reverse(x, {.out = {y.as_readonly()}}), doctest::Contains("raw output y is read-only"),
                       ufunc::value_error);

  // A raw output beside a broadcast one: out= names both, in the parameters' order.
  ufunc::cuda::elementwise_kernel both("T x", "T z, raw T total", "z = 2 * x; atomicAdd(&total[0], x);", "both");
  CHECK(both.ufunc().nout() == 1);
  CHECK_THROWS_WITH_AS((void)both.call(std::vector<ufunc::operand>{x}, {.out = {y}}),
                       doctest::Contains("has 2 outputs, but out= names 1"), ufunc::value_error);
  CHECK_THROWS_WITH_AS((void)both(x), doctest::Contains("output total is raw"), ufunc::value_error);
  ufunc::cuda::elementwise_kernel typed("T x", "raw int64 count", "atomicAdd(&count[0], 1);", "typed_count");
  CHECK_THROWS_WITH_AS((void)typed(x, {.out = {ufunc::zeros<std::int32_t>({1})}}),
                       doctest::Contains("raw parameter count is int64, its array int32 (raw arrays are not cast)"),
                       ufunc::no_loop_error);
}
