#pragma once
#include <algorithm>

#include "adapters/process/process_engine.h"
#include "adapters/process/protocol.hpp"

namespace tc::process {
namespace detail {

// An answer's context and pass results; a pass asked again, or not planned, goes to the engine
// as a request of its own.
template <class T>
class ProcessExecution final : public Execution<T> {
 public:
  struct PlannedResult {
    std::string passText;
    Result<SingleOutputResult<T>> result;
  };

  ProcessExecution(const ProcessEngine<T>& engine, std::string caseText, AnswerLimits limits, Context<T> context,
                   std::deque<PlannedResult> planned)
      : engine_(engine), caseText_(std::move(caseText)), limits_(limits), context_(std::move(context)),
        planned_(std::move(planned)) {}

  const Context<T>& context() const override { return context_; }
  Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override {
    auto result = take(densePassText(seeds));
    if (!result) return std::unexpected(result.error());
    return std::move(result->gradients);
  }
  Result<SingleOutputResult<T>> backwardSingle(std::size_t output, const Tensor<T>& seed) const override {
    return take(singlePassText(output, seed));
  }

 private:
  Result<SingleOutputResult<T>> take(const std::string& passText) const {
    if (!planned_.empty() && planned_.front().passText == passText) {
      auto result = std::move(planned_.front().result);
      planned_.pop_front();
      return result;
    }
    planned_.clear();  // off the plan: the rest of it no longer follows
    return engine_.runPass(caseText_, passText, limits_);
  }

  const ProcessEngine<T>& engine_;
  std::string caseText_;
  AnswerLimits limits_;
  Context<T> context_;
  mutable std::deque<PlannedResult> planned_;
};

}  // namespace detail

template <class T>
ProcessEngine<T>::ProcessEngine(EngineProcess& process) : process_(process), name_(process.hello().profile.name) {}

template <class T>
DecodedAnswer<T> ProcessEngine<T>::decode(const std::variant<Answer, Fault>& reply, const AnswerLimits& limits) const {
  if (const Fault* fault = std::get_if<Fault>(&reply)) throw EngineFault(fault->message);
  const Answer& answer = std::get<Answer>(reply);
  auto decoded = decodeAnswer<T>(answer.text, answer.id, limits);
  if (!decoded) throw ProtocolError(process_.where(answer.line) + decoded.error().message);
  if (decoded->unsupported) throw UnsupportedCase(*decoded->unsupported);
  if (decoded->crashed) throw EngineFault(process_.crashed(*decoded->crashed).message);
  return std::move(*decoded);
}

template <class T>
Result<std::unique_ptr<const Execution<T>>> ProcessEngine<T>::execution(const Graph<T>& graph, std::string caseText,
                                                                       std::vector<std::string> passTexts,
                                                                       const std::variant<Answer, Fault>& reply) const {
  const AnswerLimits limits = answerLimits(graph, passTexts.size());
  auto decoded = decode(reply, limits);
  if (decoded.error) return fail(*decoded.error);
  std::deque<typename detail::ProcessExecution<T>::PlannedResult> planned;
  for (std::size_t k = 0; k < passTexts.size(); ++k)
    planned.push_back({std::move(passTexts[k]), std::move(decoded.passes[k])});
  return std::make_unique<const detail::ProcessExecution<T>>(*this, std::move(caseText), limits,
                                                              std::move(decoded.context), std::move(planned));
}

template <class T>
typename std::deque<typename ProcessEngine<T>::Prepared>::iterator ProcessEngine<T>::findPrepared(
    const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data, std::string& text) const {
  auto sameValues = [](const Pack<T>& a, const Pack<T>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t p = 0; p < a.size(); ++p)
      if (a[p].shape != b[p].shape || !std::equal(a[p].values.begin(), a[p].values.end(), b[p].values.begin(),
                                                  [](const T& x, const T& y) { return Carrier<T>::same(x, y); }))
        return false;
    return true;
  };
  if (!prepared_.empty()) {
    const Prepared& front = prepared_.front();
    if (front.called.graph == &graph && front.called.inputs == &inputs && front.called.data == &data &&
        front.positions == graph.positionCount() && sameValues(front.inputs, inputs)) {
      text = front.caseText;
      return prepared_.begin();
    }
  }
  text = caseText(graph, inputs, data);
  return std::find_if(prepared_.begin(), prepared_.end(), [&](const Prepared& p) { return p.caseText == text; });
}

template <class T>
Result<std::unique_ptr<const Execution<T>>> ProcessEngine<T>::compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                                      const Data<T>& data) const {
  std::string text;
  auto match = findPrepared(graph, inputs, data, text);
  if (match == prepared_.end()) {
    auto replies = process_.exchange({requestBody(Carrier<T>::name, text, {})});
    return execution(graph, std::move(text), {}, replies.front());
  }
  Prepared prepared = std::move(*match);
  for (auto skipped = prepared_.begin(); skipped != match; ++skipped) process_.forget(skipped->ticket);
  prepared_.erase(prepared_.begin(), match + 1);  // the plan moves on past it
  return execution(graph, std::move(text), std::move(prepared.passTexts), process_.receive(prepared.ticket));
}

template <class T>
Result<SingleOutputResult<T>> ProcessEngine<T>::runPass(const std::string& caseText, const std::string& passText,
                                                       AnswerLimits limits) const {
  auto replies = process_.exchange({requestBody(Carrier<T>::name, caseText, {passText})});
  limits.passes = 1;
  auto decoded = decode(replies.front(), limits);
  if (decoded.error) return fail("the engine's forward pass failed when it ran again: " + *decoded.error);
  return std::move(decoded.passes.front());
}

template <class T>
void ProcessEngine<T>::plan(std::vector<PlannedCompile<T>> compiles) const {
  for (const Prepared& unused : prepared_) process_.forget(unused.ticket);
  prepared_.clear();
  if (compiles.empty()) return;
  std::vector<std::string> bodies;
  for (const PlannedCompile<T>& compile : compiles) {
    Prepared prepared{caseText(compile.graph, compile.inputs, compile.data), {}, 0, compile.called,
                      compile.inputs, compile.graph.positionCount()};
    for (const PlannedPass<T>& pass : compile.passes)
      prepared.passTexts.push_back(pass.single ? singlePassText(pass.output, pass.seed) : densePassText(pass.seeds));
    bodies.push_back(requestBody(Carrier<T>::name, prepared.caseText, prepared.passTexts));
    prepared_.push_back(std::move(prepared));
  }
  auto tickets = process_.send(bodies);  // answered while the runner works: received when compiled
  for (std::size_t k = 0; k < tickets.size(); ++k) prepared_[k].ticket = tickets[k];
}

}  // namespace tc::process
