#pragma once
// Reading JSON documents safely, and writing case documents readably: keys in reading order
// (tapecheck, inputs, data, nodes, values, output, seed, seeds, failure), one input, node or
// tensor per line.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <limits>
#include <string>
#include <string_view>

#include "core/support/result.h"

namespace tc {

//! A bound on the memory that reading a document may take: `bytes`, and how a user raises it
//! (appended to the refusal: "; raise it with --max-memory (MiB)").
struct MemoryBound {
  double bytes = std::numeric_limits<double>::infinity();
  std::string raise;
};

//! JSON text parsed with bounded nesting (64 levels); errors read "malformed JSON: ...". Within
//! `bound`: the text and the document built so far are counted as the parser goes, and it stops
//! once they pass the bound (a file of 92 MB before it takes 1.4 GB), failing with readingPassesBound.
Result<nlohmann::json> parseJsonDocument(std::string_view text, const MemoryBound& bound = {});

//! The refusal of a text of `textBytes` whose reading passes `bound`: "reading its 87.55 MiB of JSON
//! takes more than the memory budget of 1024 MiB" and the bound's `raise`.
std::string readingPassesBound(double textBytes, const MemoryBound& bound);

//! A whole file as text; errors name the path ("x.json: cannot open the file").
Result<std::string> readTextFile(const std::filesystem::path& path);

//! The document as text, ending in a newline; parsing it gives back the same document.
std::string formatCaseDocument(const nlohmann::json& doc);

}  // namespace tc
