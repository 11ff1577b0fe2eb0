// Building operands from the case file's descriptions.
#include "operands.hpp"

#include <cstring>
#include <stdexcept>

namespace differential {
namespace {

// The view of `v` that the transforms `ts` give, in order.
array apply_transforms(array v, const std::vector<transform>& ts) {
  for (const auto& t : ts) {
    if (t.kind == 1) {
      // operator[] takes an initializer_list: index one axis at a time with ':' elsewhere.
      for (std::size_t axis = 0; axis < t.slices.size(); ++axis) {
        const std::int64_t nd = static_cast<std::int64_t>(v.ndim());
        std::vector<std::int64_t> perm;
        // Move `axis` to the front, slice it, move it back.
        perm.push_back(static_cast<std::int64_t>(axis));
        for (std::int64_t i = 0; i < nd; ++i)
          if (i != static_cast<std::int64_t>(axis)) perm.push_back(i);
        array front = v.transpose(perm);
        front = front[{t.slices[axis]}];
        std::vector<std::int64_t> inverse(perm.size());
        for (std::size_t i = 0; i < perm.size(); ++i)
          inverse[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
        v = front.transpose(inverse);
      }
    } else if (t.kind == 2) {
      v = v.transpose(t.values);
    } else if (t.kind == 3) {
      v = v.broadcast_to(ufunc::dim_vector(t.values.begin(), t.values.end()));
    } else {
      throw std::runtime_error("unknown view transform in case file");
    }
  }
  return v;
}

}  // namespace

built_array build(const array_spec& s, bool on_device) {
  built_array b;
  array host = array::empty(s.shape, s.type);
  if (static_cast<std::size_t>(host.nbytes()) != s.data.size())
    throw std::runtime_error("case file: data size does not match the shape");
  if (!s.data.empty()) std::memcpy(host.data(), s.data.data(), s.data.size());
  b.original = s.data;
  b.base = on_device ? ufunc::to_device(host) : host;
  b.view = apply_transforms(b.base, s.transforms);
  return b;
}

std::vector<std::byte> host_bytes(const array& a) {
  const array h = a.device().is_host() ? a.copy() : ufunc::to_host(a);
  const auto* p = h.data();
  return {p, p + h.nbytes()};
}

// Byte offsets (from the base's start) of every element of `view`, a view of `base`.
std::vector<std::int64_t> element_offsets(const array& base, const array& view) {
  std::vector<std::int64_t> out;
  const auto& shape = view.shape();
  const auto& strides = view.strides();
  const std::int64_t start = view.data() - base.data();
  if (view.size() == 0) return out;
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (;;) {
    std::int64_t off = start;
    for (std::size_t i = 0; i < shape.size(); ++i) off += idx[i] * strides[i];
    out.push_back(off);
    std::size_t d = shape.size();
    while (d > 0) {
      --d;
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
      if (d == 0) return out;
    }
    if (shape.empty()) return out;
  }
}

}  // namespace differential
