#pragma once
// The accuracy oracle's own check (properties/oracles/accuracy_witnesses.cpp): engines just past each
// budget that it must fail, just within that it must pass.
#include <string>
#include <vector>

namespace tc::props {

//! For every op (opaque aside) on carrier F (double or float): the witnesses the accuracy oracle
//! judged wrongly — an engine about 1.5 budgets off in the forward or a term that passed or failed
//! without naming its node, or one within the budget that failed — and the witnesses that could not
//! be made. Empty when the oracle is as tight as its budgets.
template <class F>
std::vector<std::string> accuracyWitnessFaults();

}  // namespace tc::props
