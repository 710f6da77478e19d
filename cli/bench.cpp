#include "cli/bench.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "bench/workloads.h"
#include "cli/exit_codes.h"
#include "core/graph/seed_pack.h"
#include "core/io/case_file.h"
#include "core/io/listing.h"
#include "core/runtime/compiled.h"

namespace tc::cli {
namespace {

// The median wall time of `repeat` runs of `f(prepare())`, in milliseconds. Neither `prepare` nor
// the destruction of what `f` returns is timed: a pass's result is what its caller goes on to use,
// as a framework's tensors live on after its forward and backward (libtorch's side is timed so).
template <class Prepare, class F>
double medianMs(std::size_t repeat, Prepare&& prepare, F&& f) {
  std::vector<double> times;
  for (std::size_t i = 0; i < repeat; ++i) {
    auto prepared = prepare();
    auto start = std::chrono::steady_clock::now();
    auto result = f(std::move(prepared));
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The median wall time of `repeat` runs of `f()`, in milliseconds (what it returns is not timed
// being destroyed).
template <class F>
double medianMs(std::size_t repeat, F&& f) {
  return medianMs(repeat, [] { return 0; }, [&](int) { return f(); });
}

double peakRssMib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void print(nlohmann::json row) { fmt::print("{}\n", row.dump()); }

int reluChainBench(const BenchOptions& o) {
  if (!o.carrier.empty() && o.carrier != "double") return report(kUsage, "bench relu-chain: --carrier must be double");
  bench::ReluChain w = bench::reluChain(o.nodes);
  const std::size_t last = w.graph.positionCount() - 1;
  const Tensor<double> ones = Tensor<double>::filled({4}, 1.0);
  double compileMs = medianMs(o.repeat, [&] { return compileChecked(w.graph, w.inputs, {}).value(); });
  auto compiled = compileChecked(w.graph, w.inputs, {}).value();
  double backwardMs = medianMs(o.repeat, [&] { return compiled.backwardDenseAllFrom(last, ones).value(); });
  nlohmann::json row{{"workload", "relu-chain"}, {"carrier", "double"},       {"nodes", o.nodes},
                     {"compile_ms", compileMs},  {"backward_ms", backwardMs}, {"runs", o.repeat}};
  if (o.nodes <= 4000) {
    auto lowered = lowerToTapeChecked(w.graph, w.inputs, {}).value();
    Pack<double> seeds = singleSeedPack(w.graph, last, ones);
    row["tape_backward_ms"] = medianMs(o.repeat, [&] { return lowered.tape.backwardDenseFrom(seeds).value(); });
  }
  row["peak_rss_mib"] = peakRssMib();
  print(row);
  return kSuccess;
}

template <class T>
int singleOutputBench(const BenchOptions& o) {
  if (o.support == 0 || o.support > o.nodes)
    return report(kUsage, "bench single-output: --support must be between 1 and --nodes");
  bench::SupportGraph<T> w = bench::supportGraph<T>(o.nodes, o.support);
  auto compiled = compileChecked(w.graph, w.inputs, {}).value();
  const Tensor<T> one({}, {Carrier<T>::fromInt(1)});
  Pack<T> seeds = singleSeedPack(w.graph, w.output, one);
  std::size_t visited = compiled.backwardDenseAllFrom(w.output, one)->programsRun;
  double singleMs = medianMs(o.repeat, [&] { return compiled.backwardDenseAllFrom(w.output, one).value(); });
  double denseMs = medianMs(o.repeat, [&] { return compiled.backwardDenseFrom(seeds).value(); });
  print({{"workload", "single-output"}, {"carrier", std::string(Carrier<T>::name)}, {"nodes", o.nodes},
         {"support", o.support}, {"visited", visited}, {"single_ms", singleMs}, {"dense_ms", denseMs},
         {"runs", o.repeat}});
  return kSuccess;
}

// Forward multiply-adds of the mlp workload and nanoseconds per multiply-add of a time in ms.
double nsPer(double ms, double count) { return ms * 1e6 / count; }

int mlpBench(const BenchOptions& o) {
  bench::Mlp w = bench::mlp(o.width, o.depth);
  const std::size_t last = w.graph.positionCount() - 1;
  const Tensor<double> ones = Tensor<double>::filled({o.width}, 1.0);
  // The inputs are handed over, as a framework's leaves are already in place when its forward starts.
  double forwardMs = medianMs(
      o.repeat, [&] { return w.inputs; },
      [&](Pack<double> inputs) { return compileChecked(w.graph, std::move(inputs), {}).value(); });
  auto compiled = compileChecked(w.graph, w.inputs, {}).value();
  double backwardMs = medianMs(o.repeat, [&] { return compiled.backwardDenseAllFrom(last, ones).value(); });
  const double macs = static_cast<double>(o.width * o.width * o.depth);
  print({{"workload", "mlp"}, {"carrier", "double"}, {"width", o.width}, {"depth", o.depth},
         {"forward_ms", forwardMs}, {"backward_ms", backwardMs}, {"backward_over_forward", backwardMs / forwardMs},
         {"forward_ns_per_mac", nsPer(forwardMs, macs)}, {"runs", o.repeat}});
  return kSuccess;
}

// A [n, n] × [n, n] matmul: the forward (compileChecked, inputs handed over) and the dense
// backward from ones at the product, which forms both terms (ct·bᵀ and aᵀ·ct).
int matmulBench(const BenchOptions& o) {
  bench::Matmul w = bench::matmul(o.n);
  const Tensor<double> ones = Tensor<double>::filled({o.n, o.n}, 1.0);
  double forwardMs = medianMs(
      o.repeat, [&] { return w.inputs; },
      [&](Pack<double> inputs) { return compileChecked(w.graph, std::move(inputs), {}).value(); });
  auto compiled = compileChecked(w.graph, w.inputs, {}).value();
  double backwardMs = medianMs(o.repeat, [&] { return compiled.backwardDenseAllFrom(2, ones).value(); });
  const double macs = static_cast<double>(o.n * o.n * o.n);
  print({{"workload", "matmul"}, {"carrier", "double"}, {"n", o.n}, {"forward_ms", forwardMs},
         {"backward_ms", backwardMs}, {"forward_ns_per_mac", nsPer(forwardMs, macs)},
         {"backward_ns_per_mac", nsPer(backwardMs, 2 * macs)}, {"runs", o.repeat}});
  return kSuccess;
}

// What `tapecheck grad FILE --carrier double` does to a chain file of --nodes nodes, by phase:
// reading the text into a case (parse, validation, shapes), the forward, the dense backward, and
// the listing it prints.
int loadChainBench(const BenchOptions& o) {
  const std::string text = bench::chainDocument(o.nodes);
  double loadMs = medianMs(o.repeat, [&] { return parseCase<double>(text).value(); });
  Case<double> c = parseCase<double>(text).value();
  double compileMs = medianMs(o.repeat, [&] { return compileChecked(c.graph, *c.inputs, c.data).value(); });
  auto compiled = compileChecked(c.graph, *c.inputs, c.data).value();
  double backwardMs = medianMs(o.repeat, [&] { return compiled.backwardDenseFrom(c.seeds).value(); });
  Pack<double> gradients = compiled.backwardDenseFrom(c.seeds).value();
  double listingMs = medianMs(o.repeat, [&] {
    return formatListing(c.graph, {{"value", compiled.context()}, {"seed", c.seeds}, {"gradient", gradients}});
  });
  print({{"workload", "load-chain"}, {"carrier", "double"}, {"nodes", o.nodes}, {"bytes", text.size()},
         {"load_ms", loadMs}, {"compile_ms", compileMs}, {"backward_ms", backwardMs}, {"listing_ms", listingMs},
         {"total_ms", loadMs + compileMs + backwardMs + listingMs}, {"runs", o.repeat}});
  return kSuccess;
}

}  // namespace

int runBench(const BenchOptions& o) {
  if (o.repeat == 0) return report(kUsage, "bench: --repeat must be at least 1");
  if (o.workload == "relu-chain") return o.nodes == 0 ? report(kUsage, "bench: --nodes must be at least 1") : reluChainBench(o);
  if (o.workload == "mlp") return mlpBench(o);
  if (o.workload == "matmul") return o.n == 0 ? report(kUsage, "bench: --n must be at least 1") : matmulBench(o);
  if (o.workload == "load-chain")
    return o.nodes == 0 ? report(kUsage, "bench: --nodes must be at least 1") : loadChainBench(o);
  std::string carrier = o.carrier.empty() ? "rational" : o.carrier;
  if (carrier == "rational") return singleOutputBench<Rational>(o);
  if (carrier == "modp") return singleOutputBench<ModP>(o);
  return report(kUsage, "bench single-output: --carrier must be rational or modp");
}

}  // namespace tc::cli
