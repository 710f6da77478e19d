#include "core/io/document_format.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

namespace tc {
namespace {

constexpr std::array<std::string_view, 9> kKeyOrder = {"tapecheck", "inputs", "data",  "nodes", "values",
                                                       "output",    "seed",   "seeds", "failure"};

// Arrays and objects with more than one entry get one entry per line.
std::string formatValue(const nlohmann::json& value) {
  if (!value.is_structured() || value.size() < 2) return value.dump();
  std::string out = value.is_array() ? "[\n" : "{\n";
  std::size_t i = 0;
  for (auto it = value.begin(); it != value.end(); ++it, ++i) {
    out += "    ";
    if (value.is_object()) out += nlohmann::json(it.key()).dump() + ": ";
    out += it->dump() + (i + 1 < value.size() ? ",\n" : "\n");
  }
  return out + (value.is_array() ? "  ]" : "  }");
}

}  // namespace

std::string formatCaseDocument(const nlohmann::json& doc) {
  if (!doc.is_object()) return doc.dump() + "\n";
  std::vector<std::string> keys;
  for (std::string_view key : kKeyOrder)
    if (doc.contains(key)) keys.emplace_back(key);
  for (const auto& [key, value] : doc.items())
    if (std::find(kKeyOrder.begin(), kKeyOrder.end(), key) == kKeyOrder.end()) keys.push_back(key);
  std::string out = "{\n";
  for (std::size_t i = 0; i < keys.size(); ++i)
    out += "  " + nlohmann::json(keys[i]).dump() + ": " + formatValue(doc[keys[i]]) + (i + 1 < keys.size() ? ",\n" : "\n");
  return out + "}\n";
}

}  // namespace tc
