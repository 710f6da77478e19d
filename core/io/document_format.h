#pragma once
// Reading JSON documents safely, and writing case documents readably: keys in reading order
// (tapecheck, inputs, data, nodes, values, output, seed, seeds, failure), one input, node or
// tensor per line.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <string_view>

#include "core/support/result.h"

namespace tc {

//! JSON text parsed with bounded nesting (64 levels); errors read "malformed JSON: ...".
Result<nlohmann::json> parseJsonDocument(std::string_view text);

//! A whole file as text; errors name the path ("x.json: cannot open the file").
Result<std::string> readTextFile(const std::filesystem::path& path);

//! The document as text, ending in a newline; parsing it gives back the same document.
std::string formatCaseDocument(const nlohmann::json& doc);

}  // namespace tc
