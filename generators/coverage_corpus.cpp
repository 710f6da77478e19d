// The hand-tagged coverage corpus (generators/coverage_corpus.h): small cases, each with the
// categories it must and must not fall in, written by hand from the categories' definitions.
#include "generators/coverage_corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/carriers/dispatch.h"
#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "generators/coverage.h"
#include "generators/expected_shapes.h"

namespace tc::gen {
namespace {

// A case of one input of shape [n] holding `values`, and the nodes `nodes` (JSON text) after it.
std::string caseOf(const std::string& values, const std::string& nodes, const std::string& rest = "") {
  const std::size_t n = values.empty() ? 0 : 1 + std::count(values.begin(), values.end(), ',');
  return R"({"tapecheck": 1, "inputs": [{"shape": [)" + std::to_string(n) + R"(]}], "values": [[)" + values +
         R"(]], "nodes": [)" + nodes + "]" + rest + "}";
}

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

template <class T>
std::string text(T value) {
  return Carrier<T>::format(value);
}

// Two documents between them holding every op once: each op's category is a positive example in
// one and a near miss in the other (softmax_last against log_softmax_last, sum against sum_axis).
const std::string kZooA = R"({"tapecheck": 1, "inputs": [{"shape": [2, 2]}, {"shape": [2]}],
  "data": {"m": {"shape": [2], "values": ["1", "0"]}},
  "values": [["1", "2", "3", "4"], ["1", "2"]],
  "nodes": [{"op": "add", "args": [0, 0]}, {"op": "mul", "args": [2, 0]}, {"op": "max", "args": [3, 0]},
            {"op": "neg", "args": [4]}, {"op": "scale", "args": [5], "attrs": {"c": "2"}}, {"op": "relu", "args": [6]},
            {"op": "clamp", "args": [7], "attrs": {"lo": "-1", "hi": "1"}}, {"op": "exp", "args": [8]},
            {"op": "sqrt", "args": [9]}, {"op": "sigmoid", "args": [10]}, {"op": "sin", "args": [11]},
            {"op": "sum", "args": [12]}, {"op": "mean", "args": [12]}, {"op": "matmul", "args": [12, 1]},
            {"op": "linear", "args": [12, 1, 1]}, {"op": "reshape", "args": [15], "attrs": {"shape": [1, 2]}},
            {"op": "concat0", "args": [0, 12]}, {"op": "const", "attrs": {"shape": [2], "values": ["1", "2"]}},
            {"op": "mask", "args": [16], "attrs": {"key": "m"}}, {"op": "mse_loss", "args": [15, 16]},
            {"op": "softmax_last", "args": [0]}, {"op": "opaque", "args": [1], "attrs": {"name": "twice"}}]})";
const std::vector<std::string> kZooAOps{"add",    "mul",   "max",     "neg",   "scale",   "relu",         "clamp",
                                        "exp",    "sqrt",  "sigmoid", "sin",   "sum",     "mean",         "matmul",
                                        "linear", "reshape", "concat0", "const", "mask", "mse_loss", "softmax_last"};
const std::string kZooB = R"({"tapecheck": 1, "inputs": [{"shape": [2, 2]}, {"shape": [2]}],
  "data": {"g": {"indices": [1, 0]}},
  "values": [["1", "2", "3", "4"], ["1", "2"]],
  "nodes": [{"op": "sub", "args": [0, 0]}, {"op": "div", "args": [0, 0]}, {"op": "min", "args": [3, 0]},
            {"op": "square", "args": [4]}, {"op": "inv", "args": [5]}, {"op": "abs", "args": [6]},
            {"op": "log", "args": [7]}, {"op": "tanh", "args": [8]}, {"op": "softplus", "args": [9]},
            {"op": "cos", "args": [10]}, {"op": "sum_axis", "args": [11], "attrs": {"axis": 0}},
            {"op": "dot", "args": [12, 1]}, {"op": "transpose", "args": [11]},
            {"op": "broadcast", "args": [1], "attrs": {"shape": [2, 2]}},
            {"op": "slice0", "args": [0], "attrs": {"start": 0, "len": 1}}, {"op": "detach", "args": [1]},
            {"op": "gather0", "args": [0], "attrs": {"key": "g"}}, {"op": "log_softmax_last", "args": [0]},
            {"op": "opaque", "args": [1], "attrs": {"name": "const3"}}]})";
