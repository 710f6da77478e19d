#pragma once
#include <fmt/format.h>

#include "core/io/case_file.h"
#include "core/io/listing.h"
#include "core/spec/reference.h"
#include "properties/report.h"

namespace tc::props {

template <class T>
std::string formatCaseListing(const nlohmann::json& doc, const Verdict& verdict) {
  auto loaded = parseCase<T>(doc.dump());
  if (!loaded) return "the case does not load: " + loaded.error().message + "\n";
  ListingNotes notes;
  std::size_t width = std::max(verdict.leftName.size(), verdict.rightName.size());
  for (const auto& d : verdict.differences)
    notes[d.position] = {fmt::format("{:<{}}  {}   <- differs", verdict.leftName, width, d.left),
                         fmt::format("{:<{}}  {}", verdict.rightName, width, d.right)};
  if (!loaded->inputs)
    return formatListing<T>(loaded->graph, {{"seed", loaded->seeds}}, notes) + "(no input values)\n";
  auto context = spec::eval(loaded->graph, *loaded->inputs, loaded->data);
  if (!context)
    return formatListing<T>(loaded->graph, {{"seed", loaded->seeds}}, notes) +
           fmt::format("(eval fails: {})\n", context.error().message);
  return formatListing<T>(loaded->graph, {{"value", *context}, {"seed", loaded->seeds}}, notes);
}

template <class T>
std::string formatCaseDot(const nlohmann::json& doc, const Verdict& verdict) {
  auto loaded = parseCase<T>(doc.dump());
  if (!loaded) return {};
  return formatDot(loaded->graph, differingPositions(verdict), loaded->output);
}

}  // namespace tc::props
