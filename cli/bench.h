#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace tc::cli {

//! Options of `tapecheck bench`.
struct BenchOptions {
  std::string workload;           //!< relu-chain, single-output, mlp, matmul, product, load-chain
  std::size_t nodes = 16000;      //!< relu-chain, single-output, load-chain
  std::size_t support = 64;       //!< single-output
  std::string carrier;            //!< relu-chain: double; single-output: rational or modp
  std::size_t repeat = 7;         //!< runs per figure; the median is printed
  std::size_t width = 256, depth = 8;  //!< mlp
  std::size_t n = 512;                 //!< matmul: [n, n] × [n, n]
  std::optional<std::string> shape;    //!< product: "M,DEPTH,N"; none: a list of shapes
};

//! Runs one workload and prints one JSON object per line; returns the exit status.
int runBench(const BenchOptions& options);

}  // namespace tc::cli
