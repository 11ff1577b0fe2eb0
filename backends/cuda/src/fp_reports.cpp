#include "fp_reports.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include <ufunc/backends/cuda/runtime.hpp>
#include <ufunc/core/detail/fp_status.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::backends::cuda::fp_reports {

namespace {

// Slots per ring: how many calls a thread may have in flight with unread flags on
// one device before the oldest one is waited for.
constexpr unsigned ring_slots = 1024;
// Every checkpoint_interval-th call records an event after its launch: a call that
// must reuse the slot of a call still queued waits for the first checkpoint after it,
// not for everything its stream has queued since (which would make every call
// synchronous once a thread has more than ring_slots calls in flight).
constexpr unsigned checkpoint_interval = 128;

struct ring {
  int device = -1;
  unsigned long long* host = nullptr;            // mapped pinned memory, read by the host
  unsigned long long* host_on_device = nullptr;  // the same, as the device addresses it
  unsigned long long* tags = nullptr;            // device memory (fp_flags.hpp's report_fp)
  unsigned long long calls = 0;                  // calls made with this ring, by any thread
  std::vector<cudaEvent_t> spare_events;         // checkpoints to record again
};

// Rings outlive the threads that used them: a thread that ends hands its rings to
// the next thread, since pinned memory is slow to allocate.
std::mutex& pool_mutex() {
  static std::mutex m;
  return m;
}
std::vector<ring>& pool() {
  static std::vector<ring> p;
  return p;
}

ring make_ring(int device) {
  {
    std::lock_guard lock(pool_mutex());
    auto& p = pool();
    for (auto it = p.begin(); it != p.end(); ++it)
      if (it->device == device) {
        ring r = *it;
        p.erase(it);
        return r;
      }
  }
  int previous = 0;
  check(cudaGetDevice(&previous), "cudaGetDevice");
  check(cudaSetDevice(device), "cudaSetDevice");
  ring r;
  r.device = device;
  void* host = nullptr;
  cudaError_t status =
      cudaHostAlloc(&host, ring_slots * sizeof(unsigned long long), cudaHostAllocMapped | cudaHostAllocPortable);
  if (status == cudaSuccess) {
    r.host = static_cast<unsigned long long*>(host);
    void* on_device = nullptr;
    status = cudaHostGetDevicePointer(&on_device, host, 0);
    r.host_on_device = static_cast<unsigned long long*>(on_device);
  }
  if (status == cudaSuccess)
    status = cudaMalloc(reinterpret_cast<void**>(&r.tags), ring_slots * sizeof(unsigned long long));
  if (status == cudaSuccess) status = cudaMemset(r.tags, 0, ring_slots * sizeof(unsigned long long));
  (void)cudaSetDevice(previous);
  if (status != cudaSuccess) {
    if (r.host) (void)cudaFreeHost(r.host);
    if (r.tags) (void)cudaFree(r.tags);
    check(status, "allocating the floating-point flag slots");
  }
  return r;
}

struct pending {
  unsigned slot;
  void* stream;
  std::string name;
  fp_errors policies;
  cudaEvent_t checkpoint = nullptr;  // recorded after this call's launch, if any
  unsigned long long method = 0;     // begin_method's id; 0 for a call
};

struct device_state {
  ring r;
  std::deque<pending> queue;  // in the order of the calls, hence of their slots
  // The method whose launches were reported last, and the kinds reported for it: its
  // later launches report only new kinds.
  unsigned long long reported_method = 0;
  unsigned reported_flags = 0;
};

struct thread_state {
  std::vector<device_state> devices;
  std::string method_name = "ufunc";
  bool method_refuses_values = false;
  unsigned long long method_id = 0;

  device_state& on(int device) {
    if (devices.size() <= static_cast<std::size_t>(device)) devices.resize(static_cast<std::size_t>(device) + 1);
    auto& d = devices[static_cast<std::size_t>(device)];
    if (d.r.host == nullptr) d.r = make_ring(device);
    return d;
  }

