#pragma once
// Explicit instantiation of the runtime templates for one carrier.
#include "core/runtime/compiled.hpp"
#include "core/runtime/forward.hpp"

// evaluateChecked with a per-node callback is a template on the callback, instantiated where it
// is called (lowerToTapeChecked); the plain evaluateChecked is instantiated here.
#include "core/instantiate/core_instances.h"

#define TAPECHECK_INSTANTIATE_RUNTIME(T) TAPECHECK_RUNTIME_INSTANCES(, T)