const std::vector<std::string> kZooBOps{"sub",  "div",      "min", "square",    "inv",       "abs",
                                        "log",  "tanh",     "softplus", "cos", "sum_axis", "dot",
                                        "transpose", "broadcast", "slice0", "detach", "gather0", "log_softmax_last"};

std::vector<TaggedExample> opExamples() {
  auto prefixed = [](const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const std::string& name : names) out.push_back("op " + name);
    return out;
  };
  std::vector<std::string> a = prefixed(kZooAOps), b = prefixed(kZooBOps);
  a.push_back("opaque twice");
  b.push_back("opaque const3");
  return {{"double", kZooA, a, b}, {"double", kZooB, b, a}};
}

// The structure of a case: ranks, fan-out, repeated and unused nodes, domain failures, where the
// output is, how many positions are seeded.
std::vector<TaggedExample> structureExamples() {
  return {
      {"rational", R"({"tapecheck": 1, "inputs": [{"shape": []}], "values": [["1"]], "nodes": [{"op": "neg", "args": [0]}]})",
       {"rank 0", "output at last node", "single seed"},
       {"rank 1", "rank 2", "rank 3", "fan-out", "repeated argument", "unused node", "domain failure", "output at input",
        "output at intermediate", "seed pack"}},
      // One element, but rank 1; two arguments from two positions: no fan-out, no repeat.
      {"rational",
       R"({"tapecheck": 1, "inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["1"], ["2"]],
           "nodes": [{"op": "add", "args": [0, 1]}]})",
       {"rank 1"},
       {"rank 0", "fan-out", "repeated argument"}},
      {"rational",
       R"({"tapecheck": 1, "inputs": [{"shape": [2, 2]}], "values": [["1", "2", "3", "4"]],
           "nodes": [{"op": "add", "args": [0, 0]}]})",
       {"rank 2", "repeated argument", "fan-out"},
       {"rank 1", "rank 3"}},
      {"rational",
       R"({"tapecheck": 1, "inputs": [{"shape": [2, 1, 2]}], "values": [["1", "2", "3", "4"]],
           "nodes": [{"op": "neg", "args": [0]}, {"op": "neg", "args": [0]}], "output": 1})",
       {"rank 3", "fan-out", "unused node", "output at intermediate"},
       {"rank 2", "repeated argument", "output at last node"}},
      {"rational", caseOf(R"("0")", R"({"op": "inv", "args": [0]})"), {"domain failure"}, {}},
      {"rational", caseOf(R"("1/1000000")", R"({"op": "inv", "args": [0]})"), {}, {"domain failure"}},
      {"rational", caseOf(R"("1")", R"({"op": "neg", "args": [0]})", R"(, "output": 0)"),
       {"output at input", "unused node"},
       {"output at last node", "output at intermediate"}},
      {"rational",
       caseOf(R"("1")", R"({"op": "neg", "args": [0]}, {"op": "neg", "args": [1]})",
              R"(, "seeds": {"1": ["1"], "2": ["1"]})"),
       {"seed pack"},
       {"single seed"}},
      // A pack naming a second position all zero seeds one position.
      {"rational",
       caseOf(R"("1")", R"({"op": "neg", "args": [0]}, {"op": "neg", "args": [1]})",
              R"(, "seeds": {"1": ["0"], "2": ["1"]})"),
       {"single seed"},
       {"seed pack"}},
  };
}

