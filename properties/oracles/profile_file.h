#pragma once
// Oracle for engine profile files (docs/semantics.md §3.6): a profile an engine or a user declares
// is read as it says. tapecheck's own engines have the `spec` profile and never read one, so on a
// default run the reader would go unchecked — yet every foreign engine is judged by what it reads:
// a reader that swaps "below" and "above" of a deviation, or reads "nan": "propagate" as the
// specification's NaN rules, judges PyTorch by conventions it never declared.
// So on every case this property declares a profile made from the case (its carrier and ops, kink
// choices by position, each convention and default by a parity of the case, a deviation region
// from its values on IEEE carriers), writes it as JSON text here — a second statement of the keys
// and forms of §3.6, sharing nothing with profile_json.cpp's writer — and checks that
// profileFromJson reads what was declared, field by field; then that profileToJson's own file of
// the declared profile reads back to it too.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/carriers/dispatch.h"
#include "core/ops/library.hpp"
#include "properties/compare.hpp"
#include "properties/engines/profile_json.h"

namespace tc::props {
namespace declared_profile {

//! A JSON string literal of plain ASCII text (the names written here need no escapes).
inline std::string jsonString(std::string_view text) { return fmt::format("\"{}\"", text); }

//! A profile declared from a case, and the JSON text that declares it.
struct Declared {
  EngineProfile profile;
  std::string text;
};

//! The first node of `graph` of a pointwise op of one argument whose first argument holds a
//! finite value, and that value: where a deviation region is drawn.
template <class T>
std::optional<std::pair<OpKind, double>> deviationSite(const Case<T>& c) {
  if constexpr (!std::is_floating_point_v<T>) {
    return std::nullopt;
  } else {
    for (std::size_t k = 0; k < c.graph.nodes.size(); ++k) {
      const Node<T>& node = c.graph.nodes[k];
      if (!ops::isPointwise(node.op) || ops::arity(node.op, Attrs<double>{}) != 1) continue;
      for (const Tensor<T>& input : *c.inputs)
        for (const T& v : input.values)
          if (std::isfinite(v)) return std::pair{node.op, static_cast<double>(v)};
    }
    return std::nullopt;
  }
}

//! The profile this case declares: each key written or left out by a parity of the case (left
//! out, the `spec` profile's value, or every carrier but interval for "carriers").
template <class T>
Declared declare(const Case<T>& c) {
  const std::string carrier(Carrier<T>::name);
  const std::size_t nodes = c.graph.nodes.size(), inputs = c.graph.inputs.size();
  EngineProfile p;
  std::vector<std::string> keys;
  p.name = fmt::format("declared by a case of {} nodes", nodes);
  keys.push_back("\"name\": " + jsonString(p.name));
  if (nodes % 3 != 2) {
    p.carriers = {carrier};
    if (carrier != "rational" && nodes % 3 == 1) p.carriers.push_back("rational");
    std::vector<std::string> names;
    for (const std::string& name : p.carriers) names.push_back(jsonString(name));
    keys.push_back(fmt::format("\"carriers\": [{}]", fmt::join(names, ", ")));
  } else {
    for (const std::string& name : kCarrierNames)
      if (name != "interval") p.carriers.push_back(name);
  }
  std::vector<OpKind> listed;
  for (const Node<T>& node : c.graph.nodes)
    if (std::find(listed.begin(), listed.end(), node.op) == listed.end()) listed.push_back(node.op);
  if (!listed.empty()) {
    p.ops[carrier] = listed;
    std::vector<std::string> names;
    for (OpKind op : listed) names.push_back(jsonString(opName(op)));
    keys.push_back(fmt::format("\"ops\": {{{}: [{}]}}", jsonString(carrier), fmt::join(names, ", ")));
  }
  if (inputs % 2 == 0 || nodes % 2 == 1) {
    p.singleOutput = nodes % 2 == 1 ? SingleOutput::ancestors : SingleOutput::support;
    keys.push_back(fmt::format("\"single_output\": {}", jsonString(nodes % 2 == 1 ? "ancestors" : "support")));
  }
  if (inputs % 2 == 1 || nodes % 4 < 2) {
    p.zeroSign = inputs % 2 == 1 ? ZeroSign::unspecified : ZeroSign::spec;
    keys.push_back(fmt::format("\"zero_sign\": {}", jsonString(inputs % 2 == 1 ? "unspecified" : "spec")));
  }
  if (c.output % 3 != 0) {
    p.conventions.nanPropagates = c.output % 3 == 1;
    keys.push_back(fmt::format("\"nan\": {}", jsonString(c.output % 3 == 1 ? "propagate" : "spec")));
  }
  if (c.output % 2 == 1 || nodes % 5 == 0) {
    p.kinkConventionsDeclared = c.output % 2 == 0;
    keys.push_back(fmt::format("\"kink_conventions_declared\": {}", c.output % 2 == 0 ? "true" : "false"));
  }
  std::vector<std::string> kinks;
  std::vector<bool> stated(kOpCount, false);  // an op's choice is declared once, at its first node
  for (std::size_t k = 0; k < nodes; ++k) {
    const OpKind op = c.graph.nodes[k].op;
    auto choices = ops::kinkChoices(op);
    if (choices.empty() || stated[static_cast<std::size_t>(op)]) continue;
    stated[static_cast<std::size_t>(op)] = true;
    const std::size_t choice = (inputs + k) % choices.size();
    p.conventions.kink[static_cast<std::size_t>(op)] = static_cast<std::uint8_t>(choice);
    kinks.push_back(fmt::format("{}: {}", jsonString(opName(op)), jsonString(choices[choice])));
  }
  if (!kinks.empty()) keys.push_back(fmt::format("\"kinks\": {{{}}}", fmt::join(kinks, ", ")));
  if (auto site = deviationSite(c)) {
    // A region on the site's value: below it, above it, or both around it; the op gives a
    // constant or its argument. Numbers are written as the file format's literals, in hex.
    const auto [op, x] = *site;
    Deviation d{carrier, op, std::nullopt, std::nullopt, 0, "a region declared by the case", false};
    std::vector<std::string> entry{fmt::format("\"op\": {}", jsonString(opName(op))),
                                   fmt::format("\"carriers\": [{}]", jsonString(carrier))};
    if (nodes % 3 != 1) d.below = x, entry.push_back(fmt::format("\"below\": \"{:a}\"", x));
    if (nodes % 3 != 0) d.above = x - 1, entry.push_back(fmt::format("\"above\": \"{:a}\"", x - 1));
    if (inputs % 2 == 0) {
      d.givesArgument = true;
      entry.push_back("\"gives\": \"x\"");
    } else {
      d.gives = -x;
      entry.push_back(fmt::format("\"gives\": \"{:a}\"", -x));
    }
    entry.push_back("\"why\": " + jsonString(d.why));
    p.deviations.push_back(d);
    keys.push_back(fmt::format("\"deviations\": [{{{}}}]", fmt::join(entry, ", ")));
  }
  std::reverse(keys.begin() + 1, keys.end());  // key order does not matter: written backwards
  return {p, "{" + fmt::format("{}", fmt::join(keys, ", ")) + "}"};
}

inline std::string describe(std::optional<double> bound) { return bound ? fmt::format("{:a}", *bound) : "none"; }

//! The first field in which `read` is not `declared`, as "field: declared …, read …"; empty if none.
inline std::string difference(const EngineProfile& declared, const EngineProfile& read) {
  auto differs = [](std::string_view field, const auto& was, const auto& is) {
    return fmt::format("{}: declared {}, read {}", field, was, is);
  };
  if (read.name != declared.name) return differs("name", jsonString(declared.name), jsonString(read.name));
  if (read.carriers != declared.carriers)
    return differs("carriers", fmt::format("{}", declared.carriers), fmt::format("{}", read.carriers));
  if (read.ops.size() != declared.ops.size()) return differs("ops", fmt::format("{} carriers", declared.ops.size()),
                                                             fmt::format("{}", read.ops.size()));
  for (const auto& [carrier, list] : declared.ops) {
    auto found = read.ops.find(carrier);
    if (found == read.ops.end() || found->second != list) return fmt::format("ops.{}: not read as declared", carrier);
  }
  if (read.singleOutput != declared.singleOutput) return "single_output: not read as declared";
  if (read.zeroSign != declared.zeroSign) return "zero_sign: not read as declared";
  if (read.conventions.nanPropagates != declared.conventions.nanPropagates)
    return differs("nan", declared.conventions.nanPropagates ? "propagate" : "spec",
                   read.conventions.nanPropagates ? "propagate" : "spec");
  for (std::size_t k = 0; k < kOpCount; ++k)
    if (read.conventions.kink[k] != declared.conventions.kink[k]) {
      auto choices = ops::kinkChoices(static_cast<OpKind>(k));
      auto name = [&](std::uint8_t i) { return i < choices.size() ? std::string(choices[i]) : fmt::format("#{}", i); };
      return differs(fmt::format("kinks.{}", opName(static_cast<OpKind>(k))), name(declared.conventions.kink[k]),
                     name(read.conventions.kink[k]));
    }
  if (read.kinkConventionsDeclared != declared.kinkConventionsDeclared) return "kink_conventions_declared: not read as declared";
  if (read.deviations.size() != declared.deviations.size())
    return differs("deviations", declared.deviations.size(), read.deviations.size());
  for (std::size_t i = 0; i < declared.deviations.size(); ++i) {
    const Deviation &was = declared.deviations[i], &is = read.deviations[i];
    const std::string at = fmt::format("deviations[{}]", i);
    if (is.carrier != was.carrier || is.op != was.op) return at + ": another op or carrier";
    if (is.below != was.below) return differs(at + ".below", describe(was.below), describe(is.below));
    if (is.above != was.above) return differs(at + ".above", describe(was.above), describe(is.above));
    if (is.givesArgument != was.givesArgument || (!was.givesArgument && std::bit_cast<std::uint64_t>(is.gives) !=
                                                                            std::bit_cast<std::uint64_t>(was.gives)))
      return differs(at + ".gives", was.givesArgument ? "x" : fmt::format("{:a}", was.gives),
                     is.givesArgument ? "x" : fmt::format("{:a}", is.gives));
    if (is.why != was.why) return differs(at + ".why", jsonString(was.why), jsonString(is.why));
  }
  return {};
}

}  // namespace declared_profile

//! The profile declared by the case reads as declared, from this property's own text and from
//! profileToJson's.
template <class T>
Verdict profile_file(const Case<T>& c) {
  if (!c.inputs) return Verdict::skip("the case gives no input values");
  const declared_profile::Declared declared = declared_profile::declare(c);
  const nlohmann::json parsed = nlohmann::json::parse(declared.text, nullptr, false);
  if (parsed.is_discarded()) return Verdict::fail("the declared profile is not JSON (a fault in this property): " + declared.text);
  Result<EngineProfile> read = profileFromJson(parsed);
  if (!read) return Verdict::fail(fmt::format("the profile {} is refused: {}", declared.text, read.error().message));
  if (std::string change = declared_profile::difference(declared.profile, *read); !change.empty())
    return Verdict::fail(fmt::format("the profile {} is misread: {}", declared.text, change));
  const std::string written = profileToJson(declared.profile).dump();
  Result<EngineProfile> reread = profileFromJson(nlohmann::json::parse(written));
  if (!reread) return Verdict::fail(fmt::format("profileToJson's file {} is refused: {}", written, reread.error().message));
  if (std::string change = declared_profile::difference(declared.profile, *reread); !change.empty())
    return Verdict::fail(fmt::format("profileToJson's file {} reads back otherwise: {}", written, change));
  return Verdict::pass();
}

}  // namespace tc::props
