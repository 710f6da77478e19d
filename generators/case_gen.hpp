#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "core/carriers/carrier.h"
#include "core/graph/op_kind.h"
#include "core/graph/node_program.h"
#include "core/graph/opaque.h"
#include "core/io/case_file.h"
#include "core/tensor/shape.h"
#include "generators/case_gen.h"

namespace tc::gen {
namespace detail {

using nlohmann::json;

//! SplitMix64: a small deterministic source of choices.
class Choices {
 public:
  explicit Choices(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  //! Uniform in [0, n).
  std::size_t below(std::size_t n) { return n == 0 ? 0 : next() % n; }
  bool percent(unsigned p) { return below(100) < p; }
  template <class C>
  const auto& pick(const C& items) { return items[below(items.size())]; }

 private:
  std::uint64_t state_;
};

inline const std::vector<std::string> kExactValues = {"0", "1", "-1", "2", "-2", "1/2", "-1/2", "3", "1/3", "-3/2", "0", "1"};
inline const std::vector<std::string> kIeeeValues = {"0", "1", "-1", "2", "0.5", "-0.5", "3", "-3", "1.5", "0.25", "1", "-2"};
inline const std::vector<std::string> kIeeeSpecials = {"-0", "nan", "inf", "-inf", "16777216", "-16777216", "1e-310", "0x1p-149"};
inline const std::vector<Shape> kShapes = {{}, {2}, {3}, {1}, {2, 3}, {3, 2}, {2, 2}, {1, 3}, {2, 1, 2}};

//! A value drawn for carrier T: small exact values, or on IEEE carriers mostly ordinary values
//! with 8% specials (±0, ±inf, NaN, 2^24, subnormals).
template <class T>
std::string randomValue(Choices& pick) {
  if constexpr (Carrier<T>::caps.exact) {
    return pick.pick(kExactValues);
  } else {
    return pick.percent(8) ? pick.pick(kIeeeSpecials) : pick.pick(kIeeeValues);
  }
}

template <class T>
json randomValues(Choices& pick, std::size_t n) {
  json v = json::array();
  for (std::size_t i = 0; i < n; ++i) v.push_back(randomValue<T>(pick));
  return v;
}

// Multiplicative depth grows rationals; ops beyond this depth are not chosen on exact carriers.
constexpr int kMaxDegree = 12;

//! Half the time a seed at the output alone ("seed"), otherwise a seed pack ("seeds") that seeds
//! the output and up to two random positions.
template <class T>
void chooseSeeds(Choices& pick, const std::vector<Shape>& shapes, std::size_t output, json& doc) {
  doc.erase("seed");
  doc.erase("seeds");
  if (pick.percent(50)) {
    doc["seed"] = randomValues<T>(pick, elementCount(shapes[output]));
    return;
  }
  json seeds = json::object();
  seeds[std::to_string(output)] = randomValues<T>(pick, elementCount(shapes[output]));
  std::size_t count = pick.below(3);
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t p = pick.below(shapes.size());
    seeds[std::to_string(p)] = randomValues<T>(pick, elementCount(shapes[p]));
  }
  doc["seeds"] = seeds;
}

template <class T>
class CaseWriter {
 public:
  CaseWriter(std::uint64_t seed, int size) : pick_(seed), size_(std::clamp(size, 0, 100)) {}

  json build() {
    std::size_t inputs = 1 + pick_.below(3);
    for (std::size_t i = 0; i < inputs; ++i) addInput(pick_.pick(kShapes));
    // A square matrix input: matmul, linear and transpose terms are only told apart from their
    // transposes on square operands, and the adjoint identity only sees terms reached from inputs.
    if (pick_.percent(30)) addInput(pick_.percent(50) ? Shape{2, 2} : Shape{3, 3});
    std::size_t nodes = pick_.below(1 + static_cast<std::size_t>(size_) * 10 / 100) + (size_ > 0 ? 1 : 0);
    for (std::size_t k = 0; k < nodes; ++k) addNode();
    doc_["tapecheck"] = 1;
    doc_["inputs"] = inputsJson_;
    if (!data_.empty()) doc_["data"] = data_;
    doc_["nodes"] = nodes_;
    doc_["values"] = values_;
    chooseOutputAndSeeds();
    return doc_;
  }

