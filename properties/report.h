#pragma once
// Readable reports of cases and verdicts, shared by `tapecheck run`, `replay`, `check`, `show`
// and by engine authors' own drivers.
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "properties/compare.h"
#include "properties/runner.h"

namespace tc::props {

//! A case document as a listing: per position the call, shape, value (when eval succeeds) and
//! seed, then both sides of the verdict's comparison wherever they differ. A document that does
//! not load on T gives the loader's message.
template <class T>
std::string formatCaseListing(const nlohmann::json& doc, const Verdict& verdict = {});

//! The case's graph in Graphviz DOT: one box per position (position, op, shape), an edge per
//! argument; the verdict's differing positions filled red, the output outlined.
template <class T>
std::string formatCaseDot(const nlohmann::json& doc, const Verdict& verdict = {});

//! The positions where a verdict's comparison differs.
std::set<std::size_t> differingPositions(const Verdict& verdict);

//! The heading of a survey table (the columns of formatSurveyLines).
std::string surveyHeading();

//! One line per kind of failure a survey of `property` on `carrier` found: op, class of
//! difference, cases, and the saved example (`saved[k]` for kind k; "(not saved)" without one).
std::string formatSurveyLines(std::string_view property, std::string_view carrier, const PropertyRun& run,
                              const std::vector<std::string>& saved = {});

}  // namespace tc::props
