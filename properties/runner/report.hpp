#pragma once
#include <fmt/format.h>

#include "core/io/case_file.h"
#include "core/io/listing.h"
#include "core/spec/reference.h"
#include "generators/expected_shapes.hpp"
#include "properties/runner/report.h"

namespace tc::props {

namespace detail {

// The listing lines of a verdict: both sides where a comparison differs, the oracle's notes, and
// a mark on a blamed position that has neither.
inline ListingNotes verdictNotes(const Verdict& verdict) {
  ListingNotes notes = verdict.notes;
  std::size_t width = std::max(verdict.leftName.size(), verdict.rightName.size());
  for (const auto& d : verdict.differences) {
    notes[d.position].push_back(fmt::format("{:<{}}  {}   <- differs", verdict.leftName, width, d.left));
    notes[d.position].push_back(fmt::format("{:<{}}  {}", verdict.rightName, width, d.right));
  }
  for (std::size_t p : verdict.blamed)
    if (!notes.contains(p)) notes[p].push_back("<- blamed by the failure");
  return notes;
}

}  // namespace detail

template <class T>
std::string formatCaseListing(const nlohmann::json& doc, const Verdict& verdict, std::size_t limit) {
  auto loaded = caseFromJson<T>(doc);
  if (!loaded) return "the case does not load: " + loaded.error().message + "\n";
  return formatCaseListing(*loaded, verdict, limit);
}

template <class T>
std::string formatCaseListing(const Case<T>& loaded, const Verdict& verdict, std::size_t limit) {
  const ListingNotes notes = detail::verdictNotes(verdict);
  if (!loaded.inputs)
    return formatListing<T>(loaded.graph, {{"seed", loaded.seeds}}, notes, limit) + "(no input values)\n";
  if (auto disagreement = gen::shapeDisagreement(loaded.graph))  // a forward would fill a tensor of the wrong size
    return formatListing<T>(loaded.graph, {{"seed", loaded.seeds}}, notes, limit) +
           fmt::format("(not evaluated: {})\n", *disagreement);
  auto context = spec::eval(loaded.graph, *loaded.inputs, loaded.data);
  if (!context)
    return formatListing<T>(loaded.graph, {{"seed", loaded.seeds}}, notes, limit) +
           fmt::format("(eval fails: {})\n", context.error().message);
  return formatListing<T>(loaded.graph, {{"value", *context}, {"seed", loaded.seeds}}, notes, limit);
}

template <class T>
std::string formatCaseDot(const nlohmann::json& doc, const std::set<std::size_t>& highlighted, std::string meaning) {
  auto loaded = caseFromJson<T>(doc);
  if (!loaded) return {};
  return formatCaseDot(*loaded, highlighted, std::move(meaning));
}

template <class T>
std::string formatCaseDot(const Case<T>& loaded, const std::set<std::size_t>& highlighted, std::string meaning) {
  Result<Context<T>> context = fail("no input values");
  if (loaded.inputs && !gen::shapeDisagreement(loaded.graph)) context = spec::eval(loaded.graph, *loaded.inputs, loaded.data);
  std::vector<ListingColumn<T>> columns;
  if (context) columns.push_back({"value", *context});
  columns.push_back({"seed", loaded.seeds});
  return formatDot(loaded.graph, DotView<T>{std::move(columns), highlighted, std::move(meaning), loaded.output});
}

}  // namespace tc::props

// The library's copies of the harness's and the core's templates, declared extern.
#include "properties/runner/instantiate/harness_instances.h"
