#pragma once
// An engine in another process, reached through the engine protocol (docs/engine-protocol.md):
// an Engine<T> like any other, so every engine-scoped property runs on it unchanged. A compile is
// one request; its passes travel in the same request when the runner planned them (a run's cases
// go to the engine 64 at a time), else one request each.
#include <deque>
#include <string>
#include <variant>

#include "adapters/process/engine_process.h"
#include "adapters/process/protocol.h"
#include "properties/engines/engine.h"

namespace tc::process {

//! Engine<T> over an EngineProcess, which must outlive it. A crash, exit or timeout on a call, or
//! an answer that the engine's worker crashed on it, throws EngineFault (the case fails); an `unsupported` answer throws UnsupportedCase; a line
//! that breaks the protocol throws ProtocolError.
template <class T>
class ProcessEngine final : public Engine<T> {
 public:
  explicit ProcessEngine(EngineProcess& process);
  std::string_view name() const override { return name_; }
  Result<std::unique_ptr<const Execution<T>>> compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                      const Data<T>& data) const override;
  bool wantsPlans() const override { return true; }
  void plan(std::vector<PlannedCompile<T>> compiles) const override;

  //! One request with the case and one pass (a pass the plan did not foresee); `limits`: of an
  //! answer to the case (answerLimits), whatever its passes.
  Result<SingleOutputResult<T>> runPass(const std::string& caseText, const std::string& passText,
                                        AnswerLimits limits) const;

 private:
  // A planned request: its case and passes as sent, and what came back.
  struct Prepared {
    std::string caseText;
    std::vector<std::string> passTexts;
    std::size_t ticket = 0;
    // To know the call again without writing its case: the objects it was recorded with, and
    // enough of their contents to tell a reused address.
    decltype(PlannedCompile<T>::called) called;
    Pack<T> inputs;
    std::size_t positions = 0;
  };

  // The prepared request for this call, searched by the objects first, then by the case text
  // (computed only then, into `text`); end() when there is none.
  typename std::deque<Prepared>::iterator findPrepared(const Graph<T>& graph, const Pack<T>& inputs,
                                                       const Data<T>& data, std::string& text) const;

  // The answer read within `limits`; throws on a fault, a protocol error or an unsupported case.
  DecodedAnswer<T> decode(const std::variant<Answer, Fault>& reply, const AnswerLimits& limits) const;
  Result<std::unique_ptr<const Execution<T>>> execution(const Graph<T>& graph, std::string caseText,
                                                        std::vector<std::string> passTexts,
                                                        const std::variant<Answer, Fault>& answer) const;

  EngineProcess& process_;
  std::string name_;
  mutable std::deque<Prepared> prepared_;
};

}  // namespace tc::process