 private:
  static constexpr bool kExact = Carrier<T>::caps.exact;

  std::string value() { return randomValue<T>(pick_); }
  json values(std::size_t n) { return randomValues<T>(pick_, n); }

  void addInput(const Shape& shape) {
    inputsJson_.push_back(json{{"shape", std::vector<std::size_t>(shape.begin(), shape.end())}});
    values_.push_back(values(elementCount(shape)));
    shapes_.push_back(shape);
    degree_.push_back(1);
  }

  void push(json node, const Shape& shape, int degree) {
    nodes_.push_back(std::move(node));
    shapes_.push_back(shape);
    degree_.push_back(degree);
  }

  // A random position (other than `besides`) whose shape satisfies `ok`, or nullopt.
  std::optional<std::size_t> positionWhere(const std::function<bool(const Shape&)>& ok,
                                           std::optional<std::size_t> besides = std::nullopt) {
    std::vector<std::size_t> found;
    for (std::size_t p = 0; p < shapes_.size(); ++p)
      if (ok(shapes_[p]) && p != besides) found.push_back(p);
    if (found.empty()) return std::nullopt;
    return pick_.pick(found);
  }
  std::size_t anyPosition() { return pick_.below(shapes_.size()); }
  // A position satisfying `ok`, or a new const node of `fallback` when there is none, so that
  // ops needing partners of particular shapes (matmul, linear, dot) are always buildable.
  std::size_t ensure(const std::function<bool(const Shape&)>& ok, const Shape& fallback,
                     std::optional<std::size_t> besides = std::nullopt) {
    if (auto p = positionWhere([&](const Shape& s) { return ok(s); }, besides)) return *p;
    json n{{"op", "const"}, {"attrs", {{"shape", dims(fallback)}, {"values", values(elementCount(fallback))}}}};
    push(std::move(n), fallback, 0);
    return shapes_.size() - 1;
  }
  // A partner of x's shape: x itself in a quarter of the cases, otherwise another position, made
  // as a const node when there is none (a repeated argument hides slips like a missing factor in
  // a - b).
  std::size_t sameShapeAs(std::size_t x) {
    if (pick_.percent(25)) return x;
    const Shape shape = shapes_[x];
    return ensure([&](const Shape& s) { return s == shape; }, shape, x);
  }

  std::vector<OpKind> allowedOps() const {
    std::vector<OpKind> ops;
    for (std::size_t i = 0; i < kOpCount; ++i) {
      auto kind = static_cast<OpKind>(i);
      if (kind == OpKind::opaque) continue;
      if (!satisfies(Carrier<T>::caps, requirementOf<T>(kind, Attrs<T>{}))) continue;
      ops.push_back(kind);
      // Twice as likely: the ops whose terms pair operands (a slip there hides on most shapes).
      if (kind == OpKind::matmul || kind == OpKind::linear || kind == OpKind::dot) ops.push_back(kind);
    }
    return ops;
  }

  void addNode() {
    // Opaque nodes in a small share of graphs; otherwise a random op that can be built here.
    if (pick_.percent(6)) {
      std::size_t x = anyPosition();
      json node{{"op", "opaque"}, {"args", {x}}, {"attrs", {{"name", pick_.percent(50) ? "twice" : "const3"}}}};
      push(std::move(node), shapes_[x], degree_[x]);
      return;
    }
    std::vector<OpKind> ops = allowedOps();
    for (int attempt = 0; attempt < 64; ++attempt)
      if (tryAdd(pick_.pick(ops))) return;
    std::size_t x = anyPosition();  // always possible
    push(json{{"op", "neg"}, {"args", {x}}}, shapes_[x], degree_[x]);
  }

