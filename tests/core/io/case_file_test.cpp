// Tests of the file loader (docs/file-format.md): one test per error class with its exact message,
// values in every syntax on every carrier, write/read round trips, and robustness against
// random, truncated and mutated input (every call must return a value or a one-line error).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "core/io/document_format.h"
#include "core/carriers/carrier.h"
#include "core/carriers/literal.h"
#include "core/ops/opaque.h"
#include "core/io/case_file.h"

#ifndef TAPECHECK_SOURCE_DIR
#define TAPECHECK_SOURCE_DIR "."
#endif

namespace {

using tc::ModP;
using tc::Rational;
using tc::RationalNoEq;

// ---------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------

//! The example of docs/file-format.md, verbatim.
constexpr std::string_view kSemanticsExample = R"json({ "tapecheck": 1,
  "inputs": [{"shape": [2, 3]}, {"shape": [3]}],
  "data":   {"m": {"shape": [2], "values": ["1", "0"]}, "rows": {"indices": [0, 1, 1]}},
  "nodes":  [{"op": "matmul", "args": [0, 1]},
             {"op": "mask", "args": [2], "attrs": {"key": "m"}},
             {"op": "scale", "args": [3], "attrs": {"c": "-1/2"}, "shape": [2]}],
  "values": [["1", "-2", "3/4", "0", "1", "2"], ["1", "1", "1"]],
  "output": 4,
  "seed":   ["1", "1"] })json";

//! Every op an exact ordered field supports (positions in the comments), with attributes, data,
//! a declared shape here and there, input values, a seed pack and a failure object.
constexpr std::string_view kExactAllOps = R"json({
  "tapecheck": 1,
  "description": "every op of an ordered field",
  "inputs": [{"shape": [2, 3]}, {"shape": [3]}, {"shape": [2]}, {"shape": [3, 2]}],
  "data": {"m": {"shape": [2], "values": ["1", "0"]}, "r": {"indices": [1, 0, 1]}},
  "nodes": [
    {"op": "add", "args": [2, 2]},
    {"op": "sub", "args": [2, 4]},
    {"op": "mul", "args": [4, 5], "shape": [2]},
    {"op": "div", "args": [6, 2]},
    {"op": "max", "args": [2, 7]},
    {"op": "min", "args": [2, 8]},
    {"op": "neg", "args": [9]},
    {"op": "square", "args": [10]},
    {"op": "scale", "args": [11], "attrs": {"c": "3/2"}},
    {"op": "inv", "args": [12]},
    {"op": "relu", "args": [13]},
    {"op": "abs", "args": [14]},
    {"op": "clamp", "args": [15], "attrs": {"lo": "-1", "hi": "5/2"}},
    {"op": "sum", "args": [0], "shape": []},
    {"op": "sum_axis", "args": [0], "attrs": {"axis": 1}, "shape": [2]},
    {"op": "mean", "args": [0]},
    {"op": "dot", "args": [1, 1]},
    {"op": "matmul", "args": [0, 3], "shape": [2, 2]},
    {"op": "matmul", "args": [0, 1]},
    {"op": "transpose", "args": [0], "shape": [3, 2]},
    {"op": "linear", "args": [0, 1, 2]},
    {"op": "reshape", "args": [0], "attrs": {"shape": [3, 2]}},
    {"op": "broadcast", "args": [1], "attrs": {"shape": [2, 3]}},
    {"op": "concat0", "args": [0, 26], "shape": [4, 3]},
    {"op": "slice0", "args": [27], "attrs": {"start": 1, "len": 2}, "shape": [2, 3]},
    {"op": "const", "attrs": {"shape": [2], "values": ["1", "-1/4"]}},
    {"op": "detach", "args": [29]},
    {"op": "mask", "args": [30], "attrs": {"key": "m"}},
    {"op": "gather0", "args": [0], "attrs": {"key": "r"}, "shape": [3, 3]},
    {"op": "mse_loss", "args": [2, 31]},
    {"op": "opaque", "args": [0], "attrs": {"name": "twice"}},
    {"op": "opaque", "args": [34], "attrs": {"name": "const3"}, "shape": [2, 3]}
  ],
  "values": [["1", "-2", "3/4", "0", "1.5", "2.5e-3"], ["1", "-1", "0x1.8p+1"], ["-0", "7"],
             ["1", "2", "3", "4", "5", "6"]],
  "output": 20,
  "seeds": {"0": ["1", "0", "0", "0", "0", "-1/3"], "35": ["1", "1", "1", "2", "2", "2"]},
  "failure": {"property": "adjoint", "carrier": "rational", "seed": 7, "differed": [1, 2]}
})json";

//! The transcendental ops, read by the IEEE carriers only.
constexpr std::string_view kTranscendental = R"json({
  "tapecheck": 1,
  "inputs": [{"shape": [2, 3]}],
  "nodes": [
    {"op": "exp", "args": [0]}, {"op": "log", "args": [1]}, {"op": "sqrt", "args": [1]},
    {"op": "tanh", "args": [3]}, {"op": "sigmoid", "args": [4]}, {"op": "softplus", "args": [5]},
    {"op": "sin", "args": [6]}, {"op": "cos", "args": [7]}, {"op": "softmax_last", "args": [8]},
    {"op": "log_softmax_last", "args": [9], "shape": [2, 3]},
    {"op": "scale", "args": [10], "attrs": {"c": "-0"}},
    {"op": "clamp", "args": [11], "attrs": {"lo": "-inf", "hi": "inf"}}
  ],
  "values": [["0.5", "-0", "nan", "inf", "-inf", "0x1.8p+1"]],
  "seeds": {"12": ["-0", "nan", "4.9406564584124654e-324", "0x1.fffffffffffffp+1023", "0.1", "-inf"]}
})json";

//! The valid documents the robustness tests start from.
const std::vector<std::string_view> kValidDocuments = {kSemanticsExample, kExactAllOps, kTranscendental};

//! A one-input document with `rest` appended after the inputs: {"tapecheck": 1, "inputs": [[2]], ...}.
std::string oneInput(std::string_view rest) {
  return std::string(R"({"tapecheck": 1, "inputs": [{"shape": [2]}])") + (rest.empty() ? "" : ", ") +
         std::string(rest) + "}";
}

template <class T = Rational>
std::string errorOf(std::string_view text) {
  auto loaded = tc::parseCase<T>(text);
  if (loaded) return "<loaded without error>";
  return loaded.error().message;
}

//! Control characters and non-ASCII bytes as escapes, so that a failure report stays readable.
std::string escaped(std::string_view text, std::size_t limit = 400) {
  std::string out;
  for (char ch : text.substr(0, limit)) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\\') out += "\\\\";
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else out += fmt::format("\\x{:02x}", c);
  }
  if (text.size() > limit) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

template <class T>
tc::Case<T> load(std::string_view text) {
  auto loaded = tc::parseCase<T>(text);
  if (!loaded) {
    ADD_FAILURE() << "did not load: " << loaded.error().message;
    return {};
  }
  return std::move(*loaded);
}

// ---------------------------------------------------------------------------------------------
// Comparison helpers (bit patterns for IEEE carriers, storage for exact ones)
// ---------------------------------------------------------------------------------------------

template <class T>
bool identical(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>) return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  else if constexpr (std::is_same_v<T, float>) return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  else return tc::Carrier<T>::same(a, b);
}

template <class T>
std::string show(const T& v) {
  return tc::Carrier<T>::format(v);
}

template <class T>
T frac(std::int64_t n, std::int64_t d) {
  return tc::Carrier<T>::fromInt(n) / tc::Carrier<T>::fromInt(d);
}

template <class T>
void expectValues(const std::vector<T>& actual, const std::vector<T>& expected, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_TRUE(identical(actual[i], expected[i]))
        << what << "[" << i << "]: got " << show(actual[i]) << ", expected " << show(expected[i]);
}

template <class T>
void expectTensor(const tc::Tensor<T>& actual, const tc::Shape& shape, const std::vector<T>& values,
                  const std::string& what) {
  EXPECT_EQ(actual.shape, shape) << what;
  expectValues(actual.values, values, what);
}

template <class T>
void expectSameOptional(const std::optional<T>& a, const std::optional<T>& b, const std::string& what) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what;
  if (a) {
    EXPECT_TRUE(identical(*a, *b)) << what << ": " << show(*a) << " vs " << show(*b);
  }
}

template <class T>
void expectSamePack(const tc::Pack<T>& a, const tc::Pack<T>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t p = 0; p < a.size(); ++p) {
    EXPECT_EQ(a[p].shape, b[p].shape) << what << " " << p;
    expectValues(a[p].values, b[p].values, what + " " + std::to_string(p));
  }
}

//! Same graph (inputs, nodes with ops, args, attributes and shapes, schema), values, data,
//! output, seeds and failure object.
template <class T>
void expectSameCase(const tc::Case<T>& a, const tc::Case<T>& b) {
  EXPECT_EQ(a.graph.inputs, b.graph.inputs);
  EXPECT_EQ(a.graph.schema.tensors, b.graph.schema.tensors);
  EXPECT_EQ(a.graph.schema.indices, b.graph.schema.indices);
  ASSERT_EQ(a.graph.nodes.size(), b.graph.nodes.size());
  for (std::size_t k = 0; k < a.graph.nodes.size(); ++k) {
    const tc::Node<T>& x = a.graph.nodes[k];
    const tc::Node<T>& y = b.graph.nodes[k];
    std::string what = "node " + std::to_string(a.graph.inputs.size() + k);
    EXPECT_EQ(x.op, y.op) << what;
    EXPECT_EQ(x.args, y.args) << what;
    EXPECT_EQ(x.shape, y.shape) << what;
    expectSameOptional(x.attrs.c, y.attrs.c, what + " c");
    expectSameOptional(x.attrs.lo, y.attrs.lo, what + " lo");
    expectSameOptional(x.attrs.hi, y.attrs.hi, what + " hi");
    EXPECT_EQ(x.attrs.axis, y.attrs.axis) << what;
    EXPECT_EQ(x.attrs.start, y.attrs.start) << what;
    EXPECT_EQ(x.attrs.len, y.attrs.len) << what;
    EXPECT_EQ(x.attrs.shape, y.attrs.shape) << what;
    expectValues(x.attrs.values, y.attrs.values, what + " const values");
    EXPECT_EQ(x.attrs.key, y.attrs.key) << what;
    EXPECT_EQ(x.attrs.opaque, y.attrs.opaque) << what;
  }
  ASSERT_EQ(a.inputs.has_value(), b.inputs.has_value());
  if (a.inputs) expectSamePack(*a.inputs, *b.inputs, "input");
  ASSERT_EQ(a.data.size(), b.data.size());
  for (const auto& [key, tensor] : a.data) {
    ASSERT_TRUE(b.data.contains(key)) << key;
    EXPECT_EQ(tensor.shape, b.data.at(key).shape) << key;
    expectValues(tensor.values, b.data.at(key).values, "data " + key);
  }
  EXPECT_EQ(a.output, b.output);
  expectSamePack(a.seeds, b.seeds, "seed");
  EXPECT_EQ(a.failureJson, b.failureJson);
}