// Kinks, with near misses a millionth away.
std::vector<TaggedExample> kinkExamples() {
  auto unary = [](const std::string& op, const std::string& value, const std::string& attrs = "") {
    return caseOf(quoted(value), R"({"op": ")" + op + R"(", "args": [0])" + attrs + "}");
  };
  const std::string bounds = R"(, "attrs": {"lo": "-1", "hi": "1/2"})";
  auto binary = [](const std::string& op, const std::string& a, const std::string& b) {
    return R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2]}], "values": [["5", )" + quoted(a) +
           R"(], ["7", )" + quoted(b) + R"(]], "nodes": [{"op": ")" + op + R"(", "args": [0, 1]}]})";
  };
  std::vector<TaggedExample> out{
      {"rational", unary("relu", "0"), {"kink relu"}, {}},
      {"rational", unary("relu", "1/1000000"), {}, {"kink relu"}},
      {"double", unary("relu", "-0"), {"kink relu"}, {}},
      {"rational", unary("abs", "0"), {"kink abs"}, {"kink relu"}},
      {"rational", unary("abs", "-1/1000000"), {}, {"kink abs"}},
      {"rational", unary("clamp", "-1", bounds), {"kink clamp"}, {}},
      {"rational", unary("clamp", "1/2", bounds), {"kink clamp"}, {}},
      {"rational", unary("clamp", "-999999/1000000", bounds), {}, {"kink clamp"}},
      {"rational", unary("clamp", "500001/1000000", bounds), {}, {"kink clamp"}},
  };
  for (const std::string op : {"max", "min"}) {
    out.push_back({"rational", binary(op, "3/2", "3/2"), {"kink " + op}, {}});
    out.push_back({"rational", binary(op, "3/2", "1500001/1000000"), {}, {"kink " + op}});
  }
  return out;
}

// IEEE special values in an input, each kind on its own, and normal numbers beside them that are not.
std::vector<TaggedExample> specialValueExamples() {
  std::vector<TaggedExample> out;
  for (const std::string value : {"nan", "inf", "-inf", "-0", "0x1p-1074", "0x1.ffffffffffffep-1023", "16777216", "-16777216"})
    out.push_back({"double", caseOf(quoted(value), R"({"op": "neg", "args": [0]})"), {"IEEE special value"}, {}});
  out.push_back({"float", caseOf(R"("0x1p-149")", R"({"op": "neg", "args": [0]})"), {"IEEE special value"}, {}});
  // 2^24 − 1 and 2^24 + 2, the smallest normal, +0, a large and a small normal.
  for (const std::string value : {"16777215", "16777218", "0x1p-1022", "0", "1", "1e300", "-1e-300"})
    out.push_back({"double", caseOf(quoted(value), R"({"op": "neg", "args": [0]})"), {}, {"IEEE special value"}});
  out.push_back({"float", caseOf(R"("0x1p-126")", R"({"op": "neg", "args": [0]})"), {}, {"IEEE special value"}});
  return out;
}

// NaN and infinities into each family of ops (ops::family), and the largest finite value into none.
std::vector<TaggedExample> specialIntoFamilyExamples() {
  const std::map<std::string, std::string> representative{
      {"elementwise", R"({"op": "neg", "args": [0]})"},
      {"transcendental", R"({"op": "exp", "args": [0]})"},
      {"reduction", R"({"op": "sum", "args": [0]})"},
      {"structural", R"({"op": "reshape", "args": [0], "attrs": {"shape": [1, 1]}})"},
      {"opaque", R"({"op": "opaque", "args": [0], "attrs": {"name": "twice"}})"}};
  std::vector<TaggedExample> out;
  for (const auto& [family, node] : representative) {
    out.push_back({"double", caseOf(R"("nan")", node), {"NaN into " + family}, {"inf into " + family}});
    out.push_back({"double", caseOf(R"("-inf")", node), {"inf into " + family}, {"NaN into " + family}});
    out.push_back({"double", caseOf(R"("0x1.fffffffffffffp+1023")", node), {}, {"NaN into " + family, "inf into " + family}});
  }
  // A NaN into an elementwise node is not into a transcendental one.
  out.push_back({"double", caseOf(R"("nan")", representative.at("elementwise")), {}, {"NaN into transcendental"}});
  return out;
}

