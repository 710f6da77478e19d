#include "properties/engines/profile_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "core/carriers/dispatch.h"
#include "core/carriers/literal.h"
#include "core/ops/library.hpp"
#include "core/support/mutants.h"
#include "core/support/text.h"

namespace tc {
namespace {

using nlohmann::json;

// A string of the profile (its name, a deviation's why): text from an engine or a file, kept as
// outsideText makes it (one line, escaped and cut: docs/threat-model.md).
Result<std::string> stringAt(const json& object, const char* key, const std::string& where) {
  if (!object[key].is_string()) return fail(fmt::format("{}: must be a string, got {}", where, outsideText(object[key].dump(), 200)));
  return outsideText(object[key].get<std::string>());
}

// One of `allowed`, read from a string; the error lists them.
Result<std::size_t> choiceOf(const json& value, std::span<const std::string_view> allowed, const std::string& where) {
  if (value.is_string())
    for (std::size_t i = 0; i < allowed.size(); ++i)
      if (value.get<std::string>() == allowed[i]) return i;
  return fail(fmt::format("{}: must be one of {}, got {}", where, fmt::join(allowed, ", "), value.dump()));
}

Result<std::vector<OpKind>> opList(const json& value, const std::string& where) {
  if (!value.is_array()) return fail(fmt::format("{}: must be a list of op names, got {}", where, value.dump()));
  std::vector<OpKind> kinds;
  for (const json& name : value) {
    auto kind = name.is_string() ? opByName(name.get<std::string>()) : std::nullopt;
    if (!kind) return fail(fmt::format("{}: no op named {}", where, name.is_string() ? quote(name.get<std::string>()) : name.dump()));
    kinds.push_back(*kind);
  }
  return kinds;
}

Result<void> checkCarrier(const std::string& carrier, const std::string& where) {
  if (std::find(kCarrierNames.begin(), kCarrierNames.end(), carrier) == kCarrierNames.end())
    return fail(fmt::format("{}: no carrier named {}; the carriers are: {}", where, quote(carrier),
                            fmt::join(kCarrierNames, ", ")));
  return {};
}

Result<void> readCarriers(const json& value, EngineProfile& profile) {
  if (!value.is_array()) return fail("carriers: must be a list of carrier names, got " + value.dump());
  for (const json& name : value) {
    if (!name.is_string()) return fail("carriers: must be a list of carrier names, got " + value.dump());
    if (auto ok = checkCarrier(name.get<std::string>(), "carriers"); !ok) return ok;
    profile.carriers.push_back(name.get<std::string>());
  }
  return {};
}

// "ops": a list for every carrier the profile names (all carriers when it names none), or an
// object from carrier to list.
Result<void> readOps(const json& value, EngineProfile& profile) {
  if (value.is_array()) {
    auto kinds = opList(value, "ops");
    if (!kinds) return std::unexpected(kinds.error());
    for (const std::string& carrier : profile.carriers.empty() ? kCarrierNames : profile.carriers)
      profile.ops[carrier] = *kinds;
    return {};
  }
  if (!value.is_object()) return fail("ops: must be a list of op names or an object from carrier to list, got " + value.dump());
  for (const auto& [carrier, list] : value.items()) {
    if (auto ok = checkCarrier(carrier, "ops"); !ok) return ok;
    auto kinds = opList(list, "ops." + carrier);
    if (!kinds) return std::unexpected(kinds.error());
    profile.ops[carrier] = *kinds;
  }
  return {};
}

Result<void> readKinks(const json& value, Conventions& conventions) {
  if (!value.is_object()) return fail("kinks: must be an object from op name to choice, got " + value.dump());
  for (const auto& [name, choice] : value.items()) {
    auto kind = opByName(name);
    if (!kind) return fail(fmt::format("kinks: no op named {}", quote(name)));
    auto choices = ops::kinkChoices(*kind);
    if (choices.empty()) return fail(fmt::format("kinks.{}: the op has no kinks", name));
    auto index = choice.is_string() ? ops::kinkChoiceIndex(*kind, choice.get<std::string>()) : std::nullopt;
    if (!index)
      return fail(fmt::format("kinks.{}: must be one of {}, got {}", name, fmt::join(choices, ", "), choice.dump()));
    conventions.kink[static_cast<std::size_t>(*kind)] = *index;
  }
  return {};
}

// A number of a deviation: a JSON number, or a string in the file format's literal forms as a
// double ("-709.78", "0x1p-1074", "-0").
Result<double> deviationNumber(const json& value, const std::string& where) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    auto literal = parseLiteral(value.get<std::string>());
    if (!literal) return fail(fmt::format("{}: {}", where, literal.error().message));
    auto parsed = Carrier<double>::fromLiteral(*literal);
    if (!parsed) return fail(fmt::format("{}: {}", where, parsed.error().message));
    return *parsed;
  }
  return fail(fmt::format("{}: must be a number, got {}", where, value.dump()));
}