// ---------------------------------------------------------------------------------------------
// 1. One test per error class, with the exact message
// ---------------------------------------------------------------------------------------------

TEST(CaseFile, Error_MalformedJson) {
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [)"),
            "malformed JSON: [json.exception.parse_error.101] parse error at line 1, column 29: syntax error while "
            "parsing value - unexpected end of input; expected '[', '{', or a literal");
  EXPECT_EQ(errorOf(""),
            "malformed JSON: [json.exception.parse_error.101] parse error at line 1, column 1: syntax error while "
            "parsing value - unexpected end of input; expected '[', '{', or a literal");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1} x)"),
            "malformed JSON: [json.exception.parse_error.101] parse error at line 1, column 18: syntax error while "
            "parsing value - invalid literal; last read: '1} x'; expected end of input");
}

TEST(CaseFile, Error_MissingFormatVersion) {
  EXPECT_EQ(errorOf(R"({"inputs": [{"shape": [2]}]})"), R"(document: missing "tapecheck": 1 (the format version))");
}

TEST(CaseFile, Error_UnsupportedFormatVersion) {
  EXPECT_EQ(errorOf(R"({"tapecheck": 2, "inputs": []})"),
            "document: unsupported format version 2 (this tapecheck reads version 1)");
  EXPECT_EQ(errorOf(R"({"tapecheck": "1", "inputs": []})"),
            R"(document: unsupported format version string (this tapecheck reads version 1))");
  EXPECT_EQ(errorOf(R"({"tapecheck": true, "inputs": []})"),
            "document: unsupported format version boolean (this tapecheck reads version 1)");
}

TEST(CaseFile, Error_RootNotAnObject) {
  EXPECT_EQ(errorOf("[1]"), "the document must be a JSON object");
  EXPECT_EQ(errorOf("1"), "the document must be a JSON object");
  EXPECT_EQ(errorOf(R"("tapecheck")"), "the document must be a JSON object");
  EXPECT_EQ(errorOf("null"), "the document must be a JSON object");
}

TEST(CaseFile, Error_UnknownTopLevelKey) {
  EXPECT_EQ(errorOf(oneInput(R"("bogus": 1)")), "document: unknown key 'bogus'");
  EXPECT_EQ(errorOf(oneInput(R"("Seeds": {})")), "document: unknown key 'Seeds'");
}

TEST(CaseFile, Error_InputsMissingOrMalformed) {
  EXPECT_EQ(errorOf(R"({"tapecheck": 1})"), "inputs: missing or not an array");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": {}})"), "inputs: missing or not an array");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [[2]]})"), "input 0: must be an object with a 'shape'");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2], "dtype": "f32"}]})"),
            "input 0: unknown key 'dtype'");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": 2}]})"),
            "input 0: a shape must be an array of dimensions");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": []})"), "document: the graph has no inputs and no nodes");
}

TEST(CaseFile, Error_UnknownOp) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "frob", "args": [0]}])")), "node 1: unknown op 'frob'");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "Add", "args": [0, 0]}])")), "node 1: unknown op 'Add'");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"args": [0]}])")), "node 1: 'op' must be a string");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": 3, "args": [0]}])")), "node 1: 'op' must be a string");
}

TEST(CaseFile, Error_MalformedNode) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": {})")), "nodes: must be an array");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": ["neg"])")), "node 1: must be an object");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": [0], "name": "x"}])")), "node 1: unknown key 'name'");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": 0}])")),
            "node 1 (neg): 'args' must be an array of positions");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": [-1]}])")), "node 1 (neg): argument 0: -1 is negative");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": ["0"]}])")),
            "node 1 (neg): argument 0: expected a non-negative integer, got string");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": [0], "attrs": []}])")),
            "node 1 (neg): 'attrs' must be an object");
}

TEST(CaseFile, Error_UnknownOpaqueName) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "opaque", "args": [0], "attrs": {"name": "nope"}}])")),
            "node 1 (opaque): unknown opaque name 'nope'");
  EXPECT_EQ(errorOf<double>(oneInput(R"("nodes": [{"op": "opaque", "args": [0], "attrs": {"name": "Twice"}}])")),
            "node 1 (opaque): unknown opaque name 'Twice'");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "opaque", "args": [0]}])")),
            "node 1 (opaque): missing attribute 'name'");
}

TEST(CaseFile, Error_WrongArity) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "add", "args": [0]}])")), "node 1 (add): takes 2 arguments, got 1");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg"}])")), "node 1 (neg): takes 1 arguments, got 0");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "linear", "args": [0, 0]}])")),
            "node 1 (linear): takes 3 arguments, got 2");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "const", "args": [0], "attrs": {"shape": [], "values": ["1"]}}])")),
            "node 1 (const): takes 0 arguments, got 1");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "opaque", "args": [0, 0], "attrs": {"name": "twice"}}])")),
            "node 1 (opaque twice): takes 1 arguments, got 2");
}

TEST(CaseFile, Error_ArgumentPositionNotEarlier) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": [1]}])")),
            "node 1 (neg): argument 0 is position 1, which is not earlier than 1");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": [2]}])")),
            "node 1 (neg): argument 0 is position 2, which is not earlier than 1");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": [0]}, {"op": "add", "args": [1, 7]}])")),
            "node 2 (add): argument 1 is position 7, which is not earlier than 2");
}

TEST(CaseFile, Error_ShapeMismatch) {
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [3]}],
                        "nodes": [{"op": "add", "args": [0, 1]}]})"),
            "node 2 (add): arguments have shapes [2] and [3]; they must be equal");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}, {"shape": [2]}],
                        "nodes": [{"op": "matmul", "args": [0, 1]}]})"),
            "node 2 (matmul): needs [m, k] x [k, n] or [m, k] x [k], got [2, 3] x [2]");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "transpose", "args": [0]}])")),
            "node 1 (transpose): needs a matrix, got [2]");
}

TEST(CaseFile, Error_DeclaredShapeMismatch) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": [0], "shape": [3]}])")),
            "node 1 (neg): declared shape [3] differs from the inferred shape [2]");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "sum", "args": [0], "shape": [1]}])")),
            "node 1 (sum): declared shape [1] differs from the inferred shape []");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": [0], "shape": [0]}])")),
            "node 1 (neg): 'shape': shape [0]: dimension 0 is 0; every dimension must be at least 1");
}

TEST(CaseFile, Error_MissingAttribute) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "scale", "args": [0]}])")), "node 1 (scale): missing attribute 'c'");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "clamp", "args": [0], "attrs": {"lo": "0"}}])")),
            "node 1 (clamp): missing attribute 'hi'");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "slice0", "args": [0], "attrs": {"len": 1}}])")),
            "node 1 (slice0): missing attribute 'start'");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "const", "attrs": {"shape": [2]}}])")),
            "node 1 (const): missing attribute 'values'");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "mask", "args": [0]}])")), "node 1 (mask): missing attribute 'key'");
}

TEST(CaseFile, Error_MalformedAttribute) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "scale", "args": [0], "attrs": {"c": 1.5}}])")),
            R"(node 1 (scale): attribute 'c': a value must be a string such as "-3/4" (exact), got number)");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "scale", "args": [0], "attrs": {"c": "x"}}])")),
            "node 1 (scale): attribute 'c': 'x' is not a number: no digits");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}],
                        "nodes": [{"op": "sum_axis", "args": [0], "attrs": {"axis": -1}}]})"),
            "node 1 (sum_axis): attribute 'axis': -1 is negative");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}],
                        "nodes": [{"op": "sum_axis", "args": [0], "attrs": {"axis": 0.5}}]})"),
            "node 1 (sum_axis): attribute 'axis': 0.5 is not an integer in range");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}],
                        "nodes": [{"op": "sum_axis", "args": [0], "attrs": {"axis": "1"}}]})"),
            "node 1 (sum_axis): attribute 'axis': expected a non-negative integer, got string");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}],
                        "nodes": [{"op": "sum_axis", "args": [0], "attrs": {"axis": 2}}]})"),
            "node 1 (sum_axis): axis 2 is out of range for shape [2, 3]");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "mask", "args": [0], "attrs": {"key": 3}}])")),
            "node 1 (mask): attribute 'key': expected a string");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "reshape", "args": [0], "attrs": {"shape": "[2]"}}])")),
            "node 1 (reshape): attribute 'shape': a shape must be an array of dimensions");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "clamp", "args": [0], "attrs": {"lo": "1", "hi": "0"}}])")),
            "node 1 (clamp): needs lo <= hi, got lo = 1 and hi = 0");
  EXPECT_EQ(errorOf<double>(oneInput(R"("nodes": [{"op": "clamp", "args": [0], "attrs": {"lo": "nan", "hi": "0"}}])")),
            "node 1 (clamp): needs lo <= hi, got lo = nan and hi = 0");
}

TEST(CaseFile, Error_UnknownAttribute) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "neg", "args": [0], "attrs": {"c": "1"}}])")),
            "node 1 (neg): attrs: unknown key 'c'");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "scale", "args": [0], "attrs": {"c": "1", "k": "2"}}])")),
            "node 1 (scale): attrs: unknown key 'k'");
}

