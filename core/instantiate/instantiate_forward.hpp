#pragma once
// Instantiates only the forward side of the op library, for the dual-number carriers of the
// adjoint oracle.
#include "core/carriers/dual.h"
#include "core/graph/node_program.hpp"
#include "core/ops/opaque.hpp"

#include "core/instantiate/core_instances.h"

#define TAPECHECK_INSTANTIATE_FORWARD(T) TAPECHECK_FORWARD_INSTANCES(, T)
