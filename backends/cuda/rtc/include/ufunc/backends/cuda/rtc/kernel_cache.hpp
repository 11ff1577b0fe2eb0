// The cache of run-time compiled kernels: a key (everything that changes a binary) maps to
// the binary, kept in this process's memory and in a folder on disk that later processes
// read. The cache loads code into the process, so the folder is a trust boundary: it must
// belong to this user and be closed to others, its files are never reached through a
// symbolic link, and a file is loaded only when its checksum and stored key verify.
//
// The key and the binary are plain byte strings: the cache knows nothing of CUDA.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ufunc::cuda::rtc {

/// How a cache answered its get() calls so far.
struct cache_stats {
  std::uint64_t memory_hits = 0;     // served from this process's memory
  std::uint64_t disk_hits = 0;       // loaded from a verified disk file
  std::uint64_t compiles = 0;        // compile() calls that returned
  std::uint64_t rejected_files = 0;  // disk files found corrupt/truncated/for another key, recompiled and rewritten
};

/// The folder the process's cache uses, read from the environment on every call:
/// UFUNC_CACHE_DIR if it is set (set but empty: no folder, the cache is memory only), else
/// $XDG_CACHE_HOME/ufunc/kernels (XDG_CACHE_HOME absolute), else $HOME/.cache/ufunc/kernels,
/// else no folder.
///
///     setenv("UFUNC_CACHE_DIR", "", 1);
///     ufunc::cuda::rtc::default_cache_folder().empty();  // true: the disk cache is off
[[nodiscard]] std::filesystem::path default_cache_folder();

/// Compiled binaries by key, in memory and in a folder. Safe to use from many threads,
/// and from many processes on one folder.
///
///     ufunc::cuda::rtc::kernel_cache cache("/home/me/.cache/ufunc/kernels");
///     auto cubin = cache.get(key, [&] { return compile_with_nvrtc(source, options); });
class kernel_cache {
 public:
  /// A cache whose disk part is in `folder` (made absolute; created with mode 0700 if
  /// missing, missing parents too); an empty path: memory only. Throws cache_error when
  /// the folder cannot be created, is a symbolic link, is not a directory, is owned by
  /// another user or is writable by group or others.
  ///
  ///     ufunc::cuda::rtc::kernel_cache on_disk(std::filesystem::temp_directory_path() / "my-kernels");
  ///     ufunc::cuda::rtc::kernel_cache in_memory({});
  explicit kernel_cache(std::filesystem::path folder);
  ~kernel_cache();
  kernel_cache(const kernel_cache&) = delete;
  kernel_cache& operator=(const kernel_cache&) = delete;

  /// The process's cache, on default_cache_folder() as it is at the first call; created on
  /// first use and never destroyed (kernels may be looked up from static destructors). A
  /// first call that throws (cache_error: an untrusted folder) is tried again by the next.
  ///
  ///     auto cubin = ufunc::cuda::rtc::kernel_cache::process().get(key, compile);
  static kernel_cache& process();

  /// The binary for `key` (a string that covers everything that changes the binary:
  /// source, options, headers, compiler version, architecture; the caller builds it): from
  /// memory, else from a verified disk file, else compile(). At most one compile per key
  /// runs at a time in this process: other threads asking for the same key wait for it and
  /// share its result. A compile that throws caches nothing, and its exception reaches
  /// every thread waiting on that attempt; a later get() tries again. A compiled binary is
  /// written to disk atomically (temporary file, rename; not synced: a file a crash leaves
  /// short fails its checksum and is compiled again); a write that fails (full
  /// disk, read-only folder) leaves the binary in memory only. Throws cache_error for a
  /// disk file that cannot be trusted (a symbolic link, another user's, open to others)
  /// or read. compile() must not get() the same key from the same cache (it would wait
  /// for itself).
  ///
  ///     std::shared_ptr<const std::string> cubin =
  ///         cache.get(source + "\n" + options + "\n" + arch, [&] { return nvrtc_compile(source); });
  std::shared_ptr<const std::string> get(const std::string& key, const std::function<std::string()>& compile);

  /// A consistent snapshot of the counters.
  ///
  ///     if (cache.stats().rejected_files > 0) warn("damaged kernel cache files were replaced");
  [[nodiscard]] cache_stats stats() const;

  /// Removes this cache's files from its folder (only names it writes, and its leftover
  /// temporary files; other files stay) and forgets the binaries in memory. Compiles in
  /// flight still finish and are kept. The counters are not reset.
  ///
  ///     cache.clear();  // the next get() of every key compiles
  void clear();

  /// The folder of the disk part (absolute); empty for a memory-only cache.
  ///
  ///     if (cache.folder().empty()) std::puts("kernel cache: memory only");
  [[nodiscard]] const std::filesystem::path& folder() const noexcept;

  /// The file that holds `key`'s binary: folder() / (sha256_hex(key) + ".ufunc-kernel");
  /// empty for a memory-only cache.
  ///
  ///     std::filesystem::exists(cache.file_for(key));
  [[nodiscard]] std::filesystem::path file_for(const std::string& key) const;

 private:
  using binary = std::shared_ptr<const std::string>;

  binary load_or_compile(const std::string& key, const std::function<std::string()>& compile);
  void count(std::uint64_t cache_stats::*counter);

  std::filesystem::path folder_;
  // The folder, opened once after it was checked: every file is reached relative to it,
  // so the path cannot be swapped for a symbolic link afterwards. -1: memory only.
  int folder_fd_ = -1;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, binary> binaries_;
  std::unordered_map<std::string, std::shared_future<binary>> in_flight_;
  cache_stats stats_;
};

}  // namespace ufunc::cuda::rtc