TEST(CaseFile, Error_MissingDataKey) {
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "mask", "args": [0], "attrs": {"key": "m"}}])")),
            "node 1 (mask): data has no tensor 'm'");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"m": {"indices": [0]}},
                                 "nodes": [{"op": "mask", "args": [0], "attrs": {"key": "m"}}])")),
            "node 1 (mask): data has no tensor 'm'");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"r": {"shape": [2], "values": ["1", "1"]}},
                                 "nodes": [{"op": "gather0", "args": [0], "attrs": {"key": "r"}}])")),
            "node 1 (gather0): data has no index list 'r'");
}

TEST(CaseFile, Error_MalformedData) {
  EXPECT_EQ(errorOf(oneInput(R"("data": [])")), "data: must be an object of named entries");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"m": ["1", "0"]})")), "data 'm': must be an object");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"m": {"shape": [2]}})")),
            "data 'm': needs 'shape' and 'values' (a tensor) or 'indices' (an index list)");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"m": {"indices": [0], "shape": [1]}})")), "data 'm': unknown key 'shape'");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"r": {"indices": 0}})")), "data 'r': 'indices' must be an array");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"r": {"indices": [0, -1]}})")), "data 'r': index 1: -1 is negative");
}

TEST(CaseFile, Error_MisShapedData) {
  EXPECT_EQ(errorOf(oneInput(R"("data": {"m": {"shape": [3], "values": ["1", "1", "1"]}},
                                 "nodes": [{"op": "mask", "args": [0], "attrs": {"key": "m"}}])")),
            "node 1 (mask): data tensor 'm' has shape [3], argument has shape [2]");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"m": {"shape": [1, 2], "values": ["1", "1"]}},
                                 "nodes": [{"op": "mask", "args": [0], "attrs": {"key": "m"}}])")),
            "node 1 (mask): data tensor 'm' has shape [1, 2], argument has shape [2]");
}

TEST(CaseFile, Error_GatherIndexOutOfRange) {
  EXPECT_EQ(errorOf(oneInput(R"("data": {"r": {"indices": [0, 2]}},
                                 "nodes": [{"op": "gather0", "args": [0], "attrs": {"key": "r"}}])")),
            "node 1 (gather0): index 1 of 'r' is 2, out of range for 2 rows");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"r": {"indices": []}},
                                 "nodes": [{"op": "gather0", "args": [0], "attrs": {"key": "r"}}])")),
            "node 1 (gather0): index list 'r' is empty");
}

TEST(CaseFile, Error_SliceOutOfRange) {
  auto slice = [](std::string_view attrs) {
    return errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [4]}], "nodes": [{"op": "slice0", "args": [0], "attrs": )" +
                   std::string(attrs) + "}]}");
  };
  EXPECT_EQ(slice(R"({"start": 3, "len": 2})"),
            "node 1 (slice0): rows [3, 3+2) are out of range for 4 rows");
  EXPECT_EQ(slice(R"({"start": 4, "len": 1})"),
            "node 1 (slice0): rows [4, 4+1) are out of range for 4 rows");
  EXPECT_EQ(slice(R"({"start": 0, "len": 0})"),
            "node 1 (slice0): len is 0; a slice takes at least one row");
  EXPECT_EQ(slice(R"({"start": 1, "len": 18446744073709551615})"),
            "node 1 (slice0): rows [1, 1+18446744073709551615) are out of range for 4 rows");
  EXPECT_EQ(slice(R"({"start": -1, "len": 1})"), "node 1 (slice0): attribute 'start': -1 is negative");
}

TEST(CaseFile, Error_ReshapeSizeMismatch) {
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}],
                        "nodes": [{"op": "reshape", "args": [0], "attrs": {"shape": [5]}}]})"),
            "node 1 (reshape): cannot reshape [2, 3] (6 elements) to [5] (5 elements)");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}],
                        "nodes": [{"op": "broadcast", "args": [0], "attrs": {"shape": [3, 2]}}]})"),
            "node 1 (broadcast): shape [2, 3] is not a suffix of [3, 2]");
}

TEST(CaseFile, Error_OpNotAllowedOnCarrier) {
  const std::string expDoc = oneInput(R"("nodes": [{"op": "exp", "args": [0]}])");
  EXPECT_EQ(errorOf<Rational>(expDoc),
            "node 1 (exp): needs transcendental functions, which the rational carrier does not have");
  EXPECT_EQ(errorOf<RationalNoEq>(expDoc),
            "node 1 (exp): needs transcendental functions, which the rational-noeq carrier does not have");
  EXPECT_EQ(errorOf<ModP>(expDoc),
            "node 1 (exp): needs transcendental functions, which the modp carrier does not have");
  EXPECT_EQ(errorOf<ModP>(oneInput(R"("nodes": [{"op": "relu", "args": [0]}])")),
            "node 1 (relu): needs an ordered carrier, which the modp carrier does not have");
  EXPECT_EQ(errorOf<ModP>(oneInput(R"("nodes": [{"op": "max", "args": [0, 0]}])")),
            "node 1 (max): needs an ordered field, which the modp carrier does not have");
  EXPECT_TRUE(tc::parseCase<double>(expDoc).has_value());
  EXPECT_TRUE(tc::parseCase<float>(expDoc).has_value());
  EXPECT_TRUE(tc::parseCase<Rational>(oneInput(R"("nodes": [{"op": "relu", "args": [0]}])")).has_value());
}

TEST(CaseFile, Error_ValueCountWrong) {
  // input values
  EXPECT_EQ(errorOf(oneInput(R"("values": [["1"]])")), "values[0]: shape [2] needs 2 values, got 1");
  EXPECT_EQ(errorOf(oneInput(R"("values": [["1", "2"], ["3"]])")), "values: needs one array per input (1), got 2");
  EXPECT_EQ(errorOf(oneInput(R"("values": {"0": ["1", "2"]})")), "values: needs one array per input (1), got object");
  EXPECT_EQ(errorOf(oneInput(R"("values": ["1"])")), "values[0]: values must be an array");
  // const values
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [],
                        "nodes": [{"op": "const", "attrs": {"shape": [2], "values": ["1"]}}]})"),
            "node 0 (const): attribute 'values': shape [2] needs 2 values, got 1");
  // data values
  EXPECT_EQ(errorOf(oneInput(R"("data": {"m": {"shape": [2], "values": ["1", "0", "1"]}})")),
            "data 'm': values: shape [2] needs 2 values, got 3");
  // seed and seeds
  EXPECT_EQ(errorOf(oneInput(R"("seed": ["1"])")), "seed (position 0): shape [2] needs 2 values, got 1");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "sum", "args": [0]}], "seed": ["1", "1"])")),
            "seed (position 1): shape [] needs 1 values, got 2");
  EXPECT_EQ(errorOf(oneInput(R"("seeds": {"0": ["1", "2", "3"]})")), "seeds '0': shape [2] needs 2 values, got 3");
}

TEST(CaseFile, Error_ValueSyntax) {
  auto value = [](std::string_view v) { return errorOf(oneInput(R"("values": [[")" + std::string(v) + R"(", "1"]])")); };
  EXPECT_EQ(value("1/2/3"), "values[0][0]: '1/2/3' is not a number: unexpected '/' at offset 3");
  EXPECT_EQ(value("abc"), "values[0][0]: 'abc' is not a number: no digits");
  EXPECT_EQ(value("1.2.3"), "values[0][0]: '1.2.3' is not a number: unexpected '.' at offset 3");
  EXPECT_EQ(value("0x1.8"), "values[0][0]: '0x1.8' is not a number: hex float needs a 'p' exponent");
  EXPECT_EQ(value(""), "values[0][0]: '' is not a number: empty");
  EXPECT_EQ(value("1e"), "values[0][0]: '1e' is not a number: exponent has no digits");
  EXPECT_EQ(value(" 1"), "values[0][0]: ' 1' is not a number: no digits");
  EXPECT_EQ(value("1 "), "values[0][0]: '1 ' is not a number: unexpected ' ' at offset 1");
  EXPECT_EQ(value("1e99999"), "values[0][0]: '1e99999' is not a number: exponent exceeds 10000");
  EXPECT_EQ(errorOf(oneInput(R"("values": [[1.5, "1"]])")),
            R"(values[0][0]: a value must be a string such as "-3/4" (exact), got number)");
  EXPECT_EQ(errorOf(oneInput(R"("values": [[null, "1"]])")),
            R"(values[0][0]: a value must be a string such as "-3/4" (exact), got null)");
}

TEST(CaseFile, Error_ZeroDenominator) {
  EXPECT_EQ(errorOf(oneInput(R"("values": [["1/0", "1"]])")), "values[0][0]: '1/0' is not a number: zero denominator");
  EXPECT_EQ(errorOf<double>(oneInput(R"("values": [["0/0", "1"]])")),
            "values[0][0]: '0/0' is not a number: zero denominator");
}

TEST(CaseFile, Error_NegativeDenominator) {
  EXPECT_EQ(errorOf(oneInput(R"("values": [["1/-2", "1"]])")),
            "values[0][0]: '1/-2' is not a number: denominator has no digits (its sign belongs on the numerator)");
  EXPECT_EQ(errorOf(oneInput(R"("values": [["-1/-2", "1"]])")),
            "values[0][0]: '-1/-2' is not a number: denominator has no digits (its sign belongs on the numerator)");
}

TEST(CaseFile, Error_NegativeDimension) {
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, -1]}]})"), "input 0: dimension 1: -1 is negative");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2.5]}]})"),
            "input 0: dimension 0: 2.5 is not an integer in range");
}

