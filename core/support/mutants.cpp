#include "core/support/mutants.h"

#include <array>
#include <cstdlib>

namespace tc::mutants {
namespace {

constexpr std::array<MutantInfo, 63> kMutants{{
    {1, "mul-term-wrong-operand", "op terms", "core/ops/elementwise.hpp Mul::terms", "a's term multiplies ct by a instead of b"},
    {2, "sub-term-wrong-sign", "op terms", "core/ops/elementwise.hpp Sub::terms", "b's term is +ct instead of -ct"},
    {3, "div-term-missing-minus", "op terms", "core/ops/elementwise.hpp Div::terms", "b's term loses its minus sign"},
    {4, "matmul-missing-transpose", "op terms", "core/ops/reductions.hpp Matmul::terms", "B's term is a·ct instead of aᵀ·ct (square a)"},
    {5, "linear-bias-term-dropped", "op terms", "core/ops/reductions.hpp Linear::terms", "the bias gets no term"},
    {6, "broadcast-missing-reduction", "op terms", "core/ops/structural.hpp Broadcast::terms", "only the first copy of ct is summed back"},
    {7, "slice0-off-by-one", "op terms", "core/ops/structural.hpp Slice0::terms", "ct is scattered one row off"},
    {8, "max-min-tie-split", "op terms", "core/ops/elementwise.hpp Select::terms", "a tie gives each side ct instead of ct/2"},
    {9, "gather0-scatter-order", "op terms", "core/ops/structural.hpp Gather0::terms", "rows are scattered in reversed index-list order"},
    {10, "mean-term-not-divided", "op terms", "core/ops/reductions.hpp Mean::terms", "the term is ct, not ct/n"},
    {11, "transpose-term-not-transposed", "op terms", "core/ops/reductions.hpp Transpose::terms", "a square ct is passed back untransposed"},
    {12, "concat0-second-term-offset", "op terms", "core/ops/structural.hpp Concat0::terms", "the second argument's rows are read from row 0"},
    {13, "mse-loss-missing-two", "op terms", "core/ops/reductions.hpp MseLoss::terms", "the factor 2 of d(a-b)² is missing"},
    {14, "neg-forward-identity", "forward and eval", "core/ops/elementwise.hpp Neg::apply", "neg's forward forgets the minus"},
    {15, "dense-pass-overwrite", "accumulation", "core/runtime/compiled.hpp densePass", "a contribution overwrites the gradient instead of adding"},
    {16, "dense-pass-wrong-slot", "accumulation", "core/runtime/compiled.hpp densePass", "the lowest target's local sum goes to the next target's slot"},
    {17, "single-prefix-lowest-first", "accumulation", "core/runtime/compiled.hpp supportPass", "the opaque prefix is visited lowest first (a reflected index)"},
    {18, "local-sum-not-formed", "accumulation", "core/graph/node_program.hpp localContribution", "terms on a repeated argument are not summed before the global add"},
    {19, "tape-overwrite", "accumulation", "core/runtime/tape.hpp backwardDenseFrom", "the tape assigns contributions instead of adding them"},
    {20, "tape-missing-leaf", "tape lowering", "core/runtime/lowering.hpp lowerToTapeChecked", "the last input gets no leaf (the leaf loop's bound is one short)"},
    {21, "array-lowering-contribution-order", "tape lowering", "core/runtime/lowering.hpp lowerToArrayChecked", "closures list contributions highest position first"},
    {22, "tape-stale-value", "tape lowering", "core/runtime/lowering.hpp lowerToTapeChecked", "a leaf records the previous input's value (a stale buffer)"},
    {23, "pending-zero-not-applied", "saved graph and compiled", "core/runtime/compiled.hpp densePass", "the pending +0 is never settled"},
    {24, "single-forgets-ancestor", "saved graph and compiled", "core/runtime/compiled.hpp supportPass", "the last target of a multi-target node gets nothing (a bound one short)"},
    {25, "single-visits-every-node", "saved graph and compiled", "core/runtime/compiled.hpp Compiled::Compiled", "every node counts as opaque, so the single-output pass runs every node, the output's successors included"},
    {26, "single-no-opaque-prefix", "saved graph and compiled", "core/runtime/compiled.hpp supportPass", "there is no dense prefix: an opaque node runs only when reached from the output"},
    {27, "flat-index-off-by-one", "saved graph and compiled", "core/runtime/compiled.hpp backwardDenseFrom", "position p's gradient is read from slot p-1 (a wrong index)"},
    {28, "programs-miscounted", "saved graph and compiled", "core/runtime/compiled.hpp supportPass", "the opaque prefix's programs are counted twice"},
    {29, "tape-error-message", "validation and errors", "core/runtime/lowering.hpp lowerToTapeChecked", "the domain error loses its 'node k (op)' prefix on this path"},
    {30, "checked-forward-skips-log-check", "validation and errors", "core/runtime/forward.hpp evaluateChecked", "the checked forward behind compileChecked (and every checked runtime path) forwards log without its domain check"},
    {31, "saved-error-prefixed", "validation and errors", "core/runtime/saved_graph.hpp lowerChecked", "SavedGraph::lowerChecked prefixes its domain error with 'lowerChecked: ', so it differs from the other paths'"},
    {32, "tape-opaque-bound-short", "tape lowering", "core/runtime/lowering.hpp denseTapeNode", "an opaque node's tape closure leaves out the position just below it (a bound one short)"},
    {33, "unchecked-eval-swaps-sub", "forward and eval", "core/runtime/forward.hpp evaluateUnchecked", "the unchecked evaluation computes sub(b, a)"},
    {34, "single-seed-ignored", "saved graph and compiled", "core/runtime/compiled.hpp supportPass", "the single-output pass starts from ones at the output, not from the given seed"},
    {35, "saved-tape-parents-deduplicated", "tape lowering", "core/runtime/saved_graph.hpp toTape", "a repeated parent (add(x, x)) is recorded once"},
    {36, "writer-unsigned-zero", "file format", "core/carriers/carrier.cpp IeeeCarrier::appendFormat", "the writer writes -0 as 0 (a formatter that drops the sign of zero)"},
    {37, "reader-decimal-truncated", "file format", "core/carriers/literal.cpp parsePositional", "the reader keeps 20 significant decimal digits (a fixed-width accumulator)"},
    {38, "relu-kink-passes", "kink conventions", "core/ops/elementwise.hpp Relu::terms", "relu's term at x = 0 is ct instead of 0 (the convention of 'one')"},
    {39, "clamp-bound-blocks", "kink conventions", "core/ops/elementwise.hpp Clamp::terms", "clamp's term at x = lo or hi is 0 instead of ct (the pass region made exclusive)"},
    {40, "log-domain-lets-nan-through", "domain checks", "core/ops/elementwise.hpp Log::validate", "log's check refuses x <= 0 but lets NaN through"},
    {41, "div-guard-forgets-carrier", "domain checks", "core/ops/elementwise.hpp Div::validate", "div refuses a zero divisor on IEEE carriers too (the guard forgets its carrier condition)"},
    {42, "index-bound-off-by-one", "domain checks", "core/ops/structural.hpp Gather0::shape", "an index list entry equal to the row count is accepted (one row past the end)"},
    {43, "error-position-without-inputs", "error messages", "core/graph/node_program.hpp describeNode", "messages name a node by its index among the nodes, not by its position counting the inputs"},
    {44, "final-settle-skips-inputs", "signed zeros", "core/runtime/compiled.hpp densePass", "the pending +0 left at the end is settled on nodes only: an input no node writes keeps a -0 seed"},
    {45, "exp-term-uses-input", "transcendental terms", "core/ops/elementwise.hpp Exp::terms", "exp's term multiplies ct by x instead of exp(x)"},
    {46, "log-term-multiplies", "transcendental terms", "core/ops/elementwise.hpp Log::terms", "log's term is ct·x instead of ct/x"},
    {47, "sqrt-term-missing-half", "transcendental terms", "core/ops/elementwise.hpp Sqrt::terms", "sqrt's term is ct/sqrt(x) instead of ct/(2·sqrt(x))"},
    {48, "tanh-term-unsquared", "transcendental terms", "core/ops/elementwise.hpp Tanh::terms", "tanh's term is ct·(1 - t) instead of ct·(1 - t²)"},
    {49, "sigmoid-term-missing-complement", "transcendental terms", "core/ops/elementwise.hpp Sigmoid::terms", "sigmoid's term is ct·s instead of ct·s·(1 - s)"},
    {50, "softplus-term-reflected", "transcendental terms", "core/ops/elementwise.hpp Softplus::terms", "softplus's term is ct·sigmoid(-x) instead of ct·sigmoid(x)"},
    {51, "sin-term-uses-sin", "transcendental terms", "core/ops/elementwise.hpp Sin::terms", "sin's term is ct·sin(x) instead of ct·cos(x)"},
    {52, "cos-term-wrong-sign", "transcendental terms", "core/ops/elementwise.hpp Cos::terms", "cos's term is ct·sin(x) instead of -ct·sin(x)"},
    {53, "softmax-term-without-inner", "transcendental terms", "core/ops/reductions.hpp SoftmaxLast::terms", "softmax's term is y·ct, without subtracting the row's <ct, y>"},
    {54, "log-softmax-term-uses-log", "transcendental terms", "core/ops/reductions.hpp LogSoftmaxLast::terms", "log_softmax's term subtracts y·Σct instead of exp(y)·Σct"},
    {55, "sigmoid-naive", "numerical stability", "core/ops/elementwise.hpp Sigmoid::apply", "sigmoid is 1/(1 + exp(−x)) for every x: 0 where exp(−x) overflows (x < −709.78 in double)"},
    {56, "softplus-naive", "numerical stability", "core/ops/elementwise.hpp Softplus::apply", "softplus is log(1 + exp(x)): infinite for large x, 0 for x below about −37"},
    {57, "softmax-without-shift", "numerical stability", "core/ops/reductions.hpp SoftmaxRows::maxAndTotal", "softmax and log_softmax do not subtract the row's maximum before exp: inf/inf for large values"},
    {58, "log-softmax-of-softmax", "numerical stability", "core/ops/reductions.hpp LogSoftmaxLast::forward", "log_softmax is log(softmax(x)): −inf where exp(x − max) underflows"},
    {59, "mse-expanded", "numerical stability", "core/ops/reductions.hpp MseLoss::forward", "mse_loss is (Σa² − 2Σab + Σb²)/n, which cancels where a ≈ b"},
    {60, "log-softmax-term-naive", "numerical stability", "core/ops/reductions.hpp LogSoftmaxLast::terms", "log_softmax's term recomputes softmax as exp(x)/Σexp(x), without the shift: NaN for large values"},
    {61, "softplus-term-naive", "numerical stability", "core/ops/elementwise.hpp Softplus::terms", "softplus's term is ct·exp(x)/(1 + exp(x)): NaN where exp(x) overflows (x > 709.78 in double)"},
    {62, "shrinker-takes-passing-candidate", "shrinking", "generators/shrink.h shrinkWhile", "the shrinker takes a candidate that no longer fails: a counterexample that replays green"},
    {63, "deletion-keeps-positions", "shrinking", "generators/shrink.hpp withNodeDeleted", "deleting a node leaves later positions unrenumbered: arguments point one node too high"},
}};

int activeId() {
  const char* text = std::getenv("TAPECHECK_MUTANT");
  return text ? std::atoi(text) : 0;
}

}  // namespace

std::span<const MutantInfo> all() { return kMutants; }

bool active(int id) {
  static const int chosen = activeId();
  return id == chosen;
}

}  // namespace tc::mutants
