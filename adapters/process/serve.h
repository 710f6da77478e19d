#pragma once
// The engine side of the engine protocol for tapecheck's own engines: `tapecheck serve` answers
// requests with a built-in engine. It is the protocol's reference client end to end (the tests
// check that it passes every property through the protocol) and the engine that answers at
// once, which times the protocol's own cost.
#include <cstdio>
#include <string>

namespace tc::process {

//! Says hello with the `spec` profile named `engineName`, then answers each request line read
//! from the file descriptor `in` on `out` until `in` ends. Returns 0, or 2 after printing why on
//! stderr when a request is malformed (a request from tapecheck never is).
int serve(const std::string& engineName, int in, std::FILE* out);

}  // namespace tc::process
