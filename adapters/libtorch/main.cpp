// libtorch_engine: libtorch's autograd served through tapecheck's engine protocol
// (docs/engine-protocol.md) on double and float, so that
//   ./build/tapecheck run --engine-cmd ./build/libtorch_engine
// checks PyTorch's kernels without a Python interpreter in between. Requests come on standard
// input, answers go to standard output; torch's own warnings go to standard error.
#include <cstdio>
#include <exception>

#include "adapters/libtorch/libtorch_engine.h"
#include "adapters/process/serve.h"

int main() {
  const tc::libtorch::Engine<double> onDouble;
  const tc::libtorch::Engine<float> onFloat;
  tc::process::ServedEngines engines;
  engines.ieeeDouble = &onDouble;
  engines.ieeeFloat = &onFloat;
  // An exception is an adapter bug (torch refused what it was given): the engine exits saying
  // why, tapecheck reports the case as a crash, restarts the engine and shrinks the case, as
  // with the Python adapter's traceback.
  try {
    // "values", as the Python adapter: ±0 and NaN payloads are not compared bit for bit.
    return tc::process::serve(tc::libtorch::profile(), "values", engines, 0, stdout);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "libtorch_engine: %s\n", error.what());
    return 3;
  }
}
