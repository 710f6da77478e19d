#pragma once
// A test engine whose forward context is the reference's, rewritten by a function of the test's
// choosing (a planted difference). Its dense backward pass is the reference's on that context,
// rewritten by a second function when one is given, and fails otherwise (forward properties only).
#include <functional>

#include "core/spec/reference.h"
#include "properties/engines/engine.h"

namespace tc::testing {

//! Rewrites a reference context (or pack of gradients) in place, given the graph it belongs to.
using ContextRewrite = std::function<void(const Graph<double>&, Context<double>&)>;

class RewrittenContextExecution final : public Execution<double> {
 public:
  explicit RewrittenContextExecution(Context<double> context) : context_(std::move(context)) {}
  RewrittenContextExecution(const Graph<double>& graph, const Data<double>& data, Context<double> context,
                            const ContextRewrite& rewriteGradients)
      : context_(std::move(context)), graph_(&graph), data_(&data), rewriteGradients_(&rewriteGradients) {}
  const Context<double>& context() const override { return context_; }
  Result<Pack<double>> backwardDense(const Pack<double>& seeds) const override {
    if (!rewriteGradients_ || !*rewriteGradients_) return fail("not used");
    Pack<double> gradients = spec::backpropAllCtx(*graph_, context_, *data_, seeds);
    (*rewriteGradients_)(*graph_, gradients);
    return gradients;
  }
  Result<SingleOutputResult<double>> backwardSingle(std::size_t, const Tensor<double>&) const override {
    return fail("not used");
  }

 private:
  Context<double> context_;
  const Graph<double>* graph_ = nullptr;
  const Data<double>* data_ = nullptr;
  const ContextRewrite* rewriteGradients_ = nullptr;
};

//! spec::eval's context on double, then `rewrite`.
class RewrittenContextEngine final : public Engine<double> {
 public:
  RewrittenContextEngine(std::string_view name, ContextRewrite rewrite, ContextRewrite rewriteGradients = {})
      : name_(name), rewrite_(std::move(rewrite)), rewriteGradients_(std::move(rewriteGradients)) {}
  std::string_view name() const override { return name_; }
  Result<std::unique_ptr<const Execution<double>>> compile(const Graph<double>& graph, const Pack<double>& inputs,
                                                           const Data<double>& data) const override {
    auto context = spec::eval(graph, inputs, data);
    if (!context) return std::unexpected(context.error());
    rewrite_(graph, *context);
    return std::make_unique<const RewrittenContextExecution>(graph, data, std::move(*context), rewriteGradients_);
  }

 private:
  std::string_view name_;
  ContextRewrite rewrite_;
  ContextRewrite rewriteGradients_;
};

}  // namespace tc::testing
