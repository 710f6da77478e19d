#pragma once
// How tapecheck writes case documents: keys in reading order (tapecheck, inputs, data, nodes,
// values, output, seed, seeds, failure), one input, node or tensor per line.
#include <nlohmann/json.hpp>

#include <string>

namespace tc {

//! The document as text, ending in a newline; parsing it gives back the same document.
std::string formatCaseDocument(const nlohmann::json& doc);

}  // namespace tc