// Signed zeros in seeds. Positions: 0 the input x, then the nodes.
std::vector<TaggedExample> seedExamples() {
  const std::string chain = R"({"op": "neg", "args": [0]}, {"op": "neg", "args": [1]})";
  auto seeded = [&](const std::string& seeds) { return caseOf(R"("1", "2")", chain, R"(, "seeds": )" + seeds); };
  return {
      {"double", seeded(R"({"2": ["0", "1"]})"), {"+0 seed at output"}, {"-0 seed at output"}},
      {"double", seeded(R"({"2": ["-0", "1"]})"), {"-0 seed at output", "-0 seed at last position"}, {"+0 seed at output"}},
      {"double", seeded(R"({"0": ["0", "1"], "2": ["1", "1"]})"), {"+0 seed at input"}, {"-0 seed at input"}},
      {"double", seeded(R"({"0": ["-0", "1"], "2": ["1", "1"]})"), {"-0 seed at input"}, {"+0 seed at input"}},
      // A position whose seed is all +0 is unseeded.
      {"double", seeded(R"({"0": ["0", "0"], "1": ["0", "0"], "2": ["1", "1"]})"), {},
       {"+0 seed at input", "+0 seed at intermediate"}},
      {"double", seeded(R"({"1": ["0", "1"], "2": ["1", "1"]})"), {"+0 seed at intermediate"}, {"-0 seed at intermediate"}},
      {"double", seeded(R"({"1": ["-0", "1"], "2": ["1", "1"]})"), {"-0 seed at intermediate"},
       {"+0 seed at intermediate", "-0 seed at last position"}},
  };
}

// The dense order's pending +0 (docs/semantics.md §1.6): positions 0 and 1 the inputs x and y.
std::vector<TaggedExample> pendingZeroExamples() {
  auto twoInputs = [](const std::string& nodes, const std::string& seeds) {
    return R"({"tapecheck": 1, "inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["1"], ["2"]], "nodes": [)" +
           nodes + R"(], "seeds": )" + seeds + "}";
  };
  const std::string xThenY = R"({"op": "neg", "args": [0]}, {"op": "neg", "args": [1]})";
  const std::string yThenX = R"({"op": "neg", "args": [1]}, {"op": "neg", "args": [0]})";
  return {
      // neg(y), visited first, does not write x: its +0 settles x's −0.
      {"double", twoInputs(xThenY, R"({"0": ["-0"], "3": ["1"]})"), {"-0 seed under pending +0"}, {}},
      // neg(x) adds −(+0) = −0 to x's −0, which stays; then neg(y) settles it.
      {"double", twoInputs(yThenX, R"({"0": ["-0"], "3": ["0"]})"), {"-0 seed under pending +0"}, {}},
      // neg(x), visited first, adds −1: nothing −0 is left for neg(y)'s +0 to settle.
      {"double", twoInputs(yThenX, R"({"0": ["-0"], "3": ["1"]})"), {"-0 seed at input"}, {"-0 seed under pending +0"}},
      // The only later node writes −0 to x: x keeps its −0 to the end, nothing is settled.
      {"double", caseOf(R"("1")", R"({"op": "neg", "args": [0]})", R"(, "seeds": {"0": ["-0"], "1": ["0"]})"),
       {"-0 seed at input"},
       {"-0 seed under pending +0", "-0 seed at last position"}},
      // A +0 seed has nothing to settle.
      {"double", twoInputs(xThenY, R"({"0": ["0"], "3": ["1"]})"), {}, {"-0 seed under pending +0"}},
  };
}