// "deviations": a list of {"op", "carriers", "below" and/or "above", "gives", "why"}, one Deviation
// per carrier named (double and float only: a deviation is from an accuracy budget).
Result<void> readDeviations(const json& value, EngineProfile& profile) {
  if (!value.is_array()) return fail("deviations: must be a list of objects, got " + value.dump());
  static const std::vector<std::string> keys{"op", "carriers", "below", "above", "gives", "why"};
  for (std::size_t n = 0; n < value.size(); ++n) {
    const json& entry = value[n];
    const std::string where = fmt::format("deviations[{}]", n);
    if (!entry.is_object()) return fail(where + ": must be an object, got " + entry.dump());
    for (const auto& [key, unused] : entry.items())
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        return fail(fmt::format("{}: no key {}; the keys are: {}", where, quote(key), fmt::join(keys, ", ")));
    for (const char* key : {"op", "carriers", "gives"})
      if (!entry.contains(key)) return fail(fmt::format("{}: needs \"{}\"", where, key));
    if (!entry.contains("below") && !entry.contains("above"))
      return fail(where + ": needs \"below\" or \"above\", the region of argument values");
    auto ops = opList(json::array({entry["op"]}), where + ".op");
    if (!ops) return std::unexpected(ops.error());
    if (!ops::isPointwise(ops->front()) || ops::arity(ops->front(), Attrs<double>{}) != 1)
      return fail(fmt::format("{}.op: {} is not a pointwise op of one argument", where, opName(ops->front())));
    Deviation deviation{"", ops->front(), std::nullopt, std::nullopt, 0, "", false};
    for (auto [key, bound] : {std::pair{"below", &deviation.below}, {"above", &deviation.above}})
      if (entry.contains(key)) {
        auto number = deviationNumber(entry[key], fmt::format("{}.{}", where, key));
        if (!number) return std::unexpected(number.error());
        *bound = *number;
      }
    if (entry["gives"] == "x") {
      deviation.givesArgument = true;
    } else {
      auto gives = deviationNumber(entry["gives"], where + ".gives");
      if (!gives) return fail(gives.error().message + " (or \"x\", the argument itself)");
      deviation.gives = *gives;
    }
    if (entry.contains("why")) {
      auto why = stringAt(entry, "why", where + ".why");
      if (!why) return std::unexpected(why.error());
      deviation.why = *why;
    }
    const json& carriers = entry["carriers"];
    if (!carriers.is_array() || carriers.empty())
      return fail(fmt::format("{}.carriers: must be a list of IEEE carriers, got {}", where, carriers.dump()));
    for (const json& carrier : carriers) {
      if (!carrier.is_string() || (carrier != "double" && carrier != "float"))
        return fail(fmt::format("{}.carriers: a deviation is from an accuracy budget, so on double or float; got {}",
                                where, carrier.dump()));
      deviation.carrier = carrier.get<std::string>();
      profile.deviations.push_back(deviation);
    }
  }
  return {};
}

constexpr std::string_view kSingleOutput[] = {"support", "ancestors"};
constexpr std::string_view kZeroSign[] = {"spec", "unspecified"};
constexpr std::string_view kNan[] = {"spec", "propagate"};

}  // namespace

EngineProfile builtInProfile(std::string_view owner, std::string_view jsonText) {
  auto read = profileFromJson(json::parse(jsonText));
  if (!read) throw std::logic_error(fmt::format("the {} profile does not read: {}", owner, read.error().message));
  return std::move(*read);
}

