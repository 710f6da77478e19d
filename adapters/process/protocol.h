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

//! Reads an answer line to request `expectedId` with `passCount` passes; an error is a protocol
//! error's reason.
template <class T>
Result<DecodedAnswer<T>> decodeAnswer(std::string_view line, std::size_t expectedId, std::size_t passCount);

//! A pass of a request, read on the server side for a graph: dense seeds or a single output and seed.
template <class T>
Result<PlannedPass<T>> decodePass(const nlohmann::json& pass, const Graph<T>& graph, const std::string& where);

//! An answer to a request: the context and each pass's result (server side).
template <class T>
std::string encodeAnswer(std::size_t id, const Context<T>& context,
                            const std::vector<Result<SingleOutputResult<T>>>& passes);

}  // namespace tc::process