TEST(CaseFile, Error_ZeroDimension) {
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, 0]}]})"),
            "input 0: shape [2, 0]: dimension 1 is 0; every dimension must be at least 1");
  // -0 is 0, not negative (JSON reads it as a signed integer).
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2, -0]}]})"),
            "input 0: shape [2, 0]: dimension 1 is 0; every dimension must be at least 1");
  EXPECT_EQ(errorOf(oneInput(R"("data": {"m": {"shape": [0], "values": []}})")),
            "data 'm': 'shape': shape [0]: dimension 0 is 0; every dimension must be at least 1");
  EXPECT_EQ(errorOf(oneInput(R"("nodes": [{"op": "reshape", "args": [0], "attrs": {"shape": [2, 0]}}])")),
            "node 1 (reshape): attribute 'shape': shape [2, 0]: dimension 1 is 0; every dimension must be at least 1");
}

TEST(CaseFile, Error_OverflowingElementCount) {
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [4294967296, 4294967296]}]})"),
            "input 0: shape [4294967296, 4294967296] has more than 4194304 elements");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [65536, 65536, 65536]}]})"),
            "input 0: shape [65536, 65536, 65536] has more than 4194304 elements");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [18446744073709551615, 2]}]})"),
            "input 0: shape [18446744073709551615, 2] has more than 4194304 elements");
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [18446744073709551616]}]})"),
            "input 0: dimension 0: 1.8446744073709552e+19 is not an integer in range");
  // A node whose inferred shape is too large (each input is within the limit).
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [2097152, 1]}, {"shape": [1, 4]}],
                        "nodes": [{"op": "matmul", "args": [0, 1]}]})"),
            "node 2 (matmul): shape [2097152, 4] has more than 4194304 elements");
  // Every tensor within the limit, but all positions together beyond kMaxGraphElements.
  std::string nodes;
  for (int i = 0; i < 4; ++i) nodes += (i ? ", " : "") + std::string(R"({"op": "neg", "args": [)") + std::to_string(i) + "]}";
  EXPECT_EQ(errorOf(R"({"tapecheck": 1, "inputs": [{"shape": [4194304]}], "nodes": [)" + nodes + "]}"),
            "node 4 (neg): the graph would hold more than 16777216 elements in all positions");
}

TEST(CaseFile, Error_OutputPositionOutOfRange) {
  EXPECT_EQ(errorOf(oneInput(R"("output": 1)")), "output: position 1 is out of range (the graph has 1 positions)");
  EXPECT_EQ(errorOf(oneInput(R"("output": -1)")), "output: -1 is negative");
  EXPECT_EQ(errorOf(oneInput(R"("output": "0")")), "output: expected a non-negative integer, got string");
}

TEST(CaseFile, Error_SeedsKeyNotAPositionOrOutOfRange) {
  EXPECT_EQ(errorOf(oneInput(R"("seeds": {"x": ["1", "1"]})")), "seeds: key 'x' is not a position");
  EXPECT_EQ(errorOf(oneInput(R"("seeds": {"-1": ["1", "1"]})")), "seeds: key '-1' is not a position");
  EXPECT_EQ(errorOf(oneInput(R"("seeds": {"": ["1", "1"]})")), "seeds: key '' is not a position");
  EXPECT_EQ(errorOf(oneInput(R"("seeds": {"0.0": ["1", "1"]})")), "seeds: key '0.0' is not a position");
  EXPECT_EQ(errorOf(oneInput(R"("seeds": {"99999999999999999999999": ["1", "1"]})")),
            "seeds: key '99999999999999999999999' is not a position");
  EXPECT_EQ(errorOf(oneInput(R"("seeds": {"1": ["1", "1"]})")),
            "seeds: position 1 is out of range (the graph has 1 positions)");
  EXPECT_EQ(errorOf(oneInput(R"("seeds": [["1", "1"]])")), "seeds: must be an object from positions to values");
}

TEST(CaseFile, Error_NanOnExactCarrier) {
  const std::string nanDoc = oneInput(R"("values": [["nan", "1"]])");
  EXPECT_EQ(errorOf<Rational>(nanDoc), "values[0][0]: 'nan': has no exact value on the rational carrier");
  EXPECT_EQ(errorOf<RationalNoEq>(nanDoc), "values[0][0]: 'nan': has no exact value on the rational-noeq carrier");
  EXPECT_EQ(errorOf<ModP>(nanDoc), "values[0][0]: 'nan': has no exact value on the modp carrier");
  EXPECT_EQ(errorOf<Rational>(oneInput(R"("values": [["1", "-inf"]])")),
            "values[0][1]: '-inf': has no exact value on the rational carrier");
  EXPECT_EQ(errorOf<ModP>(oneInput(R"("nodes": [{"op": "scale", "args": [0], "attrs": {"c": "inf"}}])")),
            "node 1 (scale): attribute 'c': 'inf': has no exact value on the modp carrier");
  EXPECT_TRUE(tc::parseCase<double>(nanDoc).has_value());
}

TEST(CaseFile, Error_ModPDenominatorDivisibleByPrime) {
  EXPECT_EQ(errorOf<ModP>(oneInput(R"("values": [["1/2305843009213693951", "1"]])")),
            "values[0][0]: '1/2305843009213693951': denominator is divisible by 2^61-1");
  EXPECT_EQ(errorOf<ModP>(oneInput(R"("values": [["1", "5/4611686018427387902"]])")),
            "values[0][1]: '5/4611686018427387902': denominator is divisible by 2^61-1");
  // The check applies to the reduced fraction: p/p is 1 and is fine.
  auto fine = tc::parseCase<ModP>(oneInput(R"("values": [["2305843009213693951/2305843009213693951", "1/2"]])"));
  ASSERT_TRUE(fine.has_value()) << fine.error().message;
  EXPECT_EQ((*fine->inputs)[0][0], ModP::fromInt(1));
  EXPECT_EQ((*fine->inputs)[0][1] * ModP::fromInt(2), ModP::fromInt(1));
  // The same file is fine on the rational carrier.
  EXPECT_TRUE(tc::parseCase<Rational>(oneInput(R"("values": [["1/2305843009213693951", "1"]])")).has_value());
}

// readCaseFile prefixes the path; the checked-in malformed corpus (tests/core/io/malformed/NAME.json,
// with the expected message after the path in NAME.expected).
TEST(CaseFile, Error_MalformedCorpusFiles) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(TAPECHECK_SOURCE_DIR) / "tests" / "core" / "io" / "malformed";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  std::size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    fs::path expectedPath = entry.path();
    expectedPath.replace_extension(".expected");
    std::ifstream in(expectedPath);
    ASSERT_TRUE(in) << "missing " << expectedPath;
    std::string expected;
    std::getline(in, expected);
    auto loaded = tc::readCaseFile<Rational>(entry.path());
    ASSERT_FALSE(loaded.has_value()) << entry.path();
    EXPECT_EQ(loaded.error().message, entry.path().string() + ": " + expected);
    ++checked;
  }
  EXPECT_GE(checked, 5u);
  auto missing = tc::readCaseFile<Rational>(dir / "no_such_file.json");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, (dir / "no_such_file.json").string() + ": cannot open the file");
}

// ---------------------------------------------------------------------------------------------
// 2. Positive tests
// ---------------------------------------------------------------------------------------------

TEST(CaseFile, TheGraphsNodesAreStoredOnceAtTheirCount) {
  auto loaded = tc::parseCase<double>(oneInput(
      R"("nodes": [{"op": "neg", "args": [0]}, {"op": "neg", "args": [1]}, {"op": "neg", "args": [2]},)"
      R"( {"op": "neg", "args": [3]}, {"op": "neg", "args": [4]}])"));
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->graph.nodes.size(), 5u);
  EXPECT_EQ(loaded->graph.nodes.capacity(), 5u);  // grown once: no freed smaller copies behind it
}

template <class T>
void checkSemanticsExample() {
  SCOPED_TRACE(std::string(tc::Carrier<T>::name));
  tc::Case<T> c = load<T>(kSemanticsExample);
  const tc::Graph<T>& g = c.graph;
  EXPECT_EQ(g.inputs, (std::vector<tc::Shape>{{2, 3}, {3}}));
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.positionCount(), 5u);
  EXPECT_EQ(g.nodes[0].op, tc::OpKind::matmul);
  EXPECT_EQ(g.nodes[0].args, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(g.nodes[1].op, tc::OpKind::mask);
  EXPECT_EQ(g.nodes[1].args, (std::vector<std::size_t>{2}));
  EXPECT_EQ(g.nodes[1].attrs.key, "m");
  EXPECT_EQ(g.nodes[2].op, tc::OpKind::scale);
  EXPECT_EQ(g.nodes[2].args, (std::vector<std::size_t>{3}));
  ASSERT_TRUE(g.nodes[2].attrs.c.has_value());
  EXPECT_TRUE(identical(*g.nodes[2].attrs.c, frac<T>(-1, 2)));
  for (std::size_t p = 2; p < 5; ++p) EXPECT_EQ(g.shapeAt(p), tc::Shape{2}) << p;
  EXPECT_EQ(g.schema.tensors, (std::map<std::string, tc::Shape>{{"m", {2}}}));
  EXPECT_EQ(g.schema.indices, (std::map<std::string, std::vector<std::size_t>>{{"rows", {0, 1, 1}}}));
  ASSERT_EQ(c.data.size(), 1u);
  expectTensor(c.data.at("m"), {2}, {tc::one<T>(), tc::zero<T>()}, "data m");
  ASSERT_TRUE(c.inputs.has_value());
  ASSERT_EQ(c.inputs->size(), 2u);
  expectTensor((*c.inputs)[0], {2, 3},
               {tc::one<T>(), tc::Carrier<T>::fromInt(-2), frac<T>(3, 4), tc::zero<T>(), tc::one<T>(),
                tc::Carrier<T>::fromInt(2)},
               "input 0");
  expectTensor((*c.inputs)[1], {3}, {tc::one<T>(), tc::one<T>(), tc::one<T>()}, "input 1");
  EXPECT_EQ(c.output, 4u);
  ASSERT_EQ(c.seeds.size(), 5u);
  expectTensor(c.seeds[0], {2, 3}, std::vector<T>(6, tc::zero<T>()), "seed 0");
  expectTensor(c.seeds[1], {3}, std::vector<T>(3, tc::zero<T>()), "seed 1");
  expectTensor(c.seeds[2], {2}, std::vector<T>(2, tc::zero<T>()), "seed 2");
  expectTensor(c.seeds[3], {2}, std::vector<T>(2, tc::zero<T>()), "seed 3");
  expectTensor(c.seeds[4], {2}, std::vector<T>(2, tc::one<T>()), "seed 4");
  EXPECT_TRUE(c.failureJson.empty());
}

