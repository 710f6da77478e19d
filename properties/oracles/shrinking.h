#pragma once
// Oracle for the shrinker (docs/semantics.md §3.7). A counterexample is worth what the shrinking
// that made it is worth, yet on a correct engine no case fails and the shrinker never runs: a
// shrinker that takes a passing candidate, or drops a position without renumbering the positions
// above it (a candidate that then no longer loads is silently never offered), or a runner that
// saves another document than the one it shrank to, would go unnoticed until it hands a user a
// case that replays green or stays large. So on every case this property runs the shrinker itself:
//  - candidates: every candidate the shrinker offers for the case (gen::forEachShrink, all of its
//    kinds) follows one of the shrinker's documented kinds' rules: a node deleted, a constant
//    turned into an input, an unused input dropped (every other node keeps its op and attributes;
//    its arguments, the output and the seeds name the same positions renumbered; the inputs, their
//    values and the data are kept), or, with the same positions and ops reading the same
//    positions, values made simpler (0, then 1, then -1, then anything else: none more complex,
//    one simpler), seeds or data entries no node reads removed, one count attribute made smaller,
//    or dimensions made smaller (same ranks, none larger, one smaller). And what the rules say is
//    offered is: each unused input dropped and each constant turned into an input (when that
//    case loads), each seed entry (of several) and each unused data entry removed, every value
//    that is not 0 made simpler by some candidate;
//  - deletion: for each of the highest kDeletionsChecked nodes, the case with that node deleted as
//    the shrinker deletes it loads; every other node keeps its op, and its arguments and the output
//    name the same positions, one lower above the deleted one; the deleted node's users name an
//    earlier position of its shape; a deletion is declined only when a user has no such position;
//  - planted failure: "the case holds a node of the op of its highest node", accepted for at most
//    kPlantedSteps new cases, is turned into a counterexample by the routine a run saves one with
//    (shrunkFailure, properties/counterexample.hpp): no shrinker fault, as many steps as candidates
//    accepted, the shrunk document the last candidate accepted (another case than the original,
//    with no more positions, when it took steps), and read back as a saved file is, it still holds
//    such a node.
// The expectations are stated here from the shrinker's documented rules, not computed by its code.
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "generators/shrink.hpp"
#include "properties/compare.hpp"
#include "properties/counterexample.hpp"

