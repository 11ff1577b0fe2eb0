// The cuda backend's method entry points: what backend.cpp puts in core's backend
// table (core/backend.hpp). Core calls them only through that table.
#pragma once

#include <cstdint>
#include <span>

#include <ufunc/core/detail/methods.hpp>
#include <ufunc/core/function.hpp>

namespace ufunc::detail {

/// The methods on device data (reduce.cpp, reduceat.cpp, accumulate.cpp, at.cpp).
array device_reduce(const function& f, const array& a, const reduce_options& o, const reduce_plan& p);
array device_accumulate(const function& f, const array& a, const accumulate_options& o, const accumulate_plan& p);
array device_reduceat(const function& f, const array& a, std::span<const std::int64_t> idx, const accumulate_options& o,
                      const accumulate_plan& p);
void device_at(const function& f, const array& a, const array& b, const at_plan& plan, const call_options& options);

}  // namespace ufunc::detail