  bool tryAdd(OpKind kind);

  Choices pick_;
  int size_;
  json doc_ = json::object();
  json inputsJson_ = json::array(), nodes_ = json::array(), values_ = json::array(), data_ = json::object();
  std::vector<Shape> shapes_;
  std::vector<int> degree_;
  std::size_t dataKeys_ = 0;

  void chooseOutputAndSeeds() {
    std::size_t positions = shapes_.size();
    std::size_t inputs = inputsJson_.size();
    std::size_t output = positions - 1;
    if (pick_.percent(15)) output = pick_.below(inputs);
    else if (pick_.percent(25) && positions > inputs) output = inputs + pick_.below(positions - inputs);
    doc_["output"] = output;
    chooseSeeds<T>(pick_, shapes_, output, doc_);
  }

  static std::vector<std::size_t> dims(const Shape& s) { return std::vector<std::size_t>(s.begin(), s.end()); }
};

template <class T>
bool CaseWriter<T>::tryAdd(OpKind kind) {
  const std::string name(opName(kind));
  auto node = [&](std::vector<std::size_t> args) { return json{{"op", name}, {"args", args}}; };
  auto withinDegree = [&](int degree) { return !kExact || degree <= kMaxDegree; };
  switch (kind) {
    case OpKind::add: case OpKind::sub: case OpKind::max: case OpKind::min: {
      std::size_t x = anyPosition(), y = sameShapeAs(x);
      push(node({x, y}), shapes_[x], std::max(degree_[x], degree_[y]));
      return true;
    }
    case OpKind::mul: case OpKind::div: case OpKind::mse_loss: {
      std::size_t x = anyPosition(), y = sameShapeAs(x);
      int degree = degree_[x] + degree_[y];
      if (!withinDegree(degree)) return false;
      push(node({x, y}), kind == OpKind::mse_loss ? Shape{} : shapes_[x], degree);
      return true;
    }
    case OpKind::square: case OpKind::inv: {
      std::size_t x = anyPosition();
      if (!withinDegree(2 * degree_[x])) return false;
      push(node({x}), shapes_[x], 2 * degree_[x]);
      return true;
    }
    case OpKind::neg: case OpKind::relu: case OpKind::abs: case OpKind::detach: case OpKind::exp: case OpKind::log:
    case OpKind::sqrt: case OpKind::tanh: case OpKind::sigmoid: case OpKind::softplus: case OpKind::sin:
    case OpKind::cos: {
      std::size_t x = anyPosition();
      push(node({x}), shapes_[x], degree_[x]);
      return true;
    }
    case OpKind::scale: {
      std::size_t x = anyPosition();
      json n = node({x});
      n["attrs"] = {{"c", value()}};
      push(std::move(n), shapes_[x], degree_[x] + 1);
      return true;
    }
    case OpKind::clamp: {
      std::size_t x = anyPosition();
      json n = node({x});
      n["attrs"] = {{"lo", pick_.pick(std::vector<std::string>{"-2", "-1", "-1/2", "0"})},
                    {"hi", pick_.pick(std::vector<std::string>{"0", "1/2", "1", "2"})}};
      push(std::move(n), shapes_[x], degree_[x]);
      return true;
    }
    case OpKind::sum: case OpKind::mean: {
      std::size_t x = anyPosition();
      push(node({x}), Shape{}, degree_[x] + (kind == OpKind::mean));
      return true;
    }
    case OpKind::sum_axis: {
      auto x = positionWhere([](const Shape& s) { return !s.empty(); });
      if (!x) return false;
      std::size_t axis = pick_.below(shapes_[*x].size());
      Shape out = shapes_[*x];
      out.erase(out.begin() + axis);
      json n = node({*x});
      n["attrs"] = {{"axis", axis}};
      push(std::move(n), out, degree_[*x]);
      return true;
    }
    case OpKind::dot: {
      std::size_t x = ensure([](const Shape& s) { return s.size() == 1; }, Shape{3});
      std::size_t y = sameShapeAs(x);
      if (!withinDegree(degree_[x] + degree_[y])) return false;
      push(node({x, y}), Shape{}, degree_[x] + degree_[y]);
      return true;
    }
    case OpKind::matmul: {
      // Square left operands half the time: only there is a term told apart from its transpose.
      auto square = positionWhere([](const Shape& s) { return s.size() == 2 && s[0] == s[1]; });
      std::size_t a = square && pick_.percent(50) ? *square : ensure([](const Shape& s) { return s.size() == 2; }, Shape{2, 3});
      const std::size_t m = shapes_[a][0], k = shapes_[a][1];
      Shape partner = pick_.percent(50) ? Shape{k} : Shape{k, 1 + pick_.below(3)};
      std::size_t b = ensure([&](const Shape& s) { return s == partner; }, partner);
      if (!withinDegree(degree_[a] + degree_[b])) return false;
      Shape out = shapes_[b].size() == 2 ? Shape{m, shapes_[b][1]} : Shape{m};
      push(node({a, b}), out, degree_[a] + degree_[b]);
      return true;
    }
    case OpKind::transpose: {
      auto x = positionWhere([](const Shape& s) { return s.size() == 2; });
      if (!x) return false;
      push(node({*x}), Shape{shapes_[*x][1], shapes_[*x][0]}, degree_[*x]);
      return true;
    }
    case OpKind::linear: {
      std::size_t w = ensure([](const Shape& s) { return s.size() == 2; }, Shape{2, 3});
      const Shape ws = shapes_[w];
      std::size_t x = ensure([&](const Shape& s) { return s == Shape{ws[1]}; }, Shape{ws[1]});
      std::size_t b = ensure([&](const Shape& s) { return s == Shape{ws[0]}; }, Shape{ws[0]});
      if (!withinDegree(degree_[w] + degree_[x])) return false;
      push(node({w, x, b}), Shape{ws[0]}, std::max(degree_[w] + degree_[x], degree_[b]));
      return true;
    }
    case OpKind::reshape: {
      std::size_t x = anyPosition();
      std::size_t n = elementCount(shapes_[x]);
      Shape target = shapes_[x].size() == 1 ? Shape{1, n} : Shape{n};
      json node1 = node({x});
      node1["attrs"] = {{"shape", dims(target)}};
      push(std::move(node1), target, degree_[x]);
      return true;
    }
    case OpKind::broadcast: {
      auto x = positionWhere([](const Shape& s) { return s.size() <= 2; });
      if (!x) return false;
      Shape target{2};
      for (std::size_t d : shapes_[*x]) target.push_back(d);
      json n = node({*x});
      n["attrs"] = {{"shape", dims(target)}};
      push(std::move(n), target, degree_[*x]);
      return true;
    }
    case OpKind::concat0: {
      auto x = positionWhere([](const Shape& s) { return !s.empty(); });
      if (!x) return false;
      Shape xs = shapes_[*x];
      std::size_t y = *positionWhere([&](const Shape& s) {
        return s.size() == xs.size() && std::equal(s.begin() + 1, s.end(), xs.begin() + 1);
      });
      Shape out = xs;
      out[0] = static_cast<Shape::Dim>(xs[0] + shapes_[y][0]);
      push(node({*x, y}), out, std::max(degree_[*x], degree_[y]));
      return true;
    }
    case OpKind::slice0: {
      auto x = positionWhere([](const Shape& s) { return !s.empty(); });
      if (!x) return false;
      std::size_t rows = shapes_[*x][0];
      std::size_t start = pick_.below(rows);
      std::size_t len = 1 + pick_.below(rows - start);
      Shape out = shapes_[*x];
      out[0] = static_cast<Shape::Dim>(len);
      json n = node({*x});
      n["attrs"] = {{"start", start}, {"len", len}};
      push(std::move(n), out, degree_[*x]);
      return true;
    }
    case OpKind::constant: {
      Shape shape = pick_.pick(kShapes);
      json n{{"op", "const"}, {"attrs", {{"shape", dims(shape)}, {"values", values(elementCount(shape))}}}};
      push(std::move(n), shape, 0);
      return true;
    }
    case OpKind::mask: {
      std::size_t x = anyPosition();
      std::string key = fmt::format("m{}", dataKeys_++);
      data_[key] = {{"shape", dims(shapes_[x])}, {"values", values(elementCount(shapes_[x]))}};
      json n = node({x});
      n["attrs"] = {{"key", key}};
      push(std::move(n), shapes_[x], degree_[x] + 1);
      return true;
    }
    case OpKind::gather0: {
      auto x = positionWhere([](const Shape& s) { return !s.empty(); });
      if (!x) return false;
      std::vector<std::size_t> rows(1 + pick_.below(3));
      for (std::size_t& r : rows) r = pick_.below(shapes_[*x][0]);
      std::string key = fmt::format("g{}", dataKeys_++);
      data_[key] = {{"indices", rows}};
      Shape out = shapes_[*x];
      out[0] = static_cast<Shape::Dim>(rows.size());
      json n = node({*x});
      n["attrs"] = {{"key", key}};
      push(std::move(n), out, degree_[*x]);
      return true;
    }
    case OpKind::softmax_last: case OpKind::log_softmax_last: {
      auto x = positionWhere([](const Shape& s) { return !s.empty(); });
      if (!x) return false;
      push(node({*x}), shapes_[*x], degree_[*x]);
      return true;
    }
    case OpKind::opaque: return false;
  }
  return false;
}

}  // namespace detail
}  // namespace tc::gen

