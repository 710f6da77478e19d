#pragma once
// compileChecked and Compiled (docs/semantics.md §1.8, §1.9): one checked execution that keeps the saved
// programs and the indexed context, with a dense reverse pass that reproduces the dense order
// bit for bit in linear time, and a single-output pass that visits only what it must.
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

#include "core/runtime/saved_graph.h"

namespace tc {

//! An allocator whose vectors leave plain values (double, float) uninitialised when they grow
//! without a value: for a buffer each element of which is written before it is read, which then
//! costs no zero fill. Other types are value-initialised as std::allocator does.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U, class... Args>
  void construct(U* at, Args&&... args) {
    if constexpr (sizeof...(Args) == 0 && std::is_trivially_default_constructible_v<U>) ::new (static_cast<void*>(at)) U;
    else ::new (static_cast<void*>(at)) U(std::forward<Args>(args)...);
  }
};

//! Every position's values in one buffer, position p at [offsets[p], offsets[p + 1]): the dense
//! pass works on it so that it allocates once rather than once per position.
template <class T>
struct FlatPack {
  using Values = std::vector<T, DefaultInitAllocator<T>>;
  std::shared_ptr<const std::vector<std::size_t>> offsets;
  Values values;

  std::span<T> at(std::size_t p) { return {values.data() + (*offsets)[p], (*offsets)[p + 1] - (*offsets)[p]}; }
  std::span<const T> at(std::size_t p) const {
    return {values.data() + (*offsets)[p], (*offsets)[p + 1] - (*offsets)[p]};
  }
};

//! Gradients of a single-output pass: positions that were never written read as zero, and
//! no storage is allocated for them.
template <class T>
class GradientView {
 public:
  //! A view of the positions in `stored`; every other position reads as zero.
  GradientView(const Graph<T>& graph, std::vector<std::pair<std::size_t, Tensor<T>>> stored);
  //! A view in which every position is stored (the dense pass).
  GradientView(const Graph<T>& graph, FlatPack<T> all);
  //! The gradient at `position` (zeros of its shape when it was never written).
  Tensor<T> at(std::size_t position) const;
  //! Whether `position` holds stored values.
  bool isStored(std::size_t position) const;
  std::size_t storedCount() const { return all_.offsets ? size() : stored_.size(); }
  std::size_t size() const { return graph_->positionCount(); }
  //! Every position's gradient, in position order.
  Pack<T> materialize() const;

 private:
  const Tensor<T>* find(std::size_t position) const;
  const Graph<T>* graph_;
  std::vector<std::pair<std::size_t, Tensor<T>>> stored_;  // ascending positions
  FlatPack<T> all_;                                        // or every position
};

//! The result of backwardDenseAllFrom: the gradients and how many node programs ran.
template <class T>
struct SingleOutputGradients {
  GradientView<T> gradients;
  std::size_t programsRun = 0;
};

//! One checked execution: inputs, saved programs and the indexed context. The graph and data it
//! was compiled from must outlive it. Passes reuse scratch marks, so one Compiled must not run
//! passes from two threads at once.
template <class T>
class Compiled {
 public:
  Compiled(const Graph<T>& graph, const Data<T>& data, std::shared_ptr<const Context<T>> context);

  //! The original inputs (the first positions of the context).
  std::span<const Tensor<T>> inputs() const { return std::span<const Tensor<T>>(*context_).first(graph().inputs.size()); }
  const SavedGraph<T>& saved() const { return saved_; }
  const Context<T>& context() const { return *context_; }
  const Graph<T>& graph() const { return saved_.graph(); }

  //! The equivalent runtime tape, for another engine consumer.
  Tape<T> toTape() const { return saved_.toTape(inputs()); }

  //! Every gradient from a full seed pack, in the dense order of docs/semantics.md §1.6, bit for bit.
  Result<Pack<T>> backwardDenseFrom(const Pack<T>& seed) const;

  //! Gradients from `seed` at `output` alone. With storage equality only the set V of docs/semantics.md §1.9
  //! is visited; otherwise this is the dense pass.
  Result<SingleOutputGradients<T>> backwardDenseAllFrom(std::size_t output, const Tensor<T>& seed) const;

  //! The highest opaque node's position, or npos.
  std::size_t highestOpaque() const { return highestOpaque_; }
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

 private:
  // The dense order over `gradients` (the seeds). `onlySeeded` names the one slot that holds a
  // seed when only one does (npos: every slot holds its seed); the others hold +0 in the dense
  // order but are not filled yet: each is written from zero, or filled before it is read.
  FlatPack<T> densePass(FlatPack<T> gradients, std::size_t onlySeeded = npos) const;
  //! A buffer for every position, its values not yet written (a single-output pass fills them).
  FlatPack<T> unfilledFlatPack() const;
  SingleOutputGradients<T> supportPass(std::size_t output, const Tensor<T>& seed) const;

  SavedGraph<T> saved_;
  std::shared_ptr<const Context<T>> context_;
  std::size_t highestOpaque_ = npos;
  std::shared_ptr<const std::vector<std::size_t>> offsets_;  // of every position in a FlatPack
  // Stamp marks of the single-output pass: slot p is live iff stamp_[p] == generation_.
  mutable std::vector<std::uint32_t> stamp_;
  mutable std::vector<std::uint32_t> slot_;
  mutable std::uint32_t generation_ = 0;
};

//! Validates and evaluates each node once, in graph order, recording its saved program. The
//! context holds the inputs themselves: a caller that hands them over (std::move) saves a copy.
template <class T>
Result<Compiled<T>> compileChecked(const Graph<T>& graph, Pack<T> inputs, const Data<T>& data);

}  // namespace tc