TEST(CaseFile, DesignExampleLoads_Rational) { checkSemanticsExample<Rational>(); }
TEST(CaseFile, DesignExampleLoads_RationalNoEq) { checkSemanticsExample<RationalNoEq>(); }
TEST(CaseFile, DesignExampleLoads_ModP) { checkSemanticsExample<ModP>(); }
TEST(CaseFile, DesignExampleLoads_Double) { checkSemanticsExample<double>(); }
TEST(CaseFile, DesignExampleLoads_Float) { checkSemanticsExample<float>(); }

TEST(CaseFile, AllOpsDocumentsLoad) {
  for (auto check : {+[] { return tc::parseCase<Rational>(kExactAllOps).has_value(); },
                     +[] { return tc::parseCase<RationalNoEq>(kExactAllOps).has_value(); },
                     +[] { return tc::parseCase<double>(kExactAllOps).has_value(); },
                     +[] { return tc::parseCase<float>(kExactAllOps).has_value(); },
                     +[] { return tc::parseCase<double>(kTranscendental).has_value(); },
                     +[] { return tc::parseCase<float>(kTranscendental).has_value(); }})
    EXPECT_TRUE(check());
  tc::Case<Rational> c = load<Rational>(kExactAllOps);
  const tc::Graph<Rational>& g = c.graph;
  ASSERT_EQ(g.positionCount(), 36u);
  // Every op of an ordered field appears once at least.
  std::set<tc::OpKind> seen;
  for (const auto& node : g.nodes) seen.insert(node.op);
  EXPECT_EQ(seen.size(), tc::kOpCount - 10u);  // all but the 10 transcendental ops
  EXPECT_EQ(g.shapeAt(17), tc::Shape{});
  EXPECT_EQ(g.shapeAt(18), tc::Shape{2});
  EXPECT_EQ(g.shapeAt(21), (tc::Shape{2, 2}));
  EXPECT_EQ(g.shapeAt(27), (tc::Shape{4, 3}));
  EXPECT_EQ(g.shapeAt(32), (tc::Shape{3, 3}));
  EXPECT_EQ(g.shapeAt(35), (tc::Shape{2, 3}));
  EXPECT_EQ(g.nodeAt(34).attrs.opaque->name, "twice");
  EXPECT_EQ(g.nodeAt(35).attrs.opaque->name, "const3");
  EXPECT_EQ(g.nodeAt(18).attrs.axis, 1u);
  EXPECT_EQ(g.nodeAt(28).attrs.start, 1u);
  EXPECT_EQ(g.nodeAt(28).attrs.len, 2u);
  EXPECT_EQ(*g.nodeAt(16).attrs.lo, Rational(-1));
  EXPECT_EQ(*g.nodeAt(16).attrs.hi, Rational(5) / 2);
  EXPECT_EQ(c.output, 20u);
  EXPECT_EQ(c.failureJson, R"({"carrier":"rational","differed":[1,2],"property":"adjoint","seed":7})");
  // "seeds" wins over the default seed at the output.
  expectTensor(c.seeds[20], {}, {Rational(0)}, "seed 20");
  expectTensor(c.seeds[0], {2, 3}, {Rational(1), 0, 0, 0, 0, Rational(-1) / 3}, "seed 0");
  expectTensor(c.seeds[35], {2, 3}, {Rational(1), 1, 1, 2, 2, 2}, "seed 35");
  // The transcendental document is refused by the exact carriers at its first node.
  EXPECT_EQ(errorOf<Rational>(kTranscendental),
            "node 1 (exp): needs transcendental functions, which the rational carrier does not have");
  EXPECT_EQ(errorOf<ModP>(kExactAllOps), "node 8 (max): needs an ordered field, which the modp carrier does not have");
}

TEST(CaseFile, SeedsTakePrecedenceOverOutputAndSeed) {
  tc::Case<Rational> c = load<Rational>(oneInput(
      R"("nodes": [{"op": "neg", "args": [0]}, {"op": "sum", "args": [1]}],
         "output": 1, "seed": ["5", "5"], "seeds": {"0": ["1/2", "-3"], "2": ["7"]})"));
  EXPECT_EQ(c.output, 1u);  // still read and checked
  ASSERT_EQ(c.seeds.size(), 3u);
  expectTensor(c.seeds[0], {2}, {Rational(1) / 2, Rational(-3)}, "seed 0");
  expectTensor(c.seeds[1], {2}, {Rational(0), Rational(0)}, "seed 1");  // not the "seed" given for the output
  expectTensor(c.seeds[2], {}, {Rational(7)}, "seed 2");
  // An empty "seeds" object is the zero pack, not the default seed.
  tc::Case<Rational> empty = load<Rational>(oneInput(R"("seeds": {})"));
  expectTensor(empty.seeds[0], {2}, {Rational(0), Rational(0)}, "empty seeds");
  // "seed" is not even read when "seeds" is present...
  EXPECT_TRUE(tc::parseCase<Rational>(oneInput(R"("seed": ["1"], "seeds": {})")).has_value());
  // ...but "output" is.
  EXPECT_EQ(errorOf(oneInput(R"("output": 3, "seeds": {})")),
            "output: position 3 is out of range (the graph has 1 positions)");
}

TEST(CaseFile, DefaultSeedIsAllOnesAtTheOutput) {
  tc::Case<ModP> c = load<ModP>(oneInput(
      R"("nodes": [{"op": "neg", "args": [0]}, {"op": "broadcast", "args": [1], "attrs": {"shape": [3, 2]}}],
         "output": 1)"));
  ASSERT_EQ(c.seeds.size(), 3u);
  expectTensor(c.seeds[0], {2}, {ModP(), ModP()}, "seed 0");
  expectTensor(c.seeds[1], {2}, {ModP::fromInt(1), ModP::fromInt(1)}, "seed 1");
  expectTensor(c.seeds[2], {3, 2}, std::vector<ModP>(6, ModP()), "seed 2");
  // An explicit "seed" goes to the output.
  tc::Case<ModP> d = load<ModP>(oneInput(R"("nodes": [{"op": "neg", "args": [0]}], "output": 0, "seed": ["2", "-1"])"));
  expectTensor(d.seeds[0], {2}, {ModP::fromInt(2), ModP::fromInt(-1)}, "seed at output 0");
  expectTensor(d.seeds[1], {2}, {ModP(), ModP()}, "seed 1");
}

TEST(CaseFile, DefaultOutputIsTheLastPosition) {
  tc::Case<Rational> c = load<Rational>(oneInput(R"("nodes": [{"op": "neg", "args": [0]}, {"op": "sum", "args": [1]}])"));
  EXPECT_EQ(c.output, 2u);
  expectTensor(c.seeds[2], {}, {Rational(1)}, "seed 2");
  // No nodes: the last input.
  tc::Case<double> inputsOnly = load<double>(R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [1, 3]}]})");
  EXPECT_EQ(inputsOnly.output, 1u);
  ASSERT_EQ(inputsOnly.seeds.size(), 2u);
  expectTensor(inputsOnly.seeds[0], {2}, {0.0, 0.0}, "seed 0");
  expectTensor(inputsOnly.seeds[1], {1, 3}, {1.0, 1.0, 1.0}, "seed 1");
  EXPECT_FALSE(inputsOnly.inputs.has_value());  // a graph-only file
  // No inputs: a constant is position 0.
  tc::Case<float> constOnly =
      load<float>(R"({"tapecheck": 1, "inputs": [], "nodes": [{"op": "const", "attrs": {"shape": [], "values": ["2"]}}],
                      "values": []})");
  EXPECT_EQ(constOnly.output, 0u);
  ASSERT_TRUE(constOnly.inputs.has_value());
  EXPECT_TRUE(constOnly.inputs->empty());
}

TEST(CaseFile, ValuesReadExactlyOnExactCarriers) {
  tc::Case<Rational> c = load<Rational>(
      R"({"tapecheck": 1, "inputs": [{"shape": [14]}],
          "values": [["-3", "3/4", "-3/4", "6/8", "-1.25", "2.5e-3", "2.5E+3", "0x1.8p+1", "-0x1p-2", "-0", "0",
                      "12345678901234567890123/10", ".5", "1e-20"]]})");
  ASSERT_TRUE(c.inputs.has_value());
  const std::vector<Rational>& v = (*c.inputs)[0].values;
  std::vector<Rational> expected = {Rational(-3), Rational(3) / 4, Rational(-3) / 4, Rational(3) / 4,
                                    Rational(-5) / 4, Rational(1) / 400, Rational(2500), Rational(3),
                                    Rational(-1) / 4, Rational(0), Rational(0),
                                    Rational(tc::Integer("12345678901234567890123")) / 10, Rational(1) / 2,
                                    Rational(1) / Rational(tc::Integer("100000000000000000000"))};
  expectValues(v, expected, "rational");
  // ModP reduces: -1 is p-1, 1/2 is (p+1)/2, a big integer wraps around.
  tc::Case<ModP> m = load<ModP>(
      R"({"tapecheck": 1, "inputs": [{"shape": [5]}],
          "values": [["-1", "1/2", "2305843009213693953", "-0", "0.5"]]})");
  const std::vector<ModP>& mv = (*m.inputs)[0].values;
  EXPECT_EQ(mv[0].residue(), ModP::kPrime - 1);
  EXPECT_EQ(mv[1].residue(), (ModP::kPrime + 1) / 2);
  EXPECT_EQ(mv[2].residue(), 2u);
  EXPECT_EQ(mv[3].residue(), 0u);
  EXPECT_EQ(mv[4], mv[1]);
  // JSON numbers are refused: a JSON -0 would silently lose its sign, a float its exactness.
  EXPECT_EQ(errorOf(oneInput(R"("values": [[-3, "1"]])")),
            R"(values[0][0]: a value must be a string such as "-3/4" (exact), got number)");
}

