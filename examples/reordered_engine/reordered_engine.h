#pragma once
// The reordered engine: an independent autograd engine behind tapecheck's engine interface
// (properties/engines/engine.h) that is correct but evaluates in a different order from the reference,
// the way engines with their own kernels (PyTorch) do:
//  (a) every reduction adds its terms in reversed index order (reordered_ops.h);
//  (b) a repeated edge is accumulated separately: add(x, x) adds ct into x's gradient twice, where
//      the reference forms the local sum ct + ct first;
//  (c) the reverse pass visits only what it needs: a reverse topological sweep from the positions
//      with a non-zero seed, accumulating into per-position gradients that start at +0.
// On exact carriers these are the same sums, so it agrees with spec::eval and spec::backpropAll
// exactly; on IEEE carriers it differs from them by rounding and signed zeros only. README.md.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/pack_checks.h"
#include "core/ops/opaque.h"
#include "properties/engines/engine.h"
#include "properties/engines/profile.h"
#include "reordered_ops.h"

namespace reordered {

//! One forward execution: the context, and reverse sweeps over it.
template <class T>
class Execution final : public tc::Execution<T> {
 public:
  //! `graph` and `data` outlive the execution; `context` holds every position's value.
  Execution(const tc::Graph<T>& graph, const tc::Data<T>& data, tc::Context<T> context)
      : graph_(graph), data_(data), context_(std::move(context)) {}

  //! The inputs, then each node's value.
  const tc::Context<T>& context() const override { return context_; }

  //! Gradients at every position from a full seed pack (checked like the built-in engines').
  tc::Result<tc::Pack<T>> backwardDense(const tc::Pack<T>& seeds) const override {
    if (auto ok = tc::checkSeedPack(graph_, seeds); !ok) return std::unexpected(ok.error());
    std::vector<Seed> seeded;
    for (std::size_t p = 0; p < seeds.size(); ++p) seeded.push_back({p, &seeds[p]});
    return sweep(seeded);
  }

  //! The same sweep seeded at `output` only; the engine does not report a visit count.
  tc::Result<tc::SingleOutputResult<T>> backwardSingle(std::size_t output, const tc::Tensor<T>& seed) const override {
    if (auto ok = tc::checkOutputSeed(graph_, output, seed); !ok) return std::unexpected(ok.error());
    std::vector<Seed> seeded{{output, &seed}};
    return tc::SingleOutputResult<T>{sweep(seeded), std::nullopt};
  }

 private:
  struct Seed {
    std::size_t position;
    const tc::Tensor<T>* cotangent;
  };

  // A zero cotangent contributes nothing, so a seed without a non-zero value starts no visit.
  static bool startsSweep(const tc::Tensor<T>& seed) {
    for (const T& value : seed.values)
      if (!(value == tc::zero<T>())) return true;  // NaN starts one too
    return false;
  }

  static void accumulate(tc::Tensor<T>& gradient, const tc::Tensor<T>& contribution) {
    for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] = gradient[i] + contribution[i];
  }

  // Gradients start at +0 everywhere; seeds are accumulated into them, then nodes run in reverse
  // creation order, but only those a seed or an already visited node reached. A node's gradient
  // is complete when it runs (every contribution comes from a later node), and each of its edges
  // is accumulated as it comes.
  tc::Pack<T> sweep(const std::vector<Seed>& seeds) const {
    tc::Pack<T> gradients;
    for (std::size_t p = 0; p < graph_.positionCount(); ++p)
      gradients.push_back(tc::Tensor<T>::filled(graph_.shapeAt(p), tc::zero<T>()));
    std::vector<bool> needed(graph_.positionCount(), false);
    for (const Seed& seed : seeds) {
      if (!startsSweep(*seed.cotangent)) continue;
      accumulate(gradients[seed.position], *seed.cotangent);
      needed[seed.position] = true;
    }
    for (std::size_t k = graph_.positionCount(); k-- > graph_.inputs.size();) {
      if (!needed[k]) continue;
      const std::vector<std::size_t>& args = graph_.nodeAt(k).args;
      auto accumulateEdge = [&](std::size_t edge, const tc::Tensor<T>& contribution) {
        accumulate(gradients[args[edge]], contribution);
        needed[args[edge]] = true;
      };
      backward(NodeView<T>{graph_, data_, context_, k}, gradients[k], accumulateEdge);
    }
    return gradients;
  }

  const tc::Graph<T>& graph_;
  const tc::Data<T>& data_;
  tc::Context<T> context_;
};

//! The engine: checks inputs and data like the built-in engines, refuses ops it does not
//! implement, then evaluates each node in creation order. None of its ops has a domain check
//! (div, inv and log are not among them), so a graph of supported ops on well-shaped inputs
//! always compiles.
template <class T>
class Engine final : public tc::Engine<T> {
 public:
  //! The ops this engine implements (kSupportedOps), e.g. for a profile to declare.
  static std::vector<tc::OpKind> supportedOps() { return {kSupportedOps.begin(), kSupportedOps.end()}; }

  std::string_view name() const override { return "reordered"; }

  //! The execution, or the first error: malformed inputs or data (the messages of
  //! core/graph/pack_checks.h), else "node P (op): not supported by the reordered engine".
  tc::Result<std::unique_ptr<const tc::Execution<T>>> compile(const tc::Graph<T>& graph, const tc::Pack<T>& inputs,
                                                              const tc::Data<T>& data) const override {
    if (auto ok = tc::checkInputs(graph, inputs); !ok) return std::unexpected(ok.error());
    if (auto ok = tc::checkData(graph, data); !ok) return std::unexpected(ok.error());
    if (auto ok = checkSupported(graph); !ok) return std::unexpected(ok.error());
    tc::Context<T> context = inputs;
    context.reserve(graph.positionCount());
    for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
      context.push_back(forward(NodeView<T>{graph, data, context, p}));
    return std::make_unique<const Execution<T>>(graph, data, std::move(context));
  }

 private:
  // The op as error messages name it: "exp", or "opaque twice" for a registered opaque program.
  static std::string label(const tc::Node<T>& node) {
    std::string name(tc::opName(node.op));
    return node.op == tc::OpKind::opaque ? name + " " + node.attrs.opaque->name : name;
  }

  static tc::Result<void> checkSupported(const tc::Graph<T>& graph) {
    for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
      if (!isSupported(graph.nodeAt(p).op))
        return tc::fail(fmt::format("node {} ({}): not supported by the reordered engine", p, label(graph.nodeAt(p))));
    return {};
  }
};

//! What the engine declares about itself: its ops on every carrier it runs on (the exact ones and
//! the IEEE ones); the specification's conventions otherwise.
inline tc::EngineProfile profile() {
  tc::EngineProfile profile;
  profile.name = "reordered";
  for (const char* carrier : {"rational", "rational-noeq", "double", "float"})
    profile.ops[carrier] = {kSupportedOps.begin(), kSupportedOps.end()};
  return profile;
}

}  // namespace reordered
