// The kernel cache. A file holds, in this order:
//   magic "UFKERNEL", format version (u32), key length (u64), key, binary length (u64),
//   binary, SHA-256 of every byte before it
// (integers little-endian). The whole key is stored, not only its hash in the file name,
// so that a file copied or renamed to another key's name is refused rather than loaded.
#include <ufunc/backends/cuda/rtc/kernel_cache.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <ufunc/backends/cuda/rtc/sha256.hpp>
#include <ufunc/core/error.hpp>

namespace ufunc::cuda::rtc {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view magic = "UFKERNEL";
constexpr std::uint32_t format_version = 1;
constexpr std::string_view file_suffix = ".ufunc-kernel";
constexpr std::string_view temporary_infix = ".tmp.";
constexpr std::size_t digest_bytes = 32;
// Everything but the key and the binary: magic, version, two lengths, checksum.
constexpr std::size_t fixed_bytes = magic.size() + 4 + 8 + 8 + digest_bytes;

const std::string fix_hint =
    "; set UFUNC_CACHE_DIR to another folder, or to an empty value to turn the disk kernel cache off";

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::string errno_text(int error) { return std::strerror(error); }

std::string mode_text(mode_t mode) {
  char text[16];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Closes a descriptor on every way out of a scope.
class descriptor {
 public:
  explicit descriptor(int fd) noexcept : fd_(fd) {}
  descriptor(const descriptor&) = delete;
  descriptor& operator=(const descriptor&) = delete;
  ~descriptor() {
    // A close that fails here has nothing left to report to: the data was read, or the
    // write is being abandoned anyway.
    if (fd_ >= 0) (void)::close(fd_);
  }
  // Hands the descriptor over to the caller, who closes it.
  [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }
  // Closes now, so that its failure (a write the file system could not finish) is seen.
  int close() noexcept {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
std::uint64_t get_le(std::string_view bytes, std::size_t at, int width) {
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i)
    v |= std::uint64_t{static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)])} << (8 * i);
  return v;
}

std::string encode(std::string_view key, std::string_view binary) {
  std::string out;
  out.reserve(fixed_bytes + key.size() + binary.size());
  out.append(magic);
  put_u32(out, format_version);
  put_u64(out, key.size());
  out.append(key);
  put_u64(out, binary.size());
  out.append(binary);
  const sha256_digest checksum = sha256(out);
  out.append(reinterpret_cast<const char*>(checksum.data()), checksum.size());
  return out;
}

// The binary in a file's bytes, or nothing if the file is not a whole, intact file of
// this format for exactly `key`. Lengths are checked against the size before use, so a
// damaged length cannot read past the end.
std::optional<std::string> decode(std::string_view file, std::string_view key) {
  if (file.size() < fixed_bytes) return std::nullopt;
  if (file.substr(0, magic.size()) != magic) return std::nullopt;
  std::size_t at = magic.size();
  if (get_le(file, at, 4) != format_version) return std::nullopt;
  at += 4;
  const std::uint64_t key_size = get_le(file, at, 8);
  at += 8;
  if (key_size != key.size() || key_size > file.size() - fixed_bytes) return std::nullopt;
  const std::string_view stored_key = file.substr(at, key_size);
  at += key_size;
  const std::uint64_t binary_size = get_le(file, at, 8);
  at += 8;
  if (binary_size != file.size() - fixed_bytes - key_size) return std::nullopt;
  const std::size_t checked = file.size() - digest_bytes;
  const sha256_digest checksum = sha256(file.substr(0, checked));
  if (std::memcmp(checksum.data(), file.data() + checked, digest_bytes) != 0) return std::nullopt;
  if (stored_key != key) return std::nullopt;
  return std::string(file.substr(at, binary_size));
}