// −0 into each op with kinks, as an input and as a node's value; +0 there, and −0 into an op
// without kinks, are near misses.
std::vector<TaggedExample> negativeZeroAtKinkExamples() {
  const std::string category = "-0 into relu, abs, clamp, max or min";
  std::vector<TaggedExample> out;
  for (const std::string node : {R"({"op": "relu", "args": [0]})", R"({"op": "abs", "args": [0]})",
                                 R"({"op": "clamp", "args": [0], "attrs": {"lo": "-1", "hi": "1"}})",
                                 R"({"op": "max", "args": [0, 0]})", R"({"op": "min", "args": [0, 0]})"}) {
    out.push_back({"double", caseOf(R"("1", "-0")", node), {category}, {}});
    out.push_back({"float", caseOf(R"("-0")", node), {category}, {}});
    out.push_back({"double", caseOf(R"("1", "0")", node), {}, {category}});
  }
  // neg(+0) = −0 into relu: a node's value counts too; −0 into neg or exp does not.
  out.push_back({"double", caseOf(R"("0")", R"({"op": "neg", "args": [0]}, {"op": "relu", "args": [1]})"), {category}, {}});
  out.push_back({"double", caseOf(R"("-0")", R"({"op": "neg", "args": [0]}, {"op": "exp", "args": [0]})"), {}, {category}});
  return out;
}

// Every declared stress value of every op, at the value and an ulp either side of it, on double
// and float; and at the value in an op that does not declare it.
template <class T>
void addStressValueExamples(const std::string& carrier, std::vector<TaggedExample>& out) {
  for (OpKind kind : ops::opsSupportedBy<T>()) {
    const std::string node = R"({"op": ")" + std::string(opName(kind)) + R"(", "args": [0]})";
    for (std::string_view declared : ops::stressValues(kind)) {
      const std::string category = "stress " + std::string(opName(kind)) + " " + std::string(declared);
      const T value = *parseValue<T>(declared);
      out.push_back({carrier, caseOf(R"("1", )" + quoted(std::string(declared)), node), {category}, {}});
      for (T beside : {std::nextafter(value, std::numeric_limits<T>::infinity()), std::nextafter(value, -std::numeric_limits<T>::infinity())})
        out.push_back({carrier, caseOf(quoted(text(beside)) + R"(, "1")", node), {}, {category}});
      out.push_back({carrier, caseOf(quoted(std::string(declared)), R"({"op": "neg", "args": [0]})"), {}, {category}});
    }
  }
}

