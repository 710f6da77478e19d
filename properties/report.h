#pragma once
// Readable reports of cases and verdicts, shared by `tapecheck run`, `replay`, `check`, `show`
// and by engine authors' own drivers.
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "properties/compare.h"

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

}  // namespace tc::props
