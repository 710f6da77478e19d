#pragma once
// The files a run writes (counterexamples, --json, --junit): checked before the run, so that a bad
// path is refused at once rather than after the work, and written whole or not at all. A path
// names a regular file or nothing: a device, a named pipe, a socket, a directory or a symbolic
// link is refused, never replaced (docs/threat-model.md §3).
#include <string>
#include <string_view>

#include "core/support/result.h"

namespace tc::cli {

//! Writes `text` to `path` whole or not at all: into a new temporary file beside it (created with
//! O_EXCL and O_NOFOLLOW under a random name, so nothing planted there is followed), synced, then
//! renamed over it, so a failed write leaves the previous file as it was. `path` must name a
//! regular file or nothing. Errors (a write, sync or close that fails: a full disk, an I/O error)
//! name the path and the system's reason.
Result<void> writeWhole(const std::string& path, std::string_view text);

//! Why `path` cannot be the file `option` names: empty; not a regular file (a directory, a device,
//! a named pipe, a socket, a symbolic link); a name too long; or in a directory that is missing or
//! in which no file can be created (tried: a temporary file is created there and removed). Leaves
//! nothing behind.
Result<void> checkFilePath(std::string_view option, const std::string& path);

//! Why `path` cannot be the directory `option` names, created on first use: empty, not a
//! directory, a name too long, or in a directory where it cannot be created (tried as
//! checkFilePath does). Leaves nothing behind.
Result<void> checkDirectoryPath(std::string_view option, const std::string& path);

}  // namespace tc::cli
