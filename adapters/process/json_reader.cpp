#include "adapters/process/json_reader.h"

#include <fmt/format.h>

#include <algorithm>

namespace tc::process {
namespace {

constexpr int kMaxDepth = 64;

void appendUtf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6)), out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12)), out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18)), out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F)), out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::unexpected<Error> JsonReader::error(std::string_view what) const {
  return fail(fmt::format("{} at byte {}", what, at_ + 1));
}

void JsonReader::skipSpace() {
  while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) ++at_;
}

bool JsonReader::consume(char c) {
  skipSpace();
  if (at_ >= text_.size() || text_[at_] != c || depth_ >= kMaxDepth) return false;
  ++at_, ++depth_;
  started_ &= ~(std::uint64_t{1} << depth_);
  return true;
}

Result<bool> JsonReader::nextMember(char close) {
  skipSpace();
  if (at_ < text_.size() && text_[at_] == close) {
    ++at_, --depth_;
    return false;
  }
  const std::uint64_t bit = std::uint64_t{1} << depth_;
  if (started_ & bit) {
    if (at_ >= text_.size() || text_[at_] != ',') return error(fmt::format("expected ',' or '{}'", close));
    ++at_;
  }
  started_ |= bit;
  return true;
}

Result<bool> JsonReader::nextKey(std::string& key) {
  auto more = nextMember('}');
  if (!more || !*more) return more;
  auto name = string();
  if (!name) return std::unexpected(name.error());
  key = std::move(*name);
  skipSpace();
  if (at_ >= text_.size() || text_[at_] != ':') return error("expected ':'");
  ++at_;
  return true;
}

Result<bool> JsonReader::nextElement() { return nextMember(']'); }

Result<std::string_view> JsonReader::string(std::string& scratch) {
  skipSpace();
  const std::size_t start = at_;
  if (at_ < text_.size() && text_[at_] == '"') {
    const std::size_t end = text_.find_first_of("\"\\", at_ + 1);
    if (end != std::string_view::npos && text_[end] == '"') {
      std::string_view plain = text_.substr(at_ + 1, end - at_ - 1);
      if (std::all_of(plain.begin(), plain.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20; })) {
        at_ = end + 1;
        return plain;
      }
    }
  }
  at_ = start;
  auto decoded = string();
  if (!decoded) return std::unexpected(decoded.error());
  scratch = std::move(*decoded);
  return std::string_view(scratch);
}

Result<std::string> JsonReader::string() {
  skipSpace();
  if (at_ >= text_.size() || text_[at_] != '"') return error("expected a string");
  ++at_;
  std::string out;
  while (at_ < text_.size()) {
    const std::size_t plain = text_.find_first_of("\"\\", at_);
    if (plain == std::string_view::npos) break;
    for (std::size_t k = at_; k < plain; ++k)
      if (static_cast<unsigned char>(text_[k]) < 0x20) return at_ = k, error("a control character in a string");
    out.append(text_.substr(at_, plain - at_));
    at_ = plain;
    if (text_[at_] == '"') {
      ++at_;
      return out;
    }
    if (++at_ >= text_.size()) break;
    const char escaped = text_[at_++];
    switch (escaped) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        auto hex4 = [&]() -> std::optional<std::uint32_t> {
          if (at_ + 4 > text_.size()) return std::nullopt;
          std::uint32_t code = 0;
          for (int k = 0; k < 4; ++k) {
            const char c = text_[at_++];
            code = code * 16 + (isDigit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99);
            if (code > 0xFFFF) return std::nullopt;
          }
          return code;
        };
        auto code = hex4();
        if (!code) return error("a bad \\u escape");
        if (*code >= 0xD800 && *code < 0xDC00) {  // a surrogate pair
          if (at_ + 2 > text_.size() || text_[at_] != '\\' || text_[at_ + 1] != 'u') return error("a lone surrogate");
          at_ += 2;
          auto low = hex4();
          if (!low || *low < 0xDC00 || *low > 0xDFFF) return error("a lone surrogate");
          *code = 0x10000 + ((*code - 0xD800) << 10) + (*low - 0xDC00);
        } else if (*code >= 0xDC00 && *code < 0xE000) {
          return error("a lone surrogate");
        }
        appendUtf8(out, *code);
        break;
      }
      default: return error("a bad escape in a string");
    }
  }
  return error("an unterminated string");
}

Result<std::uint64_t> JsonReader::count() {
  skipSpace();
  const std::size_t start = at_;
  std::uint64_t value = 0;
  while (at_ < text_.size() && isDigit(text_[at_])) {
    if (value > (UINT64_MAX - 9) / 10) return error("a count too large");
    value = value * 10 + static_cast<std::uint64_t>(text_[at_++] - '0');
  }
  if (at_ == start) return error(fmt::format("expected a count (a non-negative integer), got {}", nextKind()));
  if ((at_ - start > 1 && text_[start] == '0') ||
      (at_ < text_.size() && (text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E')))
    return at_ = start, error("expected a count (a non-negative integer)");
  return value;
}

Result<void> JsonReader::literal(std::string_view word) {
  if (text_.substr(at_, word.size()) != word) return error("not JSON");
  at_ += word.size();
  return {};
}

Result<void> JsonReader::number() {
  const std::size_t start = at_;
  if (at_ < text_.size() && text_[at_] == '-') ++at_;
  auto digits = [&] {
    const std::size_t from = at_;
    while (at_ < text_.size() && isDigit(text_[at_])) ++at_;
    return at_ - from;
  };
  const std::size_t integer = at_;
  if (digits() == 0 || (at_ - integer > 1 && text_[integer] == '0')) return at_ = start, error("a bad number");
  if (at_ < text_.size() && text_[at_] == '.' && (++at_, digits() == 0)) return error("a bad number");
  if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
    ++at_;
    if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
    if (digits() == 0) return error("a bad number");
  }
  return {};
}

Result<void> JsonReader::skipDepth(int depth) {
  if (depth > kMaxDepth) return error("JSON nested too deeply");
  skipSpace();
  if (at_ >= text_.size()) return error("unexpected end");
  const char c = text_[at_];
  if (c == '"') {
    auto s = string();
    if (!s) return std::unexpected(s.error());
    return {};
  }
  if (c == '{' || c == '[') {
    const char close = c == '{' ? '}' : ']';
    ++at_;
    skipSpace();
    if (at_ < text_.size() && text_[at_] == close) return ++at_, Result<void>{};
    for (;;) {
      if (c == '{') {
        auto key = string();
        if (!key) return std::unexpected(key.error());
        skipSpace();
        if (at_ >= text_.size() || text_[at_] != ':') return error("expected ':'");
        ++at_;
      }
      if (auto inner = skipDepth(depth + 1); !inner) return inner;
      skipSpace();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_, skipSpace();
        continue;
      }
      if (at_ < text_.size() && text_[at_] == close) return ++at_, Result<void>{};
      return error(c == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  if (c == 't') return literal("true");
  if (c == 'f') return literal("false");
  if (c == 'n') return literal("null");
  return number();
}

Result<void> JsonReader::skip() { return skipDepth(depth_); }

Result<void> JsonReader::end() {
  skipSpace();
  if (at_ != text_.size()) return error("text after the JSON value");
  return {};
}

std::string_view JsonReader::nextKind() {
  skipSpace();
  if (at_ >= text_.size()) return "the end";
  switch (text_[at_]) {
    case '{': return "an object";
    case '[': return "an array";
    case '"': return "a string";
    case 't': case 'f': return "a boolean";
    case 'n': return "null";
    default: return "a number";
  }
}

}  // namespace tc::process