// Cancellation: mse_loss's arguments nearly equal (within 2^-(p/2) of each other: 2^-26 in
// double), log_softmax_last's row nearly constant at a stress value.
std::vector<TaggedExample> cancellationExamples() {
  auto mse = [](const std::string& a, const std::string& b) {
    return R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2]}], "values": [["3", )" + quoted(a) +
           R"(], ["5", )" + quoted(b) + R"(]], "nodes": [{"op": "mse_loss", "args": [0, 1]}]})";
  };
  const std::string mseCategory = "stress mse_loss cancellation", rowCategory = "stress log_softmax_last cancellation";
  const std::string row = R"({"op": "log_softmax_last", "args": [0]})";
  auto rowAt = [&](double centre, double offset) { return caseOf(quoted(text(centre)) + ", " + quoted(text(centre + offset)), row); };
  return {
      {"double", mse("1", "0x1.0000001p+0"), {mseCategory}, {}},            // 1 + 2^-28
      {"double", mse("1", "0x1.0000004p+0"), {mseCategory}, {}},            // 1 + 2^-26, the edge
      {"float", mse("1", "0x1.0004p+0"), {mseCategory}, {}},                // 1 + 2^-14 (float: within 2^-12)
      {"float", mse("1", "0x1.002p+0"), {}, {mseCategory}},                 // 1 + 2^-11: too far in float
      {"double", mse("1", "1"), {}, {mseCategory}},                         // equal: no difference to cancel
      {"double", mse("1", "0x1.0000008p+0"), {}, {mseCategory}},            // 1 + 2^-25: too far
      {"double", R"({"tapecheck": 1, "inputs": [{"shape": [1]}], "values": [["1"]], "nodes": [{"op": "mse_loss", "args": [0, 0]}]})",
       {},
       {mseCategory}},
      {"double", rowAt(1000, 1000 * 0x1p-28), {rowCategory, "stress log_softmax_last 1000"}, {}},
      {"double", rowAt(-1000, -1000 * 0x1p-28), {rowCategory, "stress log_softmax_last -1000"}, {}},
      {"float", rowAt(1000, 1000 * 0x1p-14), {rowCategory}, {}},
      {"double", rowAt(1000, 0), {}, {rowCategory}},                        // constant: nothing cancels
      {"double", rowAt(1000, 1000 * 0x1p-24), {}, {rowCategory}},           // too far apart
      {"double", rowAt(500, 500 * 0x1p-28), {}, {rowCategory}},             // nearly constant away from ±1000
      {"double", caseOf(R"("1000")", row), {"stress log_softmax_last 1000"}, {rowCategory}},  // a row of one
      {"double", caseOf(R"("1000", "0x1.f400001p+9")", R"({"op": "softmax_last", "args": [0]})"), {}, {rowCategory}},
  };
}

// A product case: inputs A [m, k] and B [k, n] (and, with `withLinear`, x [k] and b [m]), matmul(A, B)
// and linear(A, x, b); small integer values (and `first` as A's first value).
std::string productCase(std::size_t m, std::size_t k, std::size_t n, bool withLinear, const std::string& first = "1") {
  auto values = [](std::size_t count) {
    nlohmann::json v = nlohmann::json::array();
    for (std::size_t i = 0; i < count; ++i) v.push_back(std::to_string(i % 7 + 1));
    return v;
  };
  nlohmann::json doc = {{"tapecheck", 1},
                        {"inputs", {{{"shape", {m, k}}}, {{"shape", {k, n}}}}},
                        {"nodes", {{{"op", "matmul"}, {"args", {0, 1}}}}},
                        {"values", {values(m * k), values(k * n)}}};
  doc["values"][0][0] = first;
  if (withLinear) {
    doc["inputs"].push_back({{"shape", {k}}});
    doc["inputs"].push_back({{"shape", {m}}});
    doc["values"].push_back(values(k));
    doc["values"].push_back(values(m));
    doc["nodes"].push_back({{"op", "linear"}, {"args", {0, 2, 3}}});
  }
  return doc.dump();
}

