#include "core/support/mutants.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tc::mutants {
namespace {

//! A list name with its underscores as hyphens, kept for the program's life.
constexpr std::size_t kMaxName = 64;
struct HyphenName {
  std::array<char, kMaxName> text{};
  std::size_t size = 0;
  constexpr explicit HyphenName(std::string_view name) : size(name.size()) {
    for (std::size_t i = 0; i < name.size() && i < kMaxName; ++i) text[i] = name[i] == '_' ? '-' : name[i];
  }
  constexpr std::string_view view() const { return {text.data(), size}; }
};

#define TC_MUTANT_NAME(name, category, site, models) HyphenName(#name),
constexpr std::array kNames{TC_MUTANT_LIST(TC_MUTANT_NAME)};
#undef TC_MUTANT_NAME
static_assert([] {
  for (const HyphenName& n : kNames)
    if (n.size > kMaxName) return false;
  return true;
}(), "a mutant's name is longer than kMaxName");

#define TC_MUTANT_INFO(name, category, site, models) \
  MutantInfo{static_cast<int>(Mutant::name), kNames[static_cast<int>(Mutant::name) - 1].view(), category, site, models},
constexpr std::array kMutants{TC_MUTANT_LIST(TC_MUTANT_INFO)};
#undef TC_MUTANT_INFO

// TAPECHECK_MUTANT names at most one mutant; a value that names none is a mistake worth stopping
// for, since a run would otherwise check the unmutated program and look like a killed mutant's.
int activeId() {
  const char* text = std::getenv("TAPECHECK_MUTANT");
  if (!text || !*text) return 0;
  if (std::optional<int> id = idOf(text)) return *id;
  std::fprintf(stderr, "tapecheck: TAPECHECK_MUTANT=%s names no mutant (an id from 1 to %zu, or a name)\n", text,
               kMutants.size());
  std::exit(2);
}

}  // namespace

std::span<const MutantInfo> all() { return kMutants; }

std::optional<int> idOf(std::string_view text) {
  int id = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error == std::errc() && end == text.data() + text.size())
    return id >= 1 && static_cast<std::size_t>(id) <= kMutants.size() ? std::optional<int>(id) : std::nullopt;
  for (const MutantInfo& m : kMutants)
    if (m.name == text) return m.id;
  return std::nullopt;
}

bool active(Mutant mutant) {
  static const int chosen = activeId();
  return static_cast<int>(mutant) == chosen;
}

}  // namespace tc::mutants
