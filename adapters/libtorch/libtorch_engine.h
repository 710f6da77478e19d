#pragma once
// libtorch behind tapecheck's engine interface (properties/engines/engine.h): PyTorch's own C++ autograd,
// checked in process (tests/adapters/libtorch_engine_test.cpp) or served through the engine
// protocol by `libtorch_engine` (main.cpp), without the Python interpreter in between. It has the
// Python adapter's profile and maps each op the way adapters/python/torch_engine.py does, so the
// two check the same libtorch kernels and a difference between them is the adapter's, not torch's.
//
// The torch headers stay in libtorch_engine.cpp: they take a compiler most of a minute, and code
// that uses the engine (the server, the tests) needs only this header.
#include <memory>
#include <string_view>

#include "core/graph/graph.h"
#include "core/support/result.h"
#include "properties/engines/engine.h"
#include "properties/engines/profile.h"

namespace tc::libtorch {

//! libtorch's autograd as an engine on T = double (torch::kFloat64) or float (torch::kFloat32).
//! compile() builds one torch tensor per position: the inputs, and the outputs of `const` and
//! `detach`, are leaves with requires_grad (positions that receive cotangent); every other node is
//! the torch op the Python adapter maps it to. Every op of docs/semantics.md §2.1 but `opaque`;
//! `log` fails on values <= 0 or NaN as the specification's domain check does. A pass is one
//! torch::autograd::grad call from the seeded positions to every position. Torch runs on one
//! thread (set once, by the first engine constructed), so runs repeat bit for bit.
template <class T>
class Engine final : public tc::Engine<T> {
 public:
  Engine();
  std::string_view name() const override { return "libtorch"; }
  //! The execution, or the first error: malformed inputs or data (core/graph/pack_checks.h), an
  //! op the engine does not map ("node P (opaque twice): not supported by the libtorch engine"),
  //! or log's domain check ("node P (log): input contains values <= 0 or NaN"). An exception
  //! from torch itself (an adapter bug) is thrown as an EngineFault: the case fails and shrinks.
  Result<std::unique_ptr<const tc::Execution<T>>> compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                          const Data<T>& data) const override;
};

extern template class Engine<double>;
extern template class Engine<float>;

//! What the engine declares, read from the same JSON as the Python adapter's PROFILE (name
//! "libtorch"): carriers double and float, its ops, single-output passes over ancestors only, the
//! sign of zero unspecified, PyTorch's kink choices (relu zero, abs sign, clamp pass, max/min
//! split) and NaN propagation.
const EngineProfile& profile();

}  // namespace tc::libtorch
