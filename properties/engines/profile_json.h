#pragma once
// Engine profiles as JSON (docs/semantics.md §3.6): how an engine outside C++ — or a user of the
// command line (`--profile FILE`) — declares what it supports and which conventions it follows.
#include <nlohmann/json.hpp>

#include <string_view>

#include "core/support/result.h"
#include "properties/engines/profile.h"

namespace tc {

//! Reads a profile: {"name", "carriers": [...], "ops": [...] or {"<carrier>": [...]},
//! "single_output": "support"|"ancestors", "zero_sign": "spec"|"unspecified",
//! "kinks": {"<op>": "<choice>"}, "nan": "spec"|"propagate", "kink_conventions_declared": bool};
//! every key optional (the `spec` profile's value). An error names the key and why: an unknown
//! key, carrier, op, or a kink choice the op does not list (with the choices it does).
Result<EngineProfile> profileFromJson(const nlohmann::json& json);

//! The profile as JSON that profileFromJson reads back to an equal profile; conventions at the
//! specification's choice are written too, so the file says everything.
nlohmann::json profileToJson(const EngineProfile& profile);

//! The profile an adapter compiles in as JSON text, read once: `owner` names the adapter in the
//! error. A profile that does not read is the adapter's bug, so it throws std::logic_error.
EngineProfile builtInProfile(std::string_view owner, std::string_view jsonText);

}  // namespace tc
