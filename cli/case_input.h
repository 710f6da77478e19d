#pragma once
// A case file as the replay, check and show commands read it: the document, and the property,
// carrier and engine its "failure" object names (a file saved by `tapecheck run`).
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "adapters/process/engine_process.h"
#include "core/io/case_file.h"
#include "core/io/document_format.h"
#include "core/support/result.h"
#include "generators/generate.h"
#include "properties/compare.h"
#include "properties/engines/profile.h"
#include "properties/runner/all.h"

namespace tc::cli {

//! A case file read once. The names are empty when the file has no "failure" object.
struct CaseInput {
  std::string path;
  nlohmann::json doc;
  std::string property, carrier, engine;
  std::string engineCommand;  //!< "engine_cmd": the command of an engine in another process
  std::set<std::size_t> positions;  //!< "positions": where the saved failure was blamed
  std::string domain, policy;       //!< how the failure was judged ("domain", "policy"); empty when not recorded
  nlohmann::json profile;           //!< the engine's profile it was judged under ("profile"); null when not recorded
};

//! Reads and parses the file (bounded nesting, and memory within `bound`); errors name the path and
//! say what is wrong.
Result<CaseInput> readCaseInput(const std::string& path, const MemoryBound& bound = {});

//! The case on carrier T, or the loader's message naming the file; `gate` refuses what passes the
//! command's budget before the seeds are built (and again with the seeds the file gives).
template <class T>
Result<Case<T>> loadCase(const CaseInput& input, const CaseGate<T>& gate = {}) {
  return within(input.path, caseFromJson<T>(input.doc, gate));
}

//! How run, check and replay judge the engine: the comparison policy, the domain of cases and the
//! engine's profile.
struct Judging {
  props::Policy policy;
  gen::Domain domain;
  EngineProfile profile;
  //! The engine verdict (docs/semantics.md §3.9): each property judged in the domain
  //! props::verdictDomainOf gives it, not in `domain`. Set for an engine not tapecheck's own when no
  //! --domain is given.
  bool verdict = false;
  //! The default domain with the exact domain's own rows too: every property on every value, and
  //! on IEEE carriers those that compare only exact cases (props::onlyInExactDomain: forward_oracle
  //! and exact_reference) on the exact domain. Set by `run` for tapecheck's own engines when no
  //! --domain is given, so that the default run compares IEEE forward values with the naive
  //! definitions and the exact rationals, signs of zero included, which no property on every value
  //! can. Not by `check` and `replay`: a given graph's draws may never be exact (a mean over 3), and
  //! a row that compares nothing fails there.
  bool exactRowsToo = false;

  //! Whether rows of one command come from different domains (each row's is then shown).
  bool mixesDomains() const { return verdict || exactRowsToo; }
  //! The domain `property`'s cases come from on carrier T.
  template <class T>
  gen::Domain domainOf(std::string_view property) const {
    if (verdict) return props::verdictDomainOf<T>(property);
    return exactRowsToo && props::onlyInExactDomain<T>(property) ? gen::Domain::exact : domain;
  }
  //! The domain whose properties are listed (props::propertiesFor): a command that mixes domains
  //! lists the exact domain's, which hold every property.
  gen::Domain listedDomain() const { return mixesDomains() ? gen::Domain::exact : domain; }
};

//! The --policy and --domain names and the --profile file read; errors name the option and why (a
//! profile's also the path and the key). Without --profile, the profile an engine process announced
//! in its `hello`, else `spec`; without --policy, its announced policy, else bits.
//! A saved failure's recorded profile (`recorded`, when not null) comes before the hello.
Result<Judging> readJudging(std::string_view policy, std::string_view domain, const std::string& profileFile,
                            const process::Hello* hello = nullptr, const nlohmann::json* recorded = nullptr);

//! The option if given, else the file's, else the fallback; errors when the choice is not
//! one of `allowed`.
Result<std::string> chooseName(std::string_view what, const std::string& option, const std::string& fromFile,
                               const std::string& fallback, const std::vector<std::string>& allowed);

}  // namespace tc::cli
