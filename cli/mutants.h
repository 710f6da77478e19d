#pragma once
#include <cstddef>
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
  std::size_t jobs = 1;      //!< child runs at a time (each is single-threaded)
};

//! Runs the default property suite once per mutant, each in a child process with a timeout (`jobs`
//! of them at a time), and prints the kill matrix in the order of the ids; returns 0 only if every mutant was killed. Needs a mutant build.
int runMutants(const MutantsOptions& options);

}  // namespace tc::cli