bool is_hex_digest(std::string_view s) {
  if (s.size() != 2 * digest_bytes) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Names this cache writes: "<64 hex>.ufunc-kernel" and its temporaries "<that>.tmp.<anything>".
bool is_cache_file_name(std::string_view name) {
  if (name.size() < 2 * digest_bytes + file_suffix.size()) return false;
  if (!is_hex_digest(name.substr(0, 2 * digest_bytes))) return false;
  name.remove_prefix(2 * digest_bytes);
  if (name.substr(0, file_suffix.size()) != file_suffix) return false;
  name.remove_prefix(file_suffix.size());
  return name.empty() ||
         (name.size() > temporary_infix.size() && name.substr(0, temporary_infix.size()) == temporary_infix);
}

std::string file_name(const std::string& key) { return sha256_hex(key) + std::string(file_suffix); }

// The checks a folder must pass before code is loaded from it.
void check_folder_status(const fs::path& folder, const struct stat& st) {
  const std::string what = "ufunc kernel cache folder " + quoted(folder);
  if (S_ISLNK(st.st_mode)) throw cache_error(what + " is a symbolic link" + fix_hint);
  if (!S_ISDIR(st.st_mode)) throw cache_error(what + " is not a directory" + fix_hint);
  if (st.st_uid != ::geteuid())
    throw cache_error(what + " is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                      std::to_string(::geteuid()) + ")" + fix_hint);
  if ((st.st_mode & 022) != 0)
    throw cache_error(what + " is writable by other users (mode " + mode_text(st.st_mode) +
                      "); make it private with chmod 700" + fix_hint);
}

// Creates `folder` and its missing parents, each with mode 0700 (only those created here).
void create_folders(const fs::path& folder) {
  std::vector<fs::path> missing;
  for (fs::path p = folder; !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0) break;
    if (errno != ENOENT)
      throw cache_error("cannot inspect ufunc kernel cache folder " + quoted(p) + ": " + errno_text(errno) + fix_hint);
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0) {
      // Another process made it meanwhile: whatever is there is checked below like any folder.
      if (errno == EEXIST) continue;
      throw cache_error("cannot create ufunc kernel cache folder " + quoted(*it) + ": " + errno_text(errno) + fix_hint);
    }
    // The umask may have taken bits mkdir asked for (the owner's own, with umask 0277).
    if (::chmod(it->c_str(), 0700) != 0)
      throw cache_error("cannot set mode 0700 on ufunc kernel cache folder " + quoted(*it) + ": " + errno_text(errno) +
                        fix_hint);
  }
}

// The folder checked and opened, as a descriptor that every later file access is relative to.
int open_folder(const fs::path& folder) {
  create_folders(folder);
  struct stat before {};
  if (::lstat(folder.c_str(), &before) != 0)
    throw cache_error("cannot inspect ufunc kernel cache folder " + quoted(folder) + ": " + errno_text(errno) +
                      fix_hint);
  check_folder_status(folder, before);
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    throw cache_error("cannot open ufunc kernel cache folder " + quoted(folder) + ": " + errno_text(errno) + fix_hint);
  descriptor guard(fd);
  // What was opened must be what was checked, not something swapped in between.
  struct stat opened {};
  if (::fstat(fd, &opened) != 0)
    throw cache_error("cannot inspect ufunc kernel cache folder " + quoted(folder) + ": " + errno_text(errno) +
                      fix_hint);
  check_folder_status(folder, opened);
  if (opened.st_dev != before.st_dev || opened.st_ino != before.st_ino)
    throw cache_error("ufunc kernel cache folder " + quoted(folder) + " was replaced while it was being checked" +
                      fix_hint);
  return guard.release();
}

