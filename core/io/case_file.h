#pragma once
// The file format of docs/file-format.md: a graph, optionally with input values, data and seeds.
#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/graph/builder.h"
#include "core/graph/graph.h"
#include "core/support/result.h"

namespace tc {

//! A loaded file: a well-typed graph plus what the file says to run it on.
template <class T>
struct Case {
  Graph<T> graph;
  std::optional<Pack<T>> inputs;  //!< "values"; absent in a graph-only file
  Data<T> data;
  std::size_t output = 0;  //!< "output": defaults to the last position
  //! The full seed pack: "seeds" if given, else "seed" (default all ones) at the output.
  Pack<T> seeds;
  std::string failureJson;  //!< the "failure" object of a saved counterexample, as JSON text
};

//! A check the loader runs on a case before it builds the seed pack, which holds a value for
//! every element of every position (a budget on what the graph needs: cli/budget.h); the loader
//! fails with its error. The case it sees has everything but its seeds; where the file gives seeds
//! ("seeds" or "seed"), the loader runs it again on the case with them.
template <class T>
using CaseGate = std::function<Result<void>(const Case<T>& loadedSoFar)>;

//! Reads a case from JSON text. Every structural problem is an error naming where and why.
template <class T>
Result<Case<T>> parseCase(std::string_view text);
//! The same, failing with `gate`'s error when the case does not pass it.
template <class T>
Result<Case<T>> parseCase(std::string_view text, const CaseGate<T>& gate);

//! Reads a case from a parsed document (its nesting already bounded, as parseJsonDocument does).
template <class T>
Result<Case<T>> caseFromJson(const nlohmann::json& document);
//! The same, failing with `gate`'s error when the case does not pass it.
template <class T>
Result<Case<T>> caseFromJson(const nlohmann::json& document, const CaseGate<T>& gate);

//! Reads one node of the file format (`{"op": ..., "args": [...], "attrs": {...}}`) and appends
//! it to `builder`; returns its position or the loader's error.
template <class T>
Result<std::size_t> appendNode(GraphBuilder<T>& builder, const nlohmann::json& node);

//! Reads a case from a file.
template <class T>
Result<Case<T>> readCaseFile(const std::filesystem::path& path);
//! The same, failing with `gate`'s error (after the path) when the case does not pass it.
template <class T>
Result<Case<T>> readCaseFile(const std::filesystem::path& path, const CaseGate<T>& gate);

//! Writes a case in the file format, values canonical for the carrier.
template <class T>
std::string writeCase(const Case<T>& c);

//! The document writeCase formats.
template <class T>
nlohmann::json caseToJson(const Case<T>& c);

//! `{"shape": [...], "values": [strings]}` for each tensor, in order.
template <class T>
nlohmann::json packToJson(const Pack<T>& pack);

//! One value array for a tensor of `shape` (as a case's "values" holds them).
template <class T>
Result<Tensor<T>> valuesFromJson(const nlohmann::json& values, const Shape& shape, const std::string& where);

}  // namespace tc
