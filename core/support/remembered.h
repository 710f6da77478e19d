#pragma once
// A bounded memo keyed by text, for conversions that are pure functions of their input and repeat
// (the same values read and written for every candidate the shrinker tries).

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tc::detail {

//! Values of type V remembered by a text key (at most kKept; then it starts again). Holds only what a
//! pure function of the key gave, so a value found is the value the function would give again. Not
//! shared between threads: each thread keeps its own (`thread_local`).
template <class V>
class Remembered {
 public:
  static constexpr std::size_t kKept = 1 << 14;
  const V* find(std::string_view key) const {
    auto at = values_.find(key);
    return at == values_.end() ? nullptr : &at->second;
  }
  void remember(std::string_view key, const V& value) {
    if (values_.size() >= kKept) values_.clear();
    values_.emplace(std::string(key), value);
  }
  std::size_t size() const { return values_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };
  std::unordered_map<std::string, V, Hash, std::equal_to<>> values_;
};

}  // namespace tc::detail
