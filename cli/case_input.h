#pragma once
// A case file as the replay, check and show commands read it: the document, and the property,
// carrier and engine its "failure" object names (a file saved by `tapecheck run`).
#include <nlohmann/json.hpp>

#include <string>

#include "core/support/result.h"
#include "properties/profile.h"

namespace tc::cli {

//! A case file read once. The names are empty when the file has no "failure" object.
struct CaseInput {
  std::string path;
  nlohmann::json doc;
  std::string property, carrier, engine;
};

//! Reads and parses the file (bounded nesting); errors name the path and say what is wrong.
Result<CaseInput> readCaseInput(const std::string& path);

//! The engine profile in the JSON file at `path` (properties/profile_json.h), or the `spec`
//! profile when `path` is empty; errors name the path and the key.
Result<EngineProfile> readProfile(const std::string& path);

//! The option if given, else the file's, else the fallback; errors when the choice is not
//! one of `allowed`.
Result<std::string> chooseName(std::string_view what, const std::string& option, const std::string& fromFile,
                               const std::string& fallback, const std::vector<std::string>& allowed);

}  // namespace tc::cli
