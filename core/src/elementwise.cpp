#include <ufunc/core/elementwise.hpp>

#include <memory>

#include <ufunc/core/array.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/detail/streaming.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc {

namespace {

// Elements converted per buffer fill: large enough to amortise the loop call,
// small enough that all buffers stay in L1/L2.
constexpr std::int64_t buffer_elements = 1024;
constexpr std::size_t max_itemsize = 16;

}  // namespace

elementwise_task::elementwise_task(const iteration_plan& plan, int nin, int nout, bool has_where, inner_loop_fn loop,
                                   const void* loop_data, std::span<const dtype> operand_types,
                                   const type_signature& loop_types)
    : plan_(plan), nin_(nin), nout_(nout), has_where_(has_where), loop_(loop), loop_data_(loop_data) {
  for (int i = 0; i < nin + nout; ++i) {
    const dtype want = loop_types[i], have = operand_types[i];
    loop_itemsize_[i] = want.itemsize();
    if (want == have) continue;
    buffered_ = true;
    cast_[i] = i < nin ? get_cast_loop(have, want) : get_cast_loop(want, have);
  }
  // Streaming stores only where the loop writes the outputs themselves (not cast
  // buffers, which are read back at once).
  std::int64_t out_bytes = 0;
  for (int i = nin; i < nin + nout; ++i) out_bytes += static_cast<std::int64_t>(loop_itemsize_[i]);
  stream_ = direct() && detail::streams(plan.size() * out_bytes);
}

void elementwise_task::run(std::int64_t first, std::int64_t last) const {
  const detail::stream_stores_scope streaming(stream_);
  if (!gather_fp_) {
    run_range(first, last);
    return;
  }
  // As NumPy: clear before the loop, read after, on the thread that ran it.
  detail::fp_clear();
  run_range(first, last);
  if (const unsigned flags = detail::fp_read()) fp_flags_.fetch_or(flags, std::memory_order_relaxed);
}

void elementwise_task::run_range(std::int64_t first, std::int64_t last) const {
  if (direct()) {
    plan_.for_each_run(first, last, [&](char* const* ptrs, std::int64_t n, const std::int64_t* strides) {
      loop_(ptrs, n, strides, loop_data_);
    });
    return;
  }
  std::unique_ptr<std::byte[]> scratch;
  if (buffered_)
    scratch = std::make_unique<std::byte[]>(static_cast<std::size_t>(nin_ + nout_) * buffer_elements * max_itemsize);
  plan_.for_each_run(first, last, [&](char* const* ptrs, std::int64_t n, const std::int64_t* strides) {
    for (std::int64_t done = 0; done < n; done += buffer_elements) {
      char* p[max_operands];
      for (int i = 0; i < plan_.noperands(); ++i) p[i] = ptrs[i] + done * strides[i];
      run_buffered(p, std::min(buffer_elements, n - done), strides, scratch.get());
    }
  });
}

void elementwise_task::run_buffered(char* const* ptrs, std::int64_t n, const std::int64_t* strides,
                                    std::byte* scratch) const {
  const int nargs = nin_ + nout_;
  char* args[max_operands];
  std::int64_t steps[max_operands];
  for (int i = 0; i < nargs; ++i) {
    if (cast_[i] == nullptr) {
      args[i] = ptrs[i];
      steps[i] = strides[i];
      continue;
    }
    auto* buf = scratch + static_cast<std::size_t>(i) * buffer_elements * max_itemsize;
    args[i] = reinterpret_cast<char*>(buf);
    steps[i] = static_cast<std::int64_t>(loop_itemsize_[i]);
    if (i < nin_) cast_[i](reinterpret_cast<const std::byte*>(ptrs[i]), strides[i], buf, steps[i], n);
  }
  // The runs of selected elements: the whole block without a mask.
  const char* mask = has_where_ ? ptrs[nargs] : nullptr;
  const std::int64_t mask_step = has_where_ ? strides[nargs] : 0;
  std::int64_t start = 0;
  while (start < n) {
    if (mask) {
      while (start < n && !mask[start * mask_step]) ++start;
      if (start == n) break;
    }
    std::int64_t stop = start + 1;
    if (mask)
      while (stop < n && mask[stop * mask_step]) ++stop;
    else
      stop = n;
    char* run_args[max_operands];
    for (int i = 0; i < nargs; ++i) run_args[i] = args[i] + start * steps[i];
    loop_(run_args, stop - start, steps, loop_data_);
    for (int i = nin_; i < nargs; ++i)
      if (cast_[i])
        cast_[i](reinterpret_cast<const std::byte*>(run_args[i]), steps[i],
                 reinterpret_cast<std::byte*>(ptrs[i] + start * strides[i]), strides[i], stop - start);
    start = stop;
  }
}

namespace detail {

namespace {
void cast_as_loop(char* const* args, std::int64_t n, const std::int64_t* steps, const void* data) {
  reinterpret_cast<cast_loop_fn>(const_cast<void*>(data))(reinterpret_cast<const std::byte*>(args[0]), steps[0],
                                                          reinterpret_cast<std::byte*>(args[1]), steps[1], n);
}
}  // namespace

void copy_cast(const array& src, const array& dst) {
  if (!dst.writeable()) throw overlap_error("copy destination " + dst.describe() + " is read-only");
  if (!src.device().is_host() || !dst.device().is_host())
    throw target_error("copy between " + src.device().str() + " and " + dst.device().str() + " needs the CUDA backend");
  const auto in_strides = broadcast_strides(src.shape(), src.strides(), dst.shape());
  const plan_operand ops[] = {{src.data(), in_strides}, {dst.data(), dst.strides()}};
  const iteration_plan plan(dst.shape(), ops);
  auto fn = get_cast_loop(src.type(), dst.type());
  fp_scope fp;  // NumPy: "invalid value encountered in cast" (NaN to int), overflow (float64 to float32)
  plan.for_each_run(0, plan.size(), [&](char* const* ptrs, std::int64_t n, const std::int64_t* strides) {
    cast_as_loop(ptrs, n, strides, reinterpret_cast<const void*>(fn));
  });
  fp.finish("cast");
}

}  // namespace detail

}  // namespace ufunc