namespace tc::props {
namespace shrinking {

//! How many new cases the planted failure accepts: enough to take steps, few enough that a large
//! case costs one pass over its candidates afterwards.
inline constexpr std::size_t kPlantedSteps = 4;
//! How many nodes (the highest) are deleted one at a time and checked.
inline constexpr std::size_t kDeletionsChecked = 8;
//! The largest case checked, in nodes and in elements of all positions: each candidate copies and
//! reads the whole document, and the candidates' check and the planted failure each make a pass over
//! every candidate, so the check grows with the square of the case; generated cases stay far below.
inline constexpr std::size_t kMaxNodes = 64, kMaxElements = 4096;

//! Whether `graph` is one the check runs on: a node to delete, and no larger than the bounds.
template <class T>
bool withinBounds(const Graph<T>& graph) {
  std::size_t elements = 0;
  for (std::size_t p = 0; p < graph.positionCount(); ++p) elements += elementCount(graph.shapeAt(p));
  return !graph.nodes.empty() && graph.nodes.size() <= kMaxNodes && elements <= kMaxElements;
}

template <class T>
std::string positionLabel(const Graph<T>& graph, std::size_t p) {
  return graph.isInput(p) ? fmt::format("position {} (input)", p)
                          : fmt::format("node {} ({})", p, ops::nodeLabel(graph.nodeAt(p).op, graph.nodeAt(p).attrs));
}

//! Whether an argument or output naming `before` in the original may name `after` once position
//! q is deleted: the same position below q, one lower above it, an earlier position of q's shape
//! in place of q.
template <class T>
bool renumbered(const Graph<T>& original, std::size_t q, std::size_t before, std::size_t after) {
  if (before < q) return after == before;
  if (before > q) return after == before - 1;
  return after < q && original.shapeAt(after) == original.shapeAt(q);
}

//! Why deleting node k of `c` (its document `doc`) is wrong; empty when it is right.
template <class T>
std::string deletionProblem(const nlohmann::json& doc, const Case<T>& c, std::size_t k) {
  const Graph<T>& graph = c.graph;
  const std::size_t q = graph.inputs.size() + k;
  const std::string deleting = "deleting " + positionLabel(graph, q);
  auto deleted = gen::withNodeDeleted<T>(doc, graph, k);
  if (!deleted) {
    bool used = c.output == q || std::ranges::any_of(graph.nodes, [&](const Node<T>& n) {
      return std::ranges::find(n.args, q) != n.args.end();
    });
    bool reroutable = false;
    for (std::size_t p = 0; p < q; ++p) reroutable = reroutable || graph.shapeAt(p) == graph.shapeAt(q);
    if (!used || reroutable) return deleting + ": the shrinker declines it, though every user can be rerouted";
    return {};
  }
  auto loaded = caseFromJson<T>(*deleted);
  if (!loaded) return fmt::format("{}: the case does not load: {}", deleting, loaded.error().message);
  const Graph<T>& after = loaded->graph;
  if (after.inputs.size() != graph.inputs.size() || after.nodes.size() + 1 != graph.nodes.size())
    return fmt::format("{}: {} inputs and {} nodes, from {} and {}", deleting, after.inputs.size(), after.nodes.size(),
                       graph.inputs.size(), graph.nodes.size());
  for (std::size_t j = 0; j < graph.nodes.size(); ++j) {
    if (j == k) continue;
    const Node<T>& was = graph.nodes[j];
    const Node<T>& is = after.nodes[j < k ? j : j - 1];
    const std::size_t at = graph.inputs.size() + j;
    if (is.op != was.op || is.args.size() != was.args.size())
      return fmt::format("{}: {} became a {} node", deleting, positionLabel(graph, at), ops::nodeLabel(is.op, is.attrs));
    for (std::size_t i = 0; i < was.args.size(); ++i)
      if (!renumbered(graph, q, was.args[i], is.args[i]))
        return fmt::format("{}: argument {} of {} names position {}, which was position {}", deleting, i,
                           positionLabel(graph, at), is.args[i], was.args[i]);
  }
  // A document without "output" means the last position, whatever it is.
  const bool outputGiven = doc.contains("output");
  if (outputGiven ? !renumbered(graph, q, c.output, loaded->output) : loaded->output + 1 != after.positionCount())
    return fmt::format("{}: the output is position {}, which was position {}", deleting, loaded->output, c.output);
  return {};
}

using nlohmann::json;

//! How simple a value of a document is, as the shrinker orders values: 0, then 1, then -1, then
//! anything else.
inline int simplicity(const json& value) {
  if (value == "0") return 0;
  if (value == "1") return 1;
  if (value == "-1") return 2;
  return 3;
}

inline json member(const json& object, const char* key, json otherwise) {
  return object.is_object() && object.contains(key) ? object[key] : otherwise;
}

//! Why `after` is not `before` with node `dropped` gone (none: npos) and every argument, the
//! output and every seed naming position `was` in `before` naming a position `is` with
//! `allowed(was, is)`; every other node keeps its op and attributes. Empty when it is.
template <class Allowed>
std::string renumberingProblem(const json& before, const json& after, std::size_t dropped, Allowed allowed) {
  const json& was = before["nodes"];
  const json& is = after["nodes"];
  for (std::size_t j = 0; j < was.size(); ++j) {
    if (j == dropped) continue;
    const json& a = was[j];
    const json& b = is[j < dropped ? j : j - 1];
    if (a["op"] != b["op"] || member(a, "attrs", json::object()) != member(b, "attrs", json::object()))
      return fmt::format("node {} ({}) is a {} node with attributes {}", j, a["op"].dump(), b["op"].dump(),
                         member(b, "attrs", json::object()).dump());
    const json argsA = member(a, "args", json::array()), argsB = member(b, "args", json::array());
    if (argsA.size() != argsB.size()) return fmt::format("node {} has {} arguments, from {}", j, argsB.size(), argsA.size());
    for (std::size_t i = 0; i < argsA.size(); ++i)
      if (!allowed(argsA[i].get<std::size_t>(), argsB[i].get<std::size_t>()))
        return fmt::format("argument {} of node {} ({}) names position {}, which was position {}", i, j, a["op"].dump(),
                           argsB[i].get<std::size_t>(), argsA[i].get<std::size_t>());
  }
  if (before.contains("output") != after.contains("output") ||
      (before.contains("output") && !allowed(before["output"].get<std::size_t>(), after["output"].get<std::size_t>())))
    return fmt::format("the output is {}, which was {}", member(after, "output", "the last position").dump(),
                       member(before, "output", "the last position").dump());
  const json seedsA = member(before, "seeds", json::object()), seedsB = member(after, "seeds", json::object());
  for (const auto& [key, values] : seedsB.items()) {
    bool moved = false;
    for (const auto& [keyA, valuesA] : seedsA.items())
      moved = moved || (valuesA == values && allowed(std::stoul(keyA), std::stoul(key)));
    if (!moved) return fmt::format("the seed at position {} is no seed of the parent's, renumbered", key);
  }
  if (member(before, "seed", nullptr) != member(after, "seed", nullptr)) return "the seed changed";
  return {};
}

//! `doc` without the keys a change of the kind being checked may touch.
inline json without(json doc, std::initializer_list<const char*> keys) {
  for (const char* key : keys) doc.erase(key);
  return doc;
}

//! The places of `doc` (which loads as `graph`) that hold values: input values, data values,
//! constants' values, the attributes with a neutral value (scale's c), seeds. Returns `doc` with
//! each replaced by null, and appends each one's simplicity to `out` and the simplest it may be
//! made (0; an attribute's neutral value) to `floors`, in document order.
template <class T>
json skeleton(json doc, const Graph<T>& graph, std::vector<int>& out, std::vector<int>& floors) {
  auto blank = [&](json& values, int floor = 0) {
    if (!values.is_array()) {
      out.push_back(simplicity(values)), floors.push_back(floor);
      values = nullptr;
      return;
    }
    for (json& v : values) out.push_back(simplicity(v)), floors.push_back(floor), v = nullptr;
  };
  if (doc.contains("values"))
    for (json& values : doc["values"]) blank(values);
  if (doc.contains("data"))
    for (auto& [key, entry] : doc["data"].items())
      if (entry.contains("values")) blank(entry["values"]);
  for (std::size_t k = 0; k < doc["nodes"].size() && k < graph.nodes.size(); ++k) {
    json& node = doc["nodes"][k];
    if (!node.contains("attrs")) continue;
    for (const AttrSpec<T>& spec : ops::attributes<T>(graph.nodes[k].op)) {
      const std::string name(spec.name);
      if (!node["attrs"].contains(name)) continue;
      if (std::holds_alternative<std::vector<T> Attrs<T>::*>(spec.field)) blank(node["attrs"][name]);
      else if (!spec.neutral.empty()) blank(node["attrs"][name], simplicity(json(std::string(spec.neutral))));
    }
  }
  if (doc.contains("seed")) blank(doc["seed"]);
  if (doc.contains("seeds"))
    for (auto& [key, values] : doc["seeds"].items()) blank(values);
  return doc;
}

//! Where position p goes when unused input i is dropped: none for i itself.
inline std::optional<std::size_t> afterInputDropped(std::size_t i, std::size_t p) {
  if (p == i) return std::nullopt;
  return p > i ? p - 1 : p;
}

//! Where position p goes when the constant at position q becomes an input after the `inputs` others.
inline std::optional<std::size_t> afterConstToInput(std::size_t inputs, std::size_t q, std::size_t p) {
  return p < inputs ? p : p < q ? p + 1 : p == q ? inputs : p;
}

//! The rule of a move for renumberingProblem: position p may be named n only where `move` takes it.
template <class Move>
auto movedBy(Move move) {
  return [move](std::size_t p, std::size_t n) {
    std::optional<std::size_t> to = move(p);
    return to && *to == n;
  };
}

//! `doc` with every argument, the output and every seed's position moved by `move`; a seed at a
//! position `move` drops is dropped (no argument or output names one).
template <class Move>
json withPositionsMoved(json doc, Move move) {
  for (json& node : doc["nodes"])
    if (node.contains("args"))
      for (json& a : node["args"]) a = *move(a.get<std::size_t>());
  if (doc.contains("output")) doc["output"] = *move(doc["output"].get<std::size_t>());
  if (doc.contains("seeds")) {
    json seeds = json::object();
    for (const auto& [key, values] : doc["seeds"].items())
      if (std::optional<std::size_t> to = move(std::stoul(key))) seeds[std::to_string(*to)] = values;
    doc["seeds"] = std::move(seeds);
  }
  return doc;
}

//! `doc` without the shapes its nodes state.
inline json nodeShapesDropped(json doc) {
  for (json& node : doc["nodes"]) node.erase("shape");
  return doc;
}

//! The case whose candidates are checked, and the views of its document each candidate is
//! compared with (computed once, not per candidate).
template <class T>
struct Parent {
  const json& doc;
  const Case<T>& c;
  std::vector<int> simple, floors;  //!< its values' simplicities and the simplest each may be made
  json skel;                        //!< its document with every value blanked (skeleton)
  json data, withoutSeeds, withoutData, bare;

