#pragma once
#include <string>

#include "cli/budget.h"

namespace tc::cli {

//! Options of `tapecheck grad`.
struct GradOptions {
  std::string file;
  std::string carrier = "rational";
  std::string engine = "compiled";
  std::string format = "text";
  bool single = false;  //!< seed only the output (backwardDenseAllFrom on the compiled engine)
  BudgetOptions budget;
};

//! Evaluates and differentiates one case file; returns the exit status.
int runGrad(const GradOptions& options);

}  // namespace tc::cli
