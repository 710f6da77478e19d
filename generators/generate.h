#pragma once
// Random well-typed cases. A case is a document in the file format (docs/semantics.md §4), so
// what is generated, shrunk, saved and replayed is one representation.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/ops/op_kind.h"

namespace tc::gen {

//! What generated cases may contain. `ops`, when given, restricts the ops drawn to those listed
//! (OpKind::opaque: the registered opaque programs): an engine's profile passes the ops it supports.
struct CaseOptions {
  std::optional<std::vector<OpKind>> ops;
};

//! A random case document that loads on carrier T: a well-typed graph, input values, data, an
//! output and seeds, using only the ops `options` allow. `size` (0..100) scales the number of
//! nodes. Deterministic in `seed`.
template <class T>
nlohmann::json randomCase(std::uint64_t seed, int size, const CaseOptions& options = {});

//! The same graph, data and output with fresh input values and seeds, drawn as for a generated
//! case. A document that does not load on T comes back unchanged.
template <class T>
nlohmann::json withRandomValues(const nlohmann::json& doc, std::uint64_t seed);

}  // namespace tc::gen
