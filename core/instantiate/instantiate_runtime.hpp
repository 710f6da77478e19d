#pragma once
// Explicit instantiation of the runtime templates for one carrier.
#include "core/runtime/compiled.hpp"
#include "core/runtime/forward.hpp"

// evaluateChecked with a per-node callback is a template on the callback, instantiated where it
// is called (lowerToTapeChecked); the plain evaluateChecked is instantiated here.
#define TAPECHECK_INSTANTIATE_RUNTIME(T)                                                                        \
  template std::shared_ptr<const Context<T>> evaluateUnchecked<T>(const Graph<T>&, const Pack<T>&,              \
                                                                  const Data<T>&);                              \
  template Result<std::shared_ptr<const Context<T>>> evaluateChecked<T>(const Graph<T>&, Pack<T>,               \
                                                                        const Data<T>&);                        \
  template struct Tape<T>;                                                                                      \
  template TapeNode<T> leafTapeNode<T>(const Tensor<T>&);                                                       \
  template TapeNode<T> denseTapeNode<T>(const Graph<T>&, const Data<T>&, std::shared_ptr<const Context<T>>,    \
                                        std::size_t);                                                           \
  template TapeAndContext<T> lowerGraphDataToTape<T>(const Graph<T>&, const Pack<T>&, const Data<T>&);          \
  template Result<TapeAndContext<T>> lowerToArrayChecked<T>(const Graph<T>&, const Pack<T>&, const Data<T>&);   \
  template Result<TapeAndContext<T>> lowerToTapeChecked<T>(const Graph<T>&, const Pack<T>&, const Data<T>&);    \
  template class SavedGraph<T>;                                                                                 \
  template class GradientView<T>;                                                                               \
  template class Compiled<T>;                                                                                   \
  template Result<Compiled<T>> compileChecked<T>(const Graph<T>&, Pack<T>, const Data<T>&);
