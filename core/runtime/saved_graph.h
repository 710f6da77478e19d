#pragma once
// SavedGraph (docs/semantics.md §1.8): each node's local reverse program, reading primal values from the
// shared indexed context by position (each value is stored once).
#include <memory>
#include <span>

#include "core/graph/node_program.h"
#include "core/runtime/forward.h"
#include "core/runtime/lowering.h"

namespace tc {

template <class T>
class SavedGraph;

//! A SavedGraph with the context its programs read.
template <class T>
struct SavedAndContext;

//! Saved local reverse programs for one execution of a graph. The graph and data must outlive it.
template <class T>
class SavedGraph {
 public:
  SavedGraph(const Graph<T>& graph, const Data<T>& data, std::shared_ptr<const Context<T>> context)
      : graph_(&graph), data_(&data), context_(std::move(context)) {}

  //! Saves the programs without domain checks (precondition as for lowerGraphDataToTape).
  static SavedAndContext<T> ofGraph(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data);
  //! Validates and evaluates each node once, in graph order; the first domain error wins.
  static Result<SavedAndContext<T>> lowerChecked(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data);

  //! Runs the saved program of the node at `position` on cotangent `ct`.
  LocalContribution<T> run(std::size_t position, const Tensor<T>& ct) const {
    return localContribution<T>(*graph_, *context_, *data_, position, ct);
  }
  //! Runs the node's program the in-place way (ops::termsInPlace): the term it adds in place goes
  //! into `slotOf(arg)`, the others into `rest`. For a node whose op addsTermsInPlace and whose
  //! arguments are distinct positions (terms on one position would need their local sum first).
  template <class SlotOf>
  void runInPlace(std::size_t position, const Tensor<T>& ct, SlotOf slotOf, Terms<T>& rest) const;
  //! The equivalent runtime tape: a leaf per input, then one dense node per graph node.
  Tape<T> toTape(std::span<const Tensor<T>> inputs) const;

  const Graph<T>& graph() const { return *graph_; }

 private:
  const Graph<T>* graph_;
  const Data<T>* data_;
  std::shared_ptr<const Context<T>> context_;
};

template <class T>
struct SavedAndContext {
  SavedGraph<T> saved;
  std::shared_ptr<const Context<T>> context;
};

}  // namespace tc
