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
//
// It also counts the memory the document takes as it is built, and stops once that passes a bound.
// A value takes 16 bytes in its array's storage, counted as 48: as the storage grows, the old and
// the new, twice as large, are both held; a string 32 more for its std::string, allocated apart, and
// its characters beyond the 15 held inline; an array or an object 48 for its storage's header; an
// object's entry 80 for its tree node and key (measured: stopped at 100 and 200 MiB so counted, the
// parse of 4,194,304 values "1" held 123 and 254 MiB besides the program when counted at 32 a value).
class DepthLimitedDom : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
 public:
  using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;
  static constexpr std::size_t kMaxDepth = 64;
  static constexpr double kValueBytes = 48, kStringBytes = 32, kContainerBytes = 48, kEntryBytes = 80;
  static constexpr std::size_t kInlineChars = 15;
  DepthLimitedDom(nlohmann::json& root, double startBytes, double maxBytes)
      : Base(root), bytes_(startBytes), maxBytes_(maxBytes) {}
  bool tooDeep() const { return tooDeep_; }
  //! The key an object repeated, when parsing stopped there.
  const std::optional<std::string>& repeatedKey() const { return repeatedKey_; }
  //! Whether parsing stopped because the document passed the bound on its memory.
  bool tooLarge() const { return bytes_ > maxBytes_; }

  bool null() { return fits() && holds(kValueBytes) && Base::null(); }
  bool boolean(bool v) { return fits() && holds(kValueBytes) && Base::boolean(v); }
  bool number_integer(number_integer_t v) { return fits() && holds(kValueBytes) && Base::number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return fits() && holds(kValueBytes) && Base::number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) {
    return fits() && holds(kValueBytes) && Base::number_float(v, s);
  }
  bool string(string_t& v) { return fits() && holds(kValueBytes + textBytes(v)) && Base::string(v); }
  bool binary(binary_t& v) { return fits() && holds(kValueBytes + static_cast<double>(v.size())) && Base::binary(v); }
  bool key(string_t& v) { return fits() && unseen(v) && holds(kEntryBytes + textBytes(v)) && Base::key(v); }
  bool start_object(std::size_t n) {
    return fits() && holds(kValueBytes + kContainerBytes) && openObject() && Base::start_object(n);
  }
  bool start_array(std::size_t n) {
    return fits() && holds(kValueBytes + kContainerBytes) && open() && Base::start_array(n);
  }
  bool end_object() { return closeObject() && Base::end_object(); }
  bool end_array() { return close() && Base::end_array(); }

 private:
  // An event inside more than kMaxDepth open containers is refused.
  bool fits() {
    tooDeep_ = depth_ > kMaxDepth;
    return !tooDeep_;
  }
  // Counts `bytes` more; false once the document passes the bound.
  bool holds(double bytes) {
    bytes_ += bytes;
    return !tooLarge();
  }
  static double textBytes(const string_t& text) {
    return kStringBytes + (text.size() > kInlineChars ? static_cast<double>(text.size() + 1) : 0);
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
  double bytes_, maxBytes_;
  std::vector<std::unordered_set<std::string>> keys_;  // of each open object, innermost last
  std::optional<std::string> repeatedKey_;
};

}  // namespace

std::string readingPassesBound(double textBytes, const MemoryBound& bound) {
  constexpr double mib = 1024.0 * 1024;
  return fmt::format("reading its {:.4g} MiB of JSON takes more than the memory budget of {:.4g} MiB{}",
                     textBytes / mib, bound.bytes / mib, bound.raise);
}

Result<nlohmann::json> parseJsonDocument(std::string_view text, const MemoryBound& bound) {
  using nlohmann::json;
  // Bounded nesting: the parser is iterative, but printing or copying a deep document is not.
  try {
    json root;
    DepthLimitedDom dom(root, static_cast<double>(text.size()), bound.bytes);  // the text is held too
    if (!json::sax_parse(text, &dom)) {
      if (dom.tooLarge()) return fail(readingPassesBound(static_cast<double>(text.size()), bound));
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
