#pragma once
// Graph-aware shrinking of case documents: every candidate is strictly smaller somewhere, loads
// on the carrier, and is parsed exactly once.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/io/case_file.hpp"
#include "core/ops/library.hpp"
#include "core/support/mutants.h"
#include "generators/shrink.h"

namespace tc::gen {
namespace detail {

using nlohmann::json;

// Renumbers every position reference of a document: `map` returns the new position, or nullopt
// when the reference cannot survive (the candidate is then abandoned).
inline bool remapPositions(json& doc, std::size_t firstNode, const std::function<std::optional<std::size_t>(std::size_t)>& map) {
  for (std::size_t j = firstNode; j < doc["nodes"].size(); ++j) {
    json& node = doc["nodes"][j];
    if (!node.contains("args")) continue;
    for (json& arg : node["args"]) {
      auto p = map(arg.get<std::size_t>());
      if (!p) return false;
      arg = *p;
    }
  }
  if (doc.contains("output")) {
    auto p = map(doc["output"].get<std::size_t>());
    if (!p) return false;
    doc["output"] = *p;
  }
  if (doc.contains("seeds")) {
    json seeds = json::object();
    for (const auto& [key, values] : doc["seeds"].items()) {
      auto p = map(std::stoul(key));
      if (p && !seeds.contains(std::to_string(*p))) seeds[std::to_string(*p)] = values;
    }
    doc["seeds"] = seeds;
  }
  return true;
}

template <class T>
void deleteNodeCandidates(const json& doc, const Graph<T>& graph, std::vector<json>& out) {
  for (std::size_t k = graph.nodes.size(); k-- > 0;)
    if (auto candidate = withNodeDeleted(doc, graph, k)) out.push_back(std::move(*candidate));
}

// A const node turned into an input holding the same values: one node fewer, and the values
// become simplifiable like any input's.
template <class T>
void constToInputCandidates(const json& doc, const Graph<T>& graph, std::vector<json>& out) {
  const std::size_t inputs = graph.inputs.size();
  for (std::size_t k = 0; k < graph.nodes.size(); ++k) {
    if (ops::signature(graph.nodes[k].op) != Signature::none) continue;
    const std::size_t q = inputs + k;
    json candidate = doc;
    const json node = candidate["nodes"][k];
    candidate["nodes"].erase(k);
    candidate["inputs"].push_back(json{{"shape", node["attrs"]["shape"]}});
    candidate["values"].push_back(node["attrs"]["values"]);
    // Positions below q shift up by one (a new input comes first); q becomes that input.
    bool ok = remapPositions(candidate, 0, [&](std::size_t p) -> std::optional<std::size_t> {
      if (p < inputs) return p;
      if (p < q) return p + 1;
      if (p == q) return inputs;
      return p;
    });
    if (ok) out.push_back(std::move(candidate));
  }
}

template <class T>
void dropInputCandidates(const json& doc, const Graph<T>& graph, std::vector<json>& out) {
  for (std::size_t i = graph.inputs.size(); i-- > 0;) {
    if (graph.inputs.size() == 1 && graph.nodes.empty()) break;
    json candidate = doc;
    candidate["inputs"].erase(i);
    if (candidate.contains("values")) candidate["values"].erase(i);
    bool ok = remapPositions(candidate, 0, [&](std::size_t p) -> std::optional<std::size_t> {
      if (p == i) return std::nullopt;
      return p > i ? p - 1 : p;
    });
    if (ok) out.push_back(std::move(candidate));
  }
}

// The part of a dimension a smaller one keeps: its first `size` slices, or its last.
struct KeptSlices {
  std::size_t size;
  bool trailing;
};

// The values of a row-major tensor of shape `from` in the slices `kept` keeps along each axis, in
// order: a block of the tensor.
inline json keptBlock(const json& values, const std::vector<std::size_t>& from, const std::vector<KeptSlices>& kept) {
  json block = json::array();
  std::vector<std::size_t> index(from.size(), 0);
  for (const json& value : values) {
    bool inside = true;
    for (std::size_t axis = 0; axis < from.size(); ++axis)
      inside = inside && (kept[axis].trailing ? index[axis] >= from[axis] - kept[axis].size : index[axis] < kept[axis].size);
    if (inside) block.push_back(value);
    for (std::size_t axis = from.size(); axis-- > 0 && ++index[axis] == from[axis];) index[axis] = 0;
  }
  return block;
}

// `values` of shape `shape` cut down to the slices `keep(axis, size)` names (nullopt: all); the
// new shape.
template <class Keep>
std::vector<std::size_t> cutDown(json& values, const std::vector<std::size_t>& shape, Keep keep) {
  std::vector<KeptSlices> kept;
  std::vector<std::size_t> resized;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    kept.push_back(keep(axis, shape[axis]).value_or(KeptSlices{shape[axis], false}));
    resized.push_back(kept.back().size);
  }
  if (resized != shape) values = keptBlock(values, shape, kept);
  return resized;
}

// A candidate with smaller tensors: nodes lose their optional "shape" key, which would no longer
// hold.
inline json withoutNodeShapes(json doc) {
  for (json& node : doc["nodes"]) node.erase("shape");
  return doc;
}

// `doc` with input i's dimension `axis` cut down to `part`.
inline json withInputAxisCut(const json& doc, std::size_t i, std::size_t axis, KeptSlices part) {
  json candidate = withoutNodeShapes(doc);
  candidate["inputs"][i]["shape"] = cutDown(candidate["values"][i], doc["inputs"][i]["shape"],
                                            [&](std::size_t a, std::size_t) { return a == axis ? std::optional(part) : std::nullopt; });
  return candidate;
}

// Calls visit(values, shape, shapeKey) on every tensor of the case that holds values: the
// inputs, the data tensors and the constants (shapeKey: their "shape"), then the seeds the loader
// reads — "seeds", else "seed" at the output — whose shapes are the graph's (shapeKey nullptr).
// `Json` is json or const json.
template <class Json, class T, class Visit>
void forEachValuedTensor(Json& doc, const Case<T>& loaded, Visit visit) {
  auto shapeOf = [](const json& key) { return key.template get<std::vector<std::size_t>>(); };
  auto shapeAt = [&](std::size_t p) {
    const Shape& shape = loaded.graph.shapeAt(p);
    return std::vector<std::size_t>(shape.begin(), shape.end());
  };
  for (std::size_t i = 0; i < doc["inputs"].size(); ++i)
    visit(doc["values"][i], shapeOf(doc["inputs"][i]["shape"]), &doc["inputs"][i]["shape"]);
  if (doc.contains("data"))
    for (auto& [key, entry] : doc["data"].items())
      if (entry.contains("values")) visit(entry["values"], shapeOf(entry["shape"]), &entry["shape"]);
  for (auto& node : doc["nodes"])
    if (node.contains("attrs") && node["attrs"].contains("values") && node["attrs"].contains("shape"))
      visit(node["attrs"]["values"], shapeOf(node["attrs"]["shape"]), &node["attrs"]["shape"]);
  if (doc.contains("seeds")) {
    for (auto& [key, values] : doc["seeds"].items()) visit(values, shapeAt(std::stoul(key)), nullptr);
  } else if (doc.contains("seed")) {
    visit(doc["seed"], shapeAt(loaded.output), nullptr);
  }
}

// Calls visit(k, shapeKey) on node k's attribute "shape" wherever it shapes no values of its own:
// the target of a reshape or a broadcast. `Json` is json or const json.
template <class Json, class Visit>
void forEachTargetShape(Json& doc, Visit visit) {
  for (std::size_t k = 0; k < doc["nodes"].size(); ++k) {
    auto& node = doc["nodes"][k];
    if (node.contains("attrs") && node["attrs"].contains("shape") && !node["attrs"].contains("values"))
      visit(k, node["attrs"]["shape"]);
  }
}

// `doc` with every dimension of `size` cut down to `part` in every tensor and every target shape
// of the case, so that a case whose tensors share the size stays well-typed.
template <class T>
json withSizeCut(const json& doc, const Case<T>& loaded, std::size_t size, KeptSlices part) {
  auto keep = [&](std::size_t, std::size_t s) { return s == size ? std::optional(part) : std::nullopt; };
  json candidate = withoutNodeShapes(doc);
  forEachValuedTensor(candidate, loaded, [&](json& values, const std::vector<std::size_t>& shape, json* shapeKey) {
    std::vector<std::size_t> resized = cutDown(values, shape, keep);
    if (shapeKey) *shapeKey = resized;
  });
  forEachTargetShape(candidate, [&](std::size_t, json& target) {
    for (json& dim : target)
      if (dim == size) dim = part.size;
  });
  return candidate;
}

// `doc` ready for a change to node k's attributes, which may change the shapes of node k and the
// nodes after it: without nodes' "shape" keys, and without the seeds at those positions (whose
// sizes would no longer match; the output's seed falls back to ones).
inline json withNodeAttributesFreed(const json& doc, std::size_t k) {
  json candidate = withoutNodeShapes(doc);
  const std::size_t changed = doc["inputs"].size() + k;  // the node's position; later ones may change too
  if (candidate.contains("seeds")) {
    for (auto it = candidate["seeds"].begin(); it != candidate["seeds"].end();)
      it = std::stoul(it.key()) >= changed ? candidate["seeds"].erase(it) : std::next(it);
    if (candidate["seeds"].empty()) candidate.erase("seeds");
  } else if (candidate.contains("seed") && (!candidate.contains("output") || candidate["output"] >= changed)) {
    candidate.erase("seed");
  }
  return candidate;
}

// `doc` with dimension `axis` of node k's target shape cut down to `size` (it holds no values).
inline json withTargetAxisCut(const json& doc, std::size_t k, std::size_t axis, std::size_t size) {
  json candidate = withNodeAttributesFreed(doc, k);
  candidate["nodes"][k]["attrs"]["shape"][axis] = size;
  return candidate;
}

// Smaller dimensions: halved, then one slice fewer, each keeping its first slices, then its last
// (a failure may sit at any element), so that a dimension of n reaches 1 in O(log n) steps while
// halving keeps the failure. First every dimension of one size at once, in every tensor and target
// shape of the case (a matmul's shared k, the same-shaped arguments of an elementwise op and their
// seeds, a broadcast's trailing dimensions: one cut alone would not load), then each input's axes
// alone, then each target shape's (a broadcast's new leading dimensions).
template <class T>
void shrinkDimensionCandidates(const json& doc, const Case<T>& loaded, std::vector<json>& out) {
  std::map<std::size_t, std::size_t, std::greater<>> occurrences;  // size > 1 -> how many dimensions have it
  auto count = [&](const std::vector<std::size_t>& shape) {
    for (std::size_t size : shape)
      if (size > 1) ++occurrences[size];
  };
  forEachValuedTensor(doc, loaded, [&](const json&, const std::vector<std::size_t>& shape, const json*) { count(shape); });
  forEachTargetShape(doc, [&](std::size_t, const json& target) { count(target.get<std::vector<std::size_t>>()); });
  auto smallerParts = [](std::size_t size) {
    std::vector<KeptSlices> parts;
    for (std::size_t target : {size / 2, size - 1}) {
      if (!parts.empty() && parts.back().size == target) continue;
      parts.push_back({target, false});
      parts.push_back({target, true});
    }
    return parts;
  };
  for (const auto& [size, times] : occurrences)
    if (times > 1)
      for (KeptSlices part : smallerParts(size)) out.push_back(withSizeCut(doc, loaded, size, part));
  for (std::size_t i = 0; i < doc["inputs"].size(); ++i) {
    const std::vector<std::size_t> shape = doc["inputs"][i]["shape"];
    for (std::size_t axis = 0; axis < shape.size(); ++axis)
      if (shape[axis] > 1)
        for (KeptSlices part : smallerParts(shape[axis])) out.push_back(withInputAxisCut(doc, i, axis, part));
  }
  // A target's own dimensions, which no other tensor or target shares (a broadcast's new leading
  // ones): a shared one is cut above, and cut alone it would not load.
  forEachTargetShape(doc, [&](std::size_t k, const json& target) {
    for (std::size_t axis = 0; axis < target.size(); ++axis)
      if (target[axis] > 1 && occurrences[target[axis]] == 1)
        for (KeptSlices part : smallerParts(target[axis]))
          if (!part.trailing) out.push_back(withTargetAxisCut(doc, k, axis, part.size));  // no values: no ends
  });
}

// Count attributes made smaller (slice0's start and len, sum_axis's axis): 0, the half, one
// fewer. A slice that takes fewer rows, nearer the first, lets the dimension it slices shrink.
template <class T>
void countAttributeCandidates(const json& doc, const Graph<T>& graph, std::vector<json>& out) {
  for (std::size_t k = 0; k < graph.nodes.size(); ++k)
    for (const AttrSpec<T>& spec : ops::attributes<T>(graph.nodes[k].op)) {
      if (!std::holds_alternative<std::size_t Attrs<T>::*>(spec.field)) continue;
      const json::json_pointer at(fmt::format("/nodes/{}/attrs/{}", k, spec.name));
      if (!doc.contains(at)) continue;  // an optional count left at its default
      const std::size_t count = doc[at];
      if (count == 0) continue;
      for (std::size_t to : std::set<std::size_t>{0, count / 2, count - 1}) {  // ascending, each once
        json candidate = withNodeAttributesFreed(doc, k);
        candidate[at] = to;
        out.push_back(std::move(candidate));
      }
    }
}

// How simple a value is: 0, then 1, then -1, then anything else. Every candidate is strictly
// simpler somewhere, so shrinking always ends.
inline int simplicity(const json& value) {
  if (value == "0") return 0;
  if (value == "1") return 1;
  if (value == "-1") return 2;
  return 3;
}

// All values of `tensor` set to 0, or to 1 when none is 0; then single values made simpler.
inline void simplifyValues(const json& doc, const json::json_pointer& tensor, std::vector<json>& out) {
  const json& values = doc[tensor];
  int simplest = 3, mostComplex = 0;
  for (const json& v : values) {
    simplest = std::min(simplest, simplicity(v));
    mostComplex = std::max(mostComplex, simplicity(v));
  }
  for (const char* to : {"0", "1"}) {
    if (mostComplex <= simplicity(to) || (simplest < simplicity(to))) continue;
    json candidate = doc;
    for (json& v : candidate[tensor]) v = to;
    out.push_back(std::move(candidate));
  }
  for (std::size_t i = 0; i < values.size() && i < 16; ++i)
    for (const char* to : {"0", "1", "-1"}) {
      if (simplicity(to) >= simplicity(values[i])) break;
      json candidate = doc;
      candidate[tensor][i] = to;
      out.push_back(std::move(candidate));
    }
}

// Input values, then per node its value-list attributes (a constant's values) and its value
// attributes toward their neutral value (scale's c toward 1), then data tensors.
template <class T>
void valueCandidates(const json& doc, const Graph<T>& graph, std::vector<json>& out) {
  using ptr = json::json_pointer;
  for (std::size_t i = 0; i < doc["values"].size(); ++i) simplifyValues(doc, ptr("/values/" + std::to_string(i)), out);
  for (std::size_t k = 0; k < graph.nodes.size(); ++k) {
    for (const AttrSpec<T>& spec : ops::attributes<T>(graph.nodes[k].op)) {
      const std::string at = fmt::format("/nodes/{}/attrs/{}", k, spec.name);
      if (std::holds_alternative<std::vector<T> Attrs<T>::*>(spec.field)) simplifyValues(doc, ptr(at), out);
      if (!spec.neutral.empty() && simplicity(doc[ptr(at)]) > simplicity(spec.neutral)) {
        json candidate = doc;
        candidate[ptr(at)] = spec.neutral;
        out.push_back(std::move(candidate));
      }
    }
  }
  if (doc.contains("data"))
    for (const auto& [key, entry] : doc["data"].items())
      if (entry.contains("values")) simplifyValues(doc, ptr("/data/" + key + "/values"), out);
}

// Data entries no node reads.
inline void unusedDataCandidates(const json& doc, std::vector<json>& out) {
  if (!doc.contains("data")) return;
  for (const auto& [key, entry] : doc["data"].items()) {
    bool used = false;
    for (const json& node : doc["nodes"])
      used = used || (node.contains("attrs") && node["attrs"].contains("key") && node["attrs"]["key"] == key);
    if (used) continue;
    json candidate = doc;
    candidate["data"].erase(key);
    if (candidate["data"].empty()) candidate.erase("data");
    out.push_back(std::move(candidate));
  }
}

inline void seedCandidates(const json& doc, std::vector<json>& out) {
  if (doc.contains("seed")) {
    json candidate = doc;
    candidate.erase("seed");  // the default: ones at the output
    out.push_back(std::move(candidate));
    simplifyValues(doc, json::json_pointer("/seed"), out);
  }
  if (doc.contains("seeds")) {
    for (const auto& [key, values] : doc["seeds"].items()) {
      if (doc["seeds"].size() > 1) {
        json candidate = doc;
        candidate["seeds"].erase(key);
        out.push_back(std::move(candidate));
      }
      simplifyValues(doc, json::json_pointer("/seeds/" + key), out);
    }
  }
}

}  // namespace detail

