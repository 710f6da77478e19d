#pragma once
// Shrinking case documents (the file format, docs/file-format.md): delete a node (rerouting its
// users to an earlier position of the same shape, its own argument first), turn a constant into
// an input, drop unused inputs and data, make count attributes smaller, shrink dimensions (shared
// sizes together, in tensors and reshape/broadcast targets, by halves first), simplify values
// toward 0 and 1, and seed packs toward one-hot.
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/io/case_file.h"
#include "core/support/mutants.h"

namespace tc::gen {

//! A case document and the case it loads as on carrier T, parsed once and shared.
template <class T>
struct LoadedDoc {
  nlohmann::json doc;
  std::shared_ptr<const Case<T>> loaded;
};

//! `doc` with the case it loads as on T, or nullopt when it does not load.
template <class T>
std::optional<LoadedDoc<T>> loadDoc(nlohmann::json doc);

//! `doc` (which loads as `graph`) with node k deleted, as the shrinker deletes a node: every later
//! position one lower, and the users of the deleted position (arguments, the output) rerouted to
//! an earlier position of its shape, its own argument of that shape first (a seed at the deleted
//! position goes there too, unless one is there). Nullopt when a user cannot be rerouted.
template <class T>
std::optional<nlohmann::json> withNodeDeleted(const nlohmann::json& doc, const Graph<T>& graph, std::size_t k);

//! For a document whose nodes the loader refuses at some node k (its nodes before k load): the
//! document cut down to node k and the positions it reads, directly or through earlier nodes —
//! those inputs (with their values) and nodes in order, renumbered, the data kept, the output at
//! position 0 and no seeds. The cut document is checked to be refused at its last node again and to
//! load without it. Nullopt when every node loads (the refusal, if any, is elsewhere), when the
//! inputs themselves do not load, or when the refused node's arguments are not positions.
//! What a generated case the loader refuses shrinks to: the shrinker proper needs cases that load.
template <class T>
std::optional<nlohmann::json> refusedNodeCone(const nlohmann::json& doc);

//! Smaller variants of a case, each of which loads on carrier T. A document without input
//! values has none.
template <class T>
std::vector<LoadedDoc<T>> shrinksOf(const LoadedDoc<T>& doc);
//! The same for a document not loaded yet (none when it does not load).
template <class T>
std::vector<LoadedDoc<T>> shrinksOf(const nlohmann::json& doc);
//! Calls `visit(LoadedDoc<T>)` on each of shrinksOf's variants in its order, making and loading
//! each only when every earlier one was declined (`visit` returned false); whether one was taken.
template <class T>
bool forEachShrink(const LoadedDoc<T>& doc, const std::function<bool(LoadedDoc<T>)>& visit);

//! Greedy shrinking outside RapidCheck: repeatedly takes the first shrink for which `stillFails`
//! holds, until none does. Returns the smallest case found and how many steps it took.
template <class T, class Predicate>
std::pair<LoadedDoc<T>, std::size_t> shrinkWhile(LoadedDoc<T> doc, Predicate&& stillFails) {
  std::size_t steps = 0;
  for (bool progressed = true; progressed;) {
    std::optional<LoadedDoc<T>> taken;
    progressed = forEachShrink<T>(doc, [&](LoadedDoc<T> candidate) {
      if (!stillFails(candidate) && !TC_MUTANT(shrinker_takes_passing_candidate)) return false;  // the planted fault: a passing candidate taken
      taken = std::move(candidate);
      return true;
    });
    if (progressed) doc = std::move(*taken), ++steps;
  }
  return {std::move(doc), steps};
}

}  // namespace tc::gen
