#pragma once
// Explicit instantiation of the core templates for one carrier; each carrier gets its own
// translation unit so that users of the headers compile none of this.
#include "core/graph/builder.hpp"
#include "core/graph/cost.hpp"
#include "core/graph/node_program.hpp"
#include "core/ops/opaque.hpp"
#include "core/graph/pack_checks.hpp"
#include "core/io/case_file.hpp"
#include "core/io/listing.hpp"
#include "core/spec/reference.hpp"

#include "core/instantiate/core_instances.h"

#define TAPECHECK_INSTANTIATE_CORE(T) TAPECHECK_CORE_INSTANCES(, T)
