#include "cli/bench.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <random>
#include <vector>

#include "bench/workloads.h"
#include "cli/exit_codes.h"
#include "core/graph/seed_pack.h"
#include "core/io/case_file.h"
#include "core/io/listing.h"
#include "core/ops/kernels.h"
#include "core/runtime/compiled.h"
#include "core/support/result.h"
#include "core/support/text.h"

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
    [[maybe_unused]] auto result = f(std::move(prepared));
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

// The shapes [m, depth, n] `bench product` times by default: tiles, rows and columns left beside
// them, short and deep folds, operands in the caches and beyond (bench/RESULTS.md, "The estimate
// of a matrix product").
constexpr std::array<std::array<std::size_t, 3>, 41> kProductShapes{{
    {512, 512, 512}, {128, 128, 128}, {64, 64, 64},    {32, 32, 32},     {16, 16, 16},     {8, 8, 8},
    {1, 512, 512},   {3, 512, 512},   {4, 512, 512},   {5, 512, 512},    {7, 512, 512},    {8, 512, 512},
    {16, 512, 512},  {9, 64, 64},     {4096, 512, 4},  {4096, 512, 8},   {4096, 512, 12},  {4096, 512, 16},
    {512, 512, 1},   {512, 512, 3},   {256, 256, 8},   {256, 256, 9},    {256, 256, 10},   {40, 2, 50},
    {256, 1, 256},   {512, 2, 512},   {512, 8, 512},   {512, 32, 512},   {512, 128, 512},  {4, 1024, 1024},
    {1024, 1024, 1024}, {4, 2048, 2048}, {16, 2048, 2048}, {2048, 2048, 16}, {4, 4096, 4096}, {8, 4096, 4096},
    {64, 4096, 4096}, {4096, 4096, 4}, {4096, 4096, 8}, {2, 40, 50},    {30, 40, 50},
}};

// One IEEE product [m, depth] × [depth, n] of values in [-1, 1] (kernels::foldProductsIeee, its
// output allocated each time, as an op's is): the median time a multiply-add of --repeat runs, each
// of enough products for about 2^24 multiply-adds, beside what the work estimate counts
// (kernels::ieeeProductNs, one core), after one run untimed.
template <class T>
nlohmann::json productRow(std::size_t m, std::size_t depth, std::size_t n, std::size_t repeat) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<T> x(m * depth), y(depth * n);
  for (T& v : x) v = static_cast<T>(uniform(rng));
  for (T& v : y) v = static_cast<T>(uniform(rng));
  const double macs = static_cast<double>(m) * static_cast<double>(depth) * static_cast<double>(n);
  const std::size_t products = std::max<std::size_t>(1, static_cast<std::size_t>((1 << 24) / macs));
  auto fold = [&] {
    std::size_t kept = 0;  // what the products give, so that none is left out
    for (std::size_t k = 0; k < products; ++k) {
      std::vector<T> c(m * n);
      kernels::foldProductsIeee(x.data(), depth, 1, y.data(), m, depth, n, c.data());
      kept += c[k % c.size()] > 0;
    }
    return kept;
  };
  fold();  // untimed: the first run pays for the threads' and the buffers' first use
  const double ms = medianMs(repeat, fold);
  const double measured = nsPer(ms, macs * static_cast<double>(products));
  const double estimate = kernels::ieeeProductNs(m, depth, n, sizeof(T)) / macs;
  return {{"workload", "product"}, {"carrier", std::string(Carrier<T>::name)}, {"m", m}, {"depth", depth}, {"n", n},
          {"ns_per_mac", measured}, {"estimate_ns_per_mac", estimate}, {"estimate_over_measured", estimate / measured},
          {"runs", repeat}};
}

// The most values `bench product` holds for one shape: its operands and its output.
constexpr double kMostProductElements = 1 << 27;

// --shape's M,DEPTH,N: three positive integers whose operands and output fit kMostProductElements.
Result<std::array<std::size_t, 3>> parseShape(const std::string& given) {
  std::array<std::size_t, 3> shape{};
  const char* at = given.data();
  const char* end = at + given.size();
  for (std::size_t d = 0; d < 3; ++d) {
    auto [next, ec] = std::from_chars(at, end, shape[d]);
    const bool separated = d == 2 ? next == end : next != end && *next == ',';
    if (ec != std::errc() || shape[d] == 0 || !separated)
      return fail(fmt::format("--shape must be M,DEPTH,N (three positive integers), got {}", quote(given)));
    at = d == 2 ? next : next + 1;
  }
  const double m = static_cast<double>(shape[0]), depth = static_cast<double>(shape[1]), n = static_cast<double>(shape[2]);
  if (const double elements = m * depth + depth * n + m * n; elements > kMostProductElements)
    return fail(fmt::format("--shape {} holds {:.3g} values in its operands and output, more than the {:.3g} it allows "
                            "(1 GiB of doubles)",
                            quote(given), elements, kMostProductElements));
  return shape;
}

// `bench product`: --shape M,DEPTH,N or the default shapes, on --carrier double or float (default both).
int productBench(const BenchOptions& o) {
  if (!o.carrier.empty() && o.carrier != "double" && o.carrier != "float")
    return report(kUsage, "bench product: --carrier must be double or float");
  std::vector<std::array<std::size_t, 3>> shapes(kProductShapes.begin(), kProductShapes.end());
  if (o.shape) {
    auto shape = parseShape(*o.shape);
    if (!shape) return report(kUsage, "bench product: " + shape.error().message);
    shapes = {*shape};
  }
  for (const auto& [m, depth, n] : shapes) {
    if (o.carrier.empty() || o.carrier == "double") print(productRow<double>(m, depth, n, o.repeat));
    if (o.carrier.empty() || o.carrier == "float") print(productRow<float>(m, depth, n, o.repeat));
  }
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
  if (o.workload == "product") return productBench(o);
  if (o.workload == "load-chain")
    return o.nodes == 0 ? report(kUsage, "bench: --nodes must be at least 1") : loadChainBench(o);
  std::string carrier = o.carrier.empty() ? "rational" : o.carrier;
  if (carrier == "rational") return singleOutputBench<Rational>(o);
  if (carrier == "modp") return singleOutputBench<ModP>(o);
  return report(kUsage, "bench single-output: --carrier must be rational or modp");
}

}  // namespace tc::cli
