#include "tests/fuzz/case_fuzz.h"

#include "core/io/case_file.h"
#include "core/runtime/compiled.h"
#include "tests/fuzz/finding.h"

namespace tc::fuzz {
namespace {

template <class T>
std::optional<std::string> findingOn(std::string_view text) {
  auto loaded = parseCase<T>(text, cli::budgetGate<T>(cli::gradPasses(true, false), kFuzzBudget));
  if (!loaded) return unreadable("load", loaded.error());

  const std::string written = writeCase(*loaded);
  auto again = parseCase<T>(written);
  if (!again) return "the written case does not read back: " + again.error().message;
  if (writeCase(*again) != written) return "the written case reads back as another case";

  if (!loaded->inputs) return std::nullopt;  // a graph-only file: nothing to evaluate
  auto compiled = compileChecked(loaded->graph, *loaded->inputs, loaded->data);
  if (!compiled) return unreadable("compileChecked", compiled.error());
  auto gradients = compiled->backwardDenseFrom(loaded->seeds);
  if (!gradients) return unreadable("backwardDenseFrom", gradients.error());
  return std::nullopt;
}

}  // namespace

std::optional<std::string> findingIn(std::string_view text) {
  return onEveryCarrier([&]<class T>() { return findingOn<T>(text); });
}

}  // namespace tc::fuzz