namespace tc::gen {
namespace detail {

// Renumbers every position reference of a document: `map` returns the new position, or nullopt
// when the reference cannot survive (the candidate is then abandoned).
inline bool remapPositions(json& doc, std::size_t firstNode, const std::function<std::optional<std::size_t>(std::size_t)>& map) {
  for (std::size_t j = firstNode; j < doc["nodes"].size(); ++j) {
    json& node = doc["nodes"][j];
    if (!node.contains("args")) continue;
    for (json& arg : node["args"]) {
      auto p = map(arg.get<std::size_t>());
      if (!p) return false;
      arg = *p;
    }
  }
  if (doc.contains("output")) {
    auto p = map(doc["output"].get<std::size_t>());
    if (!p) return false;
    doc["output"] = *p;
  }
  if (doc.contains("seeds")) {
    json seeds = json::object();
    for (const auto& [key, values] : doc["seeds"].items()) {
      auto p = map(std::stoul(key));
      if (p && !seeds.contains(std::to_string(*p))) seeds[std::to_string(*p)] = values;
    }
    doc["seeds"] = seeds;
  }
  return true;
}

template <class T>
void deleteNodeCandidates(const json& doc, const Graph<T>& graph, std::vector<json>& out) {
  const std::size_t inputs = graph.inputs.size();
  for (std::size_t k = graph.nodes.size(); k-- > 0;) {
    const std::size_t q = inputs + k;
    // Reroute users of q to its own argument of the same shape, else the latest earlier position.
    std::optional<std::size_t> replacement;
    for (std::size_t a : graph.nodes[k].args)
      if (!replacement && graph.shapeAt(a) == graph.shapeAt(q)) replacement = a;
    for (std::size_t p = q; !replacement && p-- > 0;)
      if (graph.shapeAt(p) == graph.shapeAt(q)) replacement = p;
    json candidate = doc;
    candidate["nodes"].erase(k);
    bool ok = remapPositions(candidate, k, [&](std::size_t p) -> std::optional<std::size_t> {
      if (p < q) return p;
      if (p > q) return p - 1;
      return replacement;
    });
    if (ok) out.push_back(std::move(candidate));
  }
}

// A const node turned into an input holding the same values: one node fewer, and the values
// become simplifiable like any input's.
template <class T>
void constToInputCandidates(const json& doc, const Graph<T>& graph, std::vector<json>& out) {
  const std::size_t inputs = graph.inputs.size();
  for (std::size_t k = 0; k < graph.nodes.size(); ++k) {
    if (graph.nodes[k].op != OpKind::constant) continue;
    const std::size_t q = inputs + k;
    json candidate = doc;
    const json node = candidate["nodes"][k];
    candidate["nodes"].erase(k);
    candidate["inputs"].push_back(json{{"shape", node["attrs"]["shape"]}});
    candidate["values"].push_back(node["attrs"]["values"]);
    // Positions below q shift up by one (a new input comes first); q becomes that input.
    bool ok = remapPositions(candidate, 0, [&](std::size_t p) -> std::optional<std::size_t> {
      if (p < inputs) return p;
      if (p < q) return p + 1;
      if (p == q) return inputs;
      return p;
    });
    if (ok) out.push_back(std::move(candidate));
  }
}

template <class T>
void dropInputCandidates(const json& doc, const Graph<T>& graph, std::vector<json>& out) {
  for (std::size_t i = graph.inputs.size(); i-- > 0;) {
    if (graph.inputs.size() == 1 && graph.nodes.empty()) break;
    json candidate = doc;
    candidate["inputs"].erase(i);
    if (candidate.contains("values")) candidate["values"].erase(i);
    bool ok = remapPositions(candidate, 0, [&](std::size_t p) -> std::optional<std::size_t> {
      if (p == i) return std::nullopt;
      return p > i ? p - 1 : p;
    });
    if (ok) out.push_back(std::move(candidate));
  }
}

// Input i with dimension `axis` one smaller: the last slice along that axis is dropped.
inline void shrinkDimensionCandidates(const json& doc, std::vector<json>& out) {
  for (std::size_t i = 0; i < doc["inputs"].size(); ++i) {
    std::vector<std::size_t> shape = doc["inputs"][i]["shape"];
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
      if (shape[axis] <= 1) continue;
      std::size_t inner = 1;
      for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
      json values = json::array();
      const json& old = doc["values"][i];
      for (std::size_t flat = 0; flat < old.size(); ++flat)
        if ((flat / inner) % shape[axis] != shape[axis] - 1) values.push_back(old[flat]);
      json candidate = doc;
      candidate["inputs"][i]["shape"][axis] = shape[axis] - 1;
      candidate["values"][i] = values;
      out.push_back(std::move(candidate));
    }
  }
}

// How simple a value is: 0, then 1, then -1, then anything else. Every candidate is strictly
// simpler somewhere, so shrinking always ends.
inline int simplicity(const json& value) {
  if (value == "0") return 0;
  if (value == "1") return 1;
  if (value == "-1") return 2;
  return 3;
}

// All values of `tensor` set to 0, or to 1 when none is 0; then single values made simpler.
inline void simplifyValues(const json& doc, const json::json_pointer& tensor, std::vector<json>& out) {
  const json& values = doc[tensor];
  int simplest = 3, mostComplex = 0;
  for (const json& v : values) {
    simplest = std::min(simplest, simplicity(v));
    mostComplex = std::max(mostComplex, simplicity(v));
  }
  for (const char* to : {"0", "1"}) {
    if (mostComplex <= simplicity(to) || (simplest < simplicity(to))) continue;
    json candidate = doc;
    for (json& v : candidate[tensor]) v = to;
    out.push_back(std::move(candidate));
  }
  for (std::size_t i = 0; i < values.size() && i < 16; ++i)
    for (const char* to : {"0", "1", "-1"}) {
      if (simplicity(to) >= simplicity(values[i])) break;
      json candidate = doc;
      candidate[tensor][i] = to;
      out.push_back(std::move(candidate));
    }
}

inline void valueCandidates(const json& doc, std::vector<json>& out) {
  using ptr = json::json_pointer;
  for (std::size_t i = 0; i < doc["values"].size(); ++i) simplifyValues(doc, ptr("/values/" + std::to_string(i)), out);
  for (std::size_t k = 0; k < doc["nodes"].size(); ++k) {
    const json& node = doc["nodes"][k];
    if (node["op"] == "const") simplifyValues(doc, ptr(fmt::format("/nodes/{}/attrs/values", k)), out);
    if (node["op"] == "scale" && simplicity(node["attrs"]["c"]) > simplicity("1")) {
      json candidate = doc;
      candidate["nodes"][k]["attrs"]["c"] = "1";
      out.push_back(std::move(candidate));
    }
  }
  if (doc.contains("data"))
    for (const auto& [key, entry] : doc["data"].items())
      if (entry.contains("values")) simplifyValues(doc, ptr("/data/" + key + "/values"), out);
}

// Data entries no node reads.
inline void unusedDataCandidates(const json& doc, std::vector<json>& out) {
  if (!doc.contains("data")) return;
  for (const auto& [key, entry] : doc["data"].items()) {
    bool used = false;
    for (const json& node : doc["nodes"])
      used = used || (node.contains("attrs") && node["attrs"].contains("key") && node["attrs"]["key"] == key);
    if (used) continue;
    json candidate = doc;
    candidate["data"].erase(key);
    if (candidate["data"].empty()) candidate.erase("data");
    out.push_back(std::move(candidate));
  }
}

inline void seedCandidates(const json& doc, std::vector<json>& out) {
  if (doc.contains("seed")) {
    json candidate = doc;
    candidate.erase("seed");  // the default: ones at the output
    out.push_back(std::move(candidate));
    simplifyValues(doc, json::json_pointer("/seed"), out);
  }
  if (doc.contains("seeds")) {
    for (const auto& [key, values] : doc["seeds"].items()) {
      if (doc["seeds"].size() > 1) {
        json candidate = doc;
        candidate["seeds"].erase(key);
        out.push_back(std::move(candidate));
      }
      simplifyValues(doc, json::json_pointer("/seeds/" + key), out);
    }
  }
}

}  // namespace detail

