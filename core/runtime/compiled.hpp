#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <queue>
#include <utility>

#include "core/support/mutants.h"
#include "core/graph/pack_checks.hpp"
#include "core/runtime/compiled.h"
#include "core/runtime/forward.hpp"
#include "core/runtime/saved_graph.hpp"

namespace tc {

template <class T>
GradientView<T>::GradientView(const Graph<T>& graph, std::vector<std::pair<std::size_t, Tensor<T>>> stored)
    : graph_(&graph), stored_(std::move(stored)) {
  auto byPosition = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(stored_.begin(), stored_.end(), byPosition)) std::sort(stored_.begin(), stored_.end(), byPosition);
}

template <class T>
GradientView<T>::GradientView(const Graph<T>& graph, FlatPack<T> all) : graph_(&graph), all_(std::move(all)) {
  assert(all_.offsets->size() == graph.positionCount() + 1);
}

template <class T>
const Tensor<T>* GradientView<T>::find(std::size_t position) const {
  auto it = std::lower_bound(stored_.begin(), stored_.end(), position,
                             [](const auto& entry, std::size_t p) { return entry.first < p; });
  return it != stored_.end() && it->first == position ? &it->second : nullptr;
}

template <class T>
Tensor<T> GradientView<T>::at(std::size_t position) const {
  if (all_.offsets) {
    std::span<const T> values = all_.at(position);
    return Tensor<T>(graph_->shapeAt(position), std::vector<T>(values.begin(), values.end()));
  }
  const Tensor<T>* stored = find(position);
  return stored ? *stored : kernels::zeros<T>(graph_->shapeAt(position));
}

template <class T>
bool GradientView<T>::isStored(std::size_t position) const {
  return all_.offsets || find(position) != nullptr;
}

template <class T>
Pack<T> GradientView<T>::materialize() const {
  Pack<T> all;
  all.reserve(size());
  for (std::size_t p = 0; p < size(); ++p) all.push_back(at(p));
  return all;
}

template <class T>
Compiled<T>::Compiled(const Graph<T>& graph, const Data<T>& data, std::shared_ptr<const Context<T>> context)
    : saved_(graph, data, context), context_(std::move(context)) {
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    if (ops::isDense(graph.nodeAt(p).op) || TC_MUTANT(single_visits_every_node)) highestOpaque_ = p;  // the fault: every node is opaque
  auto offsets = std::make_shared<std::vector<std::size_t>>(context_->size() + 1);
  std::size_t* offset = offsets->data();
  for (std::size_t p = 0, end = 0; p < context_->size(); ++p) offset[p + 1] = end += (*context_)[p].size();
  offsets_ = std::move(offsets);
}

template <class T>
Result<Compiled<T>> compileChecked(const Graph<T>& graph, Pack<T> inputs, const Data<T>& data) {
  auto context = evaluateChecked(graph, std::move(inputs), data);
  if (!context) return std::unexpected(context.error());
  return Compiled<T>(graph, data, std::move(*context));
}

template <class T>
FlatPack<T> Compiled<T>::unfilledFlatPack() const {
  return FlatPack<T>{offsets_, typename FlatPack<T>::Values(offsets_->back())};
}

template <class T>
Result<Pack<T>> Compiled<T>::backwardDenseFrom(const Pack<T>& seed) const {
  if (auto ok = checkSeedPack(graph(), seed); !ok) return std::unexpected(ok.error());
  FlatPack<T> flat{offsets_, {}};
  flat.values.reserve(offsets_->back());
  for (const Tensor<T>& t : seed) flat.values.insert(flat.values.end(), t.values.begin(), t.values.end());
  flat = densePass(std::move(flat));
  Pack<T> gradients;
  gradients.reserve(seed.size());
  for (std::size_t p = 0; p < seed.size(); ++p) {
    // The fault reads position p's gradient from slot p - 1 (when their sizes agree).
    const bool offByOne = TC_MUTANT(flat_index_off_by_one) && p > 0 && flat.at(p - 1).size() == flat.at(p).size();
    std::span<const T> values = flat.at(offByOne ? p - 1 : p);
    gradients.push_back(Tensor<T>(seed[p].shape, std::vector<T>(values.begin(), values.end())));
  }
  return gradients;
}

