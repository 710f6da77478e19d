#include "core/io/document_format.h"

#include "core/support/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <fstream>
#include <sstream>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
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

// nlohmann's DOM builder with a bound on nesting, checked at the same events (and so failing on the
// same documents) as a parse callback would be, and refusing a key repeated in one object (nlohmann
// keeps the last silently: a second "inputs" would replace the first). A parse callback is not used
// because nlohmann's callback parser scans the enclosing array at the end of every object:
// quadratic in the nodes.
class DepthLimitedDom : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
 public:
  using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;
  static constexpr std::size_t kMaxDepth = 64;
  explicit DepthLimitedDom(nlohmann::json& root) : Base(root) {}
  bool tooDeep() const { return tooDeep_; }
  //! The key an object repeated, when parsing stopped there.
  const std::optional<std::string>& repeatedKey() const { return repeatedKey_; }

  bool null() { return fits() && Base::null(); }
  bool boolean(bool v) { return fits() && Base::boolean(v); }
  bool number_integer(number_integer_t v) { return fits() && Base::number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return fits() && Base::number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) { return fits() && Base::number_float(v, s); }
  bool string(string_t& v) { return fits() && Base::string(v); }
  bool binary(binary_t& v) { return fits() && Base::binary(v); }
  bool key(string_t& v) { return fits() && unseen(v) && Base::key(v); }
  bool start_object(std::size_t n) { return fits() && openObject() && Base::start_object(n); }
  bool start_array(std::size_t n) { return fits() && open() && Base::start_array(n); }
  bool end_object() { return closeObject() && Base::end_object(); }
  bool end_array() { return close() && Base::end_array(); }

 private:
  // An event inside more than kMaxDepth open containers is refused.
  bool fits() {
    tooDeep_ = depth_ > kMaxDepth;
    return !tooDeep_;
  }
  bool open() {
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  bool openObject() {
    keys_.emplace_back();
    return open();
  }
  bool closeObject() {
    keys_.pop_back();
    return close();
  }
  // Whether the innermost open object has not had `key` yet.
  bool unseen(const string_t& key) {
    if (keys_.back().insert(key).second) return true;
    repeatedKey_ = key;
    return false;
  }
  std::size_t depth_ = 0;
  bool tooDeep_ = false;
  std::vector<std::unordered_set<std::string>> keys_;  // of each open object, innermost last
  std::optional<std::string> repeatedKey_;
};

}  // namespace

Result<nlohmann::json> parseJsonDocument(std::string_view text) {
  using nlohmann::json;
  // Bounded nesting: the parser is iterative, but printing or copying a deep document is not.
  try {
    json root;
    DepthLimitedDom dom(root);
    if (!json::sax_parse(text, &dom)) {
      if (dom.repeatedKey())
        return fail(fmt::format("malformed JSON: the key {} appears twice in one object", quote(*dom.repeatedKey())));
      assert(dom.tooDeep() && "syntax errors throw");
      return fail(fmt::format("malformed JSON: nested deeper than {} levels", DepthLimitedDom::kMaxDepth));
    }
    return root;
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
