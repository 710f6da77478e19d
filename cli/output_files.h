#pragma once
// The files a run writes (counterexamples, --json, --junit): checked before the run, so that a bad
// path is refused at once rather than after the work, and written whole or not at all.
#include <string>
#include <string_view>

#include "core/support/result.h"

namespace tc::cli {

//! Writes `text` to `path` whole or not at all: into a temporary file beside it, then renamed over
//! it, so a failed write leaves the previous file as it was. Errors name the path and the system's
//! reason.
Result<void> writeWhole(const std::string& path, std::string_view text);

//! Why `path` cannot be the file `option` names: empty, a directory, or in a directory that is
//! missing or not writable. Creates nothing.
Result<void> checkFilePath(std::string_view option, const std::string& path);

//! Why `path` cannot be the directory `option` names, created on first use: empty, not a
//! directory, or not creatable or writable. Creates nothing.
Result<void> checkDirectoryPath(std::string_view option, const std::string& path);

}  // namespace tc::cli