template <class T>
std::optional<nlohmann::json> withNodeDeleted(const nlohmann::json& doc, const Graph<T>& graph, std::size_t k) {
  const std::size_t q = graph.inputs.size() + k;
  // Reroute users of q to its own argument of the same shape, else the latest earlier position.
  std::optional<std::size_t> replacement;
  for (std::size_t a : graph.nodes[k].args)
    if (!replacement && graph.shapeAt(a) == graph.shapeAt(q)) replacement = a;
  for (std::size_t p = q; !replacement && p-- > 0;)
    if (graph.shapeAt(p) == graph.shapeAt(q)) replacement = p;
  nlohmann::json candidate = doc;
  if (!candidate.contains("nodes")) return std::nullopt;
  candidate["nodes"].erase(k);
  bool ok = detail::remapPositions(candidate, k, [&](std::size_t p) -> std::optional<std::size_t> {
    if (p < q) return p;
    if (p > q) return TC_MUTANT(deletion_keeps_positions) ? p : p - 1;  // the planted fault: later positions keep their numbers
    return replacement;
  });
  if (!ok) return std::nullopt;
  return candidate;
}

namespace detail {

// `doc` with only its first `nodes` nodes, the output at position 0 and no seeds: whether it loads.
template <class T>
bool prefixLoads(const json& doc, std::size_t nodes) {
  json prefix = doc;
  prefix["nodes"] = json(doc["nodes"].begin(), doc["nodes"].begin() + static_cast<std::ptrdiff_t>(nodes));
  prefix["output"] = 0;
  prefix.erase("seed");
  prefix.erase("seeds");
  return caseFromJson<T>(prefix).has_value();
}

// The arguments of `node` when they are positions below `limit`.
inline std::optional<std::vector<std::size_t>> argumentPositions(const json& node, std::size_t limit) {
  std::vector<std::size_t> args;
  if (!node.is_object() || !node.contains("args")) return args;
  if (!node["args"].is_array()) return std::nullopt;
  for (const json& a : node["args"]) {
    // Any integer form (an in-memory document may hold a signed one), as the loader reads counts.
    if (!a.is_number_integer() || a.get<std::int64_t>() < 0 || a.get<std::size_t>() >= limit) return std::nullopt;
    args.push_back(a.get<std::size_t>());
  }
  return args;
}

}  // namespace detail