  Parent(const json& d, const Case<T>& loaded)
      : doc(d), c(loaded), skel(skeleton(d, loaded.graph, simple, floors)), data(member(d, "data", nullptr)),
        withoutSeeds(without(d, {"seed", "seeds"})), withoutData(without(d, {"data"})),
        bare(nodeShapesDropped(withoutSeeds)) {}
};

//! What the shrinker's candidates were seen to do, for the rules that say a candidate is offered.
struct Offered {
  std::vector<bool> dropped, constToInput, lowered;
  std::set<std::string> seedsRemoved, dataRemoved;
};

//! Why `cand` (loaded as `candCase`), offered as a shrink of the parent, follows none of the
//! shrinker's rules; records in `seen` what it was. Empty when it follows one.
template <class T>
std::string candidateProblem(const Parent<T>& parent, const json& cand, const Case<T>& candCase, Offered& seen) {
  const json& doc = parent.doc;
  const json& data = parent.data;
  const Graph<T>& graph = parent.c.graph;
  const Graph<T>& after = candCase.graph;
  const std::size_t nI = graph.inputs.size(), nN = graph.nodes.size(), mI = after.inputs.size(), mN = after.nodes.size();
  const json candData = member(cand, "data", nullptr);
  const std::size_t none = static_cast<std::size_t>(-1);
  if (mI == nI && mN + 1 == nN) {  // a node deleted
    std::string first;
    if (cand["inputs"] != doc["inputs"] || cand["values"] != doc["values"] || candData != data)
      return "a candidate with a node deleted changed the inputs, their values or the data";
    for (std::size_t k = nN; k-- > 0;) {
      const std::size_t q = nI + k;
      std::string problem = renumberingProblem(doc, cand, k, [&](std::size_t p, std::size_t n) { return renumbered(graph, q, p, n); });
      if (problem.empty()) return {};
      if (first.empty()) first = "deleting " + positionLabel(graph, q) + ": " + problem;
    }
    return "a candidate with one node fewer is no node's deletion: " + first;
  }
  if (mI + 1 == nI && mN == nN) {  // an input dropped
    std::string first;
    bool matched = false;
    for (std::size_t i = 0; i < nI; ++i) {
      json inputs = doc["inputs"], values = doc["values"];
      inputs.erase(i), values.erase(i);
      if (cand["inputs"] != inputs || cand["values"] != values || candData != data) continue;
      std::string problem =
          renumberingProblem(doc, cand, none, movedBy([i](std::size_t p) { return afterInputDropped(i, p); }));
      if (problem.empty()) seen.dropped[i] = matched = true;
      else if (first.empty()) first = fmt::format("dropping input {}: {}", i, problem);
    }
    if (matched) return {};
    return "a candidate with one input fewer is no unused input's drop: " +
           (first.empty() ? std::string("the other inputs, their values or the data changed") : first);
  }
  if (mI == nI + 1 && mN + 1 == nN) {  // a constant turned into an input
    std::string first;
    for (std::size_t k = 0; k < nN; ++k) {
      const json& node = doc["nodes"][k];
      if (!member(node, "args", json::array()).empty() || !node.contains("attrs")) continue;
      json inputs = doc["inputs"], values = doc["values"];
      inputs.push_back(json{{"shape", member(node["attrs"], "shape", nullptr)}});
      values.push_back(member(node["attrs"], "values", nullptr));
      if (cand["inputs"] != inputs || cand["values"] != values || candData != data) continue;
      const std::size_t q = nI + k;
      std::string problem =
          renumberingProblem(doc, cand, k, movedBy([nI, q](std::size_t p) { return afterConstToInput(nI, q, p); }));
      if (problem.empty()) {
        seen.constToInput[k] = true;
        return {};
      }
      if (first.empty()) first = fmt::format("turning {} into an input: {}", positionLabel(graph, q), problem);
    }
    return "a candidate with one input more and one node fewer is no constant turned into an input: " +
           (first.empty() ? std::string("no constant's shape and values are the new input's") : first);
  }
  if (mI != nI || mN != nN)
    return fmt::format("a candidate with {} inputs and {} nodes, from {} and {}: no kind of shrink makes it", mI, mN, nI, nN);
  // The same positions: the same ops reading the same positions.
  for (std::size_t j = 0; j < nN; ++j)
    if (doc["nodes"][j]["op"] != cand["nodes"][j]["op"] ||
        member(doc["nodes"][j], "args", json::array()) != member(cand["nodes"][j], "args", json::array()))
      return fmt::format("a candidate with the same positions changed node {} ({})", j, positionLabel(graph, nI + j));
  // Values made simpler: everything but the values the same, none more complex, one simpler.
  std::vector<int> candSimple, candFloors;
  const std::vector<int>& simple = parent.simple;
  const json candSkel = skeleton(cand, after, candSimple, candFloors);
  if (candSkel == parent.skel && candSimple.size() == simple.size()) {
    bool simpler = false, moreComplex = false;
    for (std::size_t v = 0; v < simple.size(); ++v) {
      simpler = simpler || candSimple[v] < simple[v];
      moreComplex = moreComplex || candSimple[v] > simple[v];
    }
    if (moreComplex) return "a candidate with simpler values made a value more complex";
    if (!simpler) return "a candidate with the same values, shapes and positions is no smaller";
    for (std::size_t v = 0; v < simple.size(); ++v)
      if (candSimple[v] < simple[v]) seen.lowered[v] = true;
    return {};
  }
  // Seeds removed: everything else the same, the seeds left the parent's.
  const json candWithoutSeeds = without(cand, {"seed", "seeds"});
  if (candWithoutSeeds == parent.withoutSeeds) {
    const json seedsA = member(doc, "seeds", json::object()), seedsB = member(cand, "seeds", json::object());
    bool subset = seedsB.size() < seedsA.size() || (doc.contains("seed") && !cand.contains("seed"));
    for (const auto& [key, values] : seedsB.items()) subset = subset && seedsA.contains(key) && seedsA[key] == values;
    if (doc.contains("seed") && cand.contains("seed") && doc["seed"] != cand["seed"]) subset = false;
    if (!subset) return "a candidate that changes only the seeds neither removes one nor makes one simpler";
    for (const auto& [key, values] : seedsA.items())
      if (!seedsB.contains(key)) seen.seedsRemoved.insert(key);
    if (doc.contains("seed") && !cand.contains("seed")) seen.seedsRemoved.insert("seed");
    return {};
  }
  // Data entries removed: everything else the same, the removed entries read by no node.
  if (without(cand, {"data"}) == parent.withoutData) {
    const json entriesA = member(doc, "data", json::object()), entriesB = member(cand, "data", json::object());
    if (entriesB.size() >= entriesA.size()) return "a candidate that changes only the data removes no entry";
    for (const auto& [key, entry] : entriesB.items())
      if (!entriesA.contains(key) || entriesA[key] != entry) return "a candidate removing data entries changed entry " + key;
    for (const auto& [key, entry] : entriesA.items()) {
      if (entriesB.contains(key)) continue;
      for (const json& node : doc["nodes"])
        if (member(member(node, "attrs", json::object()), "key", nullptr) == key)
          return "a candidate removed data entry " + key + ", which a node reads";
      seen.dataRemoved.insert(key);
    }
    return {};
  }
  // One count attribute made smaller: inputs, values and data the same, one attribute of one node
  // differs, a count, now smaller; the seeds left the parent's. Otherwise, dimensions (below).
  const json& bare = parent.bare;
  const json candBare = nodeShapesDropped(candWithoutSeeds);
  std::size_t attributesChanged = 0;
  bool countSmaller = true;
  if (bare["inputs"] == candBare["inputs"] && bare["values"] == candBare["values"] && candData == data) {
    for (std::size_t j = 0; j < nN; ++j) {
      const json a = member(bare["nodes"][j], "attrs", json::object()), b = member(candBare["nodes"][j], "attrs", json::object());
      for (auto it = a.begin(); it != a.end(); ++it) {
        const std::string name = it.key();
        const json& was = it.value();
        if (b.contains(name) && b[name] == was) continue;
        ++attributesChanged;
        countSmaller = countSmaller && b.contains(name) && was.is_number_unsigned() && b[name].is_number_unsigned() &&
                       b[name].get<std::size_t>() < was.get<std::size_t>();
      }
      for (auto it = b.begin(); it != b.end(); ++it)
        if (!a.contains(it.key())) ++attributesChanged, countSmaller = false;
    }
    if (attributesChanged == 1 && countSmaller) {
      const json seedsA = member(doc, "seeds", json::object()), seedsB = member(cand, "seeds", json::object());
      for (const auto& [key, values] : seedsB.items())
        if (!seedsA.contains(key) || seedsA[key] != values) return "a candidate with a count made smaller changed the seed at position " + key;
      if (cand.contains("seed") && member(doc, "seed", nullptr) != cand["seed"]) return "a candidate with a count made smaller changed the seed";
      return {};
    }
  }
  // Dimensions made smaller: every position of the same rank, no dimension larger, one smaller;
  // the attributes other than shapes and values the same.
  bool smaller = false;
  for (std::size_t p = 0; p < graph.positionCount(); ++p) {
    const Shape &was = graph.shapeAt(p), &is = after.shapeAt(p);
    if (was.size() != is.size())
      return fmt::format("a candidate with the same positions changed the rank of {}", positionLabel(graph, p));
    for (std::size_t axis = 0; axis < was.size(); ++axis) {
      if (is[axis] > was[axis])
        return fmt::format("a candidate made dimension {} of {} larger: {} from {}", axis, positionLabel(graph, p), is[axis], was[axis]);
      smaller = smaller || is[axis] < was[axis];
    }
  }
  if (!smaller)
    return "a candidate with the same positions and shapes is smaller by none of the shrinker's measures (one count "
           "attribute, simpler values, fewer seeds, fewer data entries)";
  for (std::size_t j = 0; j < nN; ++j)
    if (without(member(bare["nodes"][j], "attrs", json::object()), {"shape", "values"}) !=
        without(member(candBare["nodes"][j], "attrs", json::object()), {"shape", "values"}))
      return fmt::format("a candidate with smaller dimensions changed the attributes of {}", positionLabel(graph, nI + j));
  return {};
}

//! Why the shrinker's candidates for `c` (its document `doc`) break its rules, or leave out one the
//! rules say it offers; empty when none does.
template <class T>
std::string candidatesProblem(const json& doc, const Case<T>& c) {
  const Graph<T>& graph = c.graph;
  const std::size_t nI = graph.inputs.size(), nN = graph.nodes.size();
  const Parent<T> parent(doc, c);
  const std::vector<int>&simple = parent.simple, &floors = parent.floors;
  Offered seen{std::vector<bool>(nI, false), std::vector<bool>(nN, false), std::vector<bool>(simple.size(), false), {}, {}};
  std::string problem;
  gen::LoadedDoc<T> start{doc, std::make_shared<const Case<T>>(c)};
  gen::forEachShrink<T>(start, [&](gen::LoadedDoc<T> candidate) {
    problem = candidateProblem(parent, candidate.doc, *candidate.loaded, seen);
    return !problem.empty();
  });
  if (!problem.empty()) return "the shrinker offers " + problem;
  // An unused input dropped, when that loads.
  for (std::size_t i = 0; i < nI; ++i) {
    if (seen.dropped[i] || (nI == 1 && nN == 0) || c.output == i) continue;
    bool used = std::ranges::any_of(graph.nodes, [&](const Node<T>& n) { return std::ranges::find(n.args, i) != n.args.end(); });
    if (used) continue;
    json expected = withPositionsMoved(doc, [i](std::size_t p) { return afterInputDropped(i, p); });
    expected["inputs"].erase(i);
    expected["values"].erase(i);
    if (caseFromJson<T>(expected))
      return fmt::format("the shrinker does not offer the case without {}, which no node reads (it loads)", positionLabel(graph, i));
  }
  // A constant turned into an input, when that loads.
  for (std::size_t k = 0; k < nN; ++k) {
    const json& node = doc["nodes"][k];
    if (seen.constToInput[k] || !member(node, "args", json::array()).empty() || !member(node, "attrs", json::object()).contains("values"))
      continue;
    const std::size_t q = nI + k;
    json expected = withPositionsMoved(doc, [nI, q](std::size_t p) { return afterConstToInput(nI, q, p); });
    expected["nodes"].erase(k);  // a constant: it named no position
    expected["inputs"].push_back(json{{"shape", node["attrs"]["shape"]}});
    expected["values"].push_back(node["attrs"]["values"]);
    if (caseFromJson<T>(expected))
      return fmt::format("the shrinker does not turn {} into an input (that case loads)", positionLabel(graph, q));
  }
  // Each seed entry removed (of several), each data entry no node reads removed.
  const json seeds = member(doc, "seeds", json::object());
  if (seeds.size() > 1)
    for (const auto& [key, values] : seeds.items())
      if (!seen.seedsRemoved.contains(key)) return "the shrinker does not offer the case without the seed at position " + key;
  if (doc.contains("seed") && !seen.seedsRemoved.contains("seed")) return "the shrinker does not offer the case without its seed";
  const json entries = member(doc, "data", json::object());
  for (const auto& [key, entry] : entries.items()) {
    bool read = false;
    for (const json& node : doc["nodes"]) read = read || member(member(node, "attrs", json::object()), "key", nullptr) == key;
    if (!read && !seen.dataRemoved.contains(key)) return "the shrinker does not offer the case without data entry " + key + ", which no node reads";
  }
  // Every value that is not 0 (an attribute: not its neutral value) made simpler by some candidate
  // (each tensor's all-zero candidate; the attribute set to its neutral value).
  for (std::size_t v = 0; v < simple.size(); ++v)
    if (simple[v] > floors[v] && !seen.lowered[v])
      return fmt::format("the shrinker makes value {} of the case's (in document order) simpler in no candidate", v);
  return {};
}

//! Why turning a planted failure of `c` (its document `doc`) into a counterexample, as a run does
//! (shrunkFailure), is wrong; empty when it is right.
template <class T>
std::string plantedProblem(const json& doc, const Case<T>& c) {
  const OpKind planted = c.graph.nodes.back().op;
  auto holdsPlanted = [&](const Case<T>& x) {
    return std::ranges::any_of(x.graph.nodes, [&](const Node<T>& n) { return n.op == planted; });
  };
  const std::string what = fmt::format("shrinking while the case holds a {} node", opName(planted));
  // The planted failure holds of a case holding such a node that is the original or one already
  // failed (as a document written from it: a check is a function of the case), or a new one while
  // fewer than kPlantedSteps new ones failed. The fail verdicts are recorded in order: each
  // candidate the shrinker accepts, then the document it saves read back.
  std::vector<json> distinct{caseToJson(c)}, failed;
  auto check = [&](const Case<T>& x) -> Verdict {
    if (!holdsPlanted(x)) return Verdict::pass();
    json written = caseToJson(x);
    if (std::ranges::find(distinct, written) == distinct.end()) {
      if (distinct.size() > kPlantedSteps) return Verdict::pass();
      distinct.push_back(written);
    }
    failed.push_back(std::move(written));
    return Verdict::fail("the planted failure");
  };
  Counterexample saved = shrunkFailure<T>(check, gen::CaseOptions{}, doc, c, [](const Case<T>&, const Verdict&) { return true; },
                                          Verdict::fail("the planted failure"));
  if (!saved.shrinkerFault.empty()) return fmt::format("{}: the counterexample says: {}", what, saved.shrinkerFault);
  if (saved.verdict.holds) return what + ": the counterexample's verdict passes";
  if (saved.original != doc) return what + ": the counterexample's original is another document";
  const std::size_t accepted = failed.empty() ? 0 : failed.size() - 1;  // the last: the saved document read back
  if (saved.shrinkSteps != accepted)
    return fmt::format("{}: {} steps counted, {} candidates accepted", what, saved.shrinkSteps, accepted);
  auto reread = parseCase<T>(saved.shrunk.dump());
  if (!reread) return fmt::format("{}: the shrunk case's document does not load: {}", what, reread.error().message);
  const json lastAccepted = accepted > 0 ? failed[accepted - 1] : distinct.front();
  if (caseToJson(*reread) != lastAccepted)
    return fmt::format("{}: the shrunk document ({} nodes) is not the last candidate accepted ({} steps)", what,
                       reread->graph.nodes.size(), accepted);
  if (accepted > 0 && (saved.shrunk == doc || reread->graph.positionCount() > c.graph.positionCount()))
    return fmt::format("{}: after {} steps the shrunk case is no smaller than the original", what, accepted);
  if (!holdsPlanted(*reread))
    return fmt::format("{}: the shrunk case, read back, holds none ({} nodes): a candidate that passed was taken", what,
                       reread->graph.nodes.size());
  return {};
}

}  // namespace shrinking

//! The shrinker's own check on case `c` (docs/semantics.md §3.7); skipped on a case without nodes or
//! beyond shrinking::withinBounds.
template <class T>
Verdict shrinker(const Case<T>& c) {
  if (c.graph.nodes.empty()) return Verdict::skip("no node to delete or to plant a failure on");
  if (!shrinking::withinBounds(c.graph))
    return Verdict::skip(fmt::format("more than {} nodes or {} elements: the shrinker's check copies the case per candidate",
                                     shrinking::kMaxNodes, shrinking::kMaxElements));
  if (!c.inputs) return Verdict::skip("no input values to shrink");
  const nlohmann::json doc = caseToJson(c);
  const std::size_t n = c.graph.nodes.size();
  for (std::size_t k = n; k-- > n - std::min(n, shrinking::kDeletionsChecked);)
    if (std::string problem = shrinking::deletionProblem(doc, c, k); !problem.empty())
      return Verdict::fail(problem, {c.graph.inputs.size() + k});
  if (std::string problem = shrinking::candidatesProblem(doc, c); !problem.empty()) return Verdict::fail(problem);
  if (std::string problem = shrinking::plantedProblem(doc, c); !problem.empty()) return Verdict::fail(problem);
  return Verdict::pass();
}

}  // namespace tc::props
