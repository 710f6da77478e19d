#pragma once
#include <fmt/format.h>

#include "adapters/process/child_process.h"
#include "adapters/process/json_reader.h"
#include "adapters/process/protocol.h"
#include "core/io/case_file.h"
#include "core/support/text.h"

namespace tc::process {
namespace detail {

// One value as the carrier formats it (IEEE values straight into `out`).
template <class T>
void appendValue(std::string& out, const T& value) {
  if constexpr (std::is_floating_point_v<T>) Carrier<T>::appendFormat(value, out);
  else out += Carrier<T>::format(value);
}

// Values as a JSON array of strings; the carriers' formats need no escaping.
template <class T>
void appendValues(std::string& out, const std::vector<T>& values) {
  out += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += '"';
    appendValue(out, values[i]);
    out += '"';
  }
  out += ']';
}

// A location in an answer, formatted only when there is an error to report.
struct Where {
  std::string_view name;
  std::size_t index = SIZE_MAX;
  std::string str() const { return index == SIZE_MAX ? std::string(name) : fmt::format("{}[{}]", name, index); }
};

// {"message": text, "position"?: P} as "position P: text".
inline Result<std::string> readError(JsonReader& in, std::string_view where) {
  if (!in.beginObject()) return fail(fmt::format("{}: must be {{\"message\": text}}, got {}", where, in.nextKind()));
  std::string key, message;
  std::optional<std::uint64_t> position;
  bool hasMessage = false;
  for (;;) {
    auto more = in.nextKey(key);
    if (!more) return std::unexpected(more.error());
    if (!*more) break;
    if (key == "message") {
      auto text = in.string();
      if (!text) return fail(fmt::format("{}.message: {}", where, text.error().message));
      message = std::move(*text), hasMessage = true;
    } else if (key == "position") {
      auto p = in.count();
      if (!p) return fail(fmt::format("{}.position: {}", where, p.error().message));
      position = *p;
    } else {
      return fail(fmt::format("{}: unknown key {}; an error has message and position", where, quote(key)));
    }
  }
  if (!hasMessage) return fail(fmt::format("{}: missing \"message\"", where));
  return position ? fmt::format("position {}: {}", *position, message) : message;
}

// "more values than the case can need", at `where` in a pack of an answer within `limits`.
inline std::string tooManyValues(std::string_view where, const AnswerLimits& limits) {
  return fmt::format("{}: more values than the case can need ({} in a pack: twice its elements and {} more)", where,
                     limits.values, kAnswerValueSlack);
}

// A tensor of a pack that may still hold `valuesLeft` values (counted down as they are read).
template <class T>
Result<Tensor<T>> readTensor(JsonReader& in, const Where& where, std::size_t& valuesLeft, const AnswerLimits& limits) {
  if (!in.beginObject())
    return fail(fmt::format("{}: a tensor must be {{\"shape\": [dims], \"values\": [strings]}}, got {}", where.str(),
                            in.nextKind()));
  std::string key, scratch;
  std::vector<std::size_t> dims;
  std::optional<std::size_t> declared;  // the shape's element count, once read
  std::vector<T> values;
  bool hasValues = false;
  for (;;) {
    auto more = in.nextKey(key);
    if (!more) return std::unexpected(more.error());
    if (!*more) break;
    if ((key == "shape" && declared) || (key == "values" && hasValues))
      return fail(fmt::format("{}: \"{}\" twice", where.str(), key));
    if (key == "shape") {
      if (!in.beginArray()) return fail(fmt::format("{}.shape: must be a list of dimensions, got {}", where.str(), in.nextKind()));
      for (;;) {
        auto next = in.nextElement();
        if (!next) return std::unexpected(next.error());
        if (!*next) break;
        auto dim = in.count();
        if (!dim) return fail(fmt::format("{}.shape: {}", where.str(), dim.error().message));
        if (dims.size() == kMaxRank)
          return fail(fmt::format("{}.shape: rank exceeds the maximum rank {}", where.str(), kMaxRank));
        dims.push_back(static_cast<std::size_t>(*dim));
      }
      auto size = checkDimensions(dims);
      if (!size) return fail(fmt::format("{}.shape: {}", where.str(), size.error().message));
      if (*size > values.size() + valuesLeft) return fail(tooManyValues(where.str() + ".shape", limits));
      declared = *size;
    } else if (key == "values") {
      if (!in.beginArray()) return fail(fmt::format("{}.values: must be a list of strings, got {}", where.str(), in.nextKind()));
      for (;;) {
        auto next = in.nextElement();
        if (!next) return std::unexpected(next.error());
        if (!*next) break;
        if (valuesLeft == 0) return fail(tooManyValues(where.str() + ".values", limits));
        --valuesLeft;
        auto text = in.string(scratch);
        if (!text) return fail(fmt::format("{}.values[{}]: {}", where.str(), values.size(), text.error().message));
        auto value = parseValue<T>(*text);
        if (!value) return fail(fmt::format("{}.values[{}]: {}", where.str(), values.size(), value.error().message));
        values.push_back(std::move(*value));
      }
      hasValues = true;
    } else {
      return fail(fmt::format("{}: unknown key {}; a tensor has shape and values", where.str(), quote(key)));
    }
  }
  if (!declared || !hasValues) return fail(fmt::format("{}: missing \"{}\"", where.str(), declared ? "values" : "shape"));
  Shape shape(dims.begin(), dims.end());
  if (values.size() != *declared)
    return fail(fmt::format("{}: shape {} needs {} values, got {}", where.str(), formatShape(shape), *declared,
                            values.size()));
  return Tensor<T>(std::move(shape), std::move(values));
}

// A pack of an answer: at most `limits.positions` tensors, `limits.values` values in all.
template <class T>
Result<Pack<T>> readPack(JsonReader& in, std::string_view where, const AnswerLimits& limits) {
  if (!in.beginArray()) return fail(fmt::format("{}: must be a list of tensors, got {}", where, in.nextKind()));
  Pack<T> pack;
  std::size_t valuesLeft = limits.values;
  for (;;) {
    auto next = in.nextElement();
    if (!next) return std::unexpected(next.error());
    if (!*next) return pack;
    if (pack.size() == limits.positions)
      return fail(fmt::format("{}: more tensors than the case's {} positions", where, limits.positions));
    auto tensor = readTensor<T>(in, Where{where, pack.size()}, valuesLeft, limits);
    if (!tensor) return std::unexpected(tensor.error());
    pack.push_back(std::move(*tensor));
  }
}

// One pass result (gradients, or the engine's error) appended to `results`.
template <class T>
Result<void> readPassResult(JsonReader& in, const std::string& where, const AnswerLimits& limits,
                            std::vector<Result<SingleOutputResult<T>>>& results) {
  if (!in.beginObject()) return fail(fmt::format("{}: must be an object, got {}", where, in.nextKind()));
  std::string key;
  std::optional<Pack<T>> gradients;
  std::optional<std::size_t> programsRun;
  std::optional<std::string> error;
  for (;;) {
    auto more = in.nextKey(key);
    if (!more) return std::unexpected(more.error());
    if (!*more) break;
    if ((key == "gradients" && gradients) || (key == "programs_run" && programsRun) || (key == "error" && error))
      return fail(fmt::format("{}: \"{}\" twice", where, key));
    if (key == "gradients") {
      auto pack = readPack<T>(in, where + ".gradients", limits);
      if (!pack) return std::unexpected(pack.error());
      gradients = std::move(*pack);
    } else if (key == "programs_run") {
      auto count = in.count();
      if (!count) return fail(fmt::format("{}.programs_run: {}", where, count.error().message));
      programsRun = static_cast<std::size_t>(*count);
    } else if (key == "error") {
      auto message = readError(in, where + ".error");
      if (!message) return std::unexpected(message.error());
      error = std::move(*message);
    } else {
      return fail(fmt::format("{}: unknown key {}; a pass result has gradients, programs_run or error", where, quote(key)));
    }
  }
  if (error) {
    if (gradients || programsRun) return fail(fmt::format("{}: an error has no other keys", where));
    results.push_back(fail("the engine's pass failed: " + *error));
    return {};
  }
  if (!gradients) return fail(fmt::format("{}: missing \"gradients\"", where));
  results.push_back(SingleOutputResult<T>{std::move(*gradients), programsRun});
  return {};
}

// How an engine's worker ended, from an answer's "crashed": {"signal": N} or {"status": N}, as
// endDescription words it.
inline Result<std::string> readCrash(JsonReader& in) {
  const char* expected = "\"crashed\" must be {\"signal\": N} (1 to 64) or {\"status\": N} (0 to 255)";
  if (!in.beginObject()) return fail(expected);
  std::string key;
  auto more = in.nextKey(key);
  if (!more || !*more || (key != "signal" && key != "status")) return fail(expected);
  auto number = in.count();
  if (!number || *number > (key == "signal" ? 64u : 255u) || (key == "signal" && *number == 0)) return fail(expected);
  more = in.nextKey(key);
  if (!more || *more) return fail(expected);
  return endDescription(key == "signal", static_cast<int>(*number));
}

}  // namespace detail