template <class T>
std::optional<nlohmann::json> refusedNodeCone(const nlohmann::json& doc) {
  using detail::json;
  if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array() || !doc.contains("inputs") ||
      !doc["inputs"].is_array() || !detail::prefixLoads<T>(doc, 0))
    return std::nullopt;
  const json& nodes = doc["nodes"];
  std::size_t k = 0;  // the refused node: loads are only repeated for a case that already failed
  while (k < nodes.size() && detail::prefixLoads<T>(doc, k + 1)) ++k;
  if (k == nodes.size()) return std::nullopt;
  const std::size_t inputs = doc["inputs"].size();
  std::vector<bool> needed(inputs + k, false);
  std::vector<std::vector<std::size_t>> args(k + 1);
  for (std::size_t j = 0; j <= k; ++j) {
    auto read = detail::argumentPositions(nodes[j], inputs + j);
    if (!read) return std::nullopt;
    args[j] = std::move(*read);
  }
  for (std::size_t a : args[k]) needed[a] = true;
  for (std::size_t j = k; j-- > 0;)
    if (needed[inputs + j])
      for (std::size_t a : args[j]) needed[a] = true;
  // A node that reads nothing (a constant) keeps the first input: a graph needs a position before it.
  if (inputs > 0 && std::none_of(needed.begin(), needed.end(), [](bool b) { return b; })) needed[0] = true;
  std::vector<std::size_t> renumbered(inputs + k + 1, 0);
  json cone = json::object();
  cone["tapecheck"] = 1;
  cone["inputs"] = json::array();
  cone["nodes"] = json::array();
  if (doc.contains("values")) cone["values"] = json::array();
  if (doc.contains("data")) cone["data"] = doc["data"];
  std::size_t next = 0;
  for (std::size_t i = 0; i < inputs; ++i) {
    if (!needed[i]) continue;
    renumbered[i] = next++;
    cone["inputs"].push_back(doc["inputs"][i]);
    if (doc.contains("values")) cone["values"].push_back(doc["values"][i]);
  }
  for (std::size_t j = 0; j <= k; ++j) {
    if (j < k && !needed[inputs + j]) continue;
    renumbered[inputs + j] = next++;
    json node = nodes[j];
    if (!args[j].empty())
      for (std::size_t a = 0; a < args[j].size(); ++a) node["args"][a] = renumbered[args[j][a]];
    cone["nodes"].push_back(std::move(node));
  }
  cone["output"] = 0;
  const std::size_t coneNodes = cone["nodes"].size();
  if (caseFromJson<T>(cone) || !detail::prefixLoads<T>(cone, coneNodes - 1)) return std::nullopt;
  return cone;
}

