#include "core/io/document_format.h"

#include "core/support/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
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

Result<nlohmann::json> parseJsonDocument(std::string_view text) {
  using nlohmann::json;
  // Bounded nesting: the parser is iterative, but printing or copying a deep document is not.
  constexpr int kMaxDepth = 64;
  struct TooDeep {};
  try {
    return json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    return fail(fmt::format("malformed JSON: nested deeper than {} levels", kMaxDepth));
  } catch (const json::exception& e) {
    return fail(fmt::format("malformed JSON: {}", escape(e.what(), 300)));
  }
}

Result<std::string> readTextFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(fmt::format("{}: cannot open the file", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail(fmt::format("{}: cannot read the file", path.string()));
  return text.str();
}

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
