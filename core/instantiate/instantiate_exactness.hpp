#pragma once
// Instantiates the exact-domain checker (core/spec/exactness.h) for an IEEE carrier T, together
// with the opaque registry of GridBound<T>, the carrier it runs the op library on.
#include "core/spec/exactness.hpp"

#include "core/instantiate/core_instances.h"

#define TAPECHECK_INSTANTIATE_EXACTNESS(T) TAPECHECK_EXACTNESS_INSTANCES(, T)