Result<EngineProfile> profileFromJson(const json& in) {
  if (!in.is_object()) return fail("a profile must be a JSON object, got " + in.dump());
  static const std::vector<std::string> keys{"name",  "carriers", "ops", "single_output", "zero_sign",
                                             "kinks", "nan",      "kink_conventions_declared", "deviations"};
  for (const auto& [key, value] : in.items())
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      return fail(fmt::format("no profile key {}; the keys are: {}", quote(key), fmt::join(keys, ", ")));
  EngineProfile profile;
  if (in.contains("name")) {
    auto name = stringAt(in, "name", "name");
    if (!name) return std::unexpected(name.error());
    profile.name = *name;
  }
  // Carriers before ops: a list of ops applies to the carriers the profile names. Without a list,
  // every carrier but interval: an engine's interval values must be MPFI's own at 257 bits, bit for
  // bit, which an engine does only on purpose, so it runs that carrier only by naming it.
  if (in.contains("carriers")) {
    if (auto ok = readCarriers(in["carriers"], profile); !ok) return std::unexpected(ok.error());
  } else {
    for (const std::string& carrier : kCarrierNames)
      if (carrier != Carrier<Interval>::name) profile.carriers.push_back(carrier);
  }
  if (in.contains("ops"))
    if (auto ok = readOps(in["ops"], profile); !ok) return std::unexpected(ok.error());
  if (in.contains("single_output")) {
    auto choice = choiceOf(in["single_output"], kSingleOutput, "single_output");
    if (!choice) return std::unexpected(choice.error());
    profile.singleOutput = static_cast<SingleOutput>(*choice);
  }
  if (in.contains("zero_sign")) {
    auto choice = choiceOf(in["zero_sign"], kZeroSign, "zero_sign");
    if (!choice) return std::unexpected(choice.error());
    profile.zeroSign = TC_MUTANT(profile_zero_sign_ignored) ? ZeroSign::spec : static_cast<ZeroSign>(*choice);  // the planted fault
  }
  if (in.contains("kinks"))
    if (auto ok = readKinks(in["kinks"], profile.conventions); !ok) return std::unexpected(ok.error());
  if (in.contains("nan")) {
    auto choice = choiceOf(in["nan"], kNan, "nan");
    if (!choice) return std::unexpected(choice.error());
    profile.conventions.nanPropagates = *choice == 1;
  }
  if (in.contains("kink_conventions_declared")) {
    if (!in["kink_conventions_declared"].is_boolean())
      return fail("kink_conventions_declared: must be true or false, got " + in["kink_conventions_declared"].dump());
    profile.kinkConventionsDeclared = in["kink_conventions_declared"].get<bool>();
  }
  if (in.contains("deviations"))
    if (auto ok = readDeviations(in["deviations"], profile); !ok) return std::unexpected(ok.error());
  return profile;
}

json profileToJson(const EngineProfile& profile) {
  json out{{"name", profile.name},
           {"carriers", profile.carriers},
           {"single_output", kSingleOutput[static_cast<std::size_t>(profile.singleOutput)]},
           {"zero_sign", kZeroSign[static_cast<std::size_t>(profile.zeroSign)]},
           {"nan", kNan[profile.conventions.nanPropagates ? 1 : 0]},
           {"kink_conventions_declared", profile.kinkConventionsDeclared}};
  json ops = json::object();
  for (const auto& [carrier, kinds] : profile.ops) {
    json names = json::array();
    for (OpKind kind : kinds) names.push_back(opName(kind));
    ops[carrier] = std::move(names);
  }
  out["ops"] = std::move(ops);
  json kinks = json::object();
  for (std::size_t k = 0; k < kOpCount; ++k) {
    auto choices = ops::kinkChoices(static_cast<OpKind>(k));
    if (!choices.empty()) kinks[std::string(opName(static_cast<OpKind>(k)))] = choices[profile.conventions.kink[k]];
  }
  out["kinks"] = std::move(kinks);
  if (!profile.deviations.empty()) {
    json deviations = json::array();
    for (const Deviation& d : profile.deviations) {
      json entry{{"op", opName(d.op)},
                 {"carriers", {d.carrier}},
                 {"gives", d.givesArgument ? std::string("x") : Carrier<double>::format(d.gives)}};
      if (d.below) entry["below"] = Carrier<double>::format(*d.below);
      if (d.above) entry["above"] = Carrier<double>::format(*d.above);
      if (!d.why.empty()) entry["why"] = d.why;
      deviations.push_back(std::move(entry));
    }
    out["deviations"] = std::move(deviations);
  }
  return out;
}

}  // namespace tc
