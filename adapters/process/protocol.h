#pragma once
// The typed half of the engine protocol (docs/engine-protocol.md §3, §4): requests written from a
// case and its passes, answers read back into values of carrier T. Shared by the client side
// (ProcessEngine) and the server side (`tapecheck serve`).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/support/result.h"
#include "properties/engines/engine.h"

namespace tc::process {

//! The case document of a request: the graph, its data and the input values (compact JSON text).
template <class T>
std::string caseText(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data);

//! `{"dense": [values per position]}`.
template <class T>
std::string densePassText(const Pack<T>& seeds);

//! `{"single": {"output": P, "seed": [values]}}`.
template <class T>
std::string singlePassText(std::size_t output, const Tensor<T>& seed);

//! A request without its "id": the carrier, the case and the passes (texts as written above).
std::string requestBody(std::string_view carrier, const std::string& caseText, const std::vector<std::string>& passes);

//! An answer read: the forward pass failed (`error`), the case is unsupported (`unsupported`), the
//! engine's worker ended on it (`crashed`: "signal 11 (Segmentation fault)", "status 1"), or the
//! context and one result per requested pass.
template <class T>
struct DecodedAnswer {
  std::optional<std::string> error, unsupported, crashed;
  Context<T> context;
  std::vector<Result<SingleOutputResult<T>>> passes;
};

//! What an answer to one request may hold, known from its case before the answer is read: at most
//! `passes` pass results; in the context and in each pass's gradients, at most `positions` tensors
//! and `values` values in all. An answer that holds more is refused as soon as it does, before
//! what it holds is built: its memory is then bounded by its case, not by its line.
struct AnswerLimits {
  std::size_t passes = 0, positions = 0, values = 0;
};

//! Values a pack of an answer may hold besides twice its case's elements: enough for any answer of
//! the wrong shape that an engine of a small case could give (a gradient not reduced over a
//! broadcast, a transposed matrix, a tensor with an element too many).
inline constexpr std::size_t kAnswerValueSlack = 4096;

//! The limits of an answer to `passes` passes of a case on `graph`: one tensor per position, and
//! values twice the case's elements and kAnswerValueSlack more, per pack.
template <class T>
AnswerLimits answerLimits(const Graph<T>& graph, std::size_t passes) {
  std::size_t elements = 0;
  for (std::size_t p = 0; p < graph.positionCount(); ++p) elements += elementCount(graph.shapeAt(p));
  return AnswerLimits{passes, graph.positionCount(), 2 * elements + kAnswerValueSlack};
}

//! Reads an answer line to request `expectedId`; an error is a protocol error's reason, starting
//! "answer ID: ".
template <class T>
Result<DecodedAnswer<T>> decodeAnswer(std::string_view line, std::size_t expectedId, const AnswerLimits& limits);

//! A pass of a request, read on the server side for a graph: dense seeds or a single output and seed.
template <class T>
Result<PlannedPass<T>> decodePass(const nlohmann::json& pass, const Graph<T>& graph, const std::string& where);

//! An answer to a request: the context and each pass's result (server side).
template <class T>
std::string encodeAnswer(std::size_t id, const Context<T>& context,
                            const std::vector<Result<SingleOutputResult<T>>>& passes);

}  // namespace tc::process
