#pragma once
// minigrad: a small reverse-mode engine of "ours" that we want checked. It evaluates a graph node
// by node with tapecheck's op library (forward and validation), then runs its own reverse pass:
// each node, last to first, adds its local contribution into the gradients of its arguments.
// With `overwriteBug` set it makes the classic mistake of assigning instead of accumulating.
#include <memory>
#include <vector>

#include "core/graph/node_program.h"
#include "core/graph/seed_pack.h"
#include "properties/engines/engine.h"

namespace minigrad {

template <class T>
class Execution final : public tc::Execution<T> {
 public:
  Execution(const tc::Graph<T>& graph, const tc::Data<T>& data, tc::Context<T> context, bool overwriteBug)
      : graph_(graph), data_(data), context_(std::move(context)), overwriteBug_(overwriteBug) {}

  const tc::Context<T>& context() const override { return context_; }

  tc::Result<tc::Pack<T>> backwardDense(const tc::Pack<T>& seeds) const override {
    if (seeds.size() != graph_.positionCount()) return tc::fail("minigrad: one seed per position is needed");
    tc::Pack<T> gradients = seeds;
    for (std::size_t p = graph_.positionCount(); p-- > graph_.inputs.size();) {
      auto local = tc::localContribution<T>(graph_, context_, data_, p, gradients[p]);
      if (local.isDense) {  // an opaque program writes every earlier position
        for (std::size_t target = 0; target < p; ++target) accumulate(gradients[target], local.dense[target]);
      } else {
        for (const auto& [target, contribution] : local.support) accumulate(gradients[target], contribution);
        // The dense semantics adds a +0 to every other earlier position; only IEEE carriers can
        // tell (a -0 seed becomes +0), and tapecheck checks bit patterns there.
        for (std::size_t target = 0; target < p; ++target)
          if (!inSupport(local, target)) addPositiveZero(gradients[target]);
      }
    }
    return gradients;
  }

  tc::Result<tc::SingleOutputResult<T>> backwardSingle(std::size_t output, const tc::Tensor<T>& seed) const override {
    if (output >= graph_.positionCount()) return tc::fail("minigrad: no such output position");
    auto gradients = backwardDense(tc::singleSeedPack(graph_, output, seed));
    if (!gradients) return std::unexpected(gradients.error());
    return tc::SingleOutputResult<T>{std::move(*gradients), std::nullopt};  // minigrad does not count visits
  }

 private:
  static bool inSupport(const tc::LocalContribution<T>& local, std::size_t target) {
    for (const auto& entry : local.support)
      if (entry.first == target) return true;
    return false;
  }
  static void addPositiveZero(tc::Tensor<T>& gradient) {
    for (T& g : gradient.values) g = g + tc::zero<T>();
  }

  void accumulate(tc::Tensor<T>& gradient, const tc::Tensor<T>& contribution) const {
    for (std::size_t i = 0; i < gradient.size(); ++i)
      gradient[i] = overwriteBug_ ? contribution[i] : gradient[i] + contribution[i];
  }

  const tc::Graph<T>& graph_;
  const tc::Data<T>& data_;
  tc::Context<T> context_;
  bool overwriteBug_;
};

template <class T>
class Engine final : public tc::Engine<T> {
 public:
  explicit Engine(bool overwriteBug) : overwriteBug_(overwriteBug) {}
  std::string_view name() const override { return overwriteBug_ ? "minigrad (with the overwrite bug)" : "minigrad"; }

  tc::Result<std::unique_ptr<const tc::Execution<T>>> compile(const tc::Graph<T>& graph, const tc::Pack<T>& inputs,
                                                              const tc::Data<T>& data) const override {
    tc::Context<T> context(inputs.begin(), inputs.end());
    for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
      auto value = tc::validateAndForward<T>(graph, context, data, p);  // "node 5 (log): ..." on a domain failure
      if (!value) return std::unexpected(value.error());
      context.push_back(std::move(*value));
    }
    return std::make_unique<const Execution<T>>(graph, data, std::move(context), overwriteBug_);
  }

 private:
  bool overwriteBug_;
};

}  // namespace minigrad
