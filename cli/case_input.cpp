#include "cli/case_input.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "core/io/document_format.h"
#include "properties/engines/profile_json.h"
#include "core/support/text.h"

namespace tc::cli {
namespace {

// The failure object's "positions" (none when absent): non-negative integers.
Result<std::set<std::size_t>> blamedPositionsOf(const nlohmann::json& failure) {
  std::set<std::size_t> positions;
  if (!failure.contains("positions")) return positions;
  const nlohmann::json& list = failure["positions"];
  if (!list.is_array()) return fail("failure.positions: must be an array of positions");
  for (const nlohmann::json& p : list) {
    if (!p.is_number_unsigned()) return fail("failure.positions: must be an array of positions");
    positions.insert(p.get<std::size_t>());
  }
  return positions;
}

}  // namespace

Result<CaseInput> readCaseInput(const std::string& path, const MemoryBound& bound) {
  // A file larger than the bound is refused before its text is read.
  std::error_code error;
  if (const auto size = std::filesystem::file_size(path, error); !error && static_cast<double>(size) > bound.bytes)
    return fail(path + ": " + readingPassesBound(static_cast<double>(size), bound));
  auto text = readTextFile(path);
  if (!text) return std::unexpected(text.error());
  auto doc = parseJsonDocument(*text, bound);
  if (!doc) return fail(path + ": " + doc.error().message);
  CaseInput input{path, std::move(*doc), {}, {}, {}, {}, {}, {}, {}, {}};
  if (!input.doc.is_object() || !input.doc.contains("failure")) return input;
  const nlohmann::json& failure = input.doc["failure"];
  if (!failure.is_object()) return fail(path + ": failure: must be an object");
  for (auto [key, field] : {std::pair{"property", &input.property}, {"carrier", &input.carrier}, {"engine", &input.engine},
                            {"engine_cmd", &input.engineCommand}, {"domain", &input.domain}, {"policy", &input.policy}}) {
    if (!failure.contains(key)) continue;
    if (!failure[key].is_string()) return fail(fmt::format("{}: failure.{}: must be a string", path, key));
    *field = outsideText(failure[key].get<std::string>());  // a file's text: shown, never run
  }
  if (failure.contains("profile")) {
    if (!failure["profile"].is_object()) return fail(path + ": failure.profile: must be an object");
    input.profile = failure["profile"];
  }
  auto positions = blamedPositionsOf(failure);
  if (!positions) return fail(path + ": " + positions.error().message);
  input.positions = std::move(*positions);
  return input;
}

namespace {

Result<EngineProfile> readProfile(const std::string& path) {
  if (path.empty()) return EngineProfile{};
  auto text = readTextFile(path);
  if (!text) return std::unexpected(text.error());
  auto doc = parseJsonDocument(*text);
  if (!doc) return fail(path + ": " + doc.error().message);
  return within(path, profileFromJson(*doc));
}

}  // namespace

Result<Judging> readJudging(std::string_view policy, std::string_view domain, const std::string& profileFile,
                            const process::Hello* hello, const nlohmann::json* recorded) {
  if (policy.empty()) policy = hello && hello->policy ? props::policyName(*hello->policy) : "bits";
  auto parsedPolicy = props::parsePolicy(policy);
  if (!parsedPolicy) return fail(fmt::format("no policy named {}; the policies are: bits, values", quote(policy)));
  auto parsedDomain = gen::parseDomain(domain);
  if (!parsedDomain) return fail(fmt::format("no domain named {}; the domains are: default, exact", quote(domain)));
  if (profileFile.empty() && recorded && !recorded->is_null()) {
    auto profile = profileFromJson(*recorded);
    if (!profile) return fail("the failure's recorded profile: " + profile.error().message);
    return Judging{*parsedPolicy, *parsedDomain, std::move(*profile)};
  }
  if (profileFile.empty() && hello) return Judging{*parsedPolicy, *parsedDomain, hello->profile};
  auto profile = readProfile(profileFile);
  if (!profile) return fail("--profile: " + profile.error().message);
  return Judging{*parsedPolicy, *parsedDomain, std::move(*profile)};
}

Result<std::string> chooseName(std::string_view what, const std::string& option, const std::string& fromFile,
                               const std::string& fallback, const std::vector<std::string>& allowed) {
  std::string chosen = !option.empty() ? option : !fromFile.empty() ? fromFile : fallback;
  if (std::find(allowed.begin(), allowed.end(), chosen) == allowed.end()) {
    const std::string plural = what.ends_with('y') ? fmt::format("{}ies", what.substr(0, what.size() - 1))
                                                   : fmt::format("{}s", what);
    return fail(fmt::format("no {} named {}{}; the {} are: {}", what, quote(chosen),
                            option.empty() && !fromFile.empty() ? " (from the file's failure object)" : "", plural,
                            fmt::join(allowed, ", ")));
  }
  return chosen;
}

}  // namespace tc::cli
