#pragma once
// Every mutation switch, once: `TC_MUTANT_LIST(X)` calls X(name, category, site, what it models)
// for each, in id order (the first is id 1). The code at a site says `TC_MUTANT(name)`
// (core/support/mutants.h); `tapecheck mutants` and TAPECHECK_MUTANT know a mutant by its id or by
// its name with hyphens (`dense-pass-overwrite`). A new mutant goes at the end, so ids stay put.
// clang-format off
#define TC_MUTANT_LIST(X) \
  X(mul_term_wrong_operand, "op terms", "core/ops/elementwise.hpp Mul::terms", \
    "a's term multiplies ct by a instead of b") \
  X(sub_term_wrong_sign, "op terms", "core/ops/elementwise.hpp Sub::terms", \
    "b's term is +ct instead of -ct") \
  X(div_term_missing_minus, "op terms", "core/ops/elementwise.hpp Div::terms", \
    "b's term loses its minus sign") \
  X(matmul_missing_transpose, "op terms", "core/ops/reductions.hpp Matmul::terms", \
    "B's term is a·ct instead of aᵀ·ct (square a)") \
  X(linear_bias_term_dropped, "op terms", "core/ops/reductions.hpp Linear::terms", \
    "the bias gets no term") \
  X(broadcast_missing_reduction, "op terms", "core/ops/structural.hpp Broadcast::terms", \
    "only the first copy of ct is summed back") \
  X(slice0_off_by_one, "op terms", "core/ops/structural.hpp Slice0::terms", \
    "ct is scattered one row off") \
  X(max_min_tie_split, "op terms", "core/ops/elementwise.hpp Select::terms", \
    "a tie gives each side ct instead of ct/2") \
  X(gather0_scatter_order, "op terms", "core/ops/structural.hpp Gather0::terms", \
    "rows are scattered in reversed index-list order") \
  X(mean_term_not_divided, "op terms", "core/ops/reductions.hpp Mean::terms", \
    "the term is ct, not ct/n") \
  X(transpose_term_not_transposed, "op terms", "core/ops/reductions.hpp Transpose::terms", \
    "a square ct is passed back untransposed") \
  X(concat0_second_term_offset, "op terms", "core/ops/structural.hpp Concat0::terms", \
    "the second argument's rows are read from row 0") \
  X(mse_loss_missing_two, "op terms", "core/ops/reductions.hpp MseLoss::terms", \
    "the factor 2 of d(a-b)² is missing") \
  X(neg_forward_identity, "forward and eval", "core/ops/elementwise.hpp Neg::apply", \
    "neg's forward forgets the minus") \
  X(dense_pass_overwrite, "accumulation", "core/runtime/compiled.hpp densePass", \
    "a contribution overwrites the gradient instead of adding") \
  X(dense_pass_wrong_slot, "accumulation", "core/runtime/compiled.hpp densePass", \
    "the lowest target's local sum goes to the next target's slot") \
  X(single_prefix_lowest_first, "accumulation", "core/runtime/compiled.hpp supportPass", \
    "the opaque prefix is visited lowest first (a reflected index)") \
  X(local_sum_not_formed, "accumulation", "core/graph/node_program.hpp localContribution", \
    "terms on a repeated argument are not summed before the global add") \
  X(tape_overwrite, "accumulation", "core/runtime/tape.hpp backwardDenseFrom", \
    "the tape assigns contributions instead of adding them") \
  X(tape_missing_leaf, "tape lowering", "core/runtime/lowering.hpp lowerToTapeChecked", \
    "the last input gets no leaf (the leaf loop's bound is one short)") \
  X(array_lowering_contribution_order, "tape lowering", "core/runtime/lowering.hpp lowerToArrayChecked", \
    "closures list contributions highest position first") \
  X(tape_stale_value, "tape lowering", "core/runtime/lowering.hpp lowerToTapeChecked", \
    "a leaf records the previous input's value (a stale buffer)") \
  X(pending_zero_not_applied, "saved graph and compiled", "core/runtime/compiled.hpp densePass", \
    "the pending +0 is never settled") \
  X(single_forgets_ancestor, "saved graph and compiled", "core/runtime/compiled.hpp supportPass", \
    "the last target of a multi-target node gets nothing (a bound one short)") \
  X(single_visits_every_node, "saved graph and compiled", "core/runtime/compiled.hpp Compiled::Compiled", \
    "every node counts as opaque, so the single-output pass runs every node, the output's successors included") \
  X(single_no_opaque_prefix, "saved graph and compiled", "core/runtime/compiled.hpp supportPass", \
    "there is no dense prefix: an opaque node runs only when reached from the output") \
  X(flat_index_off_by_one, "saved graph and compiled", "core/runtime/compiled.hpp backwardDenseFrom", \
    "position p's gradient is read from slot p-1 (a wrong index)") \
  X(programs_miscounted, "saved graph and compiled", "core/runtime/compiled.hpp supportPass", \
    "the opaque prefix's programs are counted twice") \
  X(tape_error_message, "validation and errors", "core/runtime/lowering.hpp lowerToTapeChecked", \
    "the domain error loses its 'node k (op)' prefix on this path") \
  X(checked_forward_skips_log_check, "validation and errors", "core/runtime/forward.hpp evaluateChecked", \
    "the checked forward behind compileChecked (and every checked runtime path) forwards log without its domain check") \
  X(saved_error_prefixed, "validation and errors", "core/runtime/saved_graph.hpp lowerChecked", \
    "SavedGraph::lowerChecked prefixes its domain error with 'lowerChecked: ', so it differs from the other paths'") \
  X(tape_opaque_bound_short, "tape lowering", "core/runtime/lowering.hpp denseTapeNode", \
    "an opaque node's tape closure leaves out the position just below it (a bound one short)") \
  X(unchecked_eval_swaps_sub, "forward and eval", "core/runtime/forward.hpp evaluateUnchecked", \
    "the unchecked evaluation computes sub(b, a)") \
  X(single_seed_ignored, "saved graph and compiled", "core/runtime/compiled.hpp supportPass", \
    "the single-output pass starts from ones at the output, not from the given seed") \
  X(saved_tape_parents_deduplicated, "tape lowering", "core/runtime/saved_graph.hpp toTape", \
    "a repeated parent (add(x, x)) is recorded once") \
  X(writer_unsigned_zero, "file format", "core/carriers/carrier.cpp IeeeCarrier::appendFormat", \
    "the writer writes -0 as 0 (a formatter that drops the sign of zero)") \
  X(reader_decimal_truncated, "file format", "core/carriers/literal.cpp parsePositional", \
    "the reader keeps 20 significant decimal digits (a fixed-width accumulator)") \
  X(relu_kink_passes, "kink conventions", "core/ops/elementwise.hpp Relu::terms", \
    "relu's term at x = 0 is ct instead of 0 (the convention of 'one')") \
  X(clamp_bound_blocks, "kink conventions", "core/ops/elementwise.hpp Clamp::terms", \
    "clamp's term at x = lo or hi is 0 instead of ct (the pass region made exclusive)") \
  X(log_domain_lets_nan_through, "domain checks", "core/ops/elementwise.hpp Log::validate", \
    "log's check refuses x <= 0 but lets NaN through") \
  X(div_guard_forgets_carrier, "domain checks", "core/ops/elementwise.hpp Div::validate", \
    "div refuses a zero divisor on IEEE carriers too (the guard forgets its carrier condition)") \
  X(index_bound_off_by_one, "domain checks", "core/ops/structural.hpp Gather0::shape", \
    "an index list entry equal to the row count is accepted (one row past the end)") \
  X(error_position_without_inputs, "error messages", "core/graph/node_program.hpp describeNode", \
    "messages name a node by its index among the nodes, not by its position counting the inputs") \
  X(final_settle_skips_inputs, "signed zeros", "core/runtime/compiled.hpp densePass", \
    "the pending +0 left at the end is settled on nodes only: an input no node writes keeps a -0 seed") \
  X(exp_term_uses_input, "transcendental terms", "core/ops/elementwise.hpp Exp::terms", \
    "exp's term multiplies ct by x instead of exp(x)") \
  X(log_term_multiplies, "transcendental terms", "core/ops/elementwise.hpp Log::terms", \
    "log's term is ct·x instead of ct/x") \
  X(sqrt_term_missing_half, "transcendental terms", "core/ops/elementwise.hpp Sqrt::terms", \
    "sqrt's term is ct/sqrt(x) instead of ct/(2·sqrt(x))") \
  X(tanh_term_unsquared, "transcendental terms", "core/ops/elementwise.hpp Tanh::terms", \
    "tanh's term is ct·(1 - t) instead of ct·(1 - t²)") \
  X(sigmoid_term_missing_complement, "transcendental terms", "core/ops/elementwise.hpp Sigmoid::terms", \
    "sigmoid's term is ct·s instead of ct·s·(1 - s)") \
  X(softplus_term_reflected, "transcendental terms", "core/ops/elementwise.hpp Softplus::terms", \
    "softplus's term is ct·sigmoid(-x) instead of ct·sigmoid(x)") \
  X(sin_term_uses_sin, "transcendental terms", "core/ops/elementwise.hpp Sin::terms", \
    "sin's term is ct·sin(x) instead of ct·cos(x)") \
  X(cos_term_wrong_sign, "transcendental terms", "core/ops/elementwise.hpp Cos::terms", \
    "cos's term is ct·sin(x) instead of -ct·sin(x)") \
  X(softmax_term_without_inner, "transcendental terms", "core/ops/reductions.hpp SoftmaxLast::terms", \
    "softmax's term is y·ct, without subtracting the row's <ct, y>") \
  X(log_softmax_term_uses_log, "transcendental terms", "core/ops/reductions.hpp LogSoftmaxLast::terms", \
    "log_softmax's term subtracts y·Σct instead of exp(y)·Σct") \
  X(sigmoid_naive, "numerical stability", "core/ops/elementwise.hpp Sigmoid::apply", \
    "sigmoid is 1/(1 + exp(−x)) for every x: 0 where exp(−x) overflows (x < −709.78 in double)") \
  X(softplus_naive, "numerical stability", "core/ops/elementwise.hpp Softplus::apply", \
    "softplus is log(1 + exp(x)): infinite for large x, 0 for x below about −37") \
  X(softmax_without_shift, "numerical stability", "core/ops/reductions.hpp SoftmaxRows::maxAndTotal", \
    "softmax and log_softmax do not subtract the row's maximum before exp: inf/inf for large values") \
  X(log_softmax_of_softmax, "numerical stability", "core/ops/reductions.hpp LogSoftmaxLast::forward", \
    "log_softmax is log(softmax(x)): −inf where exp(x − max) underflows") \
  X(mse_expanded, "numerical stability", "core/ops/reductions.hpp MseLoss::forward", \
    "mse_loss is (Σa² − 2Σab + Σb²)/n, which cancels where a ≈ b") \
  X(log_softmax_term_naive, "numerical stability", "core/ops/reductions.hpp LogSoftmaxLast::terms", \
    "log_softmax's term recomputes softmax as exp(x)/Σexp(x), without the shift: NaN for large values") \
  X(softplus_term_naive, "numerical stability", "core/ops/elementwise.hpp Softplus::terms", \
    "softplus's term is ct·exp(x)/(1 + exp(x)): NaN where exp(x) overflows (x > 709.78 in double)") \
  X(shrinker_takes_passing_candidate, "shrinking", "generators/shrink.h shrinkWhile", \
    "the shrinker takes a candidate that no longer fails: a counterexample that replays green") \
  X(deletion_keeps_positions, "shrinking", "generators/shrink.hpp withNodeDeleted", \
    "deleting a node leaves later positions unrenumbered: arguments point one node too high") \
  X(concat0_shape_extra_row, "shape rules", "core/ops/structural.hpp Concat0::shape", \
    "concat0's shape rule gives one row more when its first argument has 2: a forward fills a tensor of the wrong size") \
  X(matmul_refuses_three_rows, "shape rules", "core/ops/reductions.hpp Matmul::shape", \
    "matmul's shape rule refuses a left operand of 3 rows, which the generator's recipe builds") \
  X(repeated_argument_any_pair, "coverage tags", "generators/coverage.hpp coverageTags", \
    "'repeated argument' is counted for any node of two arguments: its floor passes on cases without one") \
  X(profile_zero_sign_ignored, "profile files", "properties/engines/profile_json.cpp profileFromJson", \
    "\"zero_sign\": \"unspecified\" is read as the specification's: an engine that keeps -0 is judged by bits") \
  X(relu_keeps_negative_zero, "forward signs of zero", "core/ops/elementwise.hpp Relu::forward", \
    "relu(-0) gives -0 (x >= 0 ? x : 0), in every layer alike: only the naive forward states the sign") \
  X(exact_sum_bound_takes_max, "exact domain", "core/carriers/grid_bound.h GridBound::sum", \
    "a sum's bound is its larger summand's, not their sum: the exact domain takes in cases whose sums round") \
  X(kernel_leftover_rows_first_block, "kernels", "core/ops/kernels.cpp packRows", \
    "the rows left over beside the tiles take their coefficients from the first depth block in every block") \
  X(interval_point_taken_as_double, "interval carrier", "core/carriers/interval.cpp exactDouble", \
    "a point the interval carrier holds is taken as the nearest double without checking that it is one") \
  X(accuracy_term_budget_doubled, "oracles", "properties/oracles/accuracy.h gradientSums", \
    "every term's accuracy budget is twice as wide: a correct engine still passes, a wrong one a little off too")
// clang-format on
