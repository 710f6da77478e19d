#pragma once
// A test engine whose forward context is the reference's, rewritten by a function of the test's
// choosing (a planted difference); it has no backward pass, so it serves forward properties only.
#include <functional>

#include "core/spec/reference.h"
#include "properties/engine.h"

namespace tc::testing {

//! Rewrites a reference context in place, given the graph it belongs to.
using ContextRewrite = std::function<void(const Graph<double>&, Context<double>&)>;

class RewrittenContextExecution final : public Execution<double> {
 public:
  explicit RewrittenContextExecution(Context<double> context) : context_(std::move(context)) {}
  const Context<double>& context() const override { return context_; }
  Result<Pack<double>> backwardDense(const Pack<double>&) const override { return fail("not used"); }
  Result<SingleOutputResult<double>> backwardSingle(std::size_t, const Tensor<double>&) const override {
    return fail("not used");
  }

 private:
  Context<double> context_;
};

//! spec::eval's context on double, then `rewrite`.
class RewrittenContextEngine final : public Engine<double> {
 public:
  RewrittenContextEngine(std::string_view name, ContextRewrite rewrite) : name_(name), rewrite_(std::move(rewrite)) {}
  std::string_view name() const override { return name_; }
  Result<std::unique_ptr<const Execution<double>>> compile(const Graph<double>& graph, const Pack<double>& inputs,
                                                           const Data<double>& data) const override {
    auto context = spec::eval(graph, inputs, data);
    if (!context) return std::unexpected(context.error());
    rewrite_(graph, *context);
    return std::make_unique<const RewrittenContextExecution>(std::move(*context));
  }

 private:
  std::string_view name_;
  ContextRewrite rewrite_;
};

}  // namespace tc::testing