TEST(CaseFile, ValuesOnIeeeCarriers) {
  tc::Case<double> c = load<double>(
      R"({"tapecheck": 1, "inputs": [{"shape": [14]}],
          "values": [["-3", "3/4", "2.5e-3", "0x1.8p+1", "-0", "nan", "inf", "-inf", "1/3", "0x1p-1074", "0x1p-1075",
                      "0x1.8p-1074", "1e400", "-1e-400"]]})");
  const std::vector<double>& v = (*c.inputs)[0].values;
  const double inf = std::numeric_limits<double>::infinity();
  const double tiny = std::numeric_limits<double>::denorm_min();
  std::vector<double> expected = {-3.0,  0.75, std::strtod("2.5e-3", nullptr), 3.0, -0.0, 0.0 /*nan*/, inf,
                                  -inf,  1.0 / 3.0, tiny, 0.0, 2 * tiny, inf, -0.0};
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i == 5) {
      EXPECT_TRUE(std::isnan(v[i]));
      continue;
    }
    EXPECT_TRUE(identical(v[i], expected[i])) << i << ": " << show(v[i]) << " vs " << show(expected[i]);
  }
  EXPECT_TRUE(std::signbit(v[4]));
  EXPECT_TRUE(std::signbit(v[13]));
  EXPECT_FALSE(std::signbit(v[10]));

  tc::Case<float> f = load<float>(
      R"({"tapecheck": 1, "inputs": [{"shape": [9]}],
          "values": [["16777217", "16777219", "0x1.000001p0", "0x1.000003p0", "0x1.00000100000001p0",
                      "3.4028235e38", "3.4028236e38", "1e-46", "-0"]]})");
  const std::vector<float>& w = (*f.inputs)[0].values;
  std::vector<float> fexpected = {16777216.0f,
                                  16777220.0f,
                                  1.0f,
                                  1.0f + 0x1p-22f,
                                  1.0f + 0x1p-23f,  // just above the halfway point: no double rounding
                                  std::numeric_limits<float>::max(),
                                  std::numeric_limits<float>::infinity(),
                                  0.0f,
                                  -0.0f};
  expectValues(w, fexpected, "float");
}

//! The exact decimal text of a positive dyadic rational n/2^k: "<n*5^k>e-<k>"; with `extra`
//! appended to the digits (one more decimal place) when given.
std::string exactDecimal(const Rational& value, std::string_view extra = "") {
  tc::Integer n = boost::multiprecision::numerator(value);
  tc::Integer d = boost::multiprecision::denominator(value);
  unsigned k = static_cast<unsigned>(boost::multiprecision::msb(d));
  EXPECT_EQ(d, tc::Integer(1) << k);
  tc::Integer digits = n * boost::multiprecision::pow(tc::Integer(5), k);
  return digits.str() + std::string(extra) + "e-" + std::to_string(k + extra.size());
}

//! The loader's reading of a decimal string: parseLiteral, then the carrier's rounding
//! (tc::roundToDouble / tc::roundToFloat for finite values, the sign kept for -0).
double viaLoader(const std::string& text) {
  auto value = tc::parseValue<double>(text);
  EXPECT_TRUE(value.has_value()) << text;
  return value ? *value : 0.0;
}

float viaLoaderFloat(const std::string& text) {
  auto value = tc::parseValue<float>(text);
  EXPECT_TRUE(value.has_value()) << text;
  return value ? *value : 0.0f;
}

TEST(CaseFile, RoundToDoubleMatchesStrtod) {
  const std::vector<std::string> hard = {
      "9007199254740993",  // halfway: to even, 9007199254740992
      "9007199254740995",  // halfway: to even, 9007199254740996
      "9007199254740993.0000000000000000000001",
      "4.9406564584124654e-324",
      "2.4703282292062327e-324",  // just below half the smallest subnormal: 0
      "2.4703282292062328e-324",  // just above: the smallest subnormal
      "2.2250738585072011e-308",
      "2.2250738585072012e-308",
      "2.2250738585072014e-308",
      "1.7976931348623157e308",
      "1.7976931348623158e308",
      "1.7976931348623159e308",  // past max + half an ulp: inf
      "0.1",
      "1e23",
      "8.98846567431158e307",
      "123456789012345678901234567890e-50",
      "7.038531e-26",
      "-0.0000000000000000000000000000000000000000001",
      "1.00000000000000011102230246251565404236316680908203125",  // 1 + 2^-53 exactly: to even, 1
      "1.00000000000000011102230246251565404236316680908203126",
  };
  for (const std::string& s : hard) {
    double expected = std::strtod(s.c_str(), nullptr);
    EXPECT_TRUE(identical(viaLoader(s), expected)) << s << ": " << show(viaLoader(s)) << " vs " << show(expected);
  }
  EXPECT_EQ(viaLoader("9007199254740993"), 9007199254740992.0);
  EXPECT_EQ(viaLoader("4.9406564584124654e-324"), std::numeric_limits<double>::denorm_min());

  std::mt19937 rng(20240601);
  // Random decimal strings.
  for (int i = 0; i < 3000; ++i) {
    std::string s = (rng() % 2) ? "-" : "";
    int digits = 1 + static_cast<int>(rng() % 25);
    int point = static_cast<int>(rng() % (digits + 1));
    for (int j = 0; j < digits; ++j) {
      if (j == point && j > 0) s += '.';
      s += static_cast<char>('0' + rng() % 10);
    }
    s += "e" + std::to_string(static_cast<int>(rng() % 680) - 350);
    double expected = std::strtod(s.c_str(), nullptr);
    double actual = viaLoader(s);
    ASSERT_TRUE(identical(actual, expected)) << s << ": " << show(actual) << " vs " << show(expected);
  }
  // Exact halfway points between neighbouring doubles (normal and subnormal), and just off them.
  for (int i = 0; i < 400; ++i) {
    std::uint64_t bits = (static_cast<std::uint64_t>(rng()) << 32 | rng()) & 0x7fefffffffffffffULL;
    if (i % 4 == 0) bits &= 0x000fffffffffffffULL;  // subnormals
    double lo = std::bit_cast<double>(bits);
    double hi = std::nextafter(lo, std::numeric_limits<double>::infinity());
    if (std::isinf(hi)) continue;
    Rational mid = (Rational(lo) + Rational(hi)) / 2;
    double even = (bits & 1) == 0 ? lo : hi;
    std::string s = exactDecimal(mid);
    ASSERT_TRUE(identical(viaLoader(s), even)) << s;
    ASSERT_TRUE(identical(viaLoader(s), std::strtod(s.c_str(), nullptr))) << s;
    ASSERT_TRUE(identical(viaLoader("-" + s), -even)) << s;
    std::string above = exactDecimal(mid, "1");  // a hair above the midpoint
    ASSERT_TRUE(identical(viaLoader(above), hi)) << above;
    ASSERT_TRUE(identical(viaLoader(above), std::strtod(above.c_str(), nullptr))) << above;
  }
}

TEST(CaseFile, RoundToFloatMatchesStrtof) {
  EXPECT_EQ(viaLoaderFloat("16777217"), 16777216.0f);
  EXPECT_EQ(viaLoaderFloat("0x1.000001p0"), 1.0f);
  EXPECT_EQ(viaLoaderFloat("0x1.000003p0"), 1.0f + 0x1p-22f);
  std::mt19937 rng(77);
  for (int i = 0; i < 3000; ++i) {
    std::string s = (rng() % 2) ? "-" : "";
    int digits = 1 + static_cast<int>(rng() % 15);
    for (int j = 0; j < digits; ++j) s += static_cast<char>('0' + rng() % 10);
    s += "e" + std::to_string(static_cast<int>(rng() % 100) - 60);
    float expected = std::strtof(s.c_str(), nullptr);
    ASSERT_TRUE(identical(viaLoaderFloat(s), expected)) << s;
  }
  for (int i = 0; i < 400; ++i) {
    std::uint32_t bits = rng() & 0x7f7fffffU;
    if (i % 4 == 0) bits &= 0x007fffffU;
    float lo = std::bit_cast<float>(bits);
    float hi = std::nextafter(lo, std::numeric_limits<float>::infinity());
    if (std::isinf(hi)) continue;
    Rational mid = (Rational(static_cast<double>(lo)) + Rational(static_cast<double>(hi))) / 2;
    float even = (bits & 1) == 0 ? lo : hi;
    std::string s = exactDecimal(mid);
    ASSERT_TRUE(identical(viaLoaderFloat(s), even)) << s;
    ASSERT_TRUE(identical(viaLoaderFloat(s), std::strtof(s.c_str(), nullptr))) << s;
  }
}

template <class T>
void checkRoundTrip(std::string_view document) {
  SCOPED_TRACE(std::string(tc::Carrier<T>::name));
  tc::Case<T> first = load<T>(document);
  std::string written = tc::writeCase(first);
  auto second = tc::parseCase<T>(written);
  ASSERT_TRUE(second.has_value()) << second.error().message << "\n" << written;
  expectSameCase(first, *second);
  EXPECT_EQ(tc::writeCase(*second), written);  // writing is a fixed point
}

TEST(CaseFile, WriteThenReadRoundTrip_Rational) {
  checkRoundTrip<Rational>(kSemanticsExample);
  checkRoundTrip<Rational>(kExactAllOps);
  checkRoundTrip<RationalNoEq>(kExactAllOps);
  checkRoundTrip<ModP>(kSemanticsExample);
  checkRoundTrip<Rational>(R"({"tapecheck": 1, "inputs": [{"shape": []}]})");  // graph only, default seed
}

