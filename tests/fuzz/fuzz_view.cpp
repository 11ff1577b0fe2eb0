// Views over raw memory with user-given shapes and byte strides, then slicing,
// transpose, reshape, broadcast_to, copies, element access and ufunc calls on them.
//
// ufunc::view(std::span, shape, strides) knows the buffer and must refuse, with a
// ufunc::error, every view that reaches outside it; the harness decides that on its
// own (128-bit arithmetic) and checks that the library agrees. array(void*, ...)
// cannot know the buffer: its contract is that the caller keeps every addressed
// element inside one allocation. The harness fuzzes what that constructor can check
// (negative extents, strides that do not match the shape, sizes that overflow, too
// many dimensions) and uses its views only where its own check says they are inside.
//
// The buffer is a heap block of exactly the fuzzed size, so AddressSanitizer reports
// any access outside it: through a view wrongly accepted, or through a derived view
// (slice, transpose, reshape, broadcast) that escaped the memory of its base.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "fuzz_common.hpp"

namespace {

using ufunc::dim_vector;
using int128 = __int128;

constexpr std::size_t max_buffer = 512;
// Calls that would allocate more than this many result elements are skipped: the
// fuzzer's memory limit is not what this harness tests.
constexpr std::int64_t max_call_size = 1 << 12;

struct buffer_t {
  std::byte* base;
  std::size_t bytes;
};

enum class verdict { ok, bad_shape, too_big, too_many_dims, bad_strides, outside };

// What the library must say about a view of (shape, strides) at `offset` bytes into
// a buffer of `bytes` bytes (view(span): `bytes` is the span's size).
verdict judge(const dim_vector& shape, const dim_vector& strides_in, std::size_t item, int128 offset,
              std::size_t bytes) {
  if (shape.size() > static_cast<std::size_t>(ufunc::max_ndim)) return verdict::too_many_dims;
  int128 n = 1;
  bool overflow = false;
  for (auto e : shape) {
    if (e < 0) return verdict::bad_shape;
    if (e > 0 && !overflow) {
      n *= e;
      overflow = n * static_cast<int128>(item) > INT64_MAX;
    }
  }
  if (overflow) return verdict::too_big;
  if (!strides_in.empty() && strides_in.size() != shape.size()) return verdict::bad_strides;
  dim_vector strides = strides_in;
  if (strides.empty() && !shape.empty()) {  // C order
    strides.resize(shape.size());
    std::int64_t s = static_cast<std::int64_t>(item);
    for (std::size_t d = shape.size(); d-- > 0;) {
      strides[d] = s;
      s *= std::max<std::int64_t>(shape[d], 1);
    }
  }
  for (auto e : shape)
    if (e == 0) return verdict::ok;  // addresses nothing, whatever the strides
  int128 lo = offset, hi = offset;
  constexpr int128 far = int128{1} << 100;  // beyond any buffer; keeps the sums from overflowing
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const int128 span = static_cast<int128>(shape[d] - 1) * strides[d];
    (span < 0 ? lo : hi) += span;
    if (lo < -far || hi > far) return verdict::outside;
  }
  if (lo < 0 || hi + static_cast<int128>(item) > static_cast<int128>(bytes)) return verdict::outside;
  return verdict::ok;
}

// A library-made view of the buffer must address only the buffer.
void require_inside(const ufunc::array& v, const buffer_t& buf, const char* what) {
  if (v.size() == 0) return;
  const auto offset = static_cast<int128>(reinterpret_cast<std::uintptr_t>(v.data())) -
                      static_cast<int128>(reinterpret_cast<std::uintptr_t>(buf.base));
  if (v.owner()) return;  // a copy (reshape of a non-contiguous view), not a view of the buffer
  for (auto e : v.shape()) fuzz::require(e >= 0, std::string(what) + ": negative extent in " + v.describe());
  fuzz::require(judge(v.shape(), v.strides(), v.itemsize(), offset, buf.bytes) == verdict::ok,
                std::string(what) + " escaped the buffer: " + v.describe() + " strides " +
                    ufunc::array::shape_string(v.strides()) + " at offset " +
                    std::to_string(static_cast<long long>(offset)) + " of " + std::to_string(buf.bytes));
}