template <class T>
nlohmann::json randomCase(std::uint64_t seed, int size) {
  return detail::CaseWriter<T>(seed, size).build();
}

template <class T>
nlohmann::json withRandomValues(const nlohmann::json& doc, std::uint64_t seed) {
  auto loaded = parseCase<T>(doc.dump());
  if (!loaded) return doc;
  detail::Choices pick(seed);
  nlohmann::json out = doc;
  out["values"] = nlohmann::json::array();
  for (const Shape& shape : loaded->graph.inputs) out["values"].push_back(detail::randomValues<T>(pick, elementCount(shape)));
  std::vector<Shape> shapes;
  for (std::size_t p = 0; p < loaded->graph.positionCount(); ++p) shapes.push_back(loaded->graph.shapeAt(p));
  detail::chooseSeeds<T>(pick, shapes, loaded->output, out);
  return out;
}

template <class T>
std::vector<nlohmann::json> shrinksOf(const nlohmann::json& original) {
  std::vector<nlohmann::json> candidates, valid;
  auto loaded = parseCase<T>(original.dump());
  if (!loaded || !original.contains("values")) return valid;  // a user's graph without values: nothing to shrink
  nlohmann::json doc = original;
  if (!doc.contains("nodes")) doc["nodes"] = nlohmann::json::array();  // optional in the format
  detail::deleteNodeCandidates(doc, loaded->graph, candidates);
  detail::constToInputCandidates(doc, loaded->graph, candidates);
  detail::dropInputCandidates(doc, loaded->graph, candidates);
  detail::unusedDataCandidates(doc, candidates);
  detail::shrinkDimensionCandidates(doc, candidates);
  detail::valueCandidates(doc, candidates);
  detail::seedCandidates(doc, candidates);
  for (auto& candidate : candidates)
    if (parseCase<T>(candidate.dump())) valid.push_back(std::move(candidate));
  return valid;
}

}  // namespace tc::gen
