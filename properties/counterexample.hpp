#pragma once
// A failing case turned into the counterexample a run saves: shrunk while it keeps failing, then
// checked. On the floor of properties/ so that the runner, which saves counterexamples, and the
// shrinker's oracle (properties/oracles/shrinking.h), which runs this very routine on a failure it
// plants, share it: a fault here shows on a correct engine.
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <utility>

#include "core/io/case_file.hpp"
#include "generators/generate.h"
#include "generators/shrink.hpp"
#include "properties/compare.h"
#include "properties/counterexample.h"

namespace tc::props {

// Shrinks a failing case while it keeps failing the same way (`same` on its verdict from
// `check(const Case<T>&) -> Verdict`) and stays within what the run generates (`options`: the
// exact domain, no kinks when asked), then checks its own work: the shrinker must return a case it
// accepted, and that case's document, read back as a saved file is, must fail the same way again.
// Otherwise the counterexample is the original case with `shrinkerFault` saying why — unless the
// in-memory case now passes too, which is the engine's answer changing between two runs of one
// case, a failure of the engine, named in the verdict.
template <class T, class Check, class Same>
Counterexample shrunkFailure(Check&& check, const gen::CaseOptions& options, nlohmann::json doc, Case<T> loaded,
                             Same&& same, const Verdict& originalVerdict) {
  gen::LoadedDoc<T> failing{doc, std::make_shared<const Case<T>>(std::move(loaded))};
  const Case<T>* accepted = failing.loaded.get();
  auto [small, steps] = gen::shrinkWhile<T>(failing, [&](const gen::LoadedDoc<T>& candidate) {
    if (!gen::meetsOptions(*candidate.loaded, options)) return false;
    Verdict verdict = check(*candidate.loaded);
    const bool stillFails = !verdict.holds && same(*candidate.loaded, verdict);
    if (stillFails) accepted = candidate.loaded.get();
    return stillFails;
  });
  auto original = [&](std::string fault, Verdict verdict) {
    return Counterexample{doc, doc, 0, std::move(verdict), std::move(fault), {}};
  };
  if (small.loaded.get() != accepted)
    return original("the shrinker returned a case its predicate did not accept", originalVerdict);
  Result<Case<T>> reread = parseCase<T>(small.doc.dump());
  Verdict rereadVerdict = reread ? check(*reread) : Verdict::pass();
  if (reread && !rereadVerdict.holds && same(*reread, rereadVerdict))
    return Counterexample{std::move(doc), std::move(small.doc), steps, std::move(rereadVerdict), {}, {}};
  Verdict again = check(*small.loaded);
  if (again.holds || !same(*small.loaded, again)) {
    Verdict changed = originalVerdict;
    changed.why += " (the engine's answers changed: a smaller case that failed this way passed when checked again)";
    return original({}, std::move(changed));
  }
  return original(reread ? "the shrunk case passes when its document is read back"
                         : "the shrunk case's document does not load: " + reread.error().message,
                  originalVerdict);
}

}  // namespace tc::props
