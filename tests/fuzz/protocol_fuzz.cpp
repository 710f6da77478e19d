#include "tests/fuzz/protocol_fuzz.h"

#include <algorithm>
#include <cstdlib>
#include <exception>

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

// Whether a pack accepted holds no more than `limits` allow, each tensor's values filling its shape.
template <class T>
bool withinLimits(const Pack<T>& pack, const process::AnswerLimits& limits) {
  std::size_t values = 0;
  for (const Tensor<T>& tensor : pack) {
    if (tensor.values.size() != elementCount(tensor.shape)) return false;
    values += tensor.values.size();
  }
  return pack.size() <= limits.positions && values <= limits.values;
}

template <class T>
std::optional<std::string> answerFinding(std::string_view line, std::size_t passes) {
  const process::AnswerLimits limits = process::answerLimits(fuzzedCase<T>(), passes);
  auto answer = process::decodeAnswer<T>(line, 1, limits);
  if (!answer) {
    if (auto finding = unreadable("decodeAnswer", answer.error())) return finding;
    if (!answer.error().message.starts_with("answer 1: "))
      return "decodeAnswer: the error does not name the request: \"" + answer.error().message + "\"";
    return std::nullopt;
  }
  const std::string accepted = "decodeAnswer accepted an answer to " + std::to_string(passes) + " passes ";
  if (!withinLimits(answer->context, limits)) return accepted + "whose context passes the limits";
  if (!answer->error && !answer->unsupported && answer->passes.size() != passes)
    return accepted + "with " + std::to_string(answer->passes.size()) + " pass results";
  for (const auto& pass : answer->passes)
    if (pass && !withinLimits(pass->gradients, limits)) return accepted + "whose gradients pass the limits";
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
    for (std::size_t passes : {std::size_t{0}, std::size_t{2}}) {
      auto finding = onEveryCarrier([&]<class T>() { return answerFinding<T>(line, passes); });
      if (finding) return "answer line \"" + std::string(line.substr(0, 200)) + "\": " + *finding;
    }
  }
  return std::nullopt;
}

}  // namespace tc::fuzz
