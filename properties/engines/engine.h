#pragma once
// The engine interface: what the properties need from an autograd engine under test, so the
// same suites run against tapecheck's own engines and against anyone else's.
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
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

//! Thrown by an engine that could not give any result for a case: it crashed, exited or hung (an
//! engine in another process). The case fails with this message, and is shrunk like any failure.
struct EngineFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

//! Thrown by an engine whose output cannot be read at all (an engine in another process that broke
//! the protocol): not a verdict on a case; the run ends with an input error.
struct EngineOutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

//! Thrown by an engine that finds, once asked, that it cannot run a case its profile let through
//! (an attribute it cannot express): the case is counted unsupported under `op`.
struct UnsupportedCase : std::runtime_error {
  explicit UnsupportedCase(const std::string& op) : std::runtime_error(op) {}
};

//! A backward pass an engine will be asked for: dense from `seeds`, or (`single`) from `seed` at
//! `output` alone.
template <class T>
struct PlannedPass {
  bool single = false;
  Pack<T> seeds;
  std::size_t output = 0;
  Tensor<T> seed;
};

//! A compile an engine will be asked for, and the passes then asked of its execution, in order;
//! `called` is where its arguments were when it was recorded (the same objects usually come back).
template <class T>
struct PlannedCompile {
  Graph<T> graph;
  Pack<T> inputs;
  Data<T> data;
  std::vector<PlannedPass<T>> passes;
  struct {
    const Graph<T>* graph = nullptr;
    const Pack<T>* inputs = nullptr;
    const Data<T>* data = nullptr;
  } called;
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
  //! True for an engine that answers many calls at once much faster than one by one (an engine in
  //! another process): the runner then tells it ahead of a run of cases what they will ask (plan).
  virtual bool wantsPlans() const { return false; }
  //! The compiles (with their passes) the next cases will make, in order, as a property made them
  //! on the reference engine. A correct engine is asked exactly these; any other call still works.
  virtual void plan(std::vector<PlannedCompile<T>> compiles) const {}
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
