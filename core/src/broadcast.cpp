#include <ufunc/core/broadcast.hpp>

#include <algorithm>
#include <string>

#include <ufunc/core/array.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc {

dim_vector broadcast_shapes(std::span<const dim_vector> shapes) {
  std::size_t ndim = 0;
  for (const auto& s : shapes) ndim = std::max(ndim, s.size());
  dim_vector out(ndim, 1);
  for (const auto& s : shapes) {
    const std::size_t offset = ndim - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto& o = out[offset + i];
      const auto e = s[i];
      if (e == o || e == 1) continue;
      if (o == 1) {
        o = e;
        continue;
      }
      std::string msg = "operands could not be broadcast together with shapes";
      for (const auto& t : shapes) msg += " " + array::shape_string(t);
      throw broadcast_error(msg);
    }
  }
  return out;
}

dim_vector broadcast_strides(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides,
                             std::span<const std::int64_t> target) {
  if (shape.size() > target.size())
    throw broadcast_error("cannot broadcast shape " + array::shape_string(shape) + " to " +
                          array::shape_string(target));
  dim_vector out(target.size(), 0);
  const std::size_t offset = target.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == target[offset + i])
      out[offset + i] = shape[i] == 1 ? 0 : strides[i];
    else if (shape[i] == 1)
      out[offset + i] = 0;
    else
      throw broadcast_error("cannot broadcast shape " + array::shape_string(shape) + " to " +
                            array::shape_string(target));
  }
  return out;
}

}  // namespace ufunc