template <class T>
std::string caseText(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  Case<T> c{graph, inputs, data, graph.positionCount() - 1, {}, {}};
  return caseToJson(c).dump();
}

template <class T>
std::string densePassText(const Pack<T>& seeds) {
  std::string out = "{\"dense\":[";
  for (std::size_t p = 0; p < seeds.size(); ++p) {
    if (p) out += ',';
    detail::appendValues(out, seeds[p].values);
  }
  return out + "]}";
}

template <class T>
std::string singlePassText(std::size_t output, const Tensor<T>& seed) {
  std::string out = fmt::format("{{\"single\":{{\"output\":{},\"seed\":", output);
  detail::appendValues(out, seed.values);
  return out + "}}";
}

namespace detail {

// decodeAnswer without the "answer ID: " its errors start with.
template <class T>
Result<DecodedAnswer<T>> readAnswer(std::string_view line, std::size_t expectedId, const AnswerLimits& limits) {
  JsonReader in(line);
  if (!in.beginObject())
    return fail(fmt::format("an answer must be a JSON object, got {} (standard output is the protocol's: write anything "
                            "else to standard error)",
                            quote(line, 80)));
  DecodedAnswer<T> out;
  std::optional<std::uint64_t> id;
  bool hasContext = false, hasPasses = false;
  std::string key;
  for (;;) {
    auto more = in.nextKey(key);
    if (!more) return fail("not JSON: " + more.error().message);
    if (!*more) break;
    if ((key == "id" && id) || (key == "context" && hasContext) || (key == "passes" && hasPasses) ||
        (key == "error" && out.error) || (key == "unsupported" && out.unsupported) || (key == "crashed" && out.crashed))
      return fail(fmt::format("\"{}\" twice", key));
    if (key == "id") {
      auto count = in.count();
      if (!count) return fail("\"id\": " + count.error().message);
      id = *count;
    } else if (key == "context") {
      auto context = readPack<T>(in, "context", limits);
      if (!context) return std::unexpected(context.error());
      out.context = std::move(*context), hasContext = true;
    } else if (key == "passes") {
      if (!in.beginArray()) return fail(fmt::format("\"passes\" must be a list, got {}", in.nextKind()));
      for (;;) {
        auto next = in.nextElement();
        if (!next) return fail("not JSON: " + next.error().message);
        if (!*next) break;
        if (out.passes.size() == limits.passes)
          return fail(fmt::format("\"passes\" must hold {} results, one per requested pass, got more", limits.passes));
        if (auto pass = readPassResult<T>(in, fmt::format("passes[{}]", out.passes.size()), limits, out.passes); !pass)
          return std::unexpected(pass.error());
      }
      hasPasses = true;
    } else if (key == "error") {
      auto message = readError(in, "error");
      if (!message) return std::unexpected(message.error());
      out.error = "the engine failed: " + *message;
    } else if (key == "unsupported") {
      auto op = in.string();
      if (!op) return fail("\"unsupported\" must name the op: " + op.error().message);
      out.unsupported = std::move(*op);
    } else if (key == "crashed") {
      auto ending = detail::readCrash(in);
      if (!ending) return std::unexpected(ending.error());
      out.crashed = std::move(*ending);
    } else {
      return fail(fmt::format("unknown key {}; an answer has id, context, passes, error, unsupported or crashed", quote(key)));
    }
  }
  if (auto end = in.end(); !end) return fail("not JSON: " + end.error().message);
  if (!id) return fail("no \"id\"");
  if (*id != expectedId) return fail(fmt::format("\"id\" is {} (answers come in request order)", *id));
  const int outcomes = hasContext + out.error.has_value() + out.unsupported.has_value() + out.crashed.has_value();
  if (outcomes == 0) return fail("missing \"context\" (or \"error\", \"unsupported\" or \"crashed\")");
  if (outcomes > 1) return fail("an answer has one of \"context\", \"error\", \"unsupported\" and \"crashed\"");
  if (hasContext && out.passes.size() != limits.passes)
    return fail(fmt::format("\"passes\" must hold {} results, one per requested pass, got {}", limits.passes,
                            out.passes.size()));
  return out;
}

}  // namespace detail