// Whether no position repeats among a node's arguments (so that each term is its position's local sum).
inline bool distinctPositions(const std::vector<std::size_t>& args) {
  for (std::size_t i = 0; i < args.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (args[i] == args[j]) return false;
  return true;
}

// The dense order without its zero contributions. Adding +0 is idempotent and changes only a
// -0, so each slot keeps the visit count at its last write: a later visit that did not write
// it left a +0 pending, applied ("settled") before the slot is next read or written.
template <class T>
FlatPack<T> Compiled<T>::densePass(FlatPack<T> g, std::size_t onlySeeded) const {
  constexpr bool zeroIsIdentity = Carrier<T>::caps.storageEquality;
  constexpr std::size_t kFinal = std::numeric_limits<std::size_t>::max();
  const Graph<T>& graph = this->graph();
  const std::size_t positions = graph.positionCount();
  std::vector<std::size_t> writtenAt(positions, 0);
  std::size_t visits = 0;
  // Whether a +0 of the dense order is pending at slot p (a visit since its last write left one).
  auto pendingAt = [&](std::size_t p) { return !zeroIsIdentity && visits > writtenAt[p] && !TC_MUTANT(pending_zero_not_applied); };
  // Slots that hold +0 but are not filled yet (all but the seeded one in a single-output pass).
  std::vector<char> blank(positions, onlySeeded != npos);
  if (onlySeeded != npos) blank[onlySeeded] = false;
  auto fill = [&](std::size_t p) {
    if (blank[p]) std::ranges::fill(g.at(p), zero<T>());
    blank[p] = false;
  };
  auto settle = [&](std::size_t p) {
    if (pendingAt(p) && !blank[p]) {  // a blank slot's +0 stays +0
      const T z = zero<T>();
      std::span<T> slot = g.at(p);
      T* s = slot.data();
      for (std::size_t i = 0, n = slot.size(); i < n; ++i) s[i] = s[i] + z;
    }
    writtenAt[p] = visits;
  };
  // Slot p as the next write finds it: settle(p) and the addition happen in one pass over the slot
  // (kernels::SlotTarget's modes), each value getting the same additions in the same order.
  auto target = [&](std::size_t p) {
    using Mode = typename kernels::SlotTarget<T>::Mode;
    if (TC_MUTANT(dense_pass_overwrite)) {  // the fault: the slot takes the term instead of adding it
      std::ranges::fill(g.at(p), zero<T>());
      blank[p] = true;
    }
    const Mode mode = blank[p]       ? Mode::fromZero  // (+0 + 0) + l and +0 + l are alike
                      : pendingAt(p) ? Mode::settleThenAdd
                                     : Mode::add;
    blank[p] = false;
    writtenAt[p] = visits + 1;
    return kernels::SlotTarget<T>{g.at(p).data(), mode};
  };
  auto write = [&](std::size_t p, const Tensor<T>& localSum) {
    assert(localSum.size() == g.at(p).size());
    const T* l = localSum.values.data();
    kernels::addIntoSlot(target(p), localSum.size(), [l](std::size_t i) -> const T& { return l[i]; });
  };
  Tensor<T> ct;  // reused: the cotangent is copied out of the flat buffer without allocating
  for (std::size_t k = graph.positionCount(); k-- > graph.inputs.size();) {
    settle(k);
    fill(k);
    std::span<const T> slot = g.at(k);
    ct.shape = graph.shapeAt(k);
    ct.values.assign(slot.begin(), slot.end());
    const Node<T>& node = graph.nodeAt(k);
    if (ops::addsTermsInPlace(node.op) && distinctPositions(node.args)) {
      auto slotOf = [&](std::size_t arg) { return target(node.args[arg]); };
      Terms<T> rest;
      saved_.runInPlace(k, ct, slotOf, rest);
      for (const Term<T>& term : rest) write(node.args[term.arg], term.value);
    } else if (LocalContribution<T> c = saved_.run(k, ct); c.isDense) {
      for (std::size_t p = 0; p < k; ++p) write(p, c.dense[p]);
    } else {
      for (std::size_t s = 0; s < c.support.size(); ++s) {
        // The fault writes the lowest target's local sum to the next target's slot (of the same size).
        const bool nextSlot = TC_MUTANT(dense_pass_wrong_slot) && s == 0 && c.support.size() > 1 &&
                              g.at(c.support[1].first).size() == g.at(c.support[0].first).size();
        write(c.support[nextSlot ? 1 : s].first, c.support[s].second);
      }
    }
    ++visits;
    writtenAt[k] = kFinal;
  }
  for (std::size_t p = 0; p < positions; ++p) fill(p);
  for (std::size_t p = TC_MUTANT(final_settle_skips_inputs) ? graph.inputs.size() : 0; p < positions; ++p)
    if (writtenAt[p] != kFinal) settle(p);
  return g;
}

template <class T>
Result<SingleOutputGradients<T>> Compiled<T>::backwardDenseAllFrom(std::size_t output, const Tensor<T>& seed) const {
  const Graph<T>& graph = this->graph();
  if (auto ok = checkOutputSeed(graph, output, seed); !ok) return std::unexpected(ok.error());
  if constexpr (Carrier<T>::caps.storageEquality) {
    return supportPass(output, seed);
  } else {
    FlatPack<T> flat = unfilledFlatPack();
    std::copy(seed.values.begin(), seed.values.end(), flat.at(output).begin());
    return SingleOutputGradients<T>{GradientView<T>(graph, densePass(std::move(flat), output)), graph.nodes.size()};
  }
}

// With storage equality a compact node whose cotangent is zero contributes exact zeros, so only
// ancestors of the output (through certified support) and the prefix up to the highest opaque
// node run. Slots are created on first write, tracked by stamps, and visited highest first.
template <class T>
SingleOutputGradients<T> Compiled<T>::supportPass(std::size_t output, const Tensor<T>& seed) const {
  const Graph<T>& graph = this->graph();
  if (stamp_.empty()) {  // the first support pass: only carriers with storage equality make one
    stamp_.assign(graph.positionCount(), 0);
    slot_.assign(graph.positionCount(), 0);
  }
  if (++generation_ == 0) {  // the stamps wrapped around: start afresh
    std::fill(stamp_.begin(), stamp_.end(), 0);
    generation_ = 1;
  }
  std::vector<std::pair<std::size_t, Tensor<T>>> slots;
  std::priority_queue<std::size_t> pending;  // nodes above the opaque prefix awaiting their visit
  // Nodes below prefixEnd run densely (the fault: none do, and an opaque node runs only when reached).
  const std::size_t prefixEnd = highestOpaque_ == npos || TC_MUTANT(single_no_opaque_prefix) ? 0 : highestOpaque_ + 1;
  auto slotFor = [&](std::size_t p) -> Tensor<T>& {
    if (stamp_[p] != generation_) {
      stamp_[p] = generation_;
      slot_[p] = static_cast<std::uint32_t>(slots.size());
      slots.emplace_back(p, kernels::zeros<T>(graph.shapeAt(p)));
      if (!graph.isInput(p) && p >= prefixEnd) pending.push(p);
    }
    return slots[slot_[p]].second;
  };
  auto visit = [&](std::size_t k, const Tensor<T>& ct) {
    LocalContribution<T> c = saved_.run(k, ct);
    if (c.isDense) {
      for (std::size_t p = 0; p < k; ++p) kernels::addInto(slotFor(p), c.dense[p]);
    } else {
      // The fault: the last of several targets gets nothing (a bound one short).
      for (std::size_t s = 0; s + (TC_MUTANT(single_forgets_ancestor) && c.support.size() > 1) < c.support.size(); ++s)
        kernels::addInto(slotFor(c.support[s].first), c.support[s].second);
    }
  };
  slotFor(output) = TC_MUTANT(single_seed_ignored) ? Tensor<T>::filled(seed.shape, one<T>()) : seed;  // the fault ignores the seed
  std::size_t programsRun = 0;
  while (!pending.empty()) {
    std::size_t k = pending.top();
    pending.pop();
    Tensor<T> ct = slots[slot_[k]].second;  // a copy: visiting may grow `slots`
    visit(k, ct);
    ++programsRun;
  }
  // The dense prefix, highest first; a node that was never written has a zero cotangent.
  for (std::size_t i = prefixEnd; i-- > graph.inputs.size();) {
    const std::size_t k = TC_MUTANT(single_prefix_lowest_first) ? graph.inputs.size() + prefixEnd - 1 - i : i;  // the fault: lowest first
    Tensor<T> ct = stamp_[k] == generation_ ? slots[slot_[k]].second : kernels::zeros<T>(graph.shapeAt(k));
    visit(k, ct);  // ct is a copy: visiting may grow `slots`
    programsRun += TC_MUTANT(programs_miscounted) ? 2 : 1;  // the fault counts twice
  }
  return SingleOutputGradients<T>{GradientView<T>(graph, std::move(slots)), programsRun};
}

}  // namespace tc
