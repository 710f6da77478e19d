#include "cli/output_files.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include "adapters/process/interrupt.h"
#include "core/support/text.h"

namespace tc::cli {
namespace fs = std::filesystem;
namespace {

std::string systemReason(int error = errno) { return std::strerror(error); }

// The directory a new entry `path` would go in: its parent, or "." for a bare name.
fs::path containingDirectory(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// What an existing entry that is not a regular file is, for messages; empty for a regular file.
std::string kindOf(const struct stat& entry) {
  if (S_ISREG(entry.st_mode)) return "";
  if (S_ISDIR(entry.st_mode)) return "a directory";
  if (S_ISLNK(entry.st_mode)) return "a symbolic link";
  if (S_ISCHR(entry.st_mode)) return "a character device";
  if (S_ISBLK(entry.st_mode)) return "a block device";
  if (S_ISFIFO(entry.st_mode)) return "a named pipe (FIFO)";
  if (S_ISSOCK(entry.st_mode)) return "a socket";
  return "not a regular file";
}

// Why `path` (not followed if a symbolic link) cannot be written as a file: "'path' is a named
// pipe (FIFO); ...", or empty when it names a regular file (`mode` then set to its permissions) or
// nothing.
std::string whyNotRegular(const std::string& path, std::optional<mode_t>* mode = nullptr) {
  struct stat entry {};
  if (::lstat(path.c_str(), &entry) != 0)  // nothing there (a name too long is said by the caller)
    return errno == ENOENT || errno == ENAMETOOLONG ? "" : fmt::format("cannot write {}: {}", quote(path), systemReason());
  if (std::string kind = kindOf(entry); !kind.empty())
    return fmt::format("{} is {}; tapecheck writes only a regular file or a new one{}", quote(path), kind,
                       S_ISLNK(entry.st_mode) ? " (name the file the link points to)" : "");
  if (mode) *mode = entry.st_mode & 0777;
  return "";
}

// A name no one can guess: 16 letters and digits from the kernel's random source.
std::string randomName() {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  std::string name;
  for (unsigned char byte : bytes) name += kLetters[byte % (sizeof kLetters - 1)];
  return name;
}

// A new temporary file in `directory` for `path`: ".<name>.<random>.tmp", created with O_EXCL
// (never an entry that exists, a planted symbolic link included) and O_NOFOLLOW. Returns its
// descriptor, or -1 with errno set. Until `watch` forgets it (on destruction), tapecheck
// interrupted by SIGINT, SIGTERM or SIGHUP removes it (adapters/process/interrupt.h).
struct WatchedTemporary {
  int slot = -1;
  ~WatchedTemporary() { process::forgetTemporary(slot); }
};
int createTemporary(const fs::path& directory, const std::string& path, std::string& temporary, WatchedTemporary& watch) {
  std::string name = fs::path(path).filename().string().substr(0, 64);
  process::InterruptsBlocked blocked;  // created and watched at once
  for (int attempt = 0; attempt < 16; ++attempt) {
    temporary = (directory / fmt::format(".{}.{}.tmp", name, randomName())).string();
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) watch.slot = process::watchTemporary(temporary.c_str());
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// Why no file can be created in `directory`, or empty when one can: a temporary file is created
// there and removed.
std::string whyNoFileIn(const fs::path& directory, const std::string& path) {
  std::error_code error;
  if (!fs::exists(directory, error)) return fmt::format("{} does not exist", quote(directory.string()));
  if (!fs::is_directory(directory, error)) return fmt::format("{} is not a directory", quote(directory.string()));
  std::string temporary;
  WatchedTemporary watch;
  int fd = createTemporary(directory, path, temporary, watch);
  if (fd < 0) return fmt::format("cannot create a file in {}: {}", quote(directory.string()), systemReason());
  ::close(fd);
  ::unlink(temporary.c_str());
  return "";
}

// Why `name` is too long to be an entry of `directory`, or empty.
std::string whyTooLong(const fs::path& directory, const std::string& name) {
  long most = ::pathconf(directory.c_str(), _PC_NAME_MAX);
  if (most < 0) most = NAME_MAX;
  if (name.size() > static_cast<std::size_t>(most))
    return fmt::format("the name {} is longer than {} bytes", quote(name, 40), most);
  return "";
}

bool writeAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {  // nothing written and no error: treat as a full device
      errno = ENOSPC;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

Result<void> writeWhole(const std::string& path, std::string_view text) {
  std::optional<mode_t> mode;  // none for a new file
  if (std::string why = whyNotRegular(path, &mode); !why.empty()) return fail(why);
  const fs::path directory = containingDirectory(path);
  std::string temporary;
  WatchedTemporary watch;
  int fd = createTemporary(directory, path, temporary, watch);
  if (fd < 0) return fail(fmt::format("cannot write {}: {}", quote(path), systemReason()));
  bool written = true;
  std::string reason;
  auto failed = [&] { written = false, reason = systemReason(); };
  if (mode && ::fchmod(fd, *mode) != 0) failed();  // a file replaced keeps its permissions
  if (written && !writeAll(fd, text)) failed();
  if (written && ::fsync(fd) != 0) failed();
  if (::close(fd) != 0 && written) failed();
  // rename replaces the entry at `path` itself: it never writes into what a link there points to.
  if (written && ::rename(temporary.c_str(), path.c_str()) != 0) failed();
  if (written) {
    if (int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
      ::fsync(dir);  // the rename itself made durable, where the file system allows
      ::close(dir);
    }
    return {};
  }
  ::unlink(temporary.c_str());
  return fail(fmt::format("cannot write {}: {}", quote(path), reason));
}

Result<void> checkFilePath(std::string_view option, const std::string& path) {
  if (path.empty()) return fail(fmt::format("{}: the path is empty", option));
  if (std::string why = whyNotRegular(path); !why.empty()) return fail(fmt::format("{}: {}", option, why));
  const fs::path directory = containingDirectory(path);
  std::string why = whyTooLong(directory, fs::path(path).filename().string());
  if (why.empty() && path.size() >= PATH_MAX) why = fmt::format("the path is longer than {} bytes", PATH_MAX - 1);
  if (why.empty()) why = whyNoFileIn(directory, path);
  if (!why.empty()) return fail(fmt::format("{}: cannot write {}: {}", option, quote(path), why));
  return {};
}

Result<void> checkDirectoryPath(std::string_view option, const std::string& path) {
  if (path.empty()) return fail(fmt::format("{}: the path is empty", option));
  std::error_code error;
  fs::path existing = fs::path(path);
  std::vector<std::string> missing;  // the names to create, innermost first
  // The nearest part of the path that exists must be a directory a file can be created in.
  while (!fs::exists(existing, error) && existing.has_parent_path() && existing.parent_path() != existing) {
    if (existing.has_filename()) missing.push_back(existing.filename().string());
    existing = existing.parent_path();
  }
  if (!fs::exists(existing, error)) {
    if (existing.has_filename()) missing.push_back(existing.filename().string());
    existing = ".";
  }
  std::string why;
  if (!fs::is_directory(existing, error)) why = fmt::format("{} is not a directory", quote(existing.string()));
  for (const std::string& name : missing)
    if (why.empty()) why = whyTooLong(existing, name);
  // Room for the saved files' names ("<property>-<carrier>-<seed>-<k>.json") under it.
  if (why.empty() && path.size() + 128 >= PATH_MAX) why = fmt::format("the path is longer than {} bytes", PATH_MAX - 129);
  if (why.empty()) why = whyNoFileIn(existing, (existing / ".tapecheck-check").string());
  if (!why.empty()) return fail(fmt::format("{}: cannot save in {}: {}", option, quote(path), why));
  return {};
}

}  // namespace tc::cli