template <class T>
Result<DecodedAnswer<T>> decodeAnswer(std::string_view line, std::size_t expectedId, const AnswerLimits& limits) {
  auto answer = detail::readAnswer<T>(line, expectedId, limits);
  if (!answer) return fail(fmt::format("answer {}: {}", expectedId, answer.error().message));
  return answer;
}

template <class T>
Result<PlannedPass<T>> decodePass(const nlohmann::json& pass, const Graph<T>& graph, const std::string& where) {
  if (pass.is_object() && pass.size() == 1 && pass.contains("dense")) {
    const auto& seeds = pass["dense"];
    if (!seeds.is_array() || seeds.size() != graph.positionCount())
      return fail(fmt::format("{}: \"dense\" needs one value array per position ({})", where, graph.positionCount()));
    PlannedPass<T> out;
    for (std::size_t p = 0; p < seeds.size(); ++p) {
      auto tensor = valuesFromJson<T>(seeds[p], graph.shapeAt(p), fmt::format("{}.dense[{}]", where, p));
      if (!tensor) return std::unexpected(tensor.error());
      out.seeds.push_back(std::move(*tensor));
    }
    return out;
  }
  if (pass.is_object() && pass.size() == 1 && pass.contains("single")) {
    const auto& single = pass["single"];
    if (!single.is_object() || !single.contains("output") || !single["output"].is_number_unsigned() ||
        single["output"].get<std::size_t>() >= graph.positionCount() || !single.contains("seed"))
      return fail(fmt::format("{}: \"single\" needs an \"output\" position and its \"seed\"", where));
    PlannedPass<T> out{true, {}, single["output"].get<std::size_t>(), {}};
    auto seed = valuesFromJson<T>(single["seed"], graph.shapeAt(out.output), where + ".single.seed");
    if (!seed) return std::unexpected(seed.error());
    out.seed = std::move(*seed);
    return out;
  }
  return fail(fmt::format("{}: a pass is {{\"dense\": ...}} or {{\"single\": ...}}, got {}", where, quote(pass.dump(), 80)));
}

