#pragma once
// Oracle for the shrinker (docs/semantics.md §3.7). A counterexample is worth what the shrinking
// that made it is worth, yet on a correct engine no case fails and the shrinker never runs: a
// shrinker that takes a passing candidate, or deletes a node without renumbering the positions
// above it, would go unnoticed until it hands a user a case that replays green or stays large.
// So on every case this property runs the shrinker itself, against a failure it plants:
//  - planted failure: "the case holds a node of the op of its highest node", taken at most
//    kPlantedSteps times; the shrunk case, read back from its document as a saved file is, must
//    still hold such a node (the shrinker takes only failing candidates, and the document says
//    what the case was);
//  - deletion: for each of the highest kDeletionsChecked nodes, the case with that node deleted as
//    the shrinker deletes it loads; every other node keeps its op, and its arguments and the output
//    name the same positions, one lower above the deleted one; the deleted node's users name an
//    earlier position of its shape; a deletion is declined only when a user has no such position.
// The expectations are stated here from the shrinker's documented rules, not computed by its code.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "generators/shrink.hpp"
#include "properties/compare.hpp"

namespace tc::props {
namespace shrinking {

//! How many candidates the planted failure accepts: enough to take steps, few enough that a
//! large case costs one pass over its candidates afterwards.
inline constexpr std::size_t kPlantedSteps = 4;
//! How many nodes (the highest) are deleted one at a time and checked.
inline constexpr std::size_t kDeletionsChecked = 8;
//! The largest case checked, in nodes and in elements of all positions: each candidate copies and
//! reads the whole document, and the planted failure ends with a pass over every candidate, so the
//! check grows with the square of the case; generated cases stay far below.
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

//! Why shrinking `c` against the planted failure is wrong; empty when it is right.
template <class T>
std::string plantedProblem(const nlohmann::json& doc, const Case<T>& c) {
  const OpKind planted = c.graph.nodes.back().op;
  auto holdsPlanted = [&](const Case<T>& x) {
    return std::ranges::any_of(x.graph.nodes, [&](const Node<T>& n) { return n.op == planted; });
  };
  std::size_t taken = 0;
  gen::LoadedDoc<T> start{doc, std::make_shared<const Case<T>>(c)};
  auto [small, steps] = gen::shrinkWhile<T>(std::move(start), [&](const gen::LoadedDoc<T>& candidate) {
    if (taken == kPlantedSteps || !holdsPlanted(*candidate.loaded)) return false;
    ++taken;
    return true;
  });
  const std::string what = fmt::format("shrinking while the case holds a {} node", opName(planted));
  if (steps != taken) return fmt::format("{}: {} steps taken, {} candidates accepted", what, steps, taken);
  auto reread = parseCase<T>(small.doc.dump());
  if (!reread) return fmt::format("{}: the shrunk case's document does not load: {}", what, reread.error().message);
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
  if (std::string problem = shrinking::plantedProblem(doc, c); !problem.empty()) return Verdict::fail(problem);
  return Verdict::pass();
}

}  // namespace tc::props
