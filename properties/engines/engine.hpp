#pragma once
// The built-in engines behind the engine interface.
#include <cassert>

#include "core/graph/pack_checks.h"
#include "core/graph/seed_pack.h"
#include "core/runtime/compiled.h"
#include "core/runtime/lowering.h"
#include "core/spec/reference.h"
#include "properties/engines/engine.h"

namespace tc {
namespace detail {

//! Shared by engines without a single-output pass of their own: the dense pass on a seed pack
//! that seeds only `output`.
template <class T>
class DenseSingleOutput : public Execution<T> {
 public:
  explicit DenseSingleOutput(const Graph<T>& graph) : graph_(graph) {}
  Result<SingleOutputResult<T>> backwardSingle(std::size_t output, const Tensor<T>& seed) const override {
    if (auto ok = checkOutputSeed(graph_, output, seed); !ok) return std::unexpected(ok.error());
    auto gradients = this->backwardDense(singleSeedPack(graph_, output, seed));
    if (!gradients) return std::unexpected(gradients.error());
    return SingleOutputResult<T>{std::move(*gradients), std::nullopt};
  }

 protected:
  const Graph<T>& graph_;
};

template <class T>
class ReferenceExecution final : public DenseSingleOutput<T> {
 public:
  ReferenceExecution(const Graph<T>& graph, const Data<T>& data, Context<T> context)
      : DenseSingleOutput<T>(graph), data_(data), context_(std::move(context)) {}
  const Context<T>& context() const override { return context_; }
  Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override {
    if (auto ok = checkSeedPack(this->graph_, seeds); !ok) return std::unexpected(ok.error());
    return spec::backpropAllCtx(this->graph_, context_, data_, seeds);
  }

 private:
  const Data<T>& data_;
  Context<T> context_;
};

template <class T>
class TapeExecution final : public DenseSingleOutput<T> {
 public:
  TapeExecution(const Graph<T>& graph, TapeAndContext<T> lowered)
      : DenseSingleOutput<T>(graph), lowered_(std::move(lowered)) {}
  const Context<T>& context() const override { return *lowered_.context; }
  Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override { return lowered_.tape.backwardDenseFrom(seeds); }

 private:
  TapeAndContext<T> lowered_;
};

template <class T>
class CompiledExecution final : public Execution<T> {
 public:
  explicit CompiledExecution(Compiled<T> compiled) : compiled_(std::move(compiled)) {}
  const Context<T>& context() const override { return compiled_.context(); }
  Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override { return compiled_.backwardDenseFrom(seeds); }
  Result<SingleOutputResult<T>> backwardSingle(std::size_t output, const Tensor<T>& seed) const override {
    auto single = compiled_.backwardDenseAllFrom(output, seed);
    if (!single) return std::unexpected(single.error());
    return SingleOutputResult<T>{single->gradients.materialize(), single->programsRun};
  }

 private:
  Compiled<T> compiled_;
};

template <class T>
using ExecutionResult = Result<std::unique_ptr<const Execution<T>>>;

template <class T>
class ReferenceEngine final : public Engine<T> {
 public:
  std::string_view name() const override { return "reference"; }
  ExecutionResult<T> compile(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) const override {
    auto context = spec::eval(graph, inputs, data);
    if (!context) return std::unexpected(context.error());
    return std::make_unique<const ReferenceExecution<T>>(graph, data, std::move(*context));
  }
};

template <class T>
class TapeEngine final : public Engine<T> {
 public:
  std::string_view name() const override { return "tape"; }
  ExecutionResult<T> compile(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) const override {
    auto lowered = lowerToTapeChecked(graph, inputs, data);
    if (!lowered) return std::unexpected(lowered.error());
    return std::make_unique<const TapeExecution<T>>(graph, std::move(*lowered));
  }
};

template <class T>
class CompiledEngine final : public Engine<T> {
 public:
  std::string_view name() const override { return "compiled"; }
  ExecutionResult<T> compile(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) const override {
    auto compiled = compileChecked(graph, inputs, data);
    if (!compiled) return std::unexpected(compiled.error());
    return std::make_unique<const CompiledExecution<T>>(std::move(*compiled));
  }
};

}  // namespace detail

template <class T>
const Engine<T>& builtinEngine(std::string_view name) {
  static const detail::ReferenceEngine<T> reference;
  static const detail::TapeEngine<T> tape;
  static const detail::CompiledEngine<T> compiled;
  if (name == "reference") return reference;
  if (name == "tape") return tape;
  assert(name == "compiled" && "builtinEngine: callers check the name against kBuiltinEngineNames");
  return compiled;
}

}  // namespace tc

// The library's copies of the built-in engines and the core's templates, declared extern.
#include "properties/engines/engine_instances.h"
