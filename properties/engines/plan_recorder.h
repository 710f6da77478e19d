#pragma once
// Recording what a property asks of an engine, by running it on a stand-in engine (the
// reference): the plan handed ahead to an engine that wants one (Engine::wantsPlans), so that an
// engine in another process gets a run of cases in one exchange instead of one call at a time.
#include <memory>
#include <utility>
#include <vector>

#include "properties/engines/engine.h"

namespace tc::props {

//! An engine that answers with `standIn` and records every compile and pass, in call order.
template <class T>
class PlanRecorder final : public Engine<T> {
 public:
  explicit PlanRecorder(const Engine<T>& standIn) : standIn_(standIn) {}
  std::string_view name() const override { return standIn_.name(); }

  Result<std::unique_ptr<const Execution<T>>> compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                      const Data<T>& data) const override {
    compiles_.push_back({graph, inputs, data, {}, {&graph, &inputs, &data}});
    auto execution = standIn_.compile(graph, inputs, data);
    if (!execution) return std::unexpected(execution.error());
    return std::make_unique<const Recording>(std::move(*execution), compiles_, compiles_.size() - 1);
  }

  //! What was recorded since the last take.
  std::vector<PlannedCompile<T>> take() { return std::exchange(compiles_, {}); }

 private:
  class Recording final : public Execution<T> {
   public:
    Recording(std::unique_ptr<const Execution<T>> inner, std::vector<PlannedCompile<T>>& log, std::size_t index)
        : inner_(std::move(inner)), log_(log), index_(index) {}
    const Context<T>& context() const override { return inner_->context(); }
    Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override {
      log_[index_].passes.push_back({false, seeds, 0, {}});
      return inner_->backwardDense(seeds);
    }
    Result<SingleOutputResult<T>> backwardSingle(std::size_t output, const Tensor<T>& seed) const override {
      log_[index_].passes.push_back({true, {}, output, seed});
      return inner_->backwardSingle(output, seed);
    }

   private:
    std::unique_ptr<const Execution<T>> inner_;
    std::vector<PlannedCompile<T>>& log_;
    std::size_t index_;
  };

  const Engine<T>& standIn_;
  mutable std::vector<PlannedCompile<T>> compiles_;
};

}  // namespace tc::props