dim_vector fuzz_dims(FuzzedDataProvider& in, std::int64_t lo, std::int64_t hi, std::int64_t scale, int max_ndim) {
  dim_vector v;
  int nd = in.ConsumeIntegralInRange<int>(0, max_ndim);
  if (in.ConsumeIntegralInRange<int>(0, 31) == 0) nd = in.ConsumeIntegralInRange<int>(60, 70);  // the 64-dim limit
  for (int d = 0; d < nd; ++d)  // wraps (no UB in the harness itself): any int64 may come out
    v.push_back(static_cast<std::int64_t>(static_cast<std::uint64_t>(fuzz::small_or_wild(in, lo, hi)) *
                                          static_cast<std::uint64_t>(scale)));
  return v;
}

ufunc::index fuzz_index(FuzzedDataProvider& in) {
  auto bound = [&]() -> std::optional<std::int64_t> {
    if (in.ConsumeBool()) return std::nullopt;
    return fuzz::small_or_wild(in, -6, 6);
  };
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return fuzz::small_or_wild(in, -6, 6);
    case 1:
      return ufunc::newaxis;
    default: {
      ufunc::slice s;
      s.start = bound();
      s.stop = bound();
      s.step = fuzz::small_or_wild(in, -3, 3);
      return s;
    }
  }
}

ufunc::array subscript(const ufunc::array& v, FuzzedDataProvider& in) {
  ufunc::index i[5];
  const int n = in.ConsumeIntegralInRange<int>(0, 5);
  for (int k = 0; k < n; ++k) i[k] = fuzz_index(in);
  switch (n) {
    case 0:
      return v[{}];
    case 1:
      return v[{i[0]}];
    case 2:
      return v[{i[0], i[1]}];
    case 3:
      return v[{i[0], i[1], i[2]}];
    case 4:
      return v[{i[0], i[1], i[2], i[3]}];
    default:
      return v[{i[0], i[1], i[2], i[3], i[4]}];
  }
}

// Every element of `c` (a C-ordered copy of v) has v's bytes, read with the harness's
// own pointer arithmetic.
void check_copy(const ufunc::array& v, const ufunc::array& c) {
  fuzz::require(c.shape() == v.shape() && c.is_c_contiguous(), "copy(): wrong shape or layout");
  const std::size_t item = v.itemsize();
  dim_vector idx(v.ndim(), 0);
  for (std::int64_t k = 0; k < v.size(); ++k) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < v.ndim(); ++d) off += idx[d] * v.strides()[d];
    fuzz::require(std::memcmp(v.data() + off, c.data() + k * static_cast<std::int64_t>(item), item) == 0,
                  "copy(): element " + std::to_string(k) + " differs from the view's");
    for (std::size_t d = v.ndim(); d-- > 0;) {
      if (++idx[d] < v.shape()[d]) break;
      idx[d] = 0;
    }
  }
}

const char* const unary_names[] = {"negative", "sin", "sqrt", "absolute", "square", "logical_not",
                                   "isnan",    "exp", "rint", "sign",     "invert", "conjugate"};
const char* const binary_names[] = {"add",     "subtract",   "multiply",     "divide",      "maximum",
                                    "minimum", "power",      "floor_divide", "logical_and", "equal",
                                    "arctan2", "bitwise_or", "remainder",    "copysign",    "gcd"};