TEST(CaseFile, WriteThenReadRoundTrip_Double) {
  checkRoundTrip<double>(kSemanticsExample);
  checkRoundTrip<double>(kExactAllOps);
  checkRoundTrip<double>(kTranscendental);
  checkRoundTrip<float>(kTranscendental);
  checkRoundTrip<float>(kExactAllOps);
  // Specials survive bit for bit.
  tc::Case<double> c = load<double>(kTranscendental);
  tc::Case<double> d = load<double>(tc::writeCase(c));
  const std::vector<double>& v = (*d.inputs)[0].values;
  EXPECT_TRUE(std::signbit(v[1]) && v[1] == 0.0);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(v[2]),
            std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_TRUE(std::signbit(*d.graph.nodeAt(11).attrs.c));
  EXPECT_EQ(*d.graph.nodeAt(12).attrs.lo, -std::numeric_limits<double>::infinity());
  const std::vector<double>& seed = d.seeds[12].values;
  EXPECT_TRUE(std::signbit(seed[0]) && seed[0] == 0.0);
  EXPECT_TRUE(std::isnan(seed[1]));
  EXPECT_EQ(seed[2], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(seed[3], std::numeric_limits<double>::max());
  EXPECT_EQ(seed[4], 0.1);
}

TEST(CaseFile, WriterIsCanonical) {
  tc::Case<Rational> c = load<Rational>(
      R"({"tapecheck": 1, "inputs": [{"shape": [5]}], "values": [["6/8", "-6/8", "-0", "2.50", "0x10p-4"]]})");
  nlohmann::json written = nlohmann::json::parse(tc::writeCase(c));
  EXPECT_EQ(written["values"], nlohmann::json::parse(R"([["3/4", "-3/4", "0", "5/2", "1"]])"));
  tc::Case<ModP> m = load<ModP>(R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["-1", "1/2"]]})");
  EXPECT_EQ(nlohmann::json::parse(tc::writeCase(m))["values"],
            nlohmann::json::parse(R"([["2305843009213693950", "1152921504606846976"]])"));
  tc::Case<double> d = load<double>(
      R"({"tapecheck": 1, "inputs": [{"shape": [6]}], "values": [["-0", "nan", "-inf", "0.1", "1/3", "1e23"]]})");
  EXPECT_EQ(nlohmann::json::parse(tc::writeCase(d))["values"],
            nlohmann::json::parse(R"([["-0", "nan", "-inf", "0.1", "0.3333333333333333", "1e+23"]])"));
}

// ---------------------------------------------------------------------------------------------
// Known loader defects: each test below fails against the loader as it was when written
// ---------------------------------------------------------------------------------------------

bool isOneLine(const std::string& message) {
  return !message.empty() && message.find_first_of("\n\r") == std::string::npos;
}

// User text is echoed unescaped, so a JSON escape "\n" in a name makes a two-line message.
TEST(CaseFile, ErrorMessageIsOneLineWhenUserTextContainsNewlines) {
  for (const std::string& doc : {
           oneInput(R"("nodes": [{"op": "neg\nx", "args": [0]}])"),
           oneInput(R"("bogus\nkey": 1)"),
           oneInput(R"("values": [["1\n2", "1"]])"),
           oneInput(R"("nodes": [{"op": "mask", "args": [0], "attrs": {"key": "m\r\n"}}])"),
           oneInput(R"("nodes": [{"op": "opaque", "args": [0], "attrs": {"name": "a\nb"}}])"),
           oneInput(R"("seeds": {"0\n": ["1", "1"]})"),
       }) {
    std::string message = errorOf(doc);
    EXPECT_TRUE(isOneLine(message)) << doc << "\ngave\n" << message;
  }
}

// Raw bytes of a malformed document are copied into the parse-error message; a consumer that
// emits the message as JSON (nlohmann's dump throws on invalid UTF-8) cannot print it.
TEST(CaseFile, ErrorMessageIsValidUtf8) {
  std::string message = errorOf("\xff\xfe");
  EXPECT_NO_THROW((void)nlohmann::json(message).dump()) << message;
}

// The 10000-digit limit is checked only after every digit has been accumulated into a big
// integer, one multiply-add per digit: quadratic time. 100000 digits took about 0.4 s, 400000
// digits 6 s, so a 4 MB file kept the loader busy for minutes. A 4,000,000-digit literal refused
// in linear time takes milliseconds, in quadratic time hours: the test asserts no time (the
// machine may be busy), and a quadratic reader would not end before ctest's timeout.
TEST(CaseFile, OverlongNumberIsRejectedQuickly) {
  std::string digits(4000000, '7');
  std::string message = errorOf(oneInput(R"("values": [[")" + digits + R"(", "1"]])"));
  EXPECT_EQ(message.substr(0, 20), "values[0][0]: '77777");
  // The whole 4 MB literal is not echoed into the one-line message.
  EXPECT_LT(message.size(), 1000u) << "message of " << message.size() << " characters";
}

// The reader accepts exponents up to 1e10000 / 0x1p40000 but refuses more than 10000 digits, and
// the writer writes exact values as plain integers or fractions: a value the reader accepted
// comes back as a literal with 10001+ digits, so a saved case cannot be read back.
TEST(CaseFile, WrittenCaseReadsBackAtTheLiteralLimits) {
  for (const char* value : {"1e10000", "-1e-10000", "0x1p40000", "0x1p-40000"}) {
    auto first = tc::parseCase<Rational>(R"({"tapecheck": 1, "inputs": [{"shape": []}], "values": [[")" +
                                         std::string(value) + R"("]]})");
    ASSERT_TRUE(first.has_value()) << value << ": " << first.error().message;
    auto second = tc::parseCase<Rational>(tc::writeCase(*first));
    EXPECT_TRUE(second.has_value()) << value << " was read but its written form is refused: "
                                    << (second ? "" : escaped(second.error().message, 120));
  }
}

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// nlohmann's dump() is recursive: the loader dumps the "failure" object, a non-integer format
// version, and a non-string value into messages, so a deeply nested (valid) JSON document blows
// the stack. Each statement runs in a child process.
TEST(CaseFileDeathTest, DeeplyNestedJsonDoesNotCrash) {
  const std::size_t depth = 300000;  // 600 kB of brackets; 100000 already crash with an 8 MB stack
  const std::string failure = R"({"tapecheck": 1, "inputs": [{"shape": []}], "failure": )" + nested(depth) + "}";
  const std::string version = R"({"tapecheck": )" + nested(depth) + R"(, "inputs": []})";
  const std::string value = R"({"tapecheck": 1, "inputs": [{"shape": []}], "values": [[)" + nested(depth) + "]]}";
  const std::string description = R"({"tapecheck": 1, "inputs": [{"shape": []}], "description": )" + nested(depth) + "}";
  auto returns = [](const std::string& text) {
    auto loaded = tc::parseCase<Rational>(text);
    std::_Exit(loaded || isOneLine(loaded.error().message) ? 0 : 1);
  };
  EXPECT_EXIT(returns(description), ::testing::ExitedWithCode(0), "") << "description";
  EXPECT_EXIT(returns(failure), ::testing::ExitedWithCode(0), "") << "failure";
  EXPECT_EXIT(returns(version), ::testing::ExitedWithCode(0), "") << "tapecheck";
  EXPECT_EXIT(returns(value), ::testing::ExitedWithCode(0), "") << "values";
}

// Every tensor is capped at 2^24 elements, but nothing bounds the total: the loader builds a
// zero seed tensor for every position, so an 800-byte file asks for 31 x 128 MB on double (and
// about 1 GB per position on rational). Under a 256 MB address-space limit std::bad_alloc escapes
// parseCase (exit code 3 below); without a limit the process takes 4 GB.
TEST(CaseFileDeathTest, SmallFileCannotExhaustMemory) {
  std::string nodes;
  for (int i = 0; i < 30; ++i) nodes += (i ? ", " : "") + std::string(R"({"op": "neg", "args": [)") + std::to_string(i) + "]}";
  const std::string doc = R"({"tapecheck": 1, "inputs": [{"shape": [16777216]}], "nodes": [)" + nodes + "]}";
  ASSERT_LT(doc.size(), 1000u);
  auto bounded = [](const std::string& text) {
    rlimit limit{std::size_t{256} << 20, std::size_t{256} << 20};
    setrlimit(RLIMIT_AS, &limit);
    try {
      auto loaded = tc::parseCase<double>(text);
      std::_Exit(loaded || isOneLine(loaded.error().message) ? 0 : 1);
    } catch (const std::bad_alloc&) {
      std::_Exit(3);
    }
  };
  EXPECT_EXIT(bounded(doc), ::testing::ExitedWithCode(0), "");
}

// Reading JSON builds the whole document before the loader's budget can judge the case: a file of
// 92 MB took 1.4 GB. Within a bound, the parser counts the text and each value as it builds them
// (48 bytes a value, 32 more for a string's std::string, 48 for a container's header) and stops.
TEST(CaseFile, ReadingJsonStopsOnceTheDocumentPassesItsMemoryBound) {
  std::string text = "[";
  for (int i = 0; i < 10000; ++i) text += i ? ", \"1\"" : "\"1\"";
  text += "]";
  const double counted = static_cast<double>(text.size()) + (48 + 48) + 10000 * (48 + 32);
  auto within = tc::parseJsonDocument(text, tc::MemoryBound{counted, "; raise it"});
  ASSERT_TRUE(within) << within.error().message;
  EXPECT_EQ(within->size(), 10000u);
  auto over = tc::parseJsonDocument(text, tc::MemoryBound{counted - 1, "; raise it"});
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().message,
            "reading its 0.04768 MiB of JSON takes more than the memory budget of 0.8107 MiB; raise it");
  EXPECT_TRUE(tc::parseJsonDocument(text)) << "unbounded by default";
}

// ---------------------------------------------------------------------------------------------
// 3. Robustness: every call returns a value or a single non-empty line
// ---------------------------------------------------------------------------------------------

//! Runs the loader on many inputs, and reports, for each kind of misbehaviour (an exception
//! escaping, or a message that is empty or spans lines; kinds told apart by the message up to the
//! first quote, digits ignored), how often it happened and the first input that showed it.
struct Robustness {
  std::size_t calls = 0;
  std::size_t loaded = 0;
  std::size_t failures = 0;
  std::map<std::string, std::size_t> kinds;

