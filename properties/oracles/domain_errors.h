#pragma once
// Oracle: the engine refuses a case exactly where the domain table (properties/oracles/domain_table.h,
// written apart from the ops' validation) says the first node leaves its op's domain, and its
// error is the whole message the specification gives — "node P (op): " and the table's reason, P
// counting the inputs — put together here rather than by the formatter every layer shares (an
// engine in another process may name the node by the protocol's position instead and word the
// reason its own way: expectedError). A case inside every
// domain must compile. The values each node's arguments hold come from the reference, node by
// node; the refusals of the exact carriers' bit ceiling, a limit of tapecheck rather than a
// domain, are recognised by their reason and skipped. Then every node with a domain that the case
// reaches is cut out as a one-node case and run with its constrained argument's first element at
// each boundary value (0, −0, NaN, ±inf, the smallest subnormal, ±1): drawn values seldom land
// there, and a check that lets NaN through shows only where one does.
#include <string>

#include "core/graph/node_program.h"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/oracles/domain_table.h"
#include "properties/engines/engine_under_test.h"
#include "properties/oracles/node_case.h"

namespace tc::props {
namespace domains {

//! Where the walk of a case's nodes stopped: the first node whose arguments the table puts
//! outside its op's domain (with the argument position and element), or the first node the
//! reference refused although the table does not (with its error), or neither.
template <class T>
struct FirstRefusal {
  std::optional<std::size_t> outside;
  std::size_t argument = 0, element = 0;
  std::string needs, value;
  std::optional<std::size_t> unexplained;
  std::string error;
  Context<T> context;  //!< the values of the positions before the stop
};

template <class T>
FirstRefusal<T> firstRefusal(const Case<T>& c) {
  Context<T> context(c.inputs->begin(), c.inputs->end());
  for (std::size_t k = c.graph.inputs.size(); k < c.graph.positionCount(); ++k) {
    const Node<T>& node = c.graph.nodeAt(k);
    if (const Row<T>* row = rowOf<T>(opName(node.op)))
      if (auto i = firstOutside(*row, context[node.args[row->argument]]))
        return {k, node.args[row->argument], *i, std::string(row->needs),
                displayValue(context[node.args[row->argument]][*i]), std::nullopt, {}, std::move(context)};
    auto value = validateAndForward(c.graph, std::span<const Tensor<T>>(context), c.data, k);
    if (!value) return {std::nullopt, 0, 0, {}, {}, k, value.error().message, std::move(context)};
    context.push_back(std::move(*value));
  }
  FirstRefusal<T> none;
  none.context = std::move(context);
  return none;
}

//! "node 5 (log): ", as the specification names a node in an error, written here on its own.
inline std::string expectedPrefix(std::size_t position, std::string_view op) {
  return "node " + std::to_string(position) + " (" + std::string(op) + "): ";
}

//! "node 5 (log): input contains values <= 0 or NaN": the whole error the specification gives
//! when node `position` leaves `row`'s domain, written here from the domain table, apart from the
//! formatter every layer shares.
template <class T>
std::string expectedMessage(std::size_t position, const Row<T>& row) {
  return expectedPrefix(position, row.op) + std::string(row.reason);
}

//! What the process adapter puts before an error an engine in another process answers.
inline constexpr std::string_view kFromProcess = "the engine failed: ";

//! The error an engine must give when node `position` leaves `row`'s domain, as a failure quotes
//! it: tapecheck's own engines give expectedMessage whole; an engine in another process (its error
//! starts with kFromProcess) gives it whole after that prefix, or names the node by the protocol's
//! position (docs/engine-protocol.md §4: "position P: " and a reason in its own words).
template <class T>
std::string expectedError(std::size_t position, const Row<T>& row, std::string_view message) {
  if (!message.starts_with(kFromProcess)) return "'" + expectedMessage(position, row) + "'";
  return fmt::format("'{}{}', or '{}position {}: ' and a reason", kFromProcess, expectedMessage(position, row),
                     kFromProcess, position);
}

//! Whether an engine's error is the one node `position` leaving `row`'s domain must give
//! (expectedError): compared in full, but for the reason's words after a protocol position, which
//! must be exact and followed by some reason.
template <class T>
bool isExpectedError(std::string_view message, std::size_t position, const Row<T>& row) {
  const std::string whole = expectedMessage(position, row);
  if (message == whole) return true;
  if (!message.starts_with(kFromProcess)) return false;
  message.remove_prefix(kFromProcess.size());
  const std::string byPosition = "position " + std::to_string(position) + ": ";
  return message == whole || (message.starts_with(byPosition) && message.size() > byPosition.size());
}

//! Node k alone on the engine with element 0 of its constrained argument at each boundary value:
//! refused exactly where the table says, naming the node; nullopt when every probe agrees.
template <class T>
std::optional<Verdict> boundaryDifference(const EngineUnderTest<T>& subject, const Graph<T>& graph,
                                          const Context<T>& context, std::size_t k, const Row<T>& row) {
  const NodeCase<T> cut = nodeCase(graph, context, k);
  const std::size_t source = graph.nodeAt(k).args[row.argument];
  const std::size_t j = static_cast<std::size_t>(std::find(cut.sources.begin(), cut.sources.end(), source) - cut.sources.begin());
  if (cut.inputs[j].size() == 0) return std::nullopt;
  const std::size_t position = cut.graph.inputs.size();
  for (const T& b : boundaryValues<T>()) {
    Pack<T> inputs = cut.inputs;
    inputs[j].values[0] = b;
    const bool outside = firstOutside(row, inputs[j]).has_value();
    auto execution = subject.engine.compile(cut.graph, inputs, Data<T>{});
    const std::string probe = fmt::format("{} alone (node {} of its own case) with element 0 of its argument at {}",
                                          describeNode(graph, k), position, displayValue(b));
    if (outside && execution)
      return Verdict::fail(fmt::format("{}: {} compiles it, but {} needs {}", probe, subject.engine.name(), row.op, row.needs), {k});
    if (outside && !isExpectedError(execution.error().message, position, row))
      return Verdict::fail(fmt::format("{}: {} refuses it with '{}', not {}", probe, subject.engine.name(),
                                       execution.error().message, expectedError(position, row, execution.error().message)),
                           {k});
    if (!outside && !execution)
      return Verdict::fail(fmt::format("{}: {} refuses it ('{}'), but it is inside the domain ({} needs {})", probe,
                                       subject.engine.name(), execution.error().message, row.op, row.needs),
                           {k});
  }
  return std::nullopt;
}

//! The boundary probes of every node with a domain among those the walk evaluated.
template <class T>
std::optional<Verdict> boundaryDifferences(const EngineUnderTest<T>& subject, const Case<T>& c, const FirstRefusal<T>& walk) {
  for (std::size_t k = c.graph.inputs.size(); k < walk.context.size() && k < c.graph.positionCount(); ++k)
    if (const Row<T>* row = rowOf<T>(opName(c.graph.nodeAt(k).op)))
      if (auto failure = boundaryDifference(subject, c.graph, walk.context, k, *row)) return failure;
  return std::nullopt;
}

//! The first node among those the walk evaluated whose argument reaches a deviation the engine's
//! profile declares (§3.6): from there on the engine's values, and so its refusals, need not be the
//! reference's.
template <class T>
std::optional<std::size_t> firstDeclaredDeviation(const EngineProfile& profile, const Graph<T>& graph,
                                                  const Context<T>& context) {
  if constexpr (std::is_floating_point_v<T>) {
    if (profile.deviations.empty()) return std::nullopt;
    for (std::size_t k = graph.inputs.size(); k < context.size() && k < graph.positionCount(); ++k) {
      const Node<T>& node = graph.nodeAt(k);
      if (node.args.size() != 1 || node.args[0] >= context.size()) continue;
      for (T x : context[node.args[0]].values)
        if (profile.deviationAt(Carrier<T>::name, node.op, static_cast<double>(x))) return k;
    }
  }
  return std::nullopt;
}

}  // namespace domains

template <class T>
Verdict domain_errors(const EngineUnderTest<T>& subject, const Case<T>& c) {
  const domains::FirstRefusal<T> refusal = domains::firstRefusal(c);
  if (refusal.unexplained) {
    if (refusal.error.find("exact carriers' ceiling") != std::string::npos) return Verdict::skip("exact-bit ceiling");
    return Verdict::fail(fmt::format("the reference refuses {}, whose arguments the domain table puts inside its "
                                     "domain: {}",
                                     describeNode(c.graph, *refusal.unexplained), refusal.error),
                         {*refusal.unexplained});
  }
  if (auto deviated = domains::firstDeclaredDeviation(*subject.profile, c.graph, refusal.context)) {
    if (auto probed = domains::boundaryDifferences(subject, c, refusal)) return *probed;
    return Verdict::skip("the case reaches a deviation the engine's profile declares");
  }
  auto execution = subject.engine.compile(c.graph, *c.inputs, c.data);
  if (!refusal.outside) {
    if (execution) return domains::boundaryDifferences(subject, c, refusal).value_or(Verdict::pass());
    return Verdict::fail(fmt::format("{} refuses a case inside every op's domain (by the domain table): {}",
                                     subject.engine.name(), execution.error().message),
                         positionsNamedBy(execution.error()));
  }
  const std::size_t p = *refusal.outside;
  const std::string op(opName(c.graph.nodeAt(p).op));
  const std::string where = fmt::format("{} needs {}, and element {} of its argument at position {} is {}", op,
                                        refusal.needs, refusal.element, refusal.argument, refusal.value);
  if (execution)
    return Verdict::fail(fmt::format("{} compiles the case, but node {} is outside its domain: {}", subject.engine.name(), p, where),
                         {p});
  const domains::Row<T>& row = *domains::rowOf<T>(op);
  if (!domains::isExpectedError(execution.error().message, p, row))
    return Verdict::fail(fmt::format("{} refuses the case with '{}', not {} ({})", subject.engine.name(),
                                     execution.error().message,
                                     domains::expectedError(p, row, execution.error().message), where),
                         {p});
  return domains::boundaryDifferences(subject, c, refusal).value_or(Verdict::pass());
}

}  // namespace tc::props