// The bytes of the cache file `name`, or nothing if there is none. Throws cache_error for a
// file that must not be trusted: a symbolic link (never followed), not a regular file,
// another user's, or writable by others.
std::optional<std::string> read_cache_file(int folder_fd, const fs::path& folder, const std::string& name) {
  const fs::path path = folder / name;
  // O_NONBLOCK: a FIFO planted under the name must not hang the open; it is refused below.
  const int fd = ::openat(folder_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    if (errno == ELOOP)
      throw cache_error("ufunc kernel cache file " + quoted(path) +
                        " is a symbolic link, which the cache never follows; remove it" + fix_hint);
    throw cache_error("cannot open ufunc kernel cache file " + quoted(path) + ": " + errno_text(errno) + fix_hint);
  }
  descriptor guard(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw cache_error("cannot inspect ufunc kernel cache file " + quoted(path) + ": " + errno_text(errno) + fix_hint);
  const std::string what = "ufunc kernel cache file " + quoted(path);
  if (!S_ISREG(st.st_mode)) throw cache_error(what + " is not a regular file; remove it" + fix_hint);
  if (st.st_uid != ::geteuid())
    throw cache_error(what + " is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                      std::to_string(::geteuid()) + "); remove it" + fix_hint);
  if ((st.st_mode & 022) != 0)
    throw cache_error(what + " is writable by other users (mode " + mode_text(st.st_mode) + "); remove it" + fix_hint);

  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[65536];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw cache_error("cannot read ufunc kernel cache file " + quoted(path) + ": " + errno_text(errno) + fix_hint);
    }
    bytes.append(chunk, static_cast<std::size_t>(got));
  }
  return bytes;
}

// Distinguishes the temporary files of one process's writes (the pid tells processes apart).
std::atomic<std::uint64_t> temporary_counter{0};

// Writes `bytes` as the file `name`: whole or not at all, as seen by any reader, since the
// temporary file is complete before it is renamed over the name. Not synced: a file that a
// crash leaves short or empty fails its checksum and is compiled again, so a
// sync would buy nothing the checksum does not, at a cold compile's cost (two fsyncs were
// milliseconds on a busy disk). Throws cache_error.
void write_cache_file(int folder_fd, const fs::path& folder, const std::string& name, std::string_view bytes) {
  std::string temporary;
  int fd = -1;
  // O_EXCL: never write into a file that already exists (or through a planted link); a
  // leftover of a crashed process with a reused pid is skipped by taking the next number.
  for (int attempt = 0; fd < 0; ++attempt) {
    temporary = name + std::string(temporary_infix) + std::to_string(::getpid()) + "." +
                std::to_string(temporary_counter.fetch_add(1));
    fd = ::openat(folder_fd, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && (errno != EEXIST || attempt == 15))
      throw cache_error("cannot create ufunc kernel cache file " + quoted(folder / temporary) + ": " +
                        errno_text(errno));
  }
  descriptor guard(fd);
  const auto fail = [&](const char* doing) {
    const int error = errno;
    // Best effort: the failure being reported matters more than a leftover, which clear()
    // also removes.
    (void)::unlinkat(folder_fd, temporary.c_str(), 0);
    throw cache_error("cannot " + std::string(doing) + " ufunc kernel cache file " + quoted(folder / temporary) + ": " +
                      errno_text(error));
  };
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    done += static_cast<std::size_t>(put);
  }
  if (guard.close() != 0) fail("close");
  if (::renameat(folder_fd, temporary.c_str(), folder_fd, name.c_str()) != 0) fail("rename");
}

fs::path absolute_folder(const fs::path& folder) {
  if (folder.empty()) return {};
  fs::path p = fs::absolute(folder).lexically_normal();
  // "/a/b/" names the folder b: its parent is "/a", not "/a/b".
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

}  // namespace

fs::path default_cache_folder() {
  if (const char* dir = std::getenv("UFUNC_CACHE_DIR")) return fs::path(dir);
  // The XDG base directory specification: a relative XDG_CACHE_HOME is invalid and ignored.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
    return fs::path(xdg) / "ufunc" / "kernels";
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0')
    return fs::path(home) / ".cache" / "ufunc" / "kernels";
  return {};
}

kernel_cache::kernel_cache(fs::path folder) : folder_(absolute_folder(folder)) {
  if (!folder_.empty()) folder_fd_ = open_folder(folder_);
}

kernel_cache::~kernel_cache() {
  // Nothing to report a failed close to; the descriptor was only read through.
  if (folder_fd_ >= 0) (void)::close(folder_fd_);
}

kernel_cache& kernel_cache::process() {
  // Leaked on purpose: kernels may be looked up from other static objects' destructors.
  static kernel_cache* const cache = new kernel_cache(default_cache_folder());
  return *cache;
}

