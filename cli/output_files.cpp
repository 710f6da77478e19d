#include "cli/output_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/support/text.h"

namespace tc::cli {
namespace fs = std::filesystem;
namespace {

std::string systemReason() { return std::strerror(errno); }

// The directory a new entry `path` would go in: its parent, or "." for a bare name.
fs::path containingDirectory(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Why no entry can be created in `directory`, or empty when one can.
std::string whyNotWritable(const fs::path& directory) {
  std::error_code error;
  if (!fs::exists(directory, error)) return fmt::format("{} does not exist", quote(directory.string()));
  if (!fs::is_directory(directory, error)) return fmt::format("{} is not a directory", quote(directory.string()));
  if (::access(directory.c_str(), W_OK | X_OK) != 0)
    return fmt::format("{}: {}", quote(directory.string()), systemReason());
  return "";
}

bool writeAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

Result<void> writeWhole(const std::string& path, std::string_view text) {
  std::string temporary = (containingDirectory(path) / fmt::format(".{}.tmp-{}", fs::path(path).filename().string(),
                                                                    ::getpid()))
                              .string();
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail(fmt::format("cannot write {}: {}", quote(path), systemReason()));
  bool written = writeAll(fd, text) && ::fsync(fd) == 0;
  std::string reason = written ? "" : systemReason();
  if (::close(fd) != 0 && written) written = false, reason = systemReason();
  if (written && ::rename(temporary.c_str(), path.c_str()) != 0) written = false, reason = systemReason();
  if (written) return {};
  ::unlink(temporary.c_str());
  return fail(fmt::format("cannot write {}: {}", quote(path), reason));
}

Result<void> checkFilePath(std::string_view option, const std::string& path) {
  if (path.empty()) return fail(fmt::format("{}: the path is empty", option));
  std::error_code error;
  if (fs::is_directory(path, error)) return fail(fmt::format("{}: {} is a directory", option, quote(path)));
  if (std::string why = whyNotWritable(containingDirectory(path)); !why.empty())
    return fail(fmt::format("{}: cannot write {}: {}", option, quote(path), why));
  return {};
}

Result<void> checkDirectoryPath(std::string_view option, const std::string& path) {
  if (path.empty()) return fail(fmt::format("{}: the path is empty", option));
  std::error_code error;
  fs::path existing = fs::path(path);
  // The nearest part of the path that exists must be a writable directory.
  while (!fs::exists(existing, error) && existing.has_parent_path() && existing.parent_path() != existing)
    existing = existing.parent_path();
  if (!fs::exists(existing, error)) existing = ".";
  if (std::string why = whyNotWritable(existing); !why.empty())
    return fail(fmt::format("{}: cannot save in {}: {}", option, quote(path), why));
  return {};
}

}  // namespace tc::cli
