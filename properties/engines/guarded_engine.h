#pragma once
// An engine's exceptions as verdicts: whatever an engine under test throws from a call (a bug in
// it, or in its adapter) fails the case that made the call, with what it threw, and is shrunk
// like any failure, instead of ending the run. And the engine's text made safe: every message it
// gives (an error, a fault, what it threw, the op it calls unsupported) enters tapecheck here, as
// outsideText makes it (one line of valid UTF-8, escaped and cut: docs/threat-model.md), before
// a verdict, the terminal, a report or a saved case holds it.
#include <exception>
#include <memory>
#include <string>

#include "core/support/text.h"
#include "properties/engines/engine.h"

namespace tc::props {

//! The most bytes of a fault's message kept: a crash quotes up to 20 lines of the engine's stderr.
inline constexpr std::size_t kFaultTextLimit = 4000;

//! Runs `call` (a call into an engine), turning an exception other than tapecheck's own signals
//! (EngineFault, UnsupportedCase, EngineOutputError, which pass through, the first two with their
//! text made safe) into an EngineFault "engine threw: what()".
template <class Call>
decltype(auto) guarded(Call&& call) {
  try {
    return call();
  } catch (const EngineFault& fault) {
    throw EngineFault(outsideText(fault.what(), kFaultTextLimit));
  } catch (const UnsupportedCase& unsupported) {
    throw UnsupportedCase(outsideText(unsupported.what()));
  } catch (const EngineOutputError&) {
    throw;
  } catch (const std::exception& thrown) {
    throw EngineFault("engine threw: " + outsideText(thrown.what()));
  } catch (...) {
    throw EngineFault("engine threw an exception that is not a std::exception");
  }
}

//! `result`, its error message (the engine's text) as outsideText makes it.
template <class Value>
Result<Value> safeError(Result<Value> result) {
  if (!result) result.error().message = outsideText(result.error().message);
  return result;
}

//! `inner`, every call guarded; it must outlive this.
template <class T>
class GuardedEngine final : public Engine<T> {
 public:
  explicit GuardedEngine(const Engine<T>& inner) : inner_(inner) {}
  std::string_view name() const override { return inner_.name(); }
  Result<std::unique_ptr<const Execution<T>>> compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                      const Data<T>& data) const override {
    auto execution = guarded([&] { return inner_.compile(graph, inputs, data); });
    if (!execution) return fail(outsideText(execution.error().message));
    return std::make_unique<const Guarded>(std::move(*execution));
  }
  bool wantsPlans() const override { return inner_.wantsPlans(); }
  void plan(std::vector<PlannedCompile<T>> compiles) const override {
    guarded([&] { inner_.plan(std::move(compiles)); });
  }

 private:
  class Guarded final : public Execution<T> {
   public:
    explicit Guarded(std::unique_ptr<const Execution<T>> inner) : inner_(std::move(inner)) {}
    const Context<T>& context() const override {
      return guarded([&]() -> const Context<T>& { return inner_->context(); });
    }
    Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override {
      return safeError(guarded([&] { return inner_->backwardDense(seeds); }));
    }
    Result<SingleOutputResult<T>> backwardSingle(std::size_t output, const Tensor<T>& seed) const override {
      return safeError(guarded([&] { return inner_->backwardSingle(output, seed); }));
    }

   private:
    std::unique_ptr<const Execution<T>> inner_;
  };

  const Engine<T>& inner_;
};

}  // namespace tc::props
