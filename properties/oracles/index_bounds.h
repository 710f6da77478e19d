#pragma once
// Oracle: the loader's bounds on index lists. An index list selects rows of the leading axis of
// the first argument of every node that reads it (gather0, by its attribute `key`), so an entry
// must be below each reader's row count. For every index list of the case, the property writes
// the case's graph and data again (a graph file: values play no part in bounds) with its first
// entry at 0, at rows − 1 and at rows of its first reader, and
// reads each back: a file whose entries are all in range must load, holding the entry; any other
// must be refused, naming the first reader (in creation order) the entry is out of range for, as
// the specification names a node ("node P (gather0): "). A case without index lists gets one:
// a gather0 of its first position with an axis, reading a new list, is appended and the same
// checks run on it (reading position 0 reshaped to [1] when every position is a scalar); a case
// without positions is skipped.
#include <algorithm>
#include <string>

#include "core/io/case_file.h"
#include "properties/compare.hpp"
#include "properties/oracles/domain_errors.h"

namespace tc::props {
namespace indices {

//! The positions of the nodes reading index list `key`, in creation order.
template <class T>
std::vector<std::size_t> readersOf(const Graph<T>& graph, const std::string& key) {
  std::vector<std::size_t> readers;
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    if (graph.nodeAt(p).attrs.key == key) readers.push_back(p);
  return readers;
}

//! The first reader whose first argument has at most `entry` rows, or nullopt.
template <class T>
std::optional<std::size_t> firstOutOfRange(const Graph<T>& graph, const std::vector<std::size_t>& readers,
                                           std::size_t entry) {
  for (std::size_t p : readers)
    if (entry >= graph.shapeAt(graph.nodeAt(p).args[0])[0]) return p;
  return std::nullopt;
}

//! The case's graph and data as a graph file: an entry's bounds depend on the shapes its readers
//! read, never on values, so the probes leave the input values and seeds out (reading a 512 x 512
//! matmul's values back four times took nearly all of the property's time).
template <class T>
nlohmann::json graphDocument(const Case<T>& c) {
  return caseToJson(Case<T>{c.graph, std::nullopt, c.data, c.output, {}, {}});
}

//! Empty when `doc` (holding `graph`) with `key`'s first entry set to `entry` loads or is refused
//! as the bounds say; else what went wrong.
template <class T>
std::string entryDisagreement(const Graph<T>& graph, nlohmann::json doc, const std::string& key,
                              const std::vector<std::size_t>& readers, std::size_t entry) {
  doc["data"][key]["indices"][0] = entry;
  auto loaded = parseCase<T>(doc.dump());
  const auto refusedAt = firstOutOfRange(graph, readers, entry);
  const std::string what = fmt::format("with entry 0 of index list '{}' set to {}", key, entry);
  if (!refusedAt) {
    if (!loaded) return fmt::format("{} (in range for every reader) the case does not load: {}", what, loaded.error().message);
    if (loaded->graph.schema.indices.at(key).front() != entry)
      return fmt::format("{} the loaded index list holds {}", what, loaded->graph.schema.indices.at(key).front());
    return {};
  }
  const std::string prefix = domains::expectedPrefix(*refusedAt, opName(graph.nodeAt(*refusedAt).op));
  if (loaded)
    return fmt::format("{} the case loads, but node {} reads it with {} rows", what, *refusedAt,
                       graph.shapeAt(graph.nodeAt(*refusedAt).args[0])[0]);
  if (!loaded.error().message.starts_with(prefix))
    return fmt::format("{} the loader's refusal '{}' does not start '{}'", what, loaded.error().message, prefix);
  return {};
}

//! A graph and the graph file that holds it.
template <class T>
struct GraphAndDocument {
  Graph<T> graph;
  nlohmann::json doc;
};

//! The case's graph with a gather0 node appended that reads a new index list {0} from its first
//! position with an axis (from position 0 reshaped to [1] when every position is a scalar), and
//! the list's key; nullopt for a case without positions.
template <class T>
std::optional<std::pair<GraphAndDocument<T>, std::string>> withIndexReader(const Case<T>& c) {
  if (c.graph.positionCount() == 0) return std::nullopt;
  nlohmann::json doc = graphDocument(c);
  std::size_t p = 0;
  while (p < c.graph.positionCount() && c.graph.shapeAt(p).empty()) ++p;
  if (p == c.graph.positionCount()) {
    doc["nodes"].push_back({{"op", opName(OpKind::reshape)}, {"args", {0}}, {"attrs", {{"shape", {1}}}}});
    p = c.graph.positionCount();
  }
  std::string key = "rows";
  while (c.graph.schema.indices.contains(key) || c.graph.schema.tensors.contains(key)) key += "_";
  doc["data"][key] = {{"indices", {0}}};
  doc["nodes"].push_back({{"op", opName(OpKind::gather0)}, {"args", {p}}, {"attrs", {{"key", key}}}});
  auto loaded = parseCase<T>(doc.dump());
  assert(loaded && "a case with a gather0 of row 0 of a position with an axis appended loads");
  return std::pair{GraphAndDocument<T>{std::move(loaded->graph), std::move(doc)}, key};
}

//! The first disagreement over every entry checked for index list `key` of `g`, read by
//! `readers` (not empty), or empty.
template <class T>
std::string listDisagreement(const GraphAndDocument<T>& g, const std::string& key,
                             const std::vector<std::size_t>& readers) {
  const std::size_t rows = g.graph.shapeAt(g.graph.nodeAt(readers.front()).args[0])[0];
  for (std::size_t entry : {std::size_t{0}, rows - 1, rows})
    if (std::string disagreement = entryDisagreement(g.graph, g.doc, key, readers, entry); !disagreement.empty())
      return disagreement;
  return {};
}

}  // namespace indices

template <class T>
Verdict index_bounds(const Case<T>& c) {
  // A case whose own entries are out of range loaded only through a broken loader; its values
  // cannot be evaluated (a gather would read past the end), so it is neither a counterexample
  // nor, while shrinking, a smaller one. Its variants are what show the loader broken.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> read;  // the lists some node reads, with their readers
  for (const auto& [key, entries] : c.graph.schema.indices) {
    auto readers = indices::readersOf(c.graph, key);
    if (readers.empty() || entries.empty()) continue;
    if (indices::firstOutOfRange(c.graph, readers, *std::max_element(entries.begin(), entries.end())))
      return Verdict::skip("an index list entry out of range (loaded by a broken loader)");
    read.emplace_back(key, std::move(readers));
  }
  if (!read.empty()) {
    const indices::GraphAndDocument<T> written{c.graph, indices::graphDocument(c)};
    for (const auto& [key, readers] : read)
      if (std::string disagreement = indices::listDisagreement(written, key, readers); !disagreement.empty())
        return Verdict::fail(disagreement, {readers.front()});
    return Verdict::pass();
  }
  auto extended = indices::withIndexReader(c);
  if (!extended) return Verdict::skip("no positions");
  const auto& [appended, key] = *extended;
  if (std::string disagreement = indices::listDisagreement(appended, key, indices::readersOf(appended.graph, key));
      !disagreement.empty())
    return Verdict::fail("with a gather0 appended: " + disagreement);
  return Verdict::pass();
}

}  // namespace tc::props