// The paths of the product kernel and its neighbours (docs/semantics.md §3.4; core/ops/kernel_geometry.h):
// [5, 130] x [130, 13] reaches all but few rows x1 (tests/generators/kernel_sizes_test.cpp explains
// each); [2, 3] x [3, 5] only few rows x1 and a tail; [4, 64] x [64, 8] tiles alone — every block,
// leftover, panel and tail just missed. On intervals a product runs in double only where every
// value is a double.
std::vector<TaggedExample> kernelExamples() {
  const std::vector<std::string> all{"kernel product tiles",        "kernel product panel",
                                     "kernel product tail columns", "kernel product leftover rows",
                                     "kernel product depth blocks", "kernel product row blocks",
                                     "kernel product few rows x4",  "kernel row dots leftover rows",
                                     "kernel outer product tail",   "kernel transpose tiles"};
  return {
      {"double", productCase(5, 130, 13, true), all, {"kernel product few rows x1"}},
      {"double", productCase(2, 3, 5, false), {"kernel product few rows x1", "kernel product tail columns"},
       {"kernel product few rows x4", "kernel product tiles", "kernel transpose tiles"}},
      {"double", productCase(4, 64, 8, false), {"kernel product tiles"},
       {"kernel product panel", "kernel product tail columns", "kernel product leftover rows",
        "kernel product depth blocks", "kernel product row blocks", "kernel product few rows x4",
        "kernel product few rows x1", "kernel row dots leftover rows", "kernel outer product tail",
        "kernel transpose tiles"}},
      {"interval", productCase(5, 130, 13, false), {"kernel product in double", "kernel transpose tiles"},
       {"non-double point into a product"}},
      {"interval", productCase(5, 130, 13, false, "1/3"), {}, {"kernel product in double", "non-double point into a product"}},
      // Points the interval carrier holds exactly that no double does (1 + 2^-60, 2 + 3·2^-54): the
      // product must not run in double, whose conversion would round them (exactDouble).
      {"interval", productCase(5, 130, 13, false, "1152921504606846977/1152921504606846976"),
       {"non-double point into a product"}, {"kernel product in double"}},
      {"interval", productCase(5, 130, 13, false, "-36028797018963971/18014398509481984"),
       {"non-double point into a product"}, {"kernel product in double"}},
      // 2^-1074, the least subnormal, and 2^53 + 2 are doubles (whose folds here are not exact in double); 1 +
      // 2^-60 read by an add only is in no product.
      {"interval", productCase(2, 3, 2, false, "0x1p-1074"), {}, {"non-double point into a product"}},
      {"interval", productCase(2, 3, 2, false, "9007199254740994"), {}, {"non-double point into a product"}},
      {"interval", R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2]}], "nodes": [{"op": "dot", "args": [0, 1]}],
          "values": [["1152921504606846977/1152921504606846976", "1"], ["2", "3"]]})",
       {"non-double point into a product"}, {}},
      {"interval", R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2]}], "nodes": [{"op": "add", "args": [0, 1]}],
          "values": [["1152921504606846977/1152921504606846976", "1"], ["2", "3"]]})",
       {}, {"non-double point into a product"}},
  };
}

}  // namespace

const std::vector<TaggedExample>& coverageCorpus() {
  static const std::vector<TaggedExample> corpus = [] {
    std::vector<TaggedExample> all;
    for (auto part : {opExamples(), structureExamples(), kinkExamples(), specialValueExamples(), specialIntoFamilyExamples(),
                      seedExamples(), pendingZeroExamples(), cancellationExamples(), kernelExamples(),
                      negativeZeroAtKinkExamples()})
      all.insert(all.end(), part.begin(), part.end());
    addStressValueExamples<double>("double", all);
    addStressValueExamples<float>("float", all);
    return all;
  }();
  return corpus;
}

std::vector<std::string> coverageCorpusDisagreements(std::string_view carrier) {
  std::vector<std::string> out;
  const std::vector<TaggedExample>& corpus = coverageCorpus();
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const TaggedExample& example = corpus[i];
    if (example.carrier != carrier) continue;
    withCarrier(carrier, [&]<class T>() {
      auto loaded = parseCase<T>(example.doc);
      if (!loaded) {
        out.push_back(fmt::format("example {} does not load: {}", i, loaded.error().message));
        return 0;
      }
      // Tagging evaluates the case: not one whose shapes are not the op table's (a fault of its own).
      if (auto disagreement = shapeDisagreement(loaded->graph)) {
        out.push_back(fmt::format("example {}: the loader's shapes are not the op table's: {}", i, *disagreement));
        return 0;
      }
      const std::vector<std::string> tags = coverageTags(*loaded);
      const std::set<std::string> got(tags.begin(), tags.end());
      for (const std::string& category : example.has)
        if (!got.contains(category)) out.push_back(fmt::format("example {} is not counted in '{}'", i, category));
      for (const std::string& category : example.hasNot)
        if (got.contains(category)) out.push_back(fmt::format("example {} is counted in '{}', a near miss", i, category));
      return 0;
    });
  }
  return out;
}

}  // namespace tc::gen
