// ufunc::array: factories, views over user memory, NumPy basic indexing, transpose,
// reshape, broadcast_to, dtype conversions and typed access. Expected values come from
// Python/NumPy semantics, re-derived in the test (reference loops) rather than from
// the library's own arithmetic.
#include "test_support.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace {

using i64 = std::int64_t;
using ufunc::dim_vector;
using ufunc::newaxis;
using ufunc::slice;
constexpr i64 i64_min = std::numeric_limits<i64>::min();
constexpr i64 i64_max = std::numeric_limits<i64>::max();

// Printable form of a sequence, so that a failed comparison shows both sides (doctest
// cannot print a std::vector by itself).
template <class T>
std::string fmt(const std::vector<T>& v) {
  std::ostringstream os;
  os << "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) os << ", ";
    if constexpr (std::is_same_v<T, bool>)
      os << (v[i] ? "true" : "false");
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
      os << static_cast<long long>(v[i]);
    else if constexpr (std::is_integral_v<T>)
      os << static_cast<unsigned long long>(v[i]);
    else
      os << v[i];
  }
  return os.str() + "}";
}

std::string fmt(std::span<const i64> shape) { return ufunc::array::shape_string(shape); }

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// Reads one element through data() and strides() only, so views are checked against
// their declared geometry rather than against the library's own element access.
template <class T>
T read(const ufunc::array& a, std::span<const i64> idx) {
  const std::byte* p = a.data();
  for (std::size_t d = 0; d < idx.size(); ++d) p += idx[d] * a.strides()[d];
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Every element in C order, by a plain multi-index walk over shape and strides.
template <class T>
std::vector<T> walk(const ufunc::array& a) {
  std::vector<T> out;
  if (a.size() == 0) return out;
  std::vector<i64> idx(a.ndim(), 0);
  for (;;) {
    out.push_back(read<T>(a, idx));
    std::size_t d = a.ndim();
    for (; d > 0; --d) {
      if (++idx[d - 1] < a.shape()[d - 1]) break;
      idx[d - 1] = 0;
    }
    if (d == 0) return out;
  }
}

// Python's slice.indices() followed by range(), from the language reference, in
// 128-bit arithmetic so the reference cannot share an int64 overflow with the library.
std::vector<i64> python_slice(i64 n, std::optional<i64> start, std::optional<i64> stop, i64 step) {
  const __int128 lower = step > 0 ? 0 : -1;
  const __int128 upper = step > 0 ? n : n - 1;
  auto bound = [&](std::optional<i64> v, __int128 missing) -> __int128 {
    if (!v) return missing;
    __int128 x = *v;
    if (x < 0) {
      x += n;
      if (x < lower) x = lower;
    } else if (x > upper) {
      x = upper;
    }
    return x;
  };
  const __int128 first = bound(start, step > 0 ? lower : upper);
  const __int128 last = bound(stop, step > 0 ? upper : lower);
  std::vector<i64> out;
  for (__int128 i = first; step > 0 ? i < last : i > last; i += step) out.push_back(static_cast<i64>(i));
  return out;
}

std::string slice_repr(std::optional<i64> start, std::optional<i64> stop, i64 step) {
  auto part = [](std::optional<i64> v) { return v ? std::to_string(*v) : std::string(); };
  return "[" + part(start) + ":" + part(stop) + ":" + std::to_string(step) + "]";
}

// NumPy basic indexing of a C-ordered int64 array holding 0, 1, 2, ...: the expected
// shape and values, or nullopt where NumPy raises IndexError.
struct indexing_result {
  dim_vector shape;
  std::vector<i64> values;
};
std::optional<indexing_result> reference_index(std::span<const i64> shape, std::span<const ufunc::index> idx) {
  // Per source axis, the positions it contributes; `kept` says whether it stays an axis.
  std::vector<std::vector<i64>> positions;
  indexing_result r;
  std::size_t axis = 0;
  for (const auto& i : idx) {
    if (std::holds_alternative<ufunc::newaxis_t>(i)) {
      r.shape.push_back(1);
      continue;
    }
    if (axis >= shape.size()) return std::nullopt;
    const i64 n = shape[axis];
    if (const auto* k = std::get_if<i64>(&i)) {
      const i64 j = *k < 0 ? *k + n : *k;
      if (j < 0 || j >= n) return std::nullopt;
      positions.push_back({j});
    } else {
      const auto& s = std::get<slice>(i);
      positions.push_back(python_slice(n, s.start, s.stop, s.step));
      r.shape.push_back(static_cast<i64>(positions.back().size()));
    }
    ++axis;
  }
  for (; axis < shape.size(); ++axis) {
    positions.push_back(python_slice(shape[axis], std::nullopt, std::nullopt, 1));
    r.shape.push_back(shape[axis]);
  }
  // Cartesian product in source-axis order, which is also the result's C order
  // (new axes have extent 1 and do not change the order).
  std::vector<std::size_t> at(positions.size(), 0);
  for (const auto& p : positions)
    if (p.empty()) return r;
  for (;;) {
    i64 flat = 0;
    for (std::size_t d = 0; d < positions.size(); ++d) flat = flat * shape[d] + positions[d][at[d]];
    r.values.push_back(flat);
    std::size_t d = positions.size();
    for (; d > 0; --d) {
      if (++at[d - 1] < positions[d - 1].size()) break;
      at[d - 1] = 0;
    }
    if (d == 0) return r;
  }
}

ufunc::array_t<i64> iota_array(const dim_vector& shape) {
  return ufunc::arange<i64>(ufunc::shape_size(shape)).reshape(shape);
}

// Checks a[idx] against the reference; the index list is passed through unchanged.
void check_indexing(const ufunc::array_t<i64>& a, std::initializer_list<ufunc::index> idx) {
  const auto expected = reference_index(a.shape(), std::span<const ufunc::index>(idx.begin(), idx.size()));
  if (!expected) {
    CHECK_THROWS_AS((void)(a[idx]), ufunc::index_error);
    return;
  }
  const auto r = a[idx];
  CHECK(fmt(r.shape()) == fmt(expected->shape));
  CHECK(fmt(walk<i64>(r)) == fmt(expected->values));
  CHECK(r.owner() == a.owner());
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------------
// Owning arrays

TEST_CASE_TEMPLATE("array: zeros/empty/full are C-ordered, 64-byte aligned and typed", T, UFUNC_TEST_ALL_TYPES) {
  const auto s = static_cast<i64>(sizeof(T));
  const auto a = ufunc::zeros<T>({3, 4, 5});
  CHECK(a.valid());
  CHECK(a.type() == ufunc::dtype_of<T>);
  CHECK(a.itemsize() == sizeof(T));
  CHECK(a.ndim() == 3);
  CHECK(a.size() == 60);
  CHECK(a.nbytes() == 60 * s);
  CHECK(fmt(a.shape()) == "(3, 4, 5)");
  CHECK(a.strides() == dim_vector{20 * s, 5 * s, s});
  CHECK(a.is_c_contiguous());
  CHECK_FALSE(a.is_f_contiguous());
  CHECK(a.writeable());
  CHECK(a.owner() != nullptr);
  CHECK(a.device().is_host());
  CHECK(address(a.data()) % 64 == 0);
  CHECK(std::all_of(a.data(), a.data() + a.size(), [](T x) { return x == T(0); }));

  for (const dim_vector& shape : {dim_vector{}, dim_vector{0}, dim_vector{1}, dim_vector{13}, dim_vector{3, 0},
                                  dim_vector{7, 3}, dim_vector{1, 1, 1, 1, 1, 1, 1, 1}}) {
    CAPTURE(fmt(shape));
    const auto e = ufunc::empty<T>(shape);
    CHECK(e.data() != nullptr);  // even zero-size arrays own a distinct buffer
    CHECK(address(e.data()) % 64 == 0);
    CHECK(e.shape() == shape);
    CHECK(e.size() == ufunc::shape_size(shape));
    CHECK(address(ufunc::array::zeros(shape, ufunc::dtype_of<T>).data()) % 64 == 0);
  }

  const T v = ufunc_test::sample_array<T>(1, 7).data()[0];
  const auto f = ufunc::full<T>({2, 3}, v);
  CHECK(f.size() == 6);
  CHECK(std::all_of(f.data(), f.data() + f.size(), [&](T x) { return x == v; }));
  CHECK(f.at(1, 2) == v);
}

TEST_CASE("array: contiguity flags as NumPy's C_CONTIGUOUS / F_CONTIGUOUS") {
  const auto a = ufunc::zeros<float>({3, 4});
  CHECK(a.is_c_contiguous());
  CHECK_FALSE(a.is_f_contiguous());
  CHECK_FALSE(a.transpose().is_c_contiguous());
  CHECK(a.transpose().is_f_contiguous());
  // 1-d contiguous, size-1 axes and 0-d arrays are both C and F contiguous.
  for (const dim_vector& shape : {dim_vector{}, dim_vector{5}, dim_vector{1, 5}, dim_vector{5, 1}, dim_vector{1, 1}}) {
    CAPTURE(fmt(shape));
    const auto b = ufunc::zeros<double>(shape);
    CHECK(b.is_c_contiguous());
    CHECK(b.is_f_contiguous());
  }
  // The stride of a size-1 axis does not matter (NumPy's relaxed strides).
  std::vector<float> v(8);
  CHECK(ufunc::view(v.data(), {1, 8}, {1000, 4}).is_c_contiguous());
  CHECK_FALSE(a[{slice{}, slice{std::nullopt, std::nullopt, 2}}].is_c_contiguous());
  CHECK_FALSE(a[{slice{std::nullopt, std::nullopt, -1}}].is_c_contiguous());
  CHECK_FALSE(a.broadcast_to({2, 3, 4}).is_c_contiguous());
}

TEST_CASE("array: zero-size arrays are both C and F contiguous whatever their strides, as NumPy") {
  // np.zeros((4, 6))[:0, ::2] has shape (0, 3), strides (48, 16) and both flags set.
  const auto a = ufunc::zeros<double>({4, 6});
  const auto e = a[{slice{std::nullopt, 0}, slice{std::nullopt, std::nullopt, 2}}];
  REQUIRE(e.shape() == dim_vector{0, 3});
  CHECK(e.strides() == dim_vector{48, 16});
  CHECK(e.is_c_contiguous());
  CHECK(e.is_f_contiguous());
}

TEST_CASE("array: arange matches np.arange") {
  CHECK(fmt(ufunc::arange<int>(5).to_vector()) == "{0, 1, 2, 3, 4}");
  CHECK(fmt(ufunc::arange<int>(2, 11, 3).to_vector()) == "{2, 5, 8}");
  CHECK(fmt(ufunc::arange<int>(2, 12, 3).to_vector()) == "{2, 5, 8, 11}");
  CHECK(fmt(ufunc::arange<int>(10, 0, -3).to_vector()) == "{10, 7, 4, 1}");
  CHECK(fmt(ufunc::arange<std::int8_t>(-3, 3).to_vector()) == "{-3, -2, -1, 0, 1, 2}");
  CHECK(fmt(ufunc::arange<double>(0, 1, 0.25).to_vector()) == "{0, 0.25, 0.5, 0.75}");
  CHECK(fmt(ufunc::arange<float>(-3, 3, 1.5f).to_vector()) == "{-3, -1.5, 0, 1.5}");
  CHECK(ufunc::arange<double>(0.0, 1.0, 0.1).size() == 10);  // len(np.arange(0, 1, 0.1))
  CHECK(ufunc::arange<double>(1.0, 2.0, 0.3).size() == 4);   // 1, 1.3, 1.6, 1.9
  CHECK(ufunc::arange<int>(5, 5).size() == 0);
  CHECK(ufunc::arange<int>(5, 0).size() == 0);
  CHECK(ufunc::arange<int>(0, 5, -1).size() == 0);
  CHECK(fmt(ufunc::arange<int>(0).shape()) == "(0,)");
  CHECK_THROWS_AS((void)(ufunc::arange<int>(0, 5, 0)), ufunc::value_error);
}

TEST_CASE("array: asarray copies values into a new C-ordered array") {
  std::vector<float> src = {1, 2, 3, 4, 5, 6};
  const auto a = ufunc::asarray<float>(std::span<const float>(src), {2, 3});
  CHECK(fmt(a.shape()) == "(2, 3)");
  CHECK(a.data() != src.data());
  src[0] = 100;  // a copy: later changes to the source do not show
  CHECK(a.at(0, 0) == 1.0f);
  CHECK(a.at(1, 2) == 6.0f);
  CHECK(fmt(ufunc::asarray<int>({1, 2, 3}).shape()) == "(3,)");
  CHECK(ufunc::asarray<int>(std::span<const int>{}).size() == 0);
  CHECK(fmt(ufunc::asarray<int>(std::span<const int>{}).shape()) == "(0,)");
  CHECK(fmt(ufunc::asarray<int>({7}, {1, 1, 1}).shape()) == "(1, 1, 1)");
  CHECK_THROWS_AS((void)(ufunc::asarray<int>({1, 2, 3}, {2, 2})), ufunc::value_error);
  CHECK_THROWS_AS((void)(ufunc::asarray<int>({1, 2, 3, 4}, {3})), ufunc::value_error);
}

TEST_CASE("array: scalar() and 0-d arrays") {
  const auto s = ufunc::scalar<double>(2.5);
  CHECK(s.ndim() == 0);
  CHECK(s.size() == 1);
  CHECK(s.nbytes() == 8);
  CHECK(s.shape().empty());
  CHECK(s.strides().empty());
  CHECK(fmt(s.shape()) == "()");
  CHECK(s.describe() == "float64 array of shape () on cpu");
  CHECK(s.item() == 2.5);
  CHECK(s.at() == 2.5);
  CHECK(s.is_c_contiguous());
  CHECK(s.is_f_contiguous());
  CHECK(address(s.data()) % 64 == 0);
  CHECK(fmt(s.to_vector()) == "{2.5}");
  CHECK(s.copy().item() == 2.5);
  CHECK(s.transpose().ndim() == 0);
  CHECK(s.reshape({1, 1}).shape() == dim_vector{1, 1});
  CHECK(s.reshape({-1}).shape() == dim_vector{1});
  CHECK(ufunc::full<int>({1, 1}, 4).reshape({}).ndim() == 0);
  CHECK(s[{}].ndim() == 0);
  CHECK(s[{newaxis}].shape() == dim_vector{1});
  CHECK(s[{newaxis}].strides() == dim_vector{0});
  CHECK_THROWS_AS((void)(s[{0}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(s.at(0)), ufunc::index_error);
  const auto b = s.broadcast_to({2, 3});
  CHECK(b.strides() == dim_vector{0, 0});
  CHECK(fmt(b.to_vector()) == "{2.5, 2.5, 2.5, 2.5, 2.5, 2.5}");
  CHECK(ufunc::scalar<bool>(true).describe() == "bool array of shape () on cpu");
  CHECK(ufunc::scalar<std::complex<float>>({1, 2}).item() == std::complex<float>(1, 2));
}

// ---------------------------------------------------------------------------------------------------------------------
// Typed access, dtype checks, describe()

TEST_CASE("array: at<T> and item<T> check the dtype, the index count and the bounds") {
  ufunc::array a = ufunc::asarray<std::int32_t>({0, 1, 2, 3, 4, 5}, {2, 3});
  CHECK(a.at<std::int32_t>(1, 2) == 5);
  CHECK(a.at<std::int32_t>(-1, -1) == 5);
  CHECK(a.at<std::int32_t>(-2, 0) == 0);
  CHECK(a.at<std::int32_t>(0, -3) == 0);
  a.at<std::int32_t>(0, 1) = 42;  // at() is a reference into the array
  CHECK(fmt(a.to_vector<std::int32_t>()) == "{0, 42, 2, 3, 4, 5}");

  CHECK_THROWS_AS((void)(a.at<float>(0, 0)), ufunc::dtype_error);
  CHECK_THROWS_AS((void)(a.at<std::uint32_t>(0, 0)), ufunc::dtype_error);
  CHECK_THROWS_AS((void)(a.at<std::int64_t>(0, 0)), ufunc::dtype_error);
  CHECK_THROWS_AS((void)(a.at<std::int32_t>(2, 0)), ufunc::index_error);
  CHECK_THROWS_AS((void)(a.at<std::int32_t>(0, 3)), ufunc::index_error);
  CHECK_THROWS_AS((void)(a.at<std::int32_t>(-3, 0)), ufunc::index_error);
  CHECK_THROWS_AS((void)(a.at<std::int32_t>(0, -4)), ufunc::index_error);
  CHECK_THROWS_AS((void)(a.at<std::int32_t>(0)), ufunc::index_error);
  CHECK_THROWS_AS((void)(a.at<std::int32_t>(0, 0, 0)), ufunc::index_error);
  CHECK_THROWS_AS((void)(a.data_as<float>()), ufunc::dtype_error);
  CHECK(a.data_as<std::int32_t>() == reinterpret_cast<std::int32_t*>(a.data()));

  const ufunc::array one = ufunc::full<double>({1, 1, 1}, 3.5);
  CHECK(one.item<double>() == 3.5);
  CHECK_THROWS_AS((void)(one.item<float>()), ufunc::dtype_error);
  CHECK_THROWS_AS((void)(a.item<std::int32_t>()), ufunc::value_error);
  CHECK_THROWS_AS((void)(ufunc::zeros<double>({0}).item()), ufunc::value_error);
  // A size-1 view whose element is not the first of the buffer.
  CHECK(a[{slice{1, 2}, slice{2, 3}}].item<std::int32_t>() == 5);
  CHECK(a[{-1, -1}].item<std::int32_t>() == 5);

  // int64_t, long and long long all name int64 on LP64.
  const auto l = ufunc::arange<std::int64_t>(3);
  CHECK(static_cast<const ufunc::array&>(l).at<long long>(2) == 2);
  CHECK(static_cast<const ufunc::array&>(l).at<long>(2) == 2);
}

TEST_CASE("array: array_t<T> checks the dtype on conversion") {
  const ufunc::array a = ufunc::zeros<float>({2});
  CHECK_NOTHROW((void)ufunc::array_t<float>(a));
  CHECK_THROWS_AS((void)(ufunc::array_t<double>(a)), ufunc::dtype_error);
  CHECK_THROWS_AS((void)(ufunc::array_t<std::int32_t>(a)), ufunc::dtype_error);
  CHECK_THROWS_AS((void)(ufunc::array_t<std::complex<float>>(a)), ufunc::dtype_error);
  const ufunc::array i = ufunc::array::zeros({2}, ufunc::int64);
  CHECK_NOTHROW((void)ufunc::array_t<long long>(i));
  CHECK_NOTHROW((void)ufunc::array_t<std::int64_t>(i));
  CHECK_THROWS_AS((void)(ufunc::array_t<std::uint64_t>(i)), ufunc::dtype_error);
  // A null array converts (it stays null); using it throws.
  const ufunc::array_t<float> null{ufunc::array{}};
  CHECK_FALSE(null.valid());
  CHECK_THROWS_AS((void)(ufunc::array{}.transpose()), ufunc::error);
  CHECK_THROWS_AS((void)(ufunc::array{}.reshape({1})), ufunc::error);
  CHECK_THROWS_AS((void)(ufunc::array{}.at<double>()), ufunc::error);
}

TEST_CASE("array: describe() and shape_string() formats") {
  using ufunc::array;
  CHECK(array::shape_string(dim_vector{3}) == "(3,)");
  CHECK(array::shape_string(dim_vector{2, 3}) == "(2, 3)");
  CHECK(array::shape_string(dim_vector{}) == "()");
  CHECK(array::shape_string(dim_vector{0}) == "(0,)");
  CHECK(array::shape_string(dim_vector{1, 0, 2}) == "(1, 0, 2)");
  CHECK(array::shape_string(dim_vector{1, 2, 3, 4, 5, 6, 7}) == "(1, 2, 3, 4, 5, 6, 7)");
  CHECK(ufunc::zeros<float>({3, 4}).describe() == "float32 array of shape (3, 4) on cpu");
  CHECK(ufunc::zeros<std::complex<double>>({3}).describe() == "complex128 array of shape (3,) on cpu");
  CHECK(ufunc::zeros<std::uint16_t>({0, 2}).describe() == "uint16 array of shape (0, 2) on cpu");
  CHECK(array::zeros({}, ufunc::dtype::from_string("int8")).describe() == "int8 array of shape () on cpu");
}

// ---------------------------------------------------------------------------------------------------------------------
// Views over user memory

TEST_CASE("array: views over std::vector, std::span and raw pointers borrow the memory") {
  std::vector<double> v(10);
  std::iota(v.begin(), v.end(), 0.0);
  const auto w = ufunc::view(v);
  CHECK(w.shape() == dim_vector{10});
  CHECK(w.strides() == dim_vector{8});
  CHECK(w.data() == v.data());
  CHECK(w.owner() == nullptr);
  CHECK(w.writeable());
  w.at(3) = -1;
  CHECK(v[3] == -1);

  const auto m = ufunc::view(std::span<double>(v), {2, 5});
  CHECK(m.strides() == dim_vector{40, 8});
  CHECK(m.at(1, 0) == 5);

  // Custom byte strides: every other element, as rows of two.
  std::vector<std::int32_t> iv(12);
  std::iota(iv.begin(), iv.end(), 0);
  const auto s = ufunc::view(std::span<std::int32_t>(iv), {3, 2}, {16, 8});
  CHECK(fmt(s.to_vector()) == "{0, 2, 4, 6, 8, 10}");
  CHECK(fmt(s.transpose().to_vector()) == "{0, 4, 8, 2, 6, 10}");
  CHECK_FALSE(s.is_c_contiguous());

  // Raw pointers may walk backwards or repeat elements.
  const auto r = ufunc::view(iv.data() + 11, {12}, {-4});
  CHECK(fmt(r.to_vector()) == "{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}");
  const auto rep = ufunc::view(iv.data(), {2, 3}, {0, 4});
  CHECK(fmt(rep.to_vector()) == "{0, 1, 2, 0, 1, 2}");
  // A byte stride that is not a multiple of the item size (a struct-of-fields layout).
  struct pair {
    std::int32_t key;
    float value;
  };
  std::vector<pair> pairs = {{1, 0.5f}, {2, 1.5f}, {3, 2.5f}};
  const auto keys = ufunc::view(&pairs[0].key, {3}, {sizeof(pair)});
  const auto values = ufunc::view(&pairs[0].value, {3}, {sizeof(pair)});
  CHECK(fmt(keys.to_vector()) == "{1, 2, 3}");
  CHECK(fmt(values.to_vector()) == "{0.5, 1.5, 2.5}");
  ufunc::full<float>({3}, 9.0f).copy_to(values);
  CHECK(pairs[1].value == 9.0f);
  CHECK(pairs[1].key == 2);

  CHECK_THROWS_AS((void)(ufunc::view(iv.data(), {2, 3}, {4})), ufunc::value_error);
}

TEST_CASE("array: a span view whose extent leaves the span throws index_error") {
  std::vector<std::int32_t> iv(12);
  const std::span<std::int32_t> all(iv);
  // rows of 2 at 16-byte pitch reach bytes [0, 44): 11 elements fit, 10 do not.
  CHECK_NOTHROW((void)ufunc::view(all.first(11), {3, 2}, {16, 8}));
  CHECK_THROWS_AS((void)(ufunc::view(all.first(10), {3, 2}, {16, 8})), ufunc::index_error);
  CHECK_NOTHROW((void)ufunc::view(all, {12}));
  CHECK_THROWS_AS((void)(ufunc::view(all, {13})), ufunc::index_error);
  CHECK_THROWS_AS((void)(ufunc::view(all, {2, 7})), ufunc::index_error);
  CHECK_THROWS_AS((void)(ufunc::view(all, {5}, {12})), ufunc::index_error);  // last element at byte 48
  CHECK_NOTHROW((void)ufunc::view(all, {4}, {12}));
  // A span view starts at the span's first element, so a negative stride leaves it.
  CHECK_THROWS_AS((void)(ufunc::view(all, {2}, {-4})), ufunc::index_error);
  CHECK_NOTHROW((void)ufunc::view(all, {1}, {-4}));  // one element: the stride is never used
  // Repeating elements and zero-size views stay inside whatever the strides.
  CHECK_NOTHROW((void)ufunc::view(all, {1000, 12}, {0, 4}));
  CHECK_NOTHROW((void)ufunc::view(all, {0, 1000}, {1 << 20, 1 << 20}));
  CHECK_NOTHROW((void)ufunc::view(all.first(0), {0}));
  CHECK_THROWS_AS((void)(ufunc::view(all.first(0), {1})), ufunc::index_error);
}

// ---------------------------------------------------------------------------------------------------------------------
// Basic indexing

TEST_CASE("array: integer indices and newaxis") {
  const auto a = iota_array({2, 3, 4});
  const auto row = a[{1}];
  CHECK(fmt(row.shape()) == "(3, 4)");
  CHECK(row.data() == a.data() + 12);
  CHECK(fmt(row.to_vector()) == fmt(std::vector<i64>{12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
  CHECK(fmt(a[{1, -1}].to_vector()) == "{20, 21, 22, 23}");
  CHECK(a[{-1, -1, -1}].ndim() == 0);
  CHECK(a[{-1, -1, -1}].item() == 23);
  CHECK(a[{-2, 0, -4}].item() == 0);

  const auto n = a[{0, newaxis, 2}];
  CHECK(fmt(n.shape()) == "(1, 4)");
  CHECK(n.strides() == dim_vector{0, 8});
  CHECK(fmt(n.to_vector()) == "{8, 9, 10, 11}");
  CHECK(fmt(a[{newaxis}].shape()) == "(1, 2, 3, 4)");
  CHECK(fmt(a[{newaxis, 1, newaxis}].shape()) == "(1, 1, 3, 4)");
  CHECK(fmt(a[{0, 0, 0, newaxis}].shape()) == "(1,)");
  CHECK(fmt(a[{newaxis, newaxis, newaxis, newaxis, 0, 0, 0}].shape()) == "(1, 1, 1, 1)");

  // Views share memory with their base.
  a[{1, 2}].at(3) = -5;
  CHECK(a.at(1, 2, 3) == -5);

  CHECK_THROWS_AS((void)(a[{2}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(a[{-3}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(a[{0, 3}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(a[{0, -4}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(a[{0, 0, 4}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(a[{0, 0, i64_min}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(a[{0, 0, i64_max}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(a[{0, 0, 0, 0}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(a[{slice{}, slice{}, slice{}, slice{}}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(ufunc::zeros<float>({0})[{0}]), ufunc::index_error);

  // NumPy's messages.
  try {
    (void)a[{0, 0, 0, 0}];
    FAIL("no exception");
  } catch (const ufunc::index_error& e) {
    CHECK(std::string(e.what()) == "too many indices for array: array is 3-dimensional, but 4 were indexed");
  }
  try {
    (void)a[{2}];
    FAIL("no exception");
  } catch (const ufunc::index_error& e) {
    CHECK(std::string(e.what()) == "index 2 is out of bounds for axis 0 with size 2");
  }
}

TEST_CASE("array: 1-d slices follow Python's slice rules exactly") {
  // Every combination of bounds (missing, in range, out of range either side, the
  // int64 extremes) and small steps, on lengths 0..6.
  std::vector<std::optional<i64>> bounds = {std::nullopt, i64_min, i64_max};
  for (i64 b = -9; b <= 9; ++b) bounds.push_back(b);
  const i64 steps[] = {-7, -4, -3, -2, -1, 1, 2, 3, 4, 7};
  std::vector<std::string> mismatches;
  long checked = 0;
  for (i64 n = 0; n <= 6; ++n) {
    const auto a = ufunc::arange<i64>(n);
    for (const auto& start : bounds)
      for (const auto& stop : bounds)
        for (const i64 step : steps) {
          const auto expected = python_slice(n, start, stop, step);
          const auto r = a[{slice{start, stop, step}}];
          ++checked;
          const auto got = walk<i64>(r);
          bool ok = r.ndim() == 1 && got == expected;
          // The view's geometry, not only its values: it starts at the first selected
          // element and steps by step elements.
          if (ok && !expected.empty()) ok = r.data() == a.data() + expected[0];
          if (ok && expected.size() > 1) ok = r.strides()[0] == step * 8;
          if (!ok && mismatches.size() < 10)
            mismatches.push_back("n=" + std::to_string(n) + " " + slice_repr(start, stop, step) + ": expected " +
                                 fmt(expected) + ", got " + fmt(got));
        }
  }
  CHECK(checked == 7 * 22 * 22 * 10);
  INFO("first mismatches: " << fmt(mismatches));
  CHECK(mismatches.empty());
}

TEST_CASE("array: slices with steps near the int64 limits follow Python") {
  // Python: list(range(5))[::sys.maxsize] == [0], and NumPy agrees.
  const auto a = ufunc::arange<i64>(5);
  const std::optional<i64> none;
  CHECK(fmt(python_slice(5, none, none, i64_max)) == "{0}");
  CHECK(fmt(walk<i64>(a[{slice{none, none, i64_max}}])) == "{0}");
  CHECK(fmt(walk<i64>(a[{slice{1, none, i64_max}}])) == "{1}");
  CHECK(fmt(walk<i64>(a[{slice{none, none, i64_min}}])) == "{4}");
  CHECK(fmt(walk<i64>(a[{slice{none, none, -i64_max}}])) == "{4}");
  CHECK(fmt(walk<i64>(a[{slice{3, none, i64_min}}])) == "{3}");
  CHECK(fmt(walk<i64>(a[{slice{i64_min, i64_max, i64_max}}])) == "{0}");
  CHECK(fmt(walk<i64>(a[{slice{none, none, i64_max / 2}}])) == "{0}");
  CHECK(fmt(walk<i64>(a[{slice{none, none, i64_min / 2}}])) == "{4}");
  CHECK(fmt(walk<i64>(a[{slice{i64_min, i64_max, 1}}])) == "{0, 1, 2, 3, 4}");
  CHECK(fmt(walk<i64>(a[{slice{i64_max, i64_min, -1}}])) == "{4, 3, 2, 1, 0}");
}

TEST_CASE("array: slicing errors, chained views and negative strides") {
  const auto a = ufunc::arange<i64>(10);
  CHECK_THROWS_AS((void)(a[{slice{std::nullopt, std::nullopt, 0}}]), ufunc::value_error);
  CHECK_THROWS_AS((void)(a[{slice{1, 2, 0}}]), ufunc::value_error);

  const auto r = a[{slice{std::nullopt, std::nullopt, -1}}];
  CHECK(r.strides() == dim_vector{-8});
  CHECK(r.data() == a.data() + 9);
  CHECK(fmt(r.to_vector()) == "{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}");
  // A view of a view composes as Python: a[::-1][1::3] is a[8::-3].
  const auto rr = r[{slice{1, std::nullopt, 3}}];
  CHECK(fmt(rr.to_vector()) == "{8, 5, 2}");
  CHECK(rr.strides() == dim_vector{-24});
  CHECK(fmt(rr[{slice{std::nullopt, std::nullopt, -1}}].to_vector()) == "{2, 5, 8}");
  CHECK(rr[{-1}].item() == 2);
  // Empty slices of a negatively strided view.
  CHECK(r[{slice{5, 5}}].size() == 0);
  CHECK(r[{slice{2, 7, -1}}].size() == 0);
}

TEST_CASE("array: n-d basic indexing matches a reference gather") {
  const auto a = iota_array({4, 5, 6});
  const std::optional<i64> none;
  check_indexing(a, {slice{1, none, 2}, slice{none, none, -1}, 3});
  check_indexing(a, {-1, slice{4, 0, -2}});
  check_indexing(a, {slice{-100, 100}, newaxis, slice{none, none, -3}, 0});
  check_indexing(a, {newaxis, slice{none, none, -1}, newaxis, -2, slice{-2, none, -2}, newaxis});
  check_indexing(a, {slice{2, 2}, 1});
  check_indexing(a, {slice{3, 1}, slice{}, slice{}});
  check_indexing(a, {0, 0, slice{5, -100, -1}});

  // Random subscripts of up to three entries (ints in and out of range, slices,
  // newaxis), also applied to a transposed, reversed view so that the base is not
  // C-ordered.
  std::mt19937 gen(42);
  auto pick = [&]() -> ufunc::index {
    auto bound = [&]() -> std::optional<i64> {
      const int r = static_cast<int>(gen() % 16);
      if (r == 0) return std::nullopt;
      return r - 8;
    };
    switch (gen() % 4) {
      case 0: return static_cast<i64>(static_cast<int>(gen() % 15) - 7);
      case 1: return newaxis;
      default: {
        i64 step = static_cast<i64>(gen() % 7) - 3;
        if (step == 0) step = 1;
        return slice{bound(), bound(), step};
      }
    }
  };
  for (int iter = 0; iter < 300; ++iter) {
    const ufunc::index i0 = pick(), i1 = pick(), i2 = pick();
    check_indexing(a, {i0});
    check_indexing(a, {i0, i1});
    check_indexing(a, {i0, i1, i2});
  }
  // On a non-C-ordered view: compare against indexing a C-ordered copy of it, whose
  // values the reference knows.
  const auto t = a.transpose()[{slice{std::nullopt, std::nullopt, -1}}];  // shape (6, 5, 4)
  const auto tc = t.copy();
  for (int iter = 0; iter < 100; ++iter) {
    const ufunc::index i0 = pick(), i1 = pick();
    const bool valid = reference_index(tc.shape(), std::vector<ufunc::index>{i0, i1}).has_value();
    if (!valid) {
      CHECK_THROWS_AS((void)(t[{i0, i1}]), ufunc::index_error);
      continue;
    }
    const auto x = t[{i0, i1}];
    const auto y = tc[{i0, i1}];
    CHECK(x.shape() == y.shape());
    CHECK(fmt(walk<i64>(x)) == fmt(walk<i64>(y)));
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// transpose, reshape, broadcast_to

TEST_CASE("array: transpose reverses or permutes axes without copying") {
  // Through the base class: array_t<T> declares only transpose(), which hides the axes overloads.
  const auto typed = iota_array({2, 3, 4});
  const ufunc::array& a = typed;
  const auto t = a.transpose();
  CHECK(fmt(t.shape()) == "(4, 3, 2)");
  CHECK(t.strides() == dim_vector{8, 32, 96});
  CHECK(t.data() == a.data());
  CHECK(t.is_f_contiguous());
  for (i64 i = 0; i < 4; ++i)
    for (i64 j = 0; j < 3; ++j)
      for (i64 k = 0; k < 2; ++k) CHECK(t.at<i64>(i, j, k) == a.at<i64>(k, j, i));

  const auto p = a.transpose({1, 0, 2});
  CHECK(fmt(p.shape()) == "(3, 2, 4)");
  CHECK(p.strides() == dim_vector{32, 96, 8});
  CHECK(p.at<i64>(2, 1, 3) == a.at<i64>(1, 2, 3));
  const auto q = a.transpose({-1, 0, -2});  // negative axes count from the end
  CHECK(fmt(q.shape()) == "(4, 2, 3)");
  CHECK(q.at<i64>(3, 1, 2) == a.at<i64>(1, 2, 3));
  CHECK(a.transpose({0, 1, 2}).strides() == a.strides());
  const i64 axes[] = {2, 0, 1};
  CHECK(fmt(a.transpose(std::span<const i64>(axes)).shape()) == "(4, 2, 3)");

  CHECK(ufunc::arange<int>(5).transpose().shape() == dim_vector{5});
  CHECK(ufunc::scalar<int>(1).transpose().ndim() == 0);

  CHECK_THROWS_AS((void)(a.transpose({0, 1})), ufunc::value_error);           // "axes don't match array"
  CHECK_THROWS_AS((void)(a.transpose({0, 1, 2, 0})), ufunc::value_error);
  CHECK_THROWS_AS((void)(a.transpose({0, 0, 1})), ufunc::value_error);        // repeated axis
  CHECK_THROWS_AS((void)(a.transpose({0, 1, -3})), ufunc::value_error);       // -3 is axis 0, repeated
  CHECK_THROWS_AS((void)(a.transpose({0, 1, 3})), ufunc::index_error);        // AxisError
  CHECK_THROWS_AS((void)(a.transpose({0, 1, -4})), ufunc::index_error);
}

TEST_CASE("array: reshape views C-contiguous arrays and copies others") {
  const auto a = iota_array({2, 3, 4});
  const auto r = a.reshape({6, 4});
  CHECK(r.data() == a.data());
  CHECK(r.strides() == dim_vector{32, 8});
  CHECK(fmt(a.reshape({-1, 4}).shape()) == "(6, 4)");
  CHECK(fmt(a.reshape({2, -1, 3}).shape()) == "(2, 4, 3)");
  CHECK(fmt(a.reshape({-1}).shape()) == "(24,)");
  CHECK(fmt(a.reshape({1, 24, 1}).shape()) == "(1, 24, 1)");
  CHECK(fmt(a.reshape({24}).to_vector()) == fmt(ufunc::arange<i64>(24).to_vector()));
  // A 1-d slice with a step is not C-contiguous: reshape must copy, in C order of the view.
  const auto stepped = ufunc::arange<i64>(12)[{slice{std::nullopt, std::nullopt, 2}}];
  const auto sr = stepped.reshape({2, 3});
  CHECK(sr.data() != stepped.data());
  CHECK(sr.is_c_contiguous());
  CHECK(fmt(sr.to_vector()) == "{0, 2, 4, 6, 8, 10}");

  const auto t = a.transpose();
  const auto tr = t.reshape({24});
  CHECK(tr.data() != a.data());
  CHECK(fmt(tr.to_vector()) == fmt(walk<i64>(t)));
  tr.at(0) = 1000;  // a copy: the base is untouched
  CHECK(a.at(0, 0, 0) == 0);
  const auto rev = ufunc::arange<i64>(6)[{slice{std::nullopt, std::nullopt, -1}}].reshape({2, 3});
  CHECK(fmt(rev.to_vector()) == "{5, 4, 3, 2, 1, 0}");

  // A view writes through.
  r.at(5, 3) = -1;
  CHECK(a.at(1, 2, 3) == -1);

  CHECK_THROWS_AS((void)(a.reshape({5, 5})), ufunc::value_error);
  CHECK_THROWS_AS((void)(a.reshape({25})), ufunc::value_error);
  CHECK_THROWS_AS((void)(a.reshape({-1, -1})), ufunc::value_error);
  CHECK_THROWS_AS((void)(a.reshape({-1, 5})), ufunc::value_error);
  CHECK_THROWS_AS((void)(a.reshape({-2, -12})), ufunc::value_error);
  CHECK_THROWS_AS((void)(a.reshape({})), ufunc::value_error);
  CHECK_THROWS_AS((void)(t.reshape({7})), ufunc::value_error);

  // Zero-size arrays, as NumPy: -1 is inferred unless another extent is 0.
  const auto z = ufunc::zeros<float>({0, 3});
  CHECK(fmt(z.reshape({-1, 3}).shape()) == "(0, 3)");
  CHECK(fmt(z.reshape({3, 0, 5}).shape()) == "(3, 0, 5)");
  CHECK(fmt(z.reshape({-1}).shape()) == "(0,)");
  CHECK_THROWS_AS((void)(z.reshape({-1, 0})), ufunc::value_error);
  CHECK_THROWS_AS((void)(z.reshape({0, -1})), ufunc::value_error);
  CHECK_THROWS_AS((void)(z.reshape({1})), ufunc::value_error);
}

TEST_CASE("array: broadcast_to gives read-only stride-0 views") {
  const auto a = ufunc::arange<std::int32_t>(3);
  const auto b = a.broadcast_to({4, 3});
  CHECK(fmt(b.shape()) == "(4, 3)");
  CHECK(b.strides() == dim_vector{0, 4});
  CHECK(b.data() == a.data());
  CHECK(b.owner() == a.owner());
  CHECK_FALSE(b.writeable());
  CHECK(a.writeable());
  CHECK(fmt(b.to_vector()) == "{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}");

  const auto col = ufunc::arange<std::int32_t>(3).reshape({3, 1});
  const auto c = col.broadcast_to({2, 3, 4});
  CHECK(c.strides() == dim_vector{0, 4, 0});
  CHECK(c.at(1, 2, 3) == 2);
  CHECK(c.size() == 24);
  CHECK(a.broadcast_to({3}).strides() == dim_vector{4});
  CHECK(ufunc::zeros<float>({1}).broadcast_to({0}).size() == 0);
  CHECK(ufunc::zeros<float>({0}).broadcast_to({5, 0}).size() == 0);

  // Writing into a read-only view is refused; copies of it are writeable.
  CHECK_THROWS_AS((ufunc::zeros<std::int32_t>({4, 3}).copy_to(b)), ufunc::overlap_error);
  const auto bc = b.copy();
  CHECK(bc.writeable());
  CHECK(bc.is_c_contiguous());
  CHECK(bc.strides() == dim_vector{12, 4});
  // Read-only propagates to views of views.
  CHECK_FALSE(b[{0}].writeable());
  CHECK_FALSE(b.transpose().writeable());
  CHECK_FALSE(a.as_readonly().writeable());

  CHECK_THROWS_AS((void)(a.broadcast_to({4})), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)(a.broadcast_to({3, 2})), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)(a.broadcast_to({})), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)(a.broadcast_to({0})), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)(col.broadcast_to({3})), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)(ufunc::zeros<float>({0}).broadcast_to({2})), ufunc::broadcast_error);
  CHECK_THROWS_AS((void)(ufunc::zeros<float>({1}).broadcast_to({-1})), ufunc::value_error);
}

// ---------------------------------------------------------------------------------------------------------------------
// Conversions

namespace {
// `values` as an array of From, converted to To (through the untyped array: array_t's
// own to_vector() hides the converting one).
template <class To, class From>
std::vector<To> converted(std::initializer_list<From> values) {
  return ufunc::array(ufunc::asarray<From>(values)).to_vector<To>();
}

// The array converted to bool, read element by element (to_vector<bool>() cannot exist:
// std::vector<bool> has no data()).
std::vector<bool> as_bools(const ufunc::array& a) {
  const auto b = a.astype(ufunc::bool_);
  REQUIRE(b.type() == ufunc::bool_);
  std::vector<bool> out;
  for (i64 i = 0; i < b.size(); ++i) out.push_back(b.data_as<bool>()[i]);
  return out;
}
}  // namespace

TEST_CASE("array: astype converts as NumPy's unsafe casts") {
  using cd = std::complex<double>;
  // Floats truncate towards zero.
  const ufunc::array f = ufunc::asarray<double>({-1.5, 2.9, -0.5, 0.5, 127.99, -127.99});
  CHECK(fmt(f.astype(ufunc::int32).to_vector<std::int32_t>()) == "{-1, 2, 0, 0, 127, -127}");
  CHECK(fmt(f.astype(ufunc::int8).to_vector<std::int8_t>()) == "{-1, 2, 0, 0, 127, -127}");
  CHECK(fmt(f.to_vector<std::int64_t>()) == "{-1, 2, 0, 0, 127, -127}");
  CHECK(fmt(converted<std::uint8_t, float>({0.5f, 1.99f, 255.5f})) == "{0, 1, 255}");
  CHECK(fmt(converted<std::int64_t, double>({1e15 + 0.5, -4e18})) ==
        "{1000000000000000, -4000000000000000000}");
  CHECK(fmt(converted<std::uint64_t, double>({1.8446744073709550e19})) == "{18446744073709549568}");

  // Complex to real drops the imaginary part (NumPy's ComplexWarning case).
  const ufunc::array c = ufunc::asarray<cd>({{1, 2}, {-3.7, 2}, {0, -1}});
  CHECK(fmt(c.to_vector<double>()) == "{1, -3.7, 0}");
  CHECK(fmt(c.astype(ufunc::int16).to_vector<std::int16_t>()) == "{1, -3, 0}");
  CHECK(fmt(c.astype(ufunc::complex64).to_vector<std::complex<float>>()) == "{(1,2), (-3.7,2), (0,-1)}");
  CHECK(fmt(converted<cd, float>({1.5f, -2})) == "{(1.5,0), (-2,0)}");
  CHECK(fmt(converted<std::complex<float>, std::int8_t>({-3, 4})) == "{(-3,0), (4,0)}");

  // To bool: nonzero is true; NaN is true, -0.0 is false, a complex is true when either part is nonzero.
  CHECK(fmt(as_bools(ufunc::asarray<double>({std::nan(""), -0.0, 0.5, 0.0, -1e-300}))) ==
        "{true, false, true, false, true}");
  CHECK(fmt(as_bools(ufunc::asarray<cd>({{0, 0}, {0, 1}, {2, 0}, {-0.0, -0.0}}))) == "{false, true, true, false}");
  CHECK(fmt(as_bools(ufunc::asarray<std::int32_t>({0, -1, 2, 256}))) == "{false, true, true, true}");
  CHECK(fmt(as_bools(ufunc::asarray<std::uint8_t>({0, 255}))) == "{false, true}");
  // From bool: 0 and 1.
  const ufunc::array b = ufunc::asarray<bool>({true, false, true});
  CHECK(fmt(b.to_vector<std::int32_t>()) == "{1, 0, 1}");
  CHECK(fmt(b.to_vector<double>()) == "{1, 0, 1}");
  CHECK(fmt(b.to_vector<std::uint64_t>()) == "{1, 0, 1}");
  CHECK(fmt(b.to_vector<cd>()) == "{(1,0), (0,0), (1,0)}");

  // Integers wrap modulo 2^n, as NumPy's C casts.
  CHECK(fmt(converted<std::int8_t, std::uint8_t>({200, 255, 128})) == "{-56, -1, -128}");
  CHECK(fmt(converted<std::uint8_t, std::int32_t>({256, -1, 300})) == "{0, 255, 44}");
  CHECK(fmt(converted<std::uint64_t, std::int64_t>({-1})) == "{18446744073709551615}");
  CHECK(fmt(converted<std::int64_t, std::uint64_t>({~std::uint64_t{0}})) == "{-1}");
  CHECK(fmt(converted<std::int32_t, std::int16_t>({-32768, 32767})) == "{-32768, 32767}");
  // Floats round to nearest.
  CHECK(fmt(converted<float, std::int64_t>({16777217})) == "{1.67772e+07}");
  CHECK(converted<float, std::int64_t>({16777217})[0] == 16777216.0f);
  CHECK(converted<float, double>({0.1})[0] == 0.1f);
  CHECK(converted<double, float>({0.1f})[0] == static_cast<double>(0.1f));
}

TEST_CASE_TEMPLATE("array: astype round-trips through complex128 and agrees with bool", T, UFUNC_TEST_NUMERIC_TYPES) {
  const auto values = ufunc_test::sample_values<T>(37, 3);
  const auto a = ufunc::asarray<T>(std::span<const T>(values), {37});
  const auto wide = a.astype(ufunc::complex128);
  CHECK(wide.type() == ufunc::complex128);
  CHECK(wide.astype(ufunc::dtype_of<T>).template to_vector<T>() == values);
  const auto bools = as_bools(a);
  for (std::size_t i = 0; i < values.size(); ++i) CHECK(bools[i] == (values[i] != T(0)));
  const auto copy = a.copy();
  CHECK(copy.data() != a.data());
  CHECK(copy.type() == a.type());
  CHECK(copy.to_vector() == values);
}

TEST_CASE("array: copy, copy_to and to_vector on strided views") {
  const auto a = iota_array({3, 4});
  // astype of a transposed, reversed view keeps its axis order (order='K', as NumPy:
  // a.T[::-1].astype('f8').strides is (8, 32)), astype(C) and copy() are C-ordered, and
  // all hold the view's values.
  const auto v = a.transpose()[{slice{std::nullopt, std::nullopt, -1}}];  // shape (4, 3)
  const auto k = v.astype(ufunc::float64);
  CHECK(k.strides() == dim_vector{8, 32});
  CHECK(fmt(k.to_vector<double>()) == "{3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8}");
  const auto c = v.astype(ufunc::float64, ufunc::order::C);
  CHECK(c.is_c_contiguous());
  CHECK(c.strides() == dim_vector{24, 8});
  CHECK(fmt(c.to_vector<double>()) == "{3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8}");
  CHECK(v.copy().strides() == dim_vector{24, 8});
  CHECK(fmt(v.to_vector()) == "{3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8}");
  CHECK(fmt(ufunc::array(v).to_vector<float>()) == "{3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8}");

  const auto d = a.copy();
  CHECK(d.data() != a.data());
  d.at(0, 0) = 99;
  CHECK(a.at(0, 0) == 0);

  // copy_to broadcasts the source and casts into strided destinations.
  auto dst = ufunc::zeros<float>({3, 4});
  ufunc::arange<std::int32_t>(4).copy_to(dst);
  CHECK(fmt(dst.to_vector()) == "{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}");
  ufunc::scalar<double>(7.9).copy_to(dst[{slice{}, slice{std::nullopt, std::nullopt, -2}}]);
  CHECK(fmt(dst.to_vector()) == "{0, 7.9, 2, 7.9, 0, 7.9, 2, 7.9, 0, 7.9, 2, 7.9}");
  ufunc::arange<std::int64_t>(3).copy_to(dst.transpose()[{slice{1, 3}}]);
  CHECK(fmt(dst.to_vector()) == "{0, 0, 0, 7.9, 0, 1, 1, 7.9, 0, 2, 2, 7.9}");
  CHECK_THROWS_AS((ufunc::arange<std::int32_t>(3).copy_to(dst)), ufunc::broadcast_error);
  CHECK_THROWS_AS((ufunc::zeros<float>({2, 3, 4}).copy_to(dst)), ufunc::broadcast_error);

  // Zero-size and 0-d.
  CHECK(ufunc::zeros<float>({2, 0, 3}).to_vector().empty());
  CHECK(ufunc::zeros<float>({2, 0, 3}).astype(ufunc::int8).shape() == dim_vector{2, 0, 3});
  CHECK(fmt(ufunc::array(ufunc::scalar<std::int16_t>(-3)).to_vector<double>()) == "{-3}");
}

TEST_CASE("array: copy_to between overlapping views never silently corrupts the result") {
  // np.copyto(a, a[::-1]) and np.copyto(a[1:], a[:-1]) behave as if the source were
  // copied to a temporary first. Refusing with overlap_error is an acceptable
  // alternative; a smeared result is not.
  auto overlapping_copy = [](auto make_src, auto make_dst, const std::string& expected) {
    const auto a = ufunc::arange<i64>(10);
    try {
      make_src(a).copy_to(make_dst(a));
    } catch (const ufunc::overlap_error&) {
      return;
    }
    CHECK(fmt(a.to_vector()) == expected);
  };
  const std::optional<i64> none;
  overlapping_copy([&](const auto& a) { return a[{slice{none, none, -1}}]; }, [](const auto& a) { return a; },
                   "{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}");
  overlapping_copy([&](const auto& a) { return a[{slice{none, -1}}]; },
                   [&](const auto& a) { return a[{slice{1, none}}]; }, "{0, 0, 1, 2, 3, 4, 5, 6, 7, 8}");
  overlapping_copy([&](const auto& a) { return a[{slice{1, none}}]; },
                   [&](const auto& a) { return a[{slice{none, -1}}]; }, "{1, 2, 3, 4, 5, 6, 7, 8, 9, 9}");
  // Exactly the same memory is a no-op either way.
  overlapping_copy([](const auto& a) { return a; }, [](const auto& a) { return a; }, "{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}");
}

// ---------------------------------------------------------------------------------------------------------------------
// Edge shapes and limits

TEST_CASE("array: zero-size arrays") {
  const auto z = ufunc::zeros<float>({2, 0, 3});
  CHECK(z.size() == 0);
  CHECK(z.nbytes() == 0);
  CHECK(z.ndim() == 3);
  CHECK(z.to_vector().empty());
  CHECK(z.copy().shape() == dim_vector{2, 0, 3});
  CHECK(z.transpose().shape() == dim_vector{3, 0, 2});
  CHECK(z.reshape({0}).shape() == dim_vector{0});
  CHECK(z.is_c_contiguous());
  CHECK(z.is_f_contiguous());
  CHECK(z[{1}].shape() == dim_vector{0, 3});
  CHECK(z[{slice{}, slice{}, 2}].shape() == dim_vector{2, 0});
  CHECK_THROWS_AS((void)(z[{slice{}, 0}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(z.at(0, 0, 0)), ufunc::index_error);
  CHECK(ufunc::arange<int>(5)[{slice{3, 3}}].size() == 0);
  CHECK(ufunc::arange<int>(5)[{slice{3, 3}}].shape() == dim_vector{0});
  CHECK(ufunc::zeros<int>({0}).describe() == "int32 array of shape (0,) on cpu");
  std::vector<double> none;
  CHECK(ufunc::view(none).size() == 0);
  CHECK(ufunc::view(none).to_vector().empty());
}

TEST_CASE("array: sizes whose element or byte count overflow int64 raise overflow_error") {
  using ufunc::array;
  // (2^40)^2 = 2^80: NumPy raises "array is too big".
  CHECK_THROWS_AS((void)(array::empty({i64{1} << 40, i64{1} << 40}, ufunc::float32)), ufunc::overflow_error);
  CHECK_THROWS_AS((void)(array::empty({i64{1} << 40, i64{1} << 40}, ufunc::float32, ufunc::order::F)),
                  ufunc::overflow_error);
  CHECK_THROWS_AS((void)(array::zeros({i64{1} << 32, i64{1} << 32}, ufunc::uint8)), ufunc::overflow_error);
  CHECK_THROWS_AS((void)(ufunc::empty<double>({i64{1} << 62, 4})), ufunc::overflow_error);
  CHECK_THROWS_AS((void)(array::empty({3, i64{1} << 62}, ufunc::uint8)), ufunc::overflow_error);
  CHECK_THROWS_AS((void)(array::empty({i64_max, 2}, ufunc::uint8)), ufunc::overflow_error);
  // Elements fit but bytes do not.
  CHECK_THROWS_AS((void)(array::empty({i64{1} << 61}, ufunc::float64)), ufunc::overflow_error);
  CHECK_THROWS_AS((void)(array::empty({i64{1} << 60, 2}, ufunc::complex128)), ufunc::overflow_error);
  // Views are checked too.
  float x = 0;
  CHECK_THROWS_AS((void)(array(&x, ufunc::float32, {i64{1} << 40, i64{1} << 40}, {0, 0})), ufunc::overflow_error);
  CHECK_THROWS_AS((void)(array(&x, ufunc::float32, {i64{1} << 62, 8}, {0, 0})), ufunc::overflow_error);
  CHECK_NOTHROW((void)array(&x, ufunc::float32, {i64{1} << 20, i64{1} << 20}, {0, 0}));
  // Negative extents are a value error.
  CHECK_THROWS_AS((void)(array::empty({2, -1}, ufunc::float32)), ufunc::value_error);
  CHECK_THROWS_AS((void)(ufunc::zeros<int>({-3})), ufunc::value_error);
}

TEST_CASE("array: a zero extent does not excuse the other extents from the overflow check, as NumPy") {
  using ufunc::array;
  // NumPy skips zero extents but still requires the product of the others times the
  // item size to fit in intp: np.empty((0, 2**40, 2**40), 'f4') raises "array is too big".
  CHECK_THROWS_AS((void)(array::empty({0, i64{1} << 40, i64{1} << 40}, ufunc::float32)), ufunc::overflow_error);
  CHECK_THROWS_AS((void)(array::empty({i64{1} << 40, i64{1} << 40, 0}, ufunc::float32)), ufunc::overflow_error);
  CHECK_THROWS_AS((void)(array::empty({0, i64{1} << 60}, ufunc::float64)), ufunc::overflow_error);
  CHECK_THROWS_AS((void)(array::empty({i64{1} << 61, 0, 4}, ufunc::uint8)), ufunc::overflow_error);
  CHECK(array::empty({0, i64{1} << 59}, ufunc::float64).size() == 0);  // 2**62 bytes would fit
}

TEST_CASE("array: at most 64 dimensions") {
  const auto a64 = ufunc::array::zeros(dim_vector(std::size_t{64}, 1), ufunc::float64);
  CHECK(a64.ndim() == 64);
  CHECK(a64.size() == 1);
  CHECK(a64.to_vector<double>().size() == 1);
  CHECK_THROWS_AS((void)(ufunc::array::zeros(dim_vector(std::size_t{65}, 1), ufunc::float64)), ufunc::value_error);
  CHECK_THROWS_AS((void)(ufunc::array::empty(dim_vector(std::size_t{65}, 1), ufunc::int8)), ufunc::value_error);
  double x = 0;
  CHECK_THROWS_AS((void)(ufunc::array(&x, ufunc::float64, dim_vector(std::size_t{65}, 1))), ufunc::value_error);
  CHECK_THROWS_AS((void)(ufunc::scalar<double>(1).broadcast_to(dim_vector(std::size_t{65}, 1))), ufunc::value_error);
  // Views that would add a 65th axis: NumPy raises ("number of dimensions must be
  // within [0, 64]" / "maximum supported dimension ... is currently 64").
  CHECK_THROWS_AS((void)(a64[{newaxis}]), ufunc::index_error);
  CHECK_THROWS_AS((void)(ufunc::scalar<double>(1).reshape(dim_vector(std::size_t{65}, 1))), ufunc::value_error);
}
