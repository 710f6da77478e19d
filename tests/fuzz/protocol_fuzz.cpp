#include "tests/fuzz/protocol_fuzz.h"

#include <algorithm>
#include <cstdlib>
#include <exception>

#include <fmt/format.h>

#include "adapters/process/engine_process.h"
#include "adapters/process/protocol.hpp"
#include "core/graph/builder.h"
#include "tests/fuzz/finding.h"

namespace tc::fuzz {
namespace {

// The case every answer is read for: inputs [2] and [2], their sum and its total.
template <class T>
const Graph<T>& fuzzedCase() {
  static const Graph<T> graph = [] {
    auto builder = GraphBuilder<T>::create({Shape{2}, Shape{2}});
    if (!builder || !builder->add(OpKind::add, {0, 1}) || !builder->add(OpKind::sum, {2})) std::abort();
    return std::move(*builder).build();
  }();
  return graph;
}

// The limits an answer holds exactly: its pass results, and the most tensors and values of any of its
// packs; nothing when a tensor's values do not fill its shape.
template <class T>
std::optional<process::AnswerLimits> heldBy(const process::DecodedAnswer<T>& answer) {
  process::AnswerLimits held{answer.passes.size(), 0, 0};
  auto hold = [&](const Pack<T>& pack) {
    std::size_t values = 0;
    for (const Tensor<T>& tensor : pack) {
      if (tensor.values.size() != elementCount(tensor.shape)) return false;
      values += tensor.values.size();
    }
    held.positions = std::max(held.positions, pack.size()), held.values = std::max(held.values, values);
    return true;
  };
  if (!hold(answer.context)) return std::nullopt;
  for (const auto& pass : answer.passes)
    if (pass && !hold(pass->gradients)) return std::nullopt;
  return held;
}

template <class T>
std::optional<std::string> answerFinding(std::string_view line, const process::AnswerLimits& limits) {
  auto answer = process::decodeAnswer<T>(line, 1, limits);
  if (!answer) {
    if (auto finding = unreadable("decodeAnswer", answer.error())) return finding;
    if (!answer.error().message.starts_with("answer 1: "))
      return "decodeAnswer: the error does not name the request: \"" + answer.error().message + "\"";
    return std::nullopt;
  }
  auto held = heldBy(*answer);
  if (!held) return "decodeAnswer accepted a tensor whose values do not fill its shape";
  const std::string within = fmt::format("within limits of {} passes, {} positions and {} values", limits.passes,
                                         limits.positions, limits.values);
  if (held->positions > limits.positions || held->values > limits.values)
    return "decodeAnswer accepted, " + within + ", an answer holding more";
  if (!answer->error && !answer->unsupported && held->passes != limits.passes)
    return "decodeAnswer accepted, " + within + ", an answer of " + std::to_string(held->passes) + " pass results";
  return std::nullopt;
}

// The limits are exact: an answer accepted is accepted within the limits it holds, and refused when
// any of them is one less.
template <class T>
std::optional<std::string> limitsAreExact(std::string_view line, const process::AnswerLimits& limits) {
  auto answer = process::decodeAnswer<T>(line, 1, limits);
  if (!answer || answer->error || answer->unsupported) return std::nullopt;
  auto held = heldBy(*answer);
  if (!held) return std::nullopt;  // answerFinding's
  if (!process::decodeAnswer<T>(line, 1, *held))
    return fmt::format("decodeAnswer refused an answer within the limits it holds ({} passes, {} positions, {} values)",
                       held->passes, held->positions, held->values);
  for (std::size_t process::AnswerLimits::*limit :
       {&process::AnswerLimits::passes, &process::AnswerLimits::positions, &process::AnswerLimits::values}) {
    process::AnswerLimits less = *held;
    if (less.*limit == 0) continue;
    --(less.*limit);
    if (process::decodeAnswer<T>(line, 1, less))
      return fmt::format("decodeAnswer accepted an answer past its limits ({} passes, {} positions, {} values)",
                         less.passes, less.positions, less.values);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> protocolFindingIn(std::string_view text) {
  const std::size_t helloEnd = std::min(text.find('\n'), text.size());
  try {
    auto hello = process::helloFromLine(text.substr(0, helloEnd));
    if (!hello) {
      if (auto finding = unreadable("helloFromLine", hello.error())) return finding;
    }
  } catch (const std::exception& e) {
    return std::string("helloFromLine: an exception escaped: ") + e.what();
  }
  for (std::size_t start = helloEnd + 1; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    auto finding = onEveryCarrier([&]<class T>() -> std::optional<std::string> {
      for (std::size_t passes : {std::size_t{0}, std::size_t{2}}) {
        const process::AnswerLimits limits = process::answerLimits(fuzzedCase<T>(), passes);
        if (auto found = answerFinding<T>(line, limits)) return found;
        if (auto found = limitsAreExact<T>(line, limits)) return found;
      }
      return std::nullopt;
    });
    if (finding) return "answer line \"" + std::string(line.substr(0, 200)) + "\": " + *finding;
  }
  return std::nullopt;
}

}  // namespace tc::fuzz
