#pragma once
// Oracle: the adjoint identity node by node. At every node k, with an independent direction v_a
// for each argument position a and a cotangent ct, <ct, J_k·v> == Σ_a <term_a(ct), v_a>, where
// J_k·v comes from node k's forward code on dual numbers and the terms from its reverse program
// (localContribution). Every node of every case is checked on its own, so a wrong term shows even
// where no input reaches the node or the output does not depend on it. At a kink the directions
// are chosen along which the node is differentiable (zero at relu/abs zeros and clamp bounds,
// equal on both sides of a max/min tie: the op definitions' kink sets), so kink conventions are
// checked too. Non-linear opaque nodes are skipped; the case is skipped only if every node is.
#include "core/graph/node_program.h"
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/dual_forward.h"

namespace tc::props {

//! Empty when node k satisfies the identity for probe set `variant`, else what differed.
template <class T>
std::string nodeAdjointDifference(const Case<T>& c, const Context<T>& context, const DualGraph<T>& dual, std::size_t k,
                                  std::size_t variant) {
  // Directions per argument position (a repeated argument moves once), zero elsewhere. They
  // depend on the argument's slot, not on positions, so shrinking keeps a failure failing.
  const auto& args = c.graph.nodeAt(k).args;
  Pack<T> directions;
  for (std::size_t p = 0; p < k; ++p) {
    auto slot = static_cast<std::size_t>(std::find(args.begin(), args.end(), p) - args.begin());
    directions.push_back(slot < args.size() ? probeCotangents<T>(c.graph.shapeAt(p), 1 + 2 * slot + 5 * variant)[1]
                                            : Tensor<T>::filled(c.graph.shapeAt(p), zero<T>()));
  }
  smoothDirectionsAtKinks(c.graph, context, c.data, k, directions);
  Context<Dual<T>> lifted;
  for (std::size_t p = 0; p < k; ++p) lifted.push_back(liftTensor(context[p], &directions[p].values));
  Tensor<T> ct = probeCotangents<T>(c.graph.shapeAt(k), 3 * variant)[1];
  T forward = innerProduct(ct, tangentOf(dual.forward(k, lifted)));
  auto local = localContribution<T>(c.graph, context, c.data, k, ct);
  T reverse = zero<T>();
  if (local.isDense)
    for (std::size_t p = 0; p < k; ++p) reverse = reverse + innerProduct(local.dense[p], directions[p]);
  else
    for (const auto& [p, term] : local.support) reverse = reverse + innerProduct(term, directions[p]);
  if (Carrier<T>::same(forward, reverse)) return {};
  return fmt::format("{}: <ct, J·v> = {} but the terms give <Jᵀ·ct, v> = {}", describeNode(c.graph, k),
                     Carrier<T>::format(forward), Carrier<T>::format(reverse));
}

template <class T>
Verdict node_adjoint_identity(const Case<T>& c) {
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!context) return Verdict::skip("domain failure");
  DualGraph<T> dual(c);
  std::size_t checked = 0;
  std::string lastReason;
  for (std::size_t k = c.graph.inputs.size(); k < c.graph.positionCount(); ++k) {
    const Node<T>& node = c.graph.nodeAt(k);
    if (!ops::linearInCotangent(node.op, node.attrs)) {
      lastReason = "non-linear opaque program";
      continue;
    }
    ++checked;
    // Two probe sets: one alone can be orthogonal to a wrong term by chance.
    for (std::size_t variant = 0; variant < 2; ++variant)
      if (std::string d = nodeAdjointDifference(c, *context, dual, k, variant); !d.empty()) return Verdict::fail(d);
  }
  if (checked == 0) return Verdict::skip(lastReason.empty() ? "no node to check" : lastReason);
  return Verdict::pass();
}

}  // namespace tc::props
