#pragma once
#include <cstdint>
#include <string>

namespace tc::cli {

//! Options of `tapecheck mutants`.
struct MutantsOptions {
  std::size_t cases = 100;   //!< cases per property, as in `tapecheck run`
  std::uint64_t seed = 1;
  std::string format = "text";
  double timeoutSeconds = 300;
  std::string only;          //!< comma-separated mutant ids; default all
};

//! Runs the default property suite once per mutant, each in a child process with a timeout, and
//! prints the kill matrix; returns 0 only if every mutant was killed. Needs a mutant build.
int runMutants(const MutantsOptions& options);

}  // namespace tc::cli