template <class T>
std::string encodeAnswer(std::size_t id, const Context<T>& context,
                         const std::vector<Result<SingleOutputResult<T>>>& passes) {
  auto appendPack = [](std::string& out, const Pack<T>& pack) {
    out += '[';
    for (std::size_t p = 0; p < pack.size(); ++p) {
      out += p ? ",{\"shape\":[" : "{\"shape\":[";
      for (std::size_t d = 0; d < pack[p].shape.size(); ++d) {
        if (d) out += ',';
        out += std::to_string(pack[p].shape[d]);
      }
      out += "],\"values\":";
      detail::appendValues(out, pack[p].values);
      out += '}';
    }
    out += ']';
  };
  std::string out = fmt::format("{{\"id\":{},\"context\":", id);
  appendPack(out, context);
  out += ",\"passes\":[";
  for (std::size_t k = 0; k < passes.size(); ++k) {
    if (k) out += ',';
    if (!passes[k]) {
      out += "{\"error\":{\"message\":" + nlohmann::json(passes[k].error().message).dump() + "}}";
      continue;
    }
    out += "{\"gradients\":";
    appendPack(out, passes[k]->gradients);
    if (passes[k]->programsRun) out += fmt::format(",\"programs_run\":{}", *passes[k]->programsRun);
    out += '}';
  }
  return out + "]}";
}

}  // namespace tc::process