  // A thread that ends gives back the rings whose calls were all read; a ring with
  // calls still unread may still be written by a kernel, so it is not reused. The
  // flags of those calls are dropped: no CUDA call is made from here, which may run
  // while the process exits.
  ~thread_state() {
    std::lock_guard lock(pool_mutex());
    for (auto& d : devices)
      if (d.r.host != nullptr && d.queue.empty()) pool().push_back(d.r);
  }
};

thread_local thread_state t_state;

static_assert(std::endian::native == std::endian::little, "a slot's bytes are read as a little-endian word");

// The slot's bytes, one per kind (fp_flags.hpp's report_fp), as fp_flag bits and
// negative_power.
unsigned read_slot(const ring& r, unsigned slot) {
  const unsigned long long word = std::atomic_ref<unsigned long long>(r.host[slot]).load(std::memory_order_acquire);
  unsigned flags = 0;
  for (int kind = 0; kind < device_fp_sink::kinds; ++kind)
    if ((word >> (8 * kind)) & 0xffu) flags |= 1u << kind;
  return flags;
}

// Removes the entry at `it`, whose call has completed, and reports it; returns the
// entry after it. The entry leaves the queue first: a policy may throw.
std::deque<pending>::iterator finish(device_state& d, std::deque<pending>::iterator it) {
  pending p = std::move(*it);
  it = d.queue.erase(it);
  if (p.checkpoint) d.r.spare_events.push_back(p.checkpoint);
  unsigned flags = read_slot(d.r, p.slot);
  // NumPy's ValueError comes from the loop, before any floating-point policy.
  if (flags & device_fp_sink::negative_power) throw value_error("Integers to negative integer powers are not allowed.");
  if (p.method != 0) {
    if (p.method != d.reported_method) {
      d.reported_method = p.method;
      d.reported_flags = 0;
    }
    const unsigned fresh = flags & ~d.reported_flags;
    d.reported_flags |= flags;
    flags = fresh;
  }
  if (flags != 0) ufunc::detail::fp_report(p.name, flags, p.policies);
  return it;
}

// Waits until the oldest queued call has completed and reports the calls of its
// stream up to the point waited for.
void wait_for_oldest(device_state& d) {
  void* const stream = d.queue.front().stream;
  auto checkpoint = std::find_if(d.queue.begin(), d.queue.end(),
                                 [&](const pending& p) { return p.stream == stream && p.checkpoint != nullptr; });
  std::size_t through = d.queue.size();
  if (checkpoint != d.queue.end()) {
    check(cudaEventSynchronize(checkpoint->checkpoint), "cudaEventSynchronize (floating-point flags)");
    through = static_cast<std::size_t>(checkpoint - d.queue.begin()) + 1;
  } else {
    check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize (floating-point flags)");
  }
  auto it = d.queue.begin();
  for (std::size_t k = 0; k < through && it != d.queue.end(); ++k) it = it->stream == stream ? finish(d, it) : ++it;
}

// Whether everything enqueued on `stream` so far has completed. A stream the user
// has destroyed since answers with an error: its work is done as well.
bool completed(void* stream, void* synced) {
  if (stream == synced) return true;
  const cudaError_t status = cudaStreamQuery(static_cast<cudaStream_t>(stream));
  if (status == cudaErrorNotReady) return false;
  if (status != cudaSuccess) (void)cudaGetLastError();
  return true;
}

}  // namespace

call_scope::call_scope(std::string_view name, int device, void* stream, bool refuses_values, unsigned long long method)
    : name_(name), device_(device), stream_(stream), refuses_values_(refuses_values), method_(method) {
  if (!refuses_values && !ufunc::detail::fp_checks_enabled()) return;
  policies_ = geterr();
  auto& d = t_state.on(device);
  const unsigned slot = static_cast<unsigned>(d.r.calls % ring_slots);
  // The slot's previous call was ring_slots calls ago: if it is still queued it is
  // the oldest, and it must complete before its slot is cleared.
  if (!d.queue.empty() && d.queue.front().slot == slot) wait_for_oldest(d);
  std::atomic_ref<unsigned long long>(d.r.host[slot]).store(0, std::memory_order_release);
  slot_ = slot;
  sink_.flags = d.r.host_on_device + slot;
  sink_.tag = d.r.tags + slot;
  sink_.seq = ++d.r.calls;  // never 0, the tags' initial value
  const auto on = [](fp_policy p, fp_flag f) { return p == fp_policy::ignore ? 0u : static_cast<unsigned>(f); };
  sink_.active = on(policies_.divide, fp_flag::divide) | on(policies_.over, fp_flag::overflow) |
                 on(policies_.under, fp_flag::underflow) | on(policies_.invalid, fp_flag::invalid);
}

void call_scope::launched() {
  if (sink_.flags == nullptr) return;
  auto& d = t_state.on(device_);
  d.queue.push_back({slot_, stream_, std::string(name_), policies_, nullptr, method_});
  if (sink_.seq % checkpoint_interval == 0) {
    cudaEvent_t event = nullptr;
    if (!d.r.spare_events.empty()) {
      event = d.r.spare_events.back();
      d.r.spare_events.pop_back();
    } else {
      check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate (floating-point flags)");
    }
    d.queue.back().checkpoint = event;
    check(cudaEventRecord(event, static_cast<cudaStream_t>(stream_)), "cudaEventRecord (floating-point flags)");
  }
  const auto waits = [](fp_policy p) { return p == fp_policy::raise || p == fp_policy::call; };
  if (refuses_values_ || waits(policies_.divide) || waits(policies_.over) || waits(policies_.under) ||
      waits(policies_.invalid)) {
    check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "cudaStreamSynchronize (floating-point flags)");
    report_completed(stream_);
  }
}

void begin_method(std::string_view name, bool refuses_values) {
  t_state.method_name.assign(name);
  t_state.method_refuses_values = refuses_values;
  ++t_state.method_id;
}

method_info current_method() noexcept {
  return {t_state.method_name, t_state.method_refuses_values, t_state.method_id};
}

void report_completed(void* stream) {
  for (auto& d : t_state.devices) {
    // Each stream is asked once per pass; entries are reported in call order.
    std::vector<std::pair<void*, bool>> asked;
    for (auto it = d.queue.begin(); it != d.queue.end();) {
      bool done = false;
      auto known = std::find_if(asked.begin(), asked.end(), [&](const auto& a) { return a.first == it->stream; });
      if (known != asked.end()) {
        done = known->second;
      } else {
        done = completed(it->stream, stream);
        asked.emplace_back(it->stream, done);
      }
      if (!done) {
        ++it;
        continue;
      }
      it = finish(d, it);
    }
  }
}

}  // namespace ufunc::backends::cuda::fp_reports