  void failed(const std::string& kind, const std::string& detail, std::string_view text) {
    ++failures;
    if (kinds[kind]++ == 0) ADD_FAILURE() << detail << "\ninput: " << escaped(text, 100000);
  }
  template <class T>
  void check(std::string_view text, const char* what) {
    ++calls;
    std::string carrier(tc::Carrier<T>::name);
    try {
      auto result = tc::parseCase<T>(text);
      if (result) {
        ++loaded;
        return;
      }
      const std::string& message = result.error().message;
      if (isOneLine(message)) return;
      std::string kind = message.substr(0, message.find('\''));
      std::replace_if(kind.begin(), kind.end(), [](char c) { return c >= '0' && c <= '9'; }, '#');
      failed("message: " + kind,
             fmt::format("{} on {}: the message is not one non-empty line: [{}]", what, carrier, escaped(message)), text);
    } catch (const std::exception& e) {
      failed(std::string("exception: ") + typeid(e).name(),
             fmt::format("{} on {}: an exception escaped: {}", what, carrier, e.what()), text);
    }
  }
  void all(std::string_view text, const char* what) {
    check<Rational>(text, what);
    check<ModP>(text, what);
    check<double>(text, what);
  }
  ~Robustness() {
    std::cout << "[ robust   ] " << calls << " calls, " << loaded << " loaded, " << failures << " failures\n";
    for (const auto& [kind, count] : kinds) std::cout << "[ robust   ]   " << count << " x " << escaped(kind) << "\n";
  }
};

//! A random JSON value over the file format's vocabulary, nested at most `depth` deep. Numbers
//! stay small (or are refused outright) so that no input asks for a large tensor.
std::string randomJson(std::mt19937& rng, int depth) {
  static const std::vector<std::string> keys = {
      "tapecheck", "inputs", "shape", "nodes", "op", "args", "attrs", "values", "data", "seed", "seeds", "output",
      "failure", "description", "indices", "key", "c", "lo", "hi", "axis", "start", "len", "name", "0", "1", "2",
      "m", "r", "x"};
  static const std::vector<std::string> scalars = {
      "0", "1", "2", "3", "-1", "1.5", "null", "true", "\"0\"", "\"1\"", "\"-1/2\"", "\"nan\"", "\"inf\"",
      "\"-0\"", "\"0x1p-1\"", "\"1/0\"", "\"neg\"", "\"add\"", "\"sum\"", "\"const\"", "\"mask\"",
      "\"gather0\"", "\"opaque\"", "\"twice\"", "\"const3\"", "\"m\"", "\"r\"", "\"matmul\"",
      "\"reshape\"", "\"broadcast\"", "\"slice0\"", "\"clamp\"", "\"scale\"", "\"exp\"", "\"relu\"",
      "\"max\"", "\"\\n\"", "\"\"", "4294967296", "16777217", "18446744073709551616"};
  switch (depth <= 0 ? 0 : rng() % 4) {
    case 2: {
      std::string out = "[";
      for (unsigned i = 0, n = rng() % 4; i < n; ++i) out += (i ? "," : "") + randomJson(rng, depth - 1);
      return out + "]";
    }
    case 3: {
      std::string out = "{";
      for (unsigned i = 0, n = rng() % 4; i < n; ++i)
        out += (i ? ",\"" : "\"") + keys[rng() % keys.size()] + "\":" + randomJson(rng, depth - 1);
      return out + "}";
    }
    default: return scalars[rng() % scalars.size()];
  }
}

//! A document that is mostly well-formed: the right top-level keys with random contents.
std::string randomDocument(std::mt19937& rng) {
  std::string out = rng() % 10 ? R"({"tapecheck": 1, "inputs": [)" : R"({"tapecheck": )" + randomJson(rng, 1) + R"(, "inputs": [)";
  for (unsigned i = 0, n = rng() % 3; i < n; ++i) {
    out += i ? ", {\"shape\": [" : "{\"shape\": [";
    for (unsigned d = 0, rank = rng() % 3; d < rank; ++d) out += (d ? ", " : "") + std::to_string(1 + rng() % 3);
    out += "]}";
  }
  out += "]";
  if (rng() % 2) {
    out += R"(, "nodes": [)";
    for (unsigned i = 0, n = rng() % 5; i < n; ++i) {
      out += i ? ", " : "";
      if (rng() % 4 == 0) {
        out += randomJson(rng, 3);
        continue;
      }
      out += R"({"op": )" + randomJson(rng, 0) + R"(, "args": [)";
      for (unsigned a = 0, arity = rng() % 4; a < arity; ++a) out += (a ? ", " : "") + std::to_string(rng() % 5);
      out += "]";
      if (rng() % 2) out += R"(, "attrs": )" + randomJson(rng, 2);
      if (rng() % 4 == 0) out += R"(, "shape": )" + randomJson(rng, 2);
      out += "}";
    }
    out += "]";
  }
  for (const char* key : {"data", "values", "output", "seed", "seeds", "failure"})
    if (rng() % 4 == 0) out += fmt::format(R"(, "{}": {})", key, randomJson(rng, 3));
  return out + "}";
}

TEST(CaseFile, RandomBytesNeverCrash) {
  Robustness r;
  std::mt19937 rng(12345);
  const int count = 20000;
  for (int i = 0; i < count; ++i) {
    std::string text;
    if (i % 2 == 0) {  // raw bytes, lengths 0..200
      std::size_t length = rng() % 201;
      for (std::size_t j = 0; j < length; ++j) text += static_cast<char>(rng() & 0xff);
    } else {  // random documents that get past the JSON parser
      text = randomDocument(rng);
    }
    r.all(text, "random");
  }
  EXPECT_EQ(r.calls, 3u * count);
  EXPECT_GT(r.loaded, 0u);
}

TEST(CaseFile, TruncatedFilesNeverCrash) {
  Robustness r;
  for (std::string_view doc : kValidDocuments)
    for (std::size_t n = 0; n <= doc.size(); ++n) r.all(doc.substr(0, n), "prefix");
  EXPECT_GT(r.loaded, 0u);
}

TEST(CaseFile, MutatedFilesNeverCrash) {
  Robustness r;
  std::mt19937 rng(987654321);
  const std::string alphabet = "{}[]:,\"\\0123456789-+./eEpPxXnaifu \n\tabcdrsl";
  auto randomChar = [&]() -> char {
    switch (rng() % 4) {
      case 0: return static_cast<char>(rng() & 0xff);
      default: return alphabet[rng() % alphabet.size()];
    }
  };
  // Swaps two lines: nodes, inputs and value lists change places.
  auto swapLines = [&](std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    if (lines.size() < 2) return;
    std::swap(lines[rng() % lines.size()], lines[rng() % lines.size()]);
    text.clear();
    for (const std::string& line : lines) text += line + "\n";
  };
  const int perDocument = 8000;
  for (std::string_view doc : kValidDocuments) {
    for (int i = 0; i < perDocument; ++i) {
      std::string text(doc);
      int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        std::size_t at = rng() % text.size();
        switch (rng() % 7) {
          case 0:
          case 1: text[at] = randomChar(); break;
          case 2:
          case 3: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), randomChar()); break;
          case 4:
          case 5: text.erase(at, 1); break;
          default: swapLines(text); break;
        }
      }
      r.all(text, "mutation");
    }
  }
  EXPECT_EQ(r.calls, 3u * perDocument * kValidDocuments.size());
  EXPECT_GT(r.loaded, 0u);
}

}  // namespace

namespace {

TEST(DocumentFormat, KeysInReadingOrderOneEntryPerLineAndParsesBack) {
  nlohmann::json doc = nlohmann::json::parse(R"({"values": [["1", "2"], ["3"]], "output": 2, "tapecheck": 1,
      "nodes": [{"op": "neg", "args": [0]}], "inputs": [{"shape": [2]}, {"shape": []}], "extra": true,
      "failure": {"property": "p", "carrier": "rational"}})");
  std::string text = tc::formatCaseDocument(doc);
  EXPECT_EQ(text,
            "{\n"
            "  \"tapecheck\": 1,\n"
            "  \"inputs\": [\n    {\"shape\":[2]},\n    {\"shape\":[]}\n  ],\n"
            "  \"nodes\": [{\"args\":[0],\"op\":\"neg\"}],\n"
            "  \"values\": [\n    [\"1\",\"2\"],\n    [\"3\"]\n  ],\n"
            "  \"output\": 2,\n"
            "  \"failure\": {\n    \"carrier\": \"rational\",\n    \"property\": \"p\"\n  },\n"
            "  \"extra\": true\n"
            "}\n");
  EXPECT_EQ(nlohmann::json::parse(text), doc);
}

}  // namespace

namespace {

// The loader's gate (core/io/case_file.h) judges a case before its seed pack is built, and where the
// file gives seeds, again with them; its refusal is the loader's error.
TEST(CaseGate, JudgesTheCaseBeforeItsSeedsAndAgainWithTheSeedsTheFileGives) {
  const std::string base = R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["1", "2"]],
      "nodes": [{"op": "neg", "args": [0]}])";
  std::vector<std::size_t> seedPacksSeen;  // the seed pack's size at each call
  const tc::CaseGate<double> record = [&](const tc::Case<double>& c) -> tc::Result<void> {
    seedPacksSeen.push_back(c.seeds.size());
    return {};
  };
  ASSERT_TRUE(tc::parseCase<double>(base + "}", record));
  EXPECT_EQ(seedPacksSeen, std::vector<std::size_t>{0});
  for (const std::string seeds : {R"("seed": ["3", "4"])", R"("seeds": {"1": ["3", "4"]})"}) {
    seedPacksSeen.clear();
    auto loaded = tc::parseCase<double>(base + ", " + seeds + "}", record);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(seedPacksSeen, (std::vector<std::size_t>{0, 2})) << seeds;
  }
  // Refused with the seeds: the gate's message is the loader's.
  const tc::CaseGate<double> noThrees = [](const tc::Case<double>& c) -> tc::Result<void> {
    for (const auto& t : c.seeds)
      if (std::ranges::find(t.values, 3.0) != t.values.end()) return tc::fail("a seed of 3");
    return {};
  };
  auto refused = tc::parseCase<double>(base + R"(, "seed": ["3", "4"]})", noThrees);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "a seed of 3");
}

}  // namespace
