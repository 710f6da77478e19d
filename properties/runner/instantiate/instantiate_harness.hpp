#pragma once
// The harness templates (engines, properties, generators, coverage, runner), instantiated once
// per carrier so that the command line and the tests only include declarations.
#include "generators/generate.hpp"
#include "generators/shrink.hpp"
#include "generators/coverage.hpp"
#include "properties/runner/all.hpp"
#include "properties/engines/engine.hpp"
#include "properties/runner/report.hpp"
#include "properties/runner/runner.hpp"

#include "properties/runner/instantiate/harness_instances.h"

#define TAPECHECK_INSTANTIATE_HARNESS(T)  \
  TAPECHECK_GENERATOR_INSTANCES(, T)      \
  TAPECHECK_ENGINE_INSTANCES(, T)         \
  TAPECHECK_HARNESS_INSTANCES(, T)
