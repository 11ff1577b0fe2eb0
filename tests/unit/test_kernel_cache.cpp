// The run-time kernel cache (backends/cuda/rtc): SHA-256 against the FIPS 180-2 examples; a
// key compiles once and is then served from memory, and from disk to another cache object
// and to another process; threads and processes racing on one key share or safely repeat
// its compile; damaged files are refused and rewritten; a compile that throws caches
// nothing; folders and files that cannot be trusted are refused; the environment picks the
// folder; clear() removes only the cache's own files; a failed disk write loses nothing.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include <ufunc/backends/cuda/rtc/kernel_cache.hpp>
#include <ufunc/backends/cuda/rtc/sha256.hpp>
#include <ufunc/core/error.hpp>

// Under ThreadSanitizer a forked child of a process with threads (TBB's workers, from the
// tests before) may not start threads of its own: TSan ends it (die_after_fork).
#if defined(__SANITIZE_THREAD__)
#define UFUNC_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UFUNC_TEST_TSAN 1
#endif
#endif
#if !defined(UFUNC_TEST_TSAN)
#define UFUNC_TEST_TSAN 0
#endif

namespace {

namespace fs = std::filesystem;
namespace rtc = ufunc::cuda::rtc;
using namespace std::chrono_literals;

// A folder of its own per test, unique across the suite's concurrent ctest runs (pid) and
// within one run (counter); removed at the end, whatever the test did to its permissions.
class scratch_folder {
 public:
  scratch_folder() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("ufunc-kernel-cache-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directory(path_);
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::replace);
  }
  scratch_folder(const scratch_folder&) = delete;
  scratch_folder& operator=(const scratch_folder&) = delete;
  ~scratch_folder() {
    std::error_code ec;
    // A test may leave a folder read-only, which would stop its files being removed.
    for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (!it->is_symlink(ec) && it->is_directory(ec))
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// A stand-in for a CUBIN: bytes that depend on the key, zeros among them.
std::string fake_binary(const std::string& key, std::size_t size = 4096) {
  const rtc::sha256_digest d = rtc::sha256(key);
  std::uint32_t x = (std::uint32_t{d[0]} << 24) | (std::uint32_t{d[1]} << 16) | (std::uint32_t{d[2]} << 8) | d[3];
  std::string bytes(size, '\0');
  for (char& b : bytes) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<char>(x >> 24);
  }
  return bytes;
}

// A compile() that counts its calls and returns `binary` after `delay`.
std::function<std::string()> counting(std::atomic<int>& calls, std::string binary,
                                      std::chrono::milliseconds delay = 0ms) {
  return [&calls, binary = std::move(binary), delay] {
    ++calls;
    if (delay > 0ms) std::this_thread::sleep_for(delay);
    return binary;
  };
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Rewrites an existing file in place, which keeps its owner and mode.
void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// Whether a fresh cache on `folder` loads `key` from its file as `expected`, without
// compiling and without rejecting the file.
bool verifies(const fs::path& folder, const std::string& key, const std::string& expected) {
  rtc::kernel_cache fresh(folder);
  bool compiled = false;
  const auto got = fresh.get(key, [&] {
    compiled = true;
    return std::string("recompiled");
  });
  const rtc::cache_stats s = fresh.stats();
  return !compiled && *got == expected && s.disk_hits == 1 && s.rejected_files == 0;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message of the cache_error that `f` throws, or a note that it threw none.
template <class F>
std::string cache_error_of(F&& f) {
  try {
    f();
  } catch (const ufunc::cache_error& e) {
    return e.what();
  }
  return "(no cache_error)";
}

// Runs `body` in a forked child process. The child leaves through _exit with body's result
// (100 for an exception), so that none of the parent's doctest state, atexit handlers or
// static destructors run there.
pid_t start_child(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 101;
    try {
      code = body();
    } catch (...) {
      code = 100;
    }
    ::_exit(code);
  }
  return pid;
}

// The child's exit code; -1 if a signal ended it.
int wait_child(pid_t pid) {
  int status = 0;
  pid_t waited = -1;
  do waited = ::waitpid(pid, &status, 0);
  while (waited < 0 && errno == EINTR);
  REQUIRE(waited == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int run_child(const std::function<int()>& body) {
  const pid_t pid = start_child(body);
  REQUIRE(pid > 0);
  return wait_child(pid);
}

// Environment variables saved for a scope and restored at its end.
class environment_guard {
 public:
  environment_guard(std::initializer_list<const char*> names) {
    for (const char* name : names) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
    }
  }
  environment_guard(const environment_guard&) = delete;
  environment_guard& operator=(const environment_guard&) = delete;
  ~environment_guard() {
    for (const auto& [name, value] : saved_) {
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace

TEST_CASE("sha256: the FIPS 180-2 examples, padding edges and data given in pieces") {
  CHECK(rtc::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(rtc::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(rtc::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  CHECK(rtc::sha256_hex(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

  // 55 bytes leave room for the length in the last block, 56 do not, 64 fill it exactly.
  CHECK(rtc::sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(rtc::sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(rtc::sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");

  const rtc::sha256_digest abc = rtc::sha256("abc");
  CHECK(abc[0] == 0xba);
  CHECK(abc[31] == 0xad);
  CHECK(rtc::to_hex(abc) == rtc::sha256_hex("abc"));

  // Pieces of every size that cross block edges, and a hasher reused after finish().
  rtc::sha256_hasher h;
  std::string_view rest = million;
  for (std::size_t piece = 1; !rest.empty(); piece = piece % 150 + 1) {
    const std::size_t n = std::min(piece, rest.size());
    h.update(rest.substr(0, n));
    rest.remove_prefix(n);
  }
  CHECK(rtc::to_hex(h.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  h.update("ab");
  h.update("c");
  CHECK(h.finish() == abc);
}

TEST_CASE("kernel cache: a second get() of a key is served from memory") {
  scratch_folder dir;
  rtc::kernel_cache cache(dir / "cache");
  CHECK(cache.folder() == dir / "cache");
  std::atomic<int> calls{0};
  const std::string key = "memory hit";
  const auto first = cache.get(key, counting(calls, fake_binary(key)));
  const auto second = cache.get(key, counting(calls, fake_binary(key)));
  CHECK(calls == 1);
  CHECK(*first == fake_binary(key));
  CHECK(second == first);
  rtc::cache_stats s = cache.stats();
  CHECK(s.compiles == 1);
  CHECK(s.memory_hits == 1);
  CHECK(s.disk_hits == 0);
  CHECK(s.rejected_files == 0);

  // The file is named after the key's hash and closed to other users.
  const fs::path file = dir / "cache" / (rtc::sha256_hex(key) + ".ufunc-kernel");
  CHECK(cache.file_for(key) == file);
  REQUIRE(fs::exists(file));
  CHECK(mode_of(file) == 0600);

  // Another key is another compile.
  const auto other = cache.get("another key", counting(calls, "other"));
  CHECK(calls == 2);
  CHECK(*other == "other");
  s = cache.stats();
  CHECK(s.compiles == 2);
  CHECK(s.memory_hits == 1);
}

TEST_CASE("kernel cache: a file written by one cache is loaded by another, and by another process") {
  scratch_folder dir;
  const fs::path folder = dir / "cache";
  const std::string key = "shared through the disk";
  const std::string expected = fake_binary(key);
  {
    rtc::kernel_cache writer(folder);
    std::atomic<int> calls{0};
    CHECK(*writer.get(key, counting(calls, expected)) == expected);
    CHECK(calls == 1);
  }

  rtc::kernel_cache reader(folder);
  std::atomic<int> calls{0};
  CHECK(*reader.get(key, counting(calls, "recompiled")) == expected);
  CHECK(calls == 0);
  CHECK(reader.stats().disk_hits == 1);
  CHECK(reader.stats().compiles == 0);
  // Once loaded, it is in memory.
  CHECK(*reader.get(key, counting(calls, "recompiled")) == expected);
  CHECK(reader.stats().memory_hits == 1);
  CHECK(reader.stats().disk_hits == 1);

  // Exit codes: 0 loaded from disk, 1 compiled, 2 wrong bytes, 3 not counted as a disk hit.
  const int child = run_child([&] {
    rtc::kernel_cache child_cache(folder);
    bool compiled = false;
    const auto got = child_cache.get(key, [&] {
      compiled = true;
      return std::string("recompiled");
    });
    if (compiled) return 1;
    if (*got != expected) return 2;
    if (child_cache.stats().disk_hits != 1) return 3;
    return 0;
  });
  CHECK(child == 0);
}

TEST_CASE("kernel cache: threads asking for one key at once share a single compile") {
  scratch_folder dir;
  rtc::kernel_cache cache(dir / "cache");
  const std::string key = "eight threads";
  const std::string expected = fake_binary(key);
  std::atomic<int> calls{0};
  std::atomic<bool> go{false};
  std::vector<std::shared_ptr<const std::string>> results(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] {
      while (!go) std::this_thread::yield();
      results[i] = cache.get(key, counting(calls, expected, 50ms));
    });
  go = true;
  for (std::thread& t : threads) t.join();
  CHECK(calls == 1);
  for (const auto& r : results) {
    REQUIRE(r != nullptr);
    CHECK(*r == expected);
  }
  rtc::cache_stats s = cache.stats();
  CHECK(s.compiles == 1);
  CHECK(s.memory_hits == 7);
  CHECK(s.disk_hits == 0);

  // Different keys at once: one compile each, none waiting for another key's.
  std::atomic<int> per_key_calls{0};
  std::vector<std::shared_ptr<const std::string>> mixed(8);
  threads.clear();
  go = false;
  for (std::size_t i = 0; i < mixed.size(); ++i)
    threads.emplace_back([&, i] {
      while (!go) std::this_thread::yield();
      const std::string k = "key " + std::to_string(i % 4);
      mixed[i] = cache.get(k, counting(per_key_calls, fake_binary(k), 20ms));
    });
  go = true;
  for (std::thread& t : threads) t.join();
  CHECK(per_key_calls == 4);
  for (std::size_t i = 0; i < mixed.size(); ++i) CHECK(*mixed[i] == fake_binary("key " + std::to_string(i % 4)));
  s = cache.stats();
  CHECK(s.compiles == 5);
  CHECK(s.memory_hits == 11);
}

TEST_CASE("kernel cache: two processes compiling one key at once both end with it, and the file verifies") {
  scratch_folder dir;
  const fs::path folder = dir / "cache";
  const std::string key = "two processes";
  // 1 MiB, so that writes take long enough to overlap the other process's reads.
  const std::string expected = fake_binary(key, 1 << 20);

  // In each process: threads sharing one cache, and a thread reading the folder through
  // fresh caches meanwhile, which would reject a file it saw half written (with `threads`
  // false, the same one after the other on this thread). 0: all well.
  const auto work = [&](bool threads) -> int {
    rtc::kernel_cache cache(folder);
    std::atomic<int> calls{0};
    std::atomic<int> wrong{0};
    const auto share = [&] {
      try {
        if (*cache.get(key, counting(calls, expected, 50ms)) != expected) ++wrong;
      } catch (...) {
        ++wrong;
      }
    };
    const auto read_fresh = [&] {
      try {
        for (int i = 0; i < 10; ++i) {
          rtc::kernel_cache reader(folder);
          if (*reader.get(key, [&] { return expected; }) != expected) ++wrong;
          if (reader.stats().rejected_files != 0) ++wrong;
          std::this_thread::sleep_for(10ms);
        }
      } catch (...) {
        ++wrong;
      }
    };
    if (threads) {
      std::vector<std::thread> running;
      for (int i = 0; i < 3; ++i) running.emplace_back(share);
      running.emplace_back(read_fresh);
      for (std::thread& t : running) t.join();
    } else {
      share();
      read_fresh();
    }
    if (calls > 1) return 2;
    return wrong == 0 ? 0 : 1;
  };

  // Both processes start together: the child waits for a byte on a pipe.
  int go[2];
  REQUIRE(::pipe(go) == 0);
  const pid_t child = start_child([&] {
    char byte = 0;
    if (::read(go[0], &byte, 1) != 1) return 99;
    return work(!UFUNC_TEST_TSAN);
  });
  REQUIRE(child > 0);
  CHECK(::write(go[1], "g", 1) == 1);
  const int parent_result = work(true);
  const int child_result = wait_child(child);
  CHECK(::close(go[0]) == 0);
  CHECK(::close(go[1]) == 0);
  CHECK(parent_result == 0);
  CHECK(child_result == 0);

  CHECK(verifies(folder, key, expected));
  // No temporary file is left behind: the folder holds the one file.
  std::vector<fs::path> left;
  for (const auto& entry : fs::directory_iterator(folder)) left.push_back(entry.path());
  REQUIRE(left.size() == 1);
  CHECK(left[0] == folder / (rtc::sha256_hex(key) + ".ufunc-kernel"));
}

TEST_CASE("kernel cache: a damaged, truncated or misplaced file is rejected, recompiled and rewritten") {
  scratch_folder dir;
  const fs::path folder = dir / "cache";
  const std::string key = "damage me";
  const std::string other_key = "damage us";  // as long as key: only the stored key tells them apart
  const std::string expected = fake_binary(key, 1000);
  const fs::path file = folder / (rtc::sha256_hex(key) + ".ufunc-kernel");
  const fs::path other_file = folder / (rtc::sha256_hex(other_key) + ".ufunc-kernel");
  {
    rtc::kernel_cache writer(folder);
    std::atomic<int> calls{0};
    (void)writer.get(key, counting(calls, expected));
    (void)writer.get(other_key, counting(calls, fake_binary(other_key, 1000)));
  }
  const std::string good = read_bytes(file);
  // magic (8), version (4), key length (8), key, binary length (8), binary, checksum (32).
  REQUIRE(good.size() == 8 + 4 + 8 + key.size() + 8 + expected.size() + 32);

  const auto flip = [&](std::size_t at) {
    return [&, at] {
      std::string bytes = good;
      bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
      write_bytes(file, bytes);
    };
  };
  const auto cut = [&](std::size_t size) { return [&, size] { write_bytes(file, good.substr(0, size)); }; };
  const std::vector<std::pair<const char*, std::function<void()>>> damages = {
      {"a flipped magic byte", flip(0)},
      {"a flipped version byte", flip(8)},
      {"a flipped key length byte", flip(12)},
      {"a flipped key byte", flip(20 + 3)},
      {"a flipped binary length byte", flip(20 + key.size())},
      {"a flipped binary byte", flip(good.size() - 33)},
      {"a flipped checksum byte", flip(good.size() - 1)},
      {"truncated by one byte", cut(good.size() - 1)},
      {"truncated to half", cut(good.size() / 2)},
      {"truncated to nothing", cut(0)},
      {"one byte appended", [&] { write_bytes(file, good + "x"); }},
      {"the file of another key", [&] { write_bytes(file, read_bytes(other_file)); }},
  };
  // Not a structured binding: INFO captures its argument in a lambda.
  for (const auto& damage : damages) {
    INFO(damage.first);
    damage.second();
    REQUIRE(read_bytes(file) != good);
    rtc::kernel_cache cache(folder);
    std::atomic<int> calls{0};
    CHECK(*cache.get(key, counting(calls, expected)) == expected);
    CHECK(calls == 1);
    const rtc::cache_stats s = cache.stats();
    CHECK(s.rejected_files == 1);
    CHECK(s.disk_hits == 0);
    CHECK(s.compiles == 1);
    CHECK(read_bytes(file) == good);
    CHECK(verifies(folder, key, expected));
  }
}

TEST_CASE("kernel cache: a compile that throws reaches every waiter and caches nothing") {
  scratch_folder dir;
  const fs::path folder = dir / "cache";
  rtc::kernel_cache cache(folder);
  const std::string key = "does not compile";
  std::atomic<int> attempts{0};
  std::atomic<int> entered{0};
  std::atomic<bool> first_running{false};
  std::atomic<int> overlapping{0};
  // The first attempt waits until every thread has called get(), then a while longer so
  // that they are waiting on it, then fails. Any other attempt is a thread that was not
  // waiting on the first: while the first runs, that would be a second compile of one key.
  const auto failing = [&]() -> std::string {
    const int n = ++attempts;
    if (n == 1) {
      first_running = true;
      while (entered < 4) std::this_thread::yield();
      std::this_thread::sleep_for(100ms);
      first_running = false;
    } else if (first_running) {
      ++overlapping;
    }
    throw ufunc::compile_error("attempt " + std::to_string(n) + " failed");
  };
  std::vector<std::string> messages(4);
  std::atomic<int> finished{0};
  // Each thread keeps its exception until every thread has read its own: they may share one
  // exception object, and ThreadSanitizer does not see the reference count (inside the
  // uninstrumented C++ runtime) that orders one thread's read before another's destruction.
  const auto hold_until_all_read = [&] {
    ++finished;
    while (finished < 4) std::this_thread::yield();
  };
  const auto call = [&](std::size_t i) {
    ++entered;
    try {
      (void)cache.get(key, failing);
      messages[i] = "(returned)";
      hold_until_all_read();
    } catch (const ufunc::compile_error& e) {
      messages[i] = e.what();
      hold_until_all_read();
    } catch (...) {
      messages[i] = "(another exception)";
      hold_until_all_read();
    }
  };
  std::vector<std::thread> threads;
  threads.emplace_back(call, 0);
  while (attempts == 0) std::this_thread::yield();
  for (std::size_t i = 1; i < messages.size(); ++i) threads.emplace_back(call, i);
  for (std::thread& t : threads) t.join();

  CHECK(messages[0] == "attempt 1 failed");
  int shared = 0;
  for (std::size_t i = 1; i < messages.size(); ++i) {
    INFO(messages[i]);
    CHECK(contains(messages[i], "failed"));
    if (messages[i] == "attempt 1 failed") ++shared;
  }
  CHECK(overlapping == 0);
  // Timing-dependent (a waiter descheduled for 100 ms starts an attempt of its own), so
  // only a warning.
  WARN(shared == 3);

  // Nothing was kept, in memory or on disk; the next get() compiles again.
  rtc::cache_stats s = cache.stats();
  CHECK(s.compiles == 0);
  CHECK(s.memory_hits == 0);
  CHECK(fs::is_empty(folder));
  std::atomic<int> calls{0};
  CHECK(*cache.get(key, counting(calls, "compiled at last")) == "compiled at last");
  CHECK(calls == 1);
  s = cache.stats();
  CHECK(s.compiles == 1);
  CHECK(verifies(folder, key, "compiled at last"));

  // A memory-only cache behaves the same.
  rtc::kernel_cache memory({});
  CHECK_THROWS_AS((void)memory.get(key, [&]() -> std::string { throw ufunc::compile_error("no"); }),
                  ufunc::compile_error);
  CHECK(*memory.get(key, counting(calls, "then yes")) == "then yes");
  CHECK(memory.stats().compiles == 1);
}

TEST_CASE("kernel cache: folders and files that cannot be trusted are refused") {
  scratch_folder dir;
  const bool root = ::geteuid() == 0;

  SUBCASE("new folders, missing parents too, are private (0700) whatever the umask") {
    const fs::path parent = dir / "parent";
    fs::create_directory(parent);
    fs::permissions(parent, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
    const mode_t old_umask = ::umask(0277);
    std::optional<std::string> error;
    try {
      rtc::kernel_cache cache(parent / "a" / "b" / "kernels/");
      CHECK(cache.folder() == parent / "a" / "b" / "kernels");
    } catch (const std::exception& e) {
      error = e.what();
    }
    ::umask(old_umask);
    REQUIRE_FALSE(error);
    CHECK(mode_of(parent) == 0755);
    CHECK(mode_of(parent / "a") == 0700);
    CHECK(mode_of(parent / "a" / "b") == 0700);
    CHECK(mode_of(parent / "a" / "b" / "kernels") == 0700);
  }

  SUBCASE("a folder that is a symbolic link") {
    const fs::path real = dir / "real";
    { const rtc::kernel_cache creates(real); }
    const fs::path link = dir / "link";
    fs::create_directory_symlink(real, link);
    const std::string message = cache_error_of([&] { rtc::kernel_cache cache(link); });
    INFO(message);
    CHECK(contains(message, "'" + link.string() + "'"));
    CHECK(contains(message, "is a symbolic link"));
    CHECK(contains(message, "UFUNC_CACHE_DIR"));
  }

  SUBCASE("a folder writable by other users") {
    const fs::path open = dir / "open";
    fs::create_directory(open);
    fs::permissions(open, fs::perms::all);
    std::string message = cache_error_of([&] { rtc::kernel_cache cache(open); });
    INFO(message);
    CHECK(contains(message, "'" + open.string() + "'"));
    CHECK(contains(message, "is writable by other users (mode 0777)"));
    CHECK(contains(message, "UFUNC_CACHE_DIR"));
    // Group-writable is as open.
    fs::permissions(open, fs::perms::owner_all | fs::perms::group_all);
    message = cache_error_of([&] { rtc::kernel_cache cache(open); });
    CHECK(contains(message, "(mode 0770)"));
  }

  SUBCASE("a path that is not a folder") {
    const fs::path file = dir / "file";
    write_bytes(file, "not a folder");
    const std::string message = cache_error_of([&] { rtc::kernel_cache cache(file); });
    INFO(message);
    CHECK(contains(message, "is not a directory"));
  }

  SUBCASE("a folder owned by another user") {
    if (!root) {
      MESSAGE("skipped: only root can give a folder to another user");
    } else {
      const fs::path theirs = dir / "theirs";
      fs::create_directory(theirs);
      REQUIRE(::chown(theirs.c_str(), 65534, 65534) == 0);
      const std::string message = cache_error_of([&] { rtc::kernel_cache cache(theirs); });
      INFO(message);
      CHECK(contains(message, "'" + theirs.string() + "'"));
      CHECK(contains(message, "is owned by uid 65534, not by this user (uid 0)"));
    }
  }

  SUBCASE("a symbolic link planted in place of a cache file is never followed") {
    const std::string key = "planted";
    // The link leads to a valid file for the key, so a cache that followed it would load it.
    rtc::kernel_cache elsewhere(dir / "elsewhere");
    std::atomic<int> calls{0};
    (void)elsewhere.get(key, counting(calls, "planted code"));
    const fs::path target = elsewhere.file_for(key);
    const std::string target_bytes = read_bytes(target);

    rtc::kernel_cache cache(dir / "cache");
    const fs::path link = cache.file_for(key);
    fs::create_symlink(target, link);
    bool compiled = false;
    std::shared_ptr<const std::string> loaded;
    const std::string message = cache_error_of([&] {
      loaded = cache.get(key, [&] {
        compiled = true;
        return std::string("compiled");
      });
    });
    INFO(message);
    CHECK(contains(message, "'" + link.string() + "'"));
    CHECK(contains(message, "is a symbolic link"));
    CHECK(loaded == nullptr);
    CHECK_FALSE(compiled);
    CHECK(cache.stats().disk_hits == 0);
    CHECK(fs::is_symlink(link));
    CHECK(read_bytes(target) == target_bytes);
  }

  SUBCASE("a cache file writable by other users, or not a regular file") {
    const std::string key = "opened up";
    {
      rtc::kernel_cache writer(dir / "cache");
      std::atomic<int> calls{0};
      (void)writer.get(key, counting(calls, "code"));
    }
    rtc::kernel_cache cache(dir / "cache");
    const fs::path file = cache.file_for(key);
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                              fs::perms::group_write | fs::perms::others_read | fs::perms::others_write);
    std::atomic<int> calls{0};
    std::string message = cache_error_of([&] { (void)cache.get(key, counting(calls, "code")); });
    INFO(message);
    CHECK(contains(message, "'" + file.string() + "'"));
    CHECK(contains(message, "is writable by other users (mode 0666)"));
    CHECK(calls == 0);

    fs::remove(file);
    fs::create_directory(file);
    message = cache_error_of([&] { (void)cache.get(key, counting(calls, "code")); });
    CHECK(contains(message, "is not a regular file"));
    CHECK(calls == 0);
  }

  SUBCASE("a cache file owned by another user") {
    if (!root) {
      MESSAGE("skipped: only root can give a file to another user");
    } else {
      const std::string key = "given away";
      {
        rtc::kernel_cache writer(dir / "cache");
        std::atomic<int> calls{0};
        (void)writer.get(key, counting(calls, "code"));
      }
      rtc::kernel_cache cache(dir / "cache");
      REQUIRE(::chown(cache.file_for(key).c_str(), 65534, 65534) == 0);
      std::atomic<int> calls{0};
      const std::string message = cache_error_of([&] { (void)cache.get(key, counting(calls, "code")); });
      INFO(message);
      CHECK(contains(message, "is owned by uid 65534, not by this user (uid 0)"));
      CHECK(calls == 0);
    }
  }
}

TEST_CASE("kernel cache: the folder comes from UFUNC_CACHE_DIR, else XDG_CACHE_HOME, else HOME") {
  environment_guard saved{"UFUNC_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  ::setenv("UFUNC_CACHE_DIR", "/some/where", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  ::setenv("HOME", "/home/me", 1);
  CHECK(rtc::default_cache_folder() == fs::path("/some/where"));
  ::setenv("UFUNC_CACHE_DIR", "", 1);
  CHECK(rtc::default_cache_folder().empty());
  ::unsetenv("UFUNC_CACHE_DIR");
  CHECK(rtc::default_cache_folder() == fs::path("/xdg/ufunc/kernels"));
  // Empty or relative XDG_CACHE_HOME is ignored, as the XDG specification says.
  ::setenv("XDG_CACHE_HOME", "", 1);
  CHECK(rtc::default_cache_folder() == fs::path("/home/me/.cache/ufunc/kernels"));
  ::setenv("XDG_CACHE_HOME", "relative", 1);
  CHECK(rtc::default_cache_folder() == fs::path("/home/me/.cache/ufunc/kernels"));
  ::unsetenv("XDG_CACHE_HOME");
  CHECK(rtc::default_cache_folder() == fs::path("/home/me/.cache/ufunc/kernels"));
  ::setenv("HOME", "", 1);
  CHECK(rtc::default_cache_folder().empty());
  ::unsetenv("HOME");
  CHECK(rtc::default_cache_folder().empty());
}

TEST_CASE("kernel cache: process() with UFUNC_CACHE_DIR set but empty is memory only") {
  // In a child: process() reads the environment once, and this process's first reading
  // must stay its own. Exit codes: 0 well, 1 a folder, 2 not one object, 3 wrong counts.
  const int child = run_child([] {
    ::setenv("UFUNC_CACHE_DIR", "", 1);
    rtc::kernel_cache& cache = rtc::kernel_cache::process();
    if (!cache.folder().empty()) return 1;
    if (&cache != &rtc::kernel_cache::process()) return 2;
    std::atomic<int> calls{0};
    const auto a = cache.get("process key", counting(calls, "code"));
    const auto b = cache.get("process key", counting(calls, "code"));
    if (calls != 1 || *a != "code" || a != b || cache.stats().memory_hits != 1) return 3;
    return 0;
  });
  CHECK(child == 0);

  rtc::kernel_cache memory({});
  CHECK(memory.folder().empty());
  CHECK(memory.file_for("any").empty());
}

TEST_CASE("kernel cache: clear() removes the cache's files, and only those, and forgets memory") {
  scratch_folder dir;
  const fs::path folder = dir / "cache";
  rtc::kernel_cache cache(folder);
  std::atomic<int> calls{0};
  (void)cache.get("first", counting(calls, "1"));
  (void)cache.get("second", counting(calls, "2"));
  REQUIRE(calls == 2);
  const fs::path first = cache.file_for("first");
  const fs::path second = cache.file_for("second");
  REQUIRE(fs::exists(first));
  REQUIRE(fs::exists(second));
  // A temporary file a crashed writer left behind is the cache's too.
  const fs::path leftover = folder / (rtc::sha256_hex("third") + ".ufunc-kernel.tmp.12345.0");
  write_bytes(leftover, "half written");
  const std::vector<fs::path> foreign = {
      folder / "notes.txt",
      folder / "abc.ufunc-kernel",
      folder / (rtc::sha256_hex("fourth") + ".ufunc-kernel.bak"),
      folder / (rtc::sha256_hex("fifth") + ".ufunc-kernel.tmp."),
      folder / ("ABCDEF" + rtc::sha256_hex("sixth").substr(6) + ".ufunc-kernel"),
  };
  for (const fs::path& f : foreign) write_bytes(f, "not the cache's");

  cache.clear();
  CHECK_FALSE(fs::exists(first));
  CHECK_FALSE(fs::exists(second));
  CHECK_FALSE(fs::exists(leftover));
  for (const fs::path& f : foreign) {
    INFO(f.string());
    CHECK(read_bytes(f) == "not the cache's");
  }
  CHECK(*cache.get("first", counting(calls, "1")) == "1");
  CHECK(calls == 3);
  CHECK(cache.stats().memory_hits == 0);
  CHECK(fs::exists(first));

  // A memory-only cache forgets too.
  rtc::kernel_cache memory({});
  (void)memory.get("k", counting(calls, "m"));
  memory.clear();
  (void)memory.get("k", counting(calls, "m"));
  CHECK(memory.stats().compiles == 2);
}

TEST_CASE("kernel cache: a disk write that fails still returns the binary") {
  scratch_folder dir;
  const std::string key = "unwritable";
  const std::string expected = fake_binary(key);

  SUBCASE("memory only") {
    rtc::kernel_cache cache({});
    std::atomic<int> calls{0};
    CHECK(*cache.get(key, counting(calls, expected)) == expected);
    CHECK(*cache.get(key, counting(calls, expected)) == expected);
    CHECK(calls == 1);
    CHECK(cache.stats().memory_hits == 1);
  }

  SUBCASE("a folder made read-only") {
    if (::geteuid() == 0) {
      MESSAGE("skipped: root writes into read-only folders (the file size limit case runs)");
    } else {
      const fs::path folder = dir / "cache";
      rtc::kernel_cache cache(folder);
      fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
      std::atomic<int> calls{0};
      CHECK(*cache.get(key, counting(calls, expected)) == expected);
      CHECK(*cache.get(key, counting(calls, expected)) == expected);
      fs::permissions(folder, fs::perms::owner_all);
      CHECK(calls == 1);
      CHECK(cache.stats().memory_hits == 1);
      CHECK(fs::is_empty(folder));
    }
  }

  SUBCASE("a file size limit, as a full disk (even for root)") {
    const fs::path folder = dir / "cache";
    { const rtc::kernel_cache creates(folder); }
    // In a child: the limit holds for the whole process. Exit codes: 0 well, 1 no limit set,
    // 2 wrong bytes, 3 wrong counts.
    const int child = run_child([&] {
      // Past the limit write() then fails with EFBIG instead of the signal ending the process.
      std::signal(SIGXFSZ, SIG_IGN);
      rlimit limit{};
      if (::getrlimit(RLIMIT_FSIZE, &limit) != 0) return 1;
      limit.rlim_cur = 100;
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 1;
      rtc::kernel_cache cache(folder);
      std::atomic<int> calls{0};
      if (*cache.get(key, counting(calls, expected)) != expected) return 2;
      if (*cache.get(key, counting(calls, expected)) != expected) return 2;
      if (calls != 1 || cache.stats().memory_hits != 1) return 3;
      return 0;
    });
    CHECK(child == 0);
    // The partly written temporary file was removed.
    CHECK(fs::is_empty(folder));
  }
}
