#pragma once
// The engine side of the engine protocol, for engines written in C++: `tapecheck serve` answers
// requests with a built-in engine (the protocol's reference end to end: the tests check that it
// passes every property through the protocol, and the engine that answers at once, which times the
// protocol's own cost); any Engine<T> can be served the same way.
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "adapters/process/line_buffer.h"
#include "core/carriers/carrier.h"
#include "core/graph/within_budget.h"
#include "properties/engines/engine.h"
#include "properties/engines/profile.h"

namespace tc::process {

//! The engines a server answers with, one per carrier (nullptr: a carrier it does not run).
struct ServedEngines {
  const Engine<Rational>* rational = nullptr;
  const Engine<RationalNoEq>* rationalNoEq = nullptr;
  const Engine<ModP>* modp = nullptr;
  const Engine<double>* ieeeDouble = nullptr;
  const Engine<float>* ieeeFloat = nullptr;
  const Engine<Interval>* interval = nullptr;

  //! The engine of carrier T, as a slot to read or set.
  template <class T>
  const Engine<T>*& slot() {
    if constexpr (std::is_same_v<T, Rational>) return rational;
    else if constexpr (std::is_same_v<T, RationalNoEq>) return rationalNoEq;
    else if constexpr (std::is_same_v<T, ModP>) return modp;
    else if constexpr (std::is_same_v<T, double>) return ieeeDouble;
    else if constexpr (std::is_same_v<T, Interval>) return interval;
    else return ieeeFloat;
  }
  template <class T>
  const Engine<T>* get() const {
    return const_cast<ServedEngines*>(this)->slot<T>();
  }
};

//! What one request may cost a server before it answers. `tapecheck serve` reads input that anyone
//! may write (`serve < /dev/zero`), so it bounds it like the other commands bound a file
//! (docs/budget.md): a request line of at most `maxLine` bytes, refused once that many are read
//! without a '\n'; its JSON read within `budget.memory`; its case refused when the estimate of a
//! forward pass and of its requested reverse passes (in the literal dense order when `denseOrder`)
//! passes `budget`, naming the node. `raiseWork` and `raiseMemory` end a refusal ("; raise it with
//! --max-work"). The defaults bound nothing: an isolated engine's forked copy answers only the
//! requests of the tapecheck that forked it, whose own budget already judged their cases.
struct ServeLimits {
  std::size_t maxLine = SIZE_MAX;
  Budget budget{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  bool denseOrder = false;
  std::string raiseWork, raiseMemory;
};

//! Says hello with `profile` and `policy`, then answers each request line read from the file
//! descriptor `in` on `out` until `in` ends, with the engine of the request's carrier. Returns 0,
//! or 2 after printing why on stderr when a request is malformed (a request from tapecheck never
//! is), passes `limits`, or names a carrier it has no engine for.
int serve(const EngineProfile& profile, std::string_view policy, const ServedEngines& engines, int in, std::FILE* out,
          const ServeLimits& limits = {});

//! serve() with the built-in engine `engineName` on every carrier, the `spec` profile under that
//! name, and the `bits` policy.
int serve(const std::string& engineName, int in, std::FILE* out, const ServeLimits& limits = {});

}  // namespace tc::process
