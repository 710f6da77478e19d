#pragma once
// ADOL-C behind tapecheck's engine interface (properties/engines/engine.h): each case is recorded on
// an ADOL-C tape with `adouble` and differentiated by ADOL-C's own reverse mode (fos_reverse), so the
// engine verdict judges ADOL-C's derivative rules, its tape and its reverse sweep. Checked in process
// (tests/adapters/adolc/adolc_engine_test.cpp) and on the command line by `adolc_check`
// (cli/adolc_check.cpp: `run`, and `serve` for --engine-cmd), which also registers `adolc-bug`, the same
// engine with one planted wrong derivative rule that the verdict must catch.
//
// Gradients at every position, from one reverse sweep. ADOL-C's reverse mode gives the adjoints of the
// independents only, z = uᵀ·F'(x), while the engine interface asks for the gradient at every position,
// the nodes included. So every node element is recorded as its op's value plus an independent δ whose
// value is −0 (x + (−0) = x for every IEEE x, −0, NaN and the infinities included, so no value moves),
// and everything downstream reads that sum. Then ∂L/∂δ of a node element is exactly the adjoint of the
// node element, its gradient. The dependents are every position's elements (inputs too) in position
// order, and the weight vector u is the seed pack flattened the same way: one fos_reverse gives, at the
// inputs' independents and at every δ, the seed of that position plus everything later nodes sent it —
// the dense pass. A single-output pass is the same sweep with u zero outside the output, so it equals the
// dense pass on that seed bit for bit (the profile's single_output `support`). ADOL-C skips an operation
// whose result adjoint is 0, so a node no non-zero seed reaches contributes nothing, where the
// specification's dense order multiplies its zero cotangent (0·∞ = NaN at an infinite value): a
// difference outside the exact domain that the engine verdict does not compare.
//
// The ADOL-C headers stay in adolc_engine.cpp: they define `adouble` operators for the whole program.
#include <memory>
#include <string_view>

#include "core/graph/graph.h"
#include "core/support/result.h"
#include "properties/engines/engine.h"
#include "properties/engines/profile.h"

namespace tc::adolc {

//! A wrong derivative rule the engine can be built with, so that a test can show the verdict catches
//! it. `none` is ADOL-C itself.
enum class PlantedBug {
  none,
  //! sigmoid recorded as its linearization with slope x·(1 − x) (its derivative taken from the input
  //! instead of the output, y·(1 − y)): the right values, a wrong gradient.
  sigmoidSlopeFromInput,
};

//! ADOL-C's reverse mode as an engine on double (ADOL-C's only carrier). compile() records the graph
//! on a fresh tape (one per execution; see the file comment for why every node has an independent δ),
//! reads every position's value from the recording, and fails as the specification's domain check
//! does where `log` reads a value <= 0 or NaN. Every op of docs/semantics.md §2.1 but `opaque` (the
//! profile leaves tanh out too: ADOL-C's is inaccurate near 0, adolc_engine.cpp says how): most
//! are ADOL-C's own operations (exp, log, sqrt, sin, cos, tanh, fabs, fmax, fmin, condassign and the
//! arithmetic); sigmoid, softplus, softmax and log_softmax are spelled from them (ADOL-C has no
//! log1p, so softplus uses Goldberg's log1p from log). Executions may be alive at the same time and
//! their passes interleave; ADOL-C's global tape state is guarded by one mutex.
class Engine final : public tc::Engine<double> {
 public:
  explicit Engine(PlantedBug bug = PlantedBug::none) : bug_(bug) {}
  std::string_view name() const override { return bug_ == PlantedBug::none ? "adolc" : "adolc-bug"; }
  //! The execution, or the first error: malformed inputs or data (core/graph/pack_checks.h), an op
  //! the engine does not record ("node P (opaque twice): not supported by the ADOL-C engine"), or
  //! log's domain check ("node P (log): input contains values <= 0 or NaN"). An exception from ADOL-C
  //! (an adapter bug) is thrown as an EngineFault: the case fails and shrinks.
  Result<std::unique_ptr<const tc::Execution<double>>> compile(const Graph<double>& graph,
                                                               const Pack<double>& inputs,
                                                               const Data<double>& data) const override;

 private:
  PlantedBug bug_;
};

//! What the engine declares (name "adolc"): carrier double; every op but opaque and tanh; single-output
//! passes equal to the dense pass on one seed (`support`); the sign of zero unspecified; and the kink
//! conventions ADOL-C's operations have, measured with `adolc_check run --survey` (adolc_engine.cpp
//! says which operation gives each).
const EngineProfile& profile();

}  // namespace tc::adolc