template <class T>
std::optional<LoadedDoc<T>> loadDoc(nlohmann::json doc) {
  auto loaded = caseFromJson<T>(doc);
  if (!loaded) return std::nullopt;
  return LoadedDoc<T>{std::move(doc), std::make_shared<const Case<T>>(std::move(*loaded))};
}

template <class T>
bool forEachShrink(const LoadedDoc<T>& original, const std::function<bool(LoadedDoc<T>)>& visit) {
  if (!original.doc.contains("values")) return false;  // a user's graph without values: nothing to shrink
  nlohmann::json doc = original.doc;
  if (!doc.contains("nodes")) doc["nodes"] = nlohmann::json::array();  // optional in the format
  const Graph<T>& graph = original.loaded->graph;
  // Kind by kind, each kind's candidates made only when no earlier one was taken: a candidate
  // copies the whole document, which for a large tensor costs more than judging it.
  const std::function<void(std::vector<nlohmann::json>&)> kinds[] = {
      [&](auto& out) { detail::deleteNodeCandidates(doc, graph, out); },
      [&](auto& out) { detail::constToInputCandidates(doc, graph, out); },
      [&](auto& out) { detail::dropInputCandidates(doc, graph, out); },
      [&](auto& out) { detail::unusedDataCandidates(doc, out); },
      [&](auto& out) { detail::countAttributeCandidates(doc, graph, out); },
      [&](auto& out) { detail::shrinkDimensionCandidates(doc, *original.loaded, out); },
      [&](auto& out) { detail::valueCandidates(doc, graph, out); },
      [&](auto& out) { detail::seedCandidates(doc, out); },
  };
  for (const auto& kind : kinds) {
    std::vector<nlohmann::json> candidates;
    kind(candidates);
    for (auto& candidate : candidates) {
      if (candidate == doc) continue;  // no smaller: taking it would shrink forever
      if (auto loaded = loadDoc<T>(std::move(candidate)); loaded && visit(std::move(*loaded))) return true;
    }
  }
  return false;
}

template <class T>
std::vector<LoadedDoc<T>> shrinksOf(const LoadedDoc<T>& original) {
  std::vector<LoadedDoc<T>> valid;
  forEachShrink<T>(original, [&](LoadedDoc<T> loaded) {
    valid.push_back(std::move(loaded));
    return false;
  });
  return valid;
}

template <class T>
std::vector<LoadedDoc<T>> shrinksOf(const nlohmann::json& doc) {
  auto loaded = loadDoc<T>(doc);
  if (!loaded) return {};
  return shrinksOf(*loaded);
}

}  // namespace tc::gen

// The library's copies of the generator's and the core's templates, declared extern.
#include "generators/generator_instances.h"
