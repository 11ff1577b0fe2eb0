// The library against NumPy 2 itself: dtype facts, casting, promotion, loop resolution
// and NEP 50 weak scalars, tabulated by tests/generate_numpy_tables.py into
// tests/data/numpy_tables.inc. Every check captures its inputs so that a failure names
// the dtypes (and scalar) involved.
#include <complex>
#include <exception>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#include <ufunc/ufunc.hpp>

#include "data/numpy_tables.inc"

namespace {

// Looks names up in the library's own dtype table rather than through
// dtype::from_string, so that a broken parser fails its own test only.
ufunc::dtype named(std::string_view name) {
  for (int i = 0; i < ufunc::dtype::count; ++i)
    if (ufunc::dtype::from_index(i).name() == name) return ufunc::dtype::from_index(i);
  FAIL("the table names a dtype the library does not have: " << std::string(name));
  return {};
}

const ufunc::function& ufunc_named(std::string_view name) {
  const ufunc::function* f = ufunc::find_builtin(name);
  if (f == nullptr) FAIL("the table names an unknown ufunc: " << std::string(name));
  return *f;
}

// Python scalars (by repr) as the C++ scalars that are weak in the same way.
ufunc::operand python_scalar(std::string_view repr) {
  if (repr == "True") return true;
  if (repr == "1") return 1;
  if (repr == "-1") return -1;
  if (repr == "300") return 300;
  if (repr == "1.5") return 1.5;
  if (repr == "1j") return std::complex<double>(0, 1);
  FAIL("the table names an unknown Python scalar: " << std::string(repr));
  return 0;
}

// What a call gives, spelled as the table spells NumPy's answer: the result's dtype
// name, or the Python exception the library's exception stands for. Anything else is
// spelled out so that the mismatch shows it.
template <class Call>
std::string outcome(Call&& call) {
  try {
    return std::string(call().type().name());
  } catch (const ufunc::no_loop_error&) {
    return "TypeError";
  } catch (const ufunc::overflow_error&) {
    return "OverflowError";
  } catch (const ufunc::value_error&) {
    return "ValueError";
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
}

// The loop ufunc.resolve picks ("bb->b"), spelled as outcome() spells failures.
std::string resolved_loop(const ufunc::function& f, std::span<const ufunc::dtype> inputs) {
  try {
    return f.resolve(inputs).str();
  } catch (const ufunc::no_loop_error&) {
    return "TypeError";
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
}

ufunc::array small(ufunc::dtype t) { return ufunc::array::zeros({2}, t); }

// doctest prints a const char* as a pointer, so every table string it shows goes
// through this first.
std::string str(std::string_view s) { return std::string(s); }

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const auto space = s.find(' ');
    out.emplace_back(s.substr(0, space));
    s = space == std::string_view::npos ? std::string_view{} : s.substr(space + 1);
  }
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

}  // namespace

TEST_CASE("numpy tables: dtype names, character codes, itemsizes and kinds") {
  INFO("tables from NumPy ", str(numpy_tables::numpy_version));
  REQUIRE(std::size(numpy_tables::dtypes) == static_cast<std::size_t>(ufunc::dtype::count));
  for (int i = 0; i < ufunc::dtype::count; ++i) {
    const auto& row = numpy_tables::dtypes[i];
    const auto t = ufunc::dtype::from_index(i);
    INFO("name := ", str(row.name));
    CHECK(str(t.name()) == str(row.name));  // the type-number order is NumPy's
    CHECK(t.char_code() == row.char_code);
    CHECK(t.itemsize() == static_cast<std::size_t>(row.itemsize));
    if (t == ufunc::bfloat16) {
      // ml_dtypes' bfloat16 is a user dtype of kind 'V' to NumPy; the library gives it the float
      // kind its casting and promotion rules treat it as (docs/design.md, "Half precision").
      CHECK(row.kind == 'V');
      CHECK(t.kind() == ufunc::dtype_kind::floating);
      continue;
    }
    CHECK(static_cast<char>(t.kind()) == row.kind);
  }
}

TEST_CASE("numpy tables: dtype::from_string round trips and rejects bad names") {
  for (const auto& row : numpy_tables::dtypes) {
    INFO("name := ", str(row.name));
    CAPTURE(row.char_code);
    const auto t = named(row.name);
    CHECK(ufunc::dtype::from_string(row.name) == t);
    CHECK(ufunc::dtype::from_string(std::string(1, row.char_code)) == t);
    CHECK(ufunc::dtype::from_char(row.char_code) == t);
    CHECK(ufunc::dtype::from_string(t.name()) == t);
  }
  for (const auto& row : numpy_tables::aliases) {
    INFO("text := ", str(row.text));
    CHECK(ufunc::dtype::from_string(row.text) == named(row.name));
  }
  // Misspellings NumPy rejects too, and NumPy dtypes the library does not have.
  for (const char* bad : {"",   "float33",    "Float32", "int128", "complex32", "boolean", " float32", "float32 ",
                          "ff", "longdouble", "g",       "G",      "O",         "object",  "U",        "S",
                          "M",  "m",          "V",       "float8", "Float16",   "bfloat"}) {
    INFO("bad := '", str(bad), "'");
    CHECK_THROWS_AS((void)ufunc::dtype::from_string(bad), ufunc::dtype_error);
  }
  for (const char bad : {'g', 'G', 'O', 'x', '\0'}) {
    INFO("bad := char ", static_cast<int>(bad));
    CHECK_THROWS_AS((void)ufunc::dtype::from_char(bad), ufunc::dtype_error);
  }
}

TEST_CASE("numpy tables: promote_types") {
  for (const auto& row : numpy_tables::promote_types) {
    INFO("a := ", str(row.a));
    INFO("b := ", str(row.b));
    std::string expected = str(row.result);
    if (expected == "DTypePromotionError") {
      // The library's documented exception (core/src/casting.cpp): NumPy (with ml_dtypes)
      // finds no common dtype for bfloat16 and float16 or an integer wider than a byte and
      // raises; promote_types returns the dtype NumPy's ufunc loop search lands on for those
      // inputs instead, np.add's result: float32 (float16, int16, uint16) or float64 (the
      // 32- and 64-bit integers). Only bfloat16 pairs may raise.
      CHECK((str(row.a) == "bfloat16" || str(row.b) == "bfloat16"));
      for (const auto& add : numpy_tables::binary)
        if (str(add.ufunc) == "add" && str(add.a) == str(row.a) && str(add.b) == str(row.b)) expected = str(add.numpy);
      CHECK(expected != "DTypePromotionError");
    }
    CHECK(str(ufunc::promote_types(named(row.a), named(row.b)).name()) == expected);
  }
}

TEST_CASE("numpy tables: can_cast") {
  for (const auto& row : numpy_tables::can_cast) {
    INFO("from := ", str(row.from));
    INFO("to := ", str(row.to));
    INFO("casting := ", str(row.casting));
    CHECK(ufunc::can_cast(named(row.from), named(row.to), ufunc::casting_from_string(row.casting)) == row.result);
  }
}

TEST_CASE("numpy tables: casting_from_string") {
  for (const char* name : {"no", "equiv", "safe", "same_kind", "unsafe"}) {
    INFO("name := ", str(name));
    CHECK(str(ufunc::to_string(ufunc::casting_from_string(name))) == str(name));
  }
  CHECK(ufunc::casting_from_string("same_kind") == ufunc::casting::same_kind);
  for (const char* bad : {"", "Safe", "same-kind", "samekind", "unsafe ", "none", "equivalent"}) {
    INFO("bad := '", str(bad), "'");
    CHECK_THROWS_AS((void)ufunc::casting_from_string(bad), ufunc::value_error);
  }
}

TEST_CASE("numpy tables: type_signature::parse") {
  const auto ff_f = ufunc::type_signature::parse("ff->f");
  CHECK(ff_f.nin() == 2);
  CHECK(ff_f.nout() == 1);
  CHECK(ff_f.input(0) == ufunc::float32);
  CHECK(ff_f.input(1) == ufunc::float32);
  CHECK(ff_f.output(0) == ufunc::float32);
  CHECK(ff_f.str() == str("ff->f"));
  CHECK(ufunc::type_signature::parse("float32,float32->float32") == ff_f);
  CHECK(ufunc::type_signature::parse("float32, float32 -> float32") == ff_f);
  CHECK(ufunc::type_signature::parse("bool,int8->int16") ==
        ufunc::type_signature({ufunc::bool_, ufunc::int8}, {ufunc::int16}));
  CHECK(ufunc::type_signature::parse("bool->bool").str() == str("?->?"));
  // 'q' is NumPy's other code for int64 on LP64; it prints as 'l'.
  CHECK(ufunc::type_signature::parse("qQ->q").str() == str("lL->l"));

  for (const auto& row : numpy_tables::dtypes) {
    INFO("name := ", str(row.name));
    const std::string code(1, row.char_code);
    const std::string name(row.name);
    const auto by_code = ufunc::type_signature::parse(code + code + "->" + code);
    CHECK(by_code.str() == code + code + "->" + code);
    CHECK(ufunc::type_signature::parse(name + "," + name + "->" + name) == by_code);
  }
  for (const auto& row : numpy_tables::loop_types)
    for (const auto& sig : split(row.types)) {
      CAPTURE(sig);
      CHECK(ufunc::type_signature::parse(sig).str() == sig);
    }

  // No outputs is a signature (a ufunc may have none, as np.frompyfunc(f, 1, 0)); no inputs is not.
  CHECK(ufunc::type_signature::parse("ff->").nout() == 0);
  CHECK_THROWS_WITH_AS((void)ufunc::type_signature::parse("->f"), doctest::Contains("has no inputs"),
                       ufunc::value_error);
  for (const char* bad : {"", "ff", "ff-f", "->", "ff->f->f", "fz->f", "ff->z", "gg->g", "float32,float33->float32",
                          "float32,,float32->float32", "float128->float128"}) {
    INFO("bad := '", str(bad), "'");
    CHECK_THROWS_AS((void)ufunc::type_signature::parse(bad), ufunc::value_error);
  }
}

TEST_CASE("numpy tables: loop lists match NumPy's ufunc.types") {
  for (const auto& row : numpy_tables::loop_types) {
    INFO("ufunc := ", str(row.ufunc));
    CHECK(join(ufunc_named(row.ufunc).types()) == str(row.types));
  }
}

TEST_CASE("numpy tables: binary ufunc result dtypes") {
  for (const auto& row : numpy_tables::binary) {
    INFO("ufunc := ", str(row.ufunc));
    INFO("a := ", str(row.a));
    INFO("b := ", str(row.b));
    INFO("numpy := ", str(row.numpy));
    const auto& f = ufunc_named(row.ufunc);
    const ufunc::dtype inputs[] = {named(row.a), named(row.b)};
    CHECK(outcome([&] { return f(small(inputs[0]), small(inputs[1])); }) == str(row.expected));
    CHECK(resolved_loop(f, inputs) == str(*row.loop ? row.loop : "TypeError"));
  }
}

TEST_CASE("numpy tables: unary ufunc result dtypes") {
  for (const auto& row : numpy_tables::unary) {
    INFO("ufunc := ", str(row.ufunc));
    INFO("a := ", str(row.a));
    INFO("numpy := ", str(row.numpy));  // longdouble where NumPy has a loop the library lacks
    const auto& f = ufunc_named(row.ufunc);
    const ufunc::dtype inputs[] = {named(row.a)};
    CHECK(outcome([&] { return f(small(inputs[0])); }) == str(row.expected));
    CHECK(resolved_loop(f, inputs) == str(*row.loop ? row.loop : "TypeError"));
  }
}

TEST_CASE("numpy tables: weak scalars (NEP 50)") {
  for (const auto& row : numpy_tables::weak) {
    INFO("ufunc := ", str(row.ufunc));
    INFO("array := ", str(row.array));
    INFO("scalar := ", str(row.scalar));
    CAPTURE(row.scalar_first);
    const auto& f = ufunc_named(row.ufunc);
    const ufunc::operand scalar = python_scalar(row.scalar);
    const ufunc::operand arr = small(named(row.array));
    CHECK(outcome([&] { return row.scalar_first ? f(scalar, arr) : f(arr, scalar); }) == str(row.result));
  }
}

TEST_CASE("numpy tables: calls with scalars only") {
  for (const auto& row : numpy_tables::scalars) {
    INFO("ufunc := ", str(row.ufunc));
    INFO("scalar_a := ", str(row.scalar_a));
    INFO("scalar_b := ", str(row.scalar_b));
    INFO("numpy := ", str(row.numpy));
    const auto& f = ufunc_named(row.ufunc);
    const ufunc::operand a = python_scalar(row.scalar_a);
    if (*row.scalar_b) {
      const ufunc::operand b = python_scalar(row.scalar_b);
      CHECK(outcome([&] { return f(a, b); }) == str(row.expected));
    } else {
      CHECK(outcome([&] { return f(a); }) == str(row.expected));
    }
  }
}