const fs::path& kernel_cache::folder() const noexcept { return folder_; }

fs::path kernel_cache::file_for(const std::string& key) const {
  if (folder_.empty()) return {};
  return folder_ / file_name(key);
}

cache_stats kernel_cache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void kernel_cache::count(std::uint64_t cache_stats::*counter) {
  std::lock_guard lock(mutex_);
  ++(stats_.*counter);
}

std::shared_ptr<const std::string> kernel_cache::get(const std::string& key,
                                                     const std::function<std::string()>& compile) {
  std::unique_lock lock(mutex_);
  if (const auto found = binaries_.find(key); found != binaries_.end()) {
    ++stats_.memory_hits;
    return found->second;
  }
  if (const auto running = in_flight_.find(key); running != in_flight_.end()) {
    // Another thread is loading or compiling this key: share its result, or its exception.
    const std::shared_future<binary> attempt = running->second;
    lock.unlock();
    binary result = attempt.get();
    count(&cache_stats::memory_hits);
    return result;
  }
  std::promise<binary> promise;
  in_flight_.emplace(key, promise.get_future().share());
  lock.unlock();

  binary result;
  try {
    result = load_or_compile(key, compile);
  } catch (...) {
    // Forget the attempt before failing its waiters, so that a get() arriving now tries again.
    lock.lock();
    in_flight_.erase(key);
    lock.unlock();
    promise.set_exception(std::current_exception());
    throw;
  }
  lock.lock();
  binaries_.emplace(key, result);
  in_flight_.erase(key);
  lock.unlock();
  promise.set_value(result);
  return result;
}

kernel_cache::binary kernel_cache::load_or_compile(const std::string& key,
                                                   const std::function<std::string()>& compile) {
  const std::string name = file_name(key);
  if (folder_fd_ >= 0) {
    if (std::optional<std::string> bytes = read_cache_file(folder_fd_, folder_, name)) {
      if (std::optional<std::string> stored = decode(*bytes, key)) {
        count(&cache_stats::disk_hits);
        return std::make_shared<const std::string>(std::move(*stored));
      }
      // Torn, damaged, another key's or another format's: compiled again and replaced below.
      count(&cache_stats::rejected_files);
    }
  }
  auto result = std::make_shared<const std::string>(compile());
  count(&cache_stats::compiles);
  if (folder_fd_ >= 0) {
    try {
      write_cache_file(folder_fd_, folder_, name, encode(key, *result));
    } catch (const cache_error&) {
      // The disk is a convenience: a full or read-only folder costs later processes a
      // compile, not this one its kernel.
    }
  }
  return result;
}

void kernel_cache::clear() {
  std::lock_guard lock(mutex_);
  binaries_.clear();
  if (folder_fd_ < 0) return;
  // A descriptor of its own: closedir() closes the one it is given, and a dup() would share
  // the reading position between listings.
  const int fd = ::openat(folder_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw cache_error("cannot open ufunc kernel cache folder " + quoted(folder_) + ": " + errno_text(errno));
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    const int error = errno;
    (void)::close(fd);
    throw cache_error("cannot list ufunc kernel cache folder " + quoted(folder_) + ": " + errno_text(error));
  }
  std::vector<std::string> names;
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(dir);
    if (entry == nullptr) break;
    if (is_cache_file_name(entry->d_name)) names.emplace_back(entry->d_name);
  }
  const int list_error = errno;
  // Only read from, so a failed close loses nothing.
  (void)::closedir(dir);
  if (list_error != 0)
    throw cache_error("cannot list ufunc kernel cache folder " + quoted(folder_) + ": " + errno_text(list_error));
  for (const std::string& name : names) {
    // Gone already: another process cleared it, or renamed its temporary file into place.
    if (::unlinkat(folder_fd_, name.c_str(), 0) != 0 && errno != ENOENT)
      throw cache_error("cannot remove ufunc kernel cache file " + quoted(folder_ / name) + ": " + errno_text(errno));
  }
}

}  // namespace ufunc::cuda::rtc