// One operation on v; returns the view to continue with.
ufunc::array step(const ufunc::array& v, const buffer_t& buf, FuzzedDataProvider& in) {
  ufunc::array next = v;
  const int op = in.ConsumeIntegralInRange<int>(0, 10);
  fuzz::accepted([&] {
    switch (op) {
      case 0: {
        next = subscript(v, in);
        require_inside(next, buf, "operator[]");
        break;
      }
      case 1: {
        if (in.ConsumeBool()) {
          next = v.transpose();
        } else {
          const auto axes = fuzz_dims(in, -4, 5, 1, 6);
          next = v.transpose(std::span<const std::int64_t>(axes.data(), axes.size()));
        }
        require_inside(next, buf, "transpose");
        break;
      }
      case 2: {
        // A non-contiguous view is copied: as large as a broadcast view may be.
        if (!v.is_c_contiguous() && v.size() > max_call_size) break;
        next = v.reshape(fuzz_dims(in, -1, 8, 1, 6));
        fuzz::require(next.size() == v.size(), "reshape changed the size");
        require_inside(next, buf, "reshape");
        break;
      }
      case 3: {
        next = v.broadcast_to(fuzz_dims(in, 0, 6, 1, 6));
        fuzz::require(!next.writeable(), "broadcast_to: a writeable view");
        require_inside(next, buf, "broadcast_to");
        break;
      }
      case 4: {
        if (v.size() > max_call_size) break;
        check_copy(v, v.copy());
        break;
      }
      case 5: {
        if (v.size() > max_call_size) break;
        (void)v.astype(fuzz::pick_dtype(in));
        break;
      }
      case 6: {  // element access with any indices: a pointer inside the buffer or index_error
        std::int64_t i[3];
        for (auto& x : i) x = fuzz::small_or_wild(in, -6, 6);
        const int n = in.ConsumeIntegralInRange<int>(0, 3);
        ufunc::visit_dtype(v.type(), [&](auto t) {
          using T = decltype(t);
          const T* p = n == 0   ? &v.at<T>()
                       : n == 1 ? &v.at<T>(i[0])
                       : n == 2 ? &v.at<T>(i[0], i[1])
                                : &v.at<T>(i[0], i[1], i[2]);
          const auto* b = reinterpret_cast<const std::byte*>(p);
          // (A copy made by reshape has an owner and its own memory.)
          fuzz::require(v.owner() || (b >= buf.base && b + sizeof(T) <= buf.base + buf.bytes),
                        "at(): element outside the buffer");
        });
        break;
      }
      case 7: {  // a unary ufunc, maybe in place
        if (v.size() > max_call_size) break;
        const auto* f =
            ufunc::find_builtin(unary_names[in.ConsumeIntegralInRange<std::size_t>(0, std::size(unary_names) - 1)]);
        ufunc::call_options o;
        if (in.ConsumeBool()) o.out = {v};
        o.casting = in.ConsumeBool() ? ufunc::casting::unsafe : ufunc::casting::same_kind;
        const auto r = (*f)(v, o);
        fuzz::require(r.shape() == v.shape(), "unary call: wrong result shape");
        break;
      }
      case 8: {  // a binary ufunc with the view, a view of the same memory or a scalar
        const auto* f =
            ufunc::find_builtin(binary_names[in.ConsumeIntegralInRange<std::size_t>(0, std::size(binary_names) - 1)]);
        ufunc::array other = v;
        switch (in.ConsumeIntegralInRange<int>(0, 3)) {
          case 0:
            other = fuzz::relayout(in, v);
            break;
          case 1:
            other = subscript(v, in);
            break;
          default:
            break;
        }
        const bool with_scalar = in.ConsumeBool();
        const dim_vector shapes[] = {v.shape(), with_scalar ? dim_vector{} : other.shape()};
        const auto shape = ufunc::broadcast_shapes(shapes);
        if (fuzz::checked_shape_size(shape) > max_call_size) break;
        ufunc::call_options o;
        const int out_kind = in.ConsumeIntegralInRange<int>(0, 2);
        if (out_kind == 1) o.out = {v};
        if (out_kind == 2) o.out = {other};
        o.casting = in.ConsumeBool() ? ufunc::casting::unsafe : ufunc::casting::same_kind;
        const auto r = with_scalar ? (*f)(v, fuzz::pick_scalar(in), o) : (*f)(v, other, o);
        (void)r;
        break;
      }
      case 9: {  // a reduction over the view
        // Reducing an empty axis leaves the others: (0, 2^40) reduces to 2^40 elements.
        std::int64_t nominal = 1;
        for (auto e : v.shape())
          nominal = std::min(nominal * std::clamp<std::int64_t>(e, 1, max_call_size + 1), max_call_size + 1);
        if (nominal > max_call_size) break;
        ufunc::reduce_options o;
        if (in.ConsumeBool())
          o.axis = ufunc::all_axes;
        else
          o.axis = in.ConsumeIntegralInRange<int>(-3, 3);
        (void)ufunc::add.reduce(v, o);
        break;
      }
      default: {  // as_readonly views refuse writes
        const auto r = v.as_readonly();
        if (r.size() > 0 && r.size() <= max_call_size)
          // logical_not has a loop for every dtype, so only the read-only out can fail.
          fuzz::expect_error<ufunc::overlap_error>([&] { ufunc::logical_not(r, {.out = {r}}); }, "out= read-only view");
        break;
      }
    }
  });
  return next;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const ufunc::dtype type = fuzz::pick_dtype(in);
  const std::size_t item = type.itemsize();
  const auto bytes = in.ConsumeIntegralInRange<std::size_t>(0, max_buffer);
  // Exactly `bytes` bytes, so that ASan sees the end (operator new[] aligns to 16).
  std::unique_ptr<std::byte[]> storage(new std::byte[bytes]);
  for (std::size_t i = 0; i < bytes; ++i)
    storage[i] = static_cast<std::byte>(type == ufunc::bool_ ? (i * 7 / 3) & 1 : i * 37 + 11);
  const buffer_t buf{storage.get(), bytes};

  const bool through_span = in.ConsumeBool();
  // A span of T is aligned for T; raw-pointer views may address misaligned elements
  // (as NumPy's unaligned arrays), and UBSan checks every typed access to them.
  const bool misaligned = !through_span && in.ConsumeIntegralInRange<int>(0, 3) == 0;
  const auto offset =
      static_cast<std::int64_t>(misaligned ? in.ConsumeIntegralInRange<std::size_t>(0, bytes)
                                           : in.ConsumeIntegralInRange<std::size_t>(0, bytes / item) * item);
  const dim_vector shape = fuzz_dims(in, -1, 6, 1, 6);
  dim_vector strides;
  if (in.ConsumeIntegralInRange<int>(0, 3) != 0) strides = fuzz_dims(in, -4, 4, static_cast<std::int64_t>(item), 6);
  if (!misaligned)
    for (auto& s : strides) s -= s % static_cast<std::int64_t>(item);

  ufunc::array v;
  if (through_span) {
    // view(span) checks against the span: the rest of the buffer from `offset`, whole elements.
    const std::size_t count = (bytes - static_cast<std::size_t>(offset)) / item;
    const verdict expect = judge(shape, strides, item, 0, count * item);
    auto make = [&] {
      ufunc::visit_dtype(type, [&](auto t) {
        using T = decltype(t);
        v = ufunc::view<T>(std::span<T>(reinterpret_cast<T*>(buf.base + offset), count), shape, strides);
      });
    };
    const std::string what = "view(span) of shape " + ufunc::array::shape_string(shape) + " strides " +
                             ufunc::array::shape_string(strides) + " over " + std::to_string(count * item) + " bytes";
    switch (expect) {
      case verdict::ok:
        fuzz::require(fuzz::accepted(make), what + ": a valid view was refused");
        break;
      case verdict::outside:
        // index_error from the extent check, or overflow_error where the constructor
        // already refuses extents of 2^62 bytes and more.
        fuzz::expect_error<ufunc::error>(make, what);
        return 0;
      case verdict::bad_shape:
      case verdict::bad_strides:
      case verdict::too_many_dims:
        fuzz::expect_error<ufunc::value_error>(make, what);
        return 0;
      case verdict::too_big:
        fuzz::expect_error<ufunc::overflow_error>(make, what);
        return 0;
    }
  } else {
    verdict expect = judge(shape, strides, item, offset, bytes);
    // Misaligned elements are refused (value_error): the loops read typed pointers.
    const auto align = ufunc::visit_dtype(type, [](auto t) { return static_cast<std::int64_t>(alignof(decltype(t))); });
    bool aligned = offset % align == 0, empty = false;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      empty = empty || shape[d] == 0;
      aligned = aligned && (shape[d] < 2 || d >= strides.size() || strides[d] % align == 0);
    }
    if (expect == verdict::ok && !aligned && !empty) expect = verdict::bad_strides;
    auto make = [&] { v = ufunc::array(buf.base + offset, type, shape, strides); };
    const std::string what = "array(void*) of shape " + ufunc::array::shape_string(shape) + " strides " +
                             ufunc::array::shape_string(strides);
    switch (expect) {
      case verdict::ok:
        fuzz::require(fuzz::accepted(make), what + ": a valid view was refused");
        break;
      case verdict::outside:
        // The caller's responsibility: the constructor cannot know the buffer (it may
        // refuse extents that no buffer has, with a ufunc::error).
        fuzz::accepted(make);
        return 0;
      case verdict::bad_shape:
      case verdict::bad_strides:
      case verdict::too_many_dims:
        fuzz::expect_error<ufunc::value_error>(make, what);
        return 0;
      case verdict::too_big:
        fuzz::expect_error<ufunc::overflow_error>(make, what);
        return 0;
    }
  }
  fuzz::require(v.shape() == shape, "the view does not have the given shape");
  require_inside(v, buf, "the new view");

  for (int k = 0; k < 6 && in.remaining_bytes() > 0; ++k) v = step(v, buf, in);
  return 0;
}
