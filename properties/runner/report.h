#pragma once
// Readable reports of cases and verdicts, shared by `tapecheck run`, `replay`, `check`, `show`
// and by engine authors' own drivers.
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "properties/compare.h"
#include "properties/runner/runner.h"

namespace tc::props {

//! A case document as a listing: per position the call, what an opaque program does, shape,
//! value (when eval succeeds) and seed, then both sides of the verdict's comparison wherever they
//! differ, the quantities an oracle compared (its notes) and a mark on every position it blames.
//! A document that does not load on T gives the loader's message. `limit` as formatListing's.
template <class T>
std::string formatCaseListing(const nlohmann::json& doc, const Verdict& verdict = {}, std::size_t limit = 0);

//! The same listing of a case already loaded (a file's, read once).
template <class T>
std::string formatCaseListing(const Case<T>& loaded, const Verdict& verdict = {}, std::size_t limit = 0);

//! The case's graph in Graphviz DOT (formatDot): values and seeds in the boxes, `highlighted`
//! filled red, and a legend saying red means `meaning`. Empty when the document does not load.
template <class T>
std::string formatCaseDot(const nlohmann::json& doc, const std::set<std::size_t>& highlighted = {},
                          std::string meaning = {});

//! The same picture of a case already loaded.
template <class T>
std::string formatCaseDot(const Case<T>& loaded, const std::set<std::size_t>& highlighted = {}, std::string meaning = {});

//! What red means in the picture of a failed verdict: "blamed by the failure: why" (shortened).
std::string blameMeaning(const Verdict& verdict);

//! The heading of a survey table (the columns of formatSurveyLines).
std::string surveyHeading();

//! One line per kind of failure a survey of `property` on `carrier` found: op, class of
//! difference, cases, and the saved example (`saved[k]` for kind k; "(not saved)" without one).
std::string formatSurveyLines(std::string_view property, std::string_view carrier, const PropertyRun& run,
                              const std::vector<std::string>& saved = {});

}  // namespace tc::props
