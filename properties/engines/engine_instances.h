#pragma once
//! The built-in engines, compiled once per carrier (properties/runner/instantiate/*.cpp) and declared
//! `extern` here for all other code; engine.hpp includes this at its end.
#include "core/instantiate/core_instances.h"
#include "properties/engines/engine.h"

#define TAPECHECK_ENGINE_INSTANCES(PREFIX, T)                          \
  PREFIX template const Engine<T>& builtinEngine<T>(std::string_view);

namespace tc {
TAPECHECK_FOR_EACH_CARRIER(TAPECHECK_ENGINE_INSTANCES, extern)
}  // namespace tc
