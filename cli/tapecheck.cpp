// tapecheck: property-based verification of reverse-mode autograd, from the command line. The
// commands are the library's (cli/main.h), plus two for tapecheck's own development.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <thread>

#include "cli/bench.h"
#include "cli/main.h"
#include "cli/mutants.h"
#include "cli/unsigned_option.h"

namespace {

tc::cli::ExtraCommand mutantsCommand() {
  return {"mutants", "Run the default suite once per built-in mutant (mutant builds only)", [](CLI::App& command) {
            auto options = std::make_shared<tc::cli::MutantsOptions>();
            command.add_option("--cases", options->cases, "cases per property")->check(CLI::Range(1, 1000000));
            command.add_option("--seed", options->seed, "random seed of every run")->check(tc::cli::kUnsigned);
            command.add_option("--format", options->format, "text, or json (one object per mutant, then a summary line)")
                ->check(CLI::IsMember({"text", "json"}));
            command.add_option("--timeout", options->timeoutSeconds, "seconds per mutant before it counts as not killed")
                ->check(CLI::Range(1.0, 86400.0));
            command.add_option("--only", options->only, "comma-separated mutant ids or names (default: all)");
            options->jobs = std::max(1u, std::thread::hardware_concurrency());
            command.add_option("--jobs", options->jobs, "mutants run at a time (default: the number of cores)")
                ->check(CLI::Range(1, 64));
            return [options] { return tc::cli::runMutants(*options); };
          }};
}

tc::cli::ExtraCommand benchCommand() {
  return {"bench", "Time the compiled passes on a synthetic workload (JSON lines)", [](CLI::App& command) {
            auto options = std::make_shared<tc::cli::BenchOptions>();
            command.add_option("WORKLOAD", options->workload, "relu-chain, single-output, mlp, matmul, product or load-chain")
                ->required()
                ->check(CLI::IsMember({"relu-chain", "single-output", "mlp", "matmul", "product", "load-chain"}));
            command.add_option("--nodes", options->nodes, "graph size (relu-chain, single-output, load-chain)");
            command.add_option("--support", options->support, "nodes the output depends on (single-output)");
            command.add_option("--carrier", options->carrier,
                               "double (relu-chain, mlp); rational or modp (single-output); double or float (product, default both)");
            command.add_option("--repeat", options->repeat, "runs per figure; the median is printed");
            command.add_option("--width", options->width, "layer width (mlp)");
            command.add_option("--depth", options->depth, "layers (mlp)");
            command.add_option("--n", options->n, "matrix size (matmul)");
            command.add_option("--shape", options->shape, "M,DEPTH,N: one [M, DEPTH] x [DEPTH, N] product (product; default: a list)");
            return [options] { return tc::cli::runBench(*options); };
          }};
}

}  // namespace

int main(int argc, char** argv) { return tc::cli::main(argc, argv, {}, {mutantsCommand(), benchCommand()}); }
