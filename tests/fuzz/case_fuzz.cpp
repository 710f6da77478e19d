#include "tests/fuzz/case_fuzz.h"

#include <exception>
#include <new>

#include "core/carriers/dispatch.h"
#include "core/io/case_file.h"
#include "core/runtime/compiled.h"

namespace tc::fuzz {
namespace {

bool oneLine(const std::string& message) {
  return !message.empty() && message.find_first_of("\n\r") == std::string::npos;
}

//! The finding for a refusal whose message a user could not read as one line, else nothing.
std::optional<std::string> unreadable(const std::string& step, const Error& error) {
  if (oneLine(error.message)) return std::nullopt;
  return step + ": the error is not one non-empty line: \"" + error.message + "\"";
}

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
  for (const std::string& carrier : kCarrierNames) {
    std::optional<std::string> finding;
    try {
      withCarrier(carrier, [&]<class T>() {
        finding = findingOn<T>(text);
        return 0;
      });
    } catch (const std::bad_alloc&) {
      finding = "std::bad_alloc escaped (the budget let through a case that needs more memory)";
    } catch (const std::exception& e) {
      finding = std::string("an exception escaped: ") + e.what();
    }
    if (finding) return carrier + ": " + *finding;
  }
  return std::nullopt;
}

}  // namespace tc::fuzz
