#pragma once
// The engine interface: what the properties need from an autograd engine under test, so the
// same suites run against tapecheck's own engines and against anyone else's.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "core/support/result.h"
#include "core/tensor/tensor.h"

namespace tc {

//! Gradients from a single seeded output, and how many node programs the engine ran for them
//! when it counts (tapecheck's compiled engine does; the visit-set check is skipped otherwise).
template <class T>
struct SingleOutputResult {
  Pack<T> gradients;
  std::optional<std::size_t> programsRun;
};

//! One successful forward execution of a graph on given inputs and data, ready for backward
//! passes. The graph and data it was compiled from outlive it.
template <class T>
class Execution {
 public:
  virtual ~Execution() = default;
  //! The forward value of every position: the inputs, then each node.
  virtual const Context<T>& context() const = 0;
  //! Gradients at every position from a seed pack holding one cotangent per position.
  virtual Result<Pack<T>> backwardDense(const Pack<T>& seeds) const = 0;
  //! Gradients at every position when only `output` is seeded, with `seed`.
  virtual Result<SingleOutputResult<T>> backwardSingle(std::size_t output, const Tensor<T>& seed) const = 0;
};

//! An autograd engine on carrier T: it compiles a graph with inputs and data into an Execution,
//! or reports a node's domain failure as an error value.
template <class T>
class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;
  virtual Result<std::unique_ptr<const Execution<T>>> compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                              const Data<T>& data) const = 0;
};

//! tapecheck's own engines: "reference" (spec::eval and backpropAll), "tape" (lowerToTapeChecked
//! and the runtime tape) and "compiled" (compileChecked, the default engine under test).
template <class T>
const Engine<T>& builtinEngine(std::string_view name);

//! The names builtinEngine accepts.
inline constexpr std::string_view kBuiltinEngineNames[] = {"reference", "tape", "compiled"};

//! The same names as strings (for option checks and messages).
inline std::vector<std::string> builtinEngineNames() {
  return {std::begin(kBuiltinEngineNames), std::end(kBuiltinEngineNames)};
}

}  // namespace tc
