#pragma once
// Writing one random case: inputs, then nodes chosen by the ops' own metadata (which carrier
// they need, their argument signature, their attribute schema, their degree), each appended
// through the file format's node reader so that the op's shape rule — not a copy of it here —
// decides every output shape.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "core/graph/builder.hpp"
#include "core/io/case_file.hpp"
#include "core/ops/kernel_geometry.h"
#include "core/ops/kernels.h"
#include "core/ops/library.hpp"
#include "generators/case_options.hpp"
#include "generators/choices.h"

namespace tc::gen::detail {

using nlohmann::json;

// Multiplicative depth grows rationals; nodes beyond this degree are not built on exact carriers.
constexpr int kMaxDegree = 12;

//! Kernel-sized cases (CaseWriter below): drawn from this size on, in this share of the cases on
//! carrier T. 4% on most carriers, so that a default run (cases of sizes 0 to 99) holds about 2%
//! of them; 2% on intervals, whose every other operation costs MPFI's 257-bit arithmetic.
constexpr int kKernelSizedFrom = 50;
template <class T>
constexpr unsigned kernelSizedPercent() {
  return kernels::HoldsDoubles<T> ? 2 : 4;
}

template <class T>
class CaseWriter {
 public:
  CaseWriter(std::uint64_t seed, int size, const CaseOptions& options)
      : pick_(seed), offDouble_(seed ^ 0x6f66662d646f7562ULL), size_(std::clamp(size, 0, 100)), options_(options),
        kernelSized_(drawsKernelSizes(seed, size_)) {}

  json build() {
    if (kernelSized_) {
      addKernelSizedInputs();
    } else {
      std::size_t inputs = 1 + pick_.below(3);
      for (std::size_t i = 0; i < inputs; ++i) addInput(pick_.pick(kShapes));
      // A square matrix input: matmul, linear and transpose terms are only told apart from their
      // transposes on square operands, and the adjoint identity only sees terms reached from inputs.
      if (pick_.percent(30)) addInput(pick_.percent(50) ? Shape{2, 2} : Shape{3, 3});
    }
    auto builder = GraphBuilder<T>::create(inputShapes_);
    assert(builder && "generated input shapes are valid");
    builder_.emplace(std::move(*builder));
    if (kernelSized_) {
      addKernelSizedNodes();
    } else {
      std::size_t nodes = pick_.below(1 + static_cast<std::size_t>(size_) * 10 / 100) + (size_ > 0 ? 1 : 0);
      for (std::size_t k = 0; k < nodes && !refused_; ++k) addNode();
    }
    makeDomainsReachable();
    if (!options_.avoidKinks) placeAtKinks();
    placeAtStressPoints();
    placeAtDomainBoundaries();
    json doc = json::object();
    doc["tapecheck"] = 1;
    doc["inputs"] = inputsJson_;
    if (!data_.empty()) doc["data"] = data_;
    doc["nodes"] = nodes_;
    doc["values"] = values_;
    chooseOutputAndSeeds(doc);
    return doc;
  }

 private:
  static constexpr bool kExact = Carrier<T>::caps.exact;
  //! Intervals: exact points that no double holds, which their products must not fold in double.
  static constexpr bool kHoldsPointsOffDouble = kExact && kernels::HoldsDoubles<T>;

  //! What a recipe decided: the arguments, and the argument position attributes refer to.
  struct Choice {
    std::vector<std::size_t> args;
    std::optional<std::size_t> subject;
  };

  const Graph<T>& graph() const { return builder_->graph(); }
  //! IEEE values of the exact domain drawn with −0 as well as +0 (CaseOptions::signedZeros).
  bool signedZerosInExactDomain() const { return !kExact && options_.domain == Domain::exact && options_.signedZeros; }
  std::size_t positions() const { return inputShapes_.size() + nodes_.size(); }
  const Shape& shapeAt(std::size_t p) const { return builder_ ? graph().shapeAt(p) : inputShapes_[p]; }
  std::string value() {
    std::string drawn = kernelSized_ ? kernelSizedValue() : randomValue<T>(pick_, options_.domain);
    // The exact domain's pool holds +0 only; with signedZeros half its zeros are −0.
    if (signedZerosInExactDomain() && drawn == "0" && pick_.percent(50)) drawn = "-0";
    if constexpr (kHoldsPointsOffDouble)
      if (!kernelSized_ && offDouble_.percent(kOffDoublePercent)) drawn = offDouble_.pick(kOffDoublePoints);
    return drawn;
  }
  json values(std::size_t n) {
    json v = json::array();
    for (std::size_t i = 0; i < n; ++i) v.push_back(value());
    return v;
  }

  // ---- Kernel-sized cases (docs/semantics.md §3, "Sizes that reach every kernel path") ----------
  // The other cases' dimensions stay at most 3, where the dense kernels' blocked and tiled paths
  // never run. A share of the cases from size kKernelSizedFrom on is instead a matmul and a linear
  // node over inputs of dimensions that run them: A [m, k], B [k, n], x [k], b [m], matmul(A, B)
  // and linear(A, x, b). The choice comes from a stream of its own, so the other cases are drawn
  // as they were.
  static bool drawsKernelSizes(std::uint64_t seed, int size) {
    return size >= kKernelSizedFrom && Choices(seed ^ 0x6b65726e656c73ULL).percent(kernelSizedPercent<T>());
  }

  struct KernelDims {
    std::size_t m, k, n;
  };

  // On IEEE carriers, and on intervals (whose products of doubles fold in the double kernel), one
  // of three shapes of product, each with columns of tiles of two vectors, a one-vector panel and
  // (four times in five) a few columns beside the vectors: "deep" (half the time: 5 to 15 rows, a
  // tile row and rows left over; a fold of more than kDepthBlock steps; its term aᵀ·ct has more
  // than kRowBlock rows), "tall" (more than kRowBlock rows, a short fold) and "few rows" (fewer
  // than kTileRows rows, folded straight from y: four vectors, one vector, the last columns). On
  // the exact carriers, whose products are the plain loops, a fold of 33 to 40 steps: bᵀ is
  // copied in more than one transpose tile, and the GMP products stay affordable.
  KernelDims drawKernelDims() {
    if constexpr (kExact && !kernels::HoldsDoubles<T>) {
      return {1 + pick_.below(3), kernels::kTransposeTile + 1 + pick_.below(8), 1 + pick_.below(3)};
    } else {
      const std::size_t lanes = kernels::lanesOf(kExact ? sizeof(double) : sizeof(T));
      const std::size_t tail = pick_.percent(80) ? 1 + pick_.below(lanes - 1) : 0;
      const std::size_t deep = kernels::kDepthBlock + 1 + pick_.below(8);
      switch (pick_.below(4)) {
        case 0:
        case 1:
          return {kernels::kTileRows * (1 + pick_.below(3)) + 1 + pick_.below(kernels::kTileRows - 1), deep,
                  2 * lanes * (1 + pick_.below(2)) + lanes + tail};
        case 2:
          return {kernels::kRowBlock + 1 + pick_.below(4), 4 + pick_.below(9), 2 * lanes + lanes + tail};
        default: return {1 + pick_.below(kernels::kTileRows - 1), deep, 4 * lanes + lanes + tail};
      }
    }
  }

  void addKernelSizedInputs() {
    const auto [m, k, n] = drawKernelDims();
    for (const Shape& shape : {Shape{m, k}, Shape{k, n}, Shape{k}, Shape{m}}) addInput(shape);
    // On intervals a third of these cases hold, somewhere in A, a point no double holds: matmul's and
    // linear's products must then leave the double kernel for the carrier's own fold.
    if constexpr (kHoldsPointsOffDouble)
      if (offDouble_.percent(33)) values_[0][offDouble_.below(m * k)] = offDouble_.pick(kOffDoublePoints);
  }

  void addKernelSizedNodes() {
    if (allows(OpKind::matmul)) push(json{{"op", "matmul"}, {"args", {0, 1}}}, ops::degree(OpKind::matmul, std::vector{1, 1}));
    if (allows(OpKind::linear))
      push(json{{"op", "linear"}, {"args", {0, 2, 3}}}, ops::degree(OpKind::linear, std::vector{1, 1, 1}));
  }

  // Finite values on IEEE carriers (a NaN or an infinity in a tensor of hundreds of elements would
  // make most outputs NaN, and a wrong product would pass unseen); on intervals doubles, multiples
  // of 1/256 below 4, whose folds are exact in double and run in the double kernel.
  // In the exact domain the small pool's values: the wider dyadic ones, summed over a fold of more
  // than a hundred steps, would make nearly every kernel-sized case one the domain rejects.
  std::string kernelSizedValue() {
    if constexpr (!kExact) return options_.domain == Domain::exact ? pick_.pick(kIeeeValues) : drawValue<T>(pick_, options_.domain, true).text();
    else if constexpr (kernels::HoldsDoubles<T>) return pick_.pick(kSpreadValues);
    else return randomValue<T>(pick_, options_.domain);
  }

  void addInput(const Shape& shape) {
    inputsJson_.push_back(json{{"shape", dims(shape)}});
    values_.push_back(values(elementCount(shape)));
    inputShapes_.push_back(shape);
    degree_.push_back(1);
  }

  // Appends a node through the file format's reader: the op's own rules check it and give its shape.
  // A node the op's rules refuse although the recipe for its arguments built it is a disagreement of
  // the generator and the op (one of them is wrong): the node is kept and the drawing ends, so that
  // the document reproduces the refusal and the run fails it (docs/semantics.md §3.4) instead of
  // stopping. Whether the node was added.
  bool push(json node, int degree) {
    if (refused_) return false;  // nothing is added after a refusal
    const bool added = appendNode(*builder_, node).has_value();
    refused_ = !added;
    nodes_.push_back(std::move(node));
    degree_.push_back(degree);
    return added;
  }

  // A random position (other than `besides`) whose shape satisfies `ok`, or nullopt.
  std::optional<std::size_t> positionWhere(const std::function<bool(const Shape&)>& ok,
                                           std::optional<std::size_t> besides = std::nullopt) {
    std::vector<std::size_t> found;
    for (std::size_t p = 0; p < positions(); ++p)
      if (ok(shapeAt(p)) && p != besides) found.push_back(p);
    if (found.empty()) return std::nullopt;
    return pick_.pick(found);
  }
  std::size_t anyPosition() { return pick_.below(positions()); }
  // A position satisfying `ok`, or a new constant of `fallback` when there is none, so that ops
  // needing partners of particular shapes (matmul, linear, dot) are buildable; nullopt when there
  // is none and constants are not allowed.
  std::optional<std::size_t> ensure(const std::function<bool(const Shape&)>& ok, const Shape& fallback,
                                    std::optional<std::size_t> besides = std::nullopt) {
    if (auto p = positionWhere(ok, besides)) return *p;
    return addConstant(fallback);
  }
  // A new constant of `shape`, its position; nullopt when constants are not allowed.
  std::optional<std::size_t> addConstant(const Shape& shape) {
    if (!constantOp_) return std::nullopt;
    json node{{"op", opName(*constantOp_)}, {"attrs", drawAttributes(*constantOp_, std::nullopt, shape)}};
    if (!push(std::move(node), 0)) return std::nullopt;
    return positions() - 1;
  }
  // A partner of x's shape: x itself in a quarter of the cases (and whenever there is no other),
  // otherwise another position, made as a constant when there is none (a repeated argument hides
  // slips like a missing factor in a - b).
  std::size_t sameShapeAs(std::size_t x) {
    if (pick_.percent(25)) return x;
    const Shape shape = shapeAt(x);
    return ensure([&](const Shape& s) { return s == shape; }, shape, x).value_or(x);
  }

  bool allows(OpKind kind) const { return allowsOp<T>(options_, kind); }
  // The ops carrier T supports and the options allow, those whose terms pair operands twice as
  // likely (a slip there hides on most shapes).
  std::vector<OpKind> allowedOps() const {
    std::vector<OpKind> kinds;
    for (OpKind kind : ops::opsSupportedBy<T>()) {
      if (!allows(kind)) continue;
      kinds.push_back(kind);
      Signature s = ops::signature(kind);
      if (s == Signature::matmul || s == Signature::linear || s == Signature::vectors) kinds.push_back(kind);
    }
    return kinds;
  }
  // The allowed op of `signature` with or without attributes: the plain unary op to fall back
  // on, the op for constants.
  std::optional<OpKind> firstWith(Signature signature, bool attributes) const {
    for (OpKind kind : ops::opsSupportedBy<T>())
      if (allows(kind) && ops::signature(kind) == signature && ops::attributes<T>(kind).empty() != attributes)
        return kind;
    return std::nullopt;
  }

  void addNode() {
    // Opaque nodes in a small share of graphs; otherwise a random op that can be built here.
    if (allows(OpKind::opaque) && pick_.percent(6)) {
      std::size_t x = anyPosition();
      json node{{"op", "opaque"}, {"args", {x}}, {"attrs", {{"name", pick_.percent(50) ? "twice" : "const3"}}}};
      push(std::move(node), degree_[x]);
      return;
    }
    for (int attempt = 0; attempt < 64 && !allowed_.empty(); ++attempt)
      if (tryAdd(pick_.pick(allowed_)) || refused_) return;
    if (!fallbackOp_) return;  // nothing fits: the case stays smaller
    std::size_t x = anyPosition();
    push(json{{"op", opName(*fallbackOp_)}, {"args", {x}}}, degree_[x]);
  }

  bool tryAdd(OpKind kind) {
    std::optional<Choice> choice = chooseArguments(ops::signature(kind));
    if (refused_) return true;  // a constant for the arguments was refused: the drawing ends
    if (!choice) return false;
    if (auto argument = ops::domainArgument(kind)) preferInputAt(*choice, *argument);
    // placeAtStressPoints can move an input's values, not a node's.
    if (!kExact && (!ops::stressValues(kind).empty() || ops::stressCancellation(kind))) {
      preferInputAt(*choice, 0, 75);
      if (ops::stressCancellation(kind) && choice->args.size() == 2) distinctPartnerAt(*choice, 1);
      if (refused_) return true;
    }
    std::vector<int> degrees;
    for (std::size_t a : choice->args) degrees.push_back(degree_[a]);
    int degree = ops::degree(kind, degrees);
    if (kExact && degree > kMaxDegree) return false;
    json node{{"op", opName(kind)}};
    if (!choice->args.empty()) node["args"] = choice->args;
    json attrs = drawAttributes(kind, choice->subject);
    if (!attrs.empty()) node["attrs"] = std::move(attrs);
    push(std::move(node), degree);
    return true;
  }

  // Half the time (or `percent`), an input of the same shape in place of an argument that a node computes:
  // makeDomainsReachable can put an input's values inside the domain, not a node's (and
  // placeAtStressPoints at a stress point). One that no node reads yet where there is one: its
  // gradient may then be the node's term alone, which the accuracy oracle judges.
  void preferInputAt(Choice& choice, std::size_t argument, unsigned percent = 50) {
    std::size_t& x = choice.args[argument];
    if (x < inputShapes_.size() || !pick_.percent(percent)) return;
    std::vector<std::size_t> same, unread;
    for (std::size_t i = 0; i < inputShapes_.size(); ++i)
      if (inputShapes_[i] == shapeAt(x)) (readByANode(i) ? same : unread).push_back(i);
    const std::vector<std::size_t>& from = unread.empty() ? same : unread;
    if (from.empty()) return;
    if (choice.subject == x) choice.subject = pick_.pick(from), x = *choice.subject;
    else x = pick_.pick(from);
  }

  bool readByANode(std::size_t p) const {
    for (const json& node : nodes_)
      if (node.contains("args"))
        for (const json& a : node["args"])
          if (a.get<std::size_t>() == p) return true;
    return false;
  }

  // Three quarters of the time, in place of argument `argument`, another input of the first
  // argument's shape, or a new constant of it when there is none: placeAtStressPoints can make
  // either nearly equal to the first argument when that is an input.
  void distinctPartnerAt(Choice& choice, std::size_t argument) {
    const std::size_t x = choice.args[0];
    if (x >= inputShapes_.size() || !pick_.percent(75)) return;
    std::vector<std::size_t> others;
    for (std::size_t i = 0; i < inputShapes_.size(); ++i)
      if (i != x && inputShapes_[i] == inputShapes_[x]) others.push_back(i);
    if (!others.empty()) choice.args[argument] = pick_.pick(others);
    else if (auto constant = addConstant(inputShapes_[x])) choice.args[argument] = *constant;
  }

  // The recipes: arguments that meet each signature's shape contract (nullopt: none here now).
  std::optional<Choice> chooseArguments(Signature signature) {
    auto one = [](std::optional<std::size_t> x) -> std::optional<Choice> {
      if (!x) return std::nullopt;
      return Choice{{*x}, x};
    };
    switch (signature) {
      case Signature::none: return Choice{};
      case Signature::any:
      case Signature::reshape: return one(anyPosition());
      case Signature::sameShape: {
        std::size_t x = anyPosition(), y = sameShapeAs(x);
        return Choice{{x, y}, x};
      }
      case Signature::leadingAxis: return one(positionWhere([](const Shape& s) { return !s.empty(); }));
      case Signature::matrix: return one(positionWhere([](const Shape& s) { return s.size() == 2; }));
      case Signature::broadcast: return one(positionWhere([](const Shape& s) { return s.size() <= 2; }));
      case Signature::vectors: {
        auto x = ensure([](const Shape& s) { return s.size() == 1; }, Shape{3});
        if (!x) return std::nullopt;
        return Choice{{*x, sameShapeAs(*x)}, x};
      }
      case Signature::matmul: {
        // Square left operands half the time: only there is a term told apart from its transpose.
        auto square = positionWhere([](const Shape& s) { return s.size() == 2 && s[0] == s[1]; });
        auto a = square && pick_.percent(50) ? square
                                              : ensure([](const Shape& s) { return s.size() == 2; }, Shape{2, 3});
        if (!a) return std::nullopt;
        const std::size_t k = shapeAt(*a)[1];
        Shape partner = pick_.percent(50) ? Shape{k} : Shape{k, 1 + pick_.below(3)};
        auto b = ensure([&](const Shape& s) { return s == partner; }, partner);
        if (!b) return std::nullopt;
        return Choice{{*a, *b}, a};
      }
      case Signature::linear: {
        auto w = ensure([](const Shape& s) { return s.size() == 2; }, Shape{2, 3});
        if (!w) return std::nullopt;
        const Shape ws = shapeAt(*w);
        auto x = ensure([&](const Shape& s) { return s == Shape{ws[1]}; }, Shape{ws[1]});
        auto b = ensure([&](const Shape& s) { return s == Shape{ws[0]}; }, Shape{ws[0]});
        if (!x || !b) return std::nullopt;
        return Choice{{*w, *x, *b}, w};
      }
      case Signature::concat: {
        auto x = positionWhere([](const Shape& s) { return !s.empty(); });
        if (!x) return std::nullopt;
        const Shape xs = shapeAt(*x);
        std::size_t y = *positionWhere([&](const Shape& s) {
          return s.size() == xs.size() && std::equal(s.begin() + 1, s.end(), xs.begin() + 1);
        });
        return Choice{{*x, y}, x};
      }
    }
    return std::nullopt;
  }

  // Makes every element of three quarters of the constrained input arguments of ops with a domain
  // check (ops::domainArgument) positive: its magnitude, 2 for 0. A node is refused unless its
  // argument lies wholly inside the domain (log, and sqrt on intervals, need every element
  // positive), which mixed-sign draws of several elements seldom do: without this such nodes would
  // nearly always be refused, and their terms seldom compared. placeAtDomainBoundaries then puts
  // some of them back at a boundary.
  void makeDomainsReachable() {
    const std::size_t inputs = inputShapes_.size();
    for (const json& node : nodes_) {
      auto kind = opByName(node["op"].get<std::string>());
      auto argument = kind ? ops::domainArgument(*kind) : std::nullopt;
      if (!argument || !pick_.percent(75)) continue;
      const std::size_t x = node["args"][*argument];
      if (x >= inputs) continue;
      for (json& value : values_[x]) {
        std::string text = value.get<std::string>();
        if (text.starts_with('-')) text.erase(0, 1);
        value = text == "0" ? "2" : text;
      }
    }
  }

  // Puts an element of half the kinked nodes' input arguments at a kink (ops::kinkPlace): drawn
  // values rarely meet there, and kink_conventions checks the value chosen at each.
  void placeAtKinks() {
    const std::size_t inputs = inputShapes_.size();
    for (const json& node : nodes_) {
      auto kind = opByName(node["op"].get<std::string>());
      const KinkPlace place = kind ? ops::kinkPlace(*kind) : KinkPlace::none;
      if (place == KinkPlace::none || !pick_.percent(50)) continue;
      const std::size_t x = node["args"][0];
      if (x >= inputs || values_[x].empty()) continue;
      const std::size_t i = pick_.below(values_[x].size());
      if (place == KinkPlace::zero)
        values_[x][i] = !kExact && (options_.domain != Domain::exact || signedZerosInExactDomain()) && pick_.percent(50) ? "-0" : "0";
      if (place == KinkPlace::bound) values_[x][i] = node["attrs"][pick_.percent(50) ? "lo" : "hi"];
      if (place == KinkPlace::tie) {
        const std::size_t y = node["args"][1];
        if (y >= inputs) continue;
        values_[y][i] = values_[x][i];
        // With signedZeros, half the ties are of −0 and +0, in either order: max and min must pick
        // the sign their tie rule gives (max(−0, +0) = −0, min(+0, −0) = +0).
        if (signedZerosInExactDomain() && pick_.percent(50)) {
          const bool negativeFirst = pick_.percent(50);
          values_[x][i] = negativeFirst ? "-0" : "0", values_[y][i] = negativeFirst ? "0" : "-0";
        }
      }
    }
  }

  // On IEEE carriers, puts nodes whose op has stress points there (ops::stressValues,
  // stressCancellation): three quarters of the time an element of an input first argument at one of the op's
  // stress values (for a unary op that declares cancellation, half of those times every row of the
  // argument nearly constant at it instead); three quarters of the time an input second argument nearly equal to the first
  // (each element moved by about 2^-(p/2)/3 relative, so that a difference cancels half the
  // digits). Either way the first argument's NaN and infinities are made 1. Naive formulas lose their
  // accuracy there, which random draws seldom reach; the accuracy oracle judges it.
  void placeAtStressPoints() {
    if constexpr (!kExact) {
      if (options_.domain == Domain::exact) return;
      const std::size_t inputs = inputShapes_.size();
      for (const json& node : nodes_) {
        auto kind = opByName(node["op"].get<std::string>());
        if (!kind || !node.contains("args") || node["args"].empty()) continue;
        const std::size_t x = node["args"][0];
        const auto stress = ops::stressValues(*kind);
        if (!stress.empty() && x < inputs && !values_[x].empty() && pick_.percent(75)) {
          makeFinite(values_[x]);
          const std::string value(pick_.pick(stress));
          const bool rows = ops::stressCancellation(*kind) && node["args"].size() == 1 && !shapeAt(x).empty() &&
                            shapeAt(x).back() >= 2 && pick_.percent(50);
          if (rows) values_[x] = nearlyConstantRows(value, shapeAt(x));
          else values_[x][pick_.below(values_[x].size())] = value;
        }
        if (ops::stressCancellation(*kind) && node["args"].size() == 2 && pick_.percent(75)) {
          const std::size_t y = node["args"][1];
          const bool constant = y >= inputs && constantOp_ && nodes_[y - inputs]["op"] == opName(*constantOp_);
          if (x < inputs && y != x && (y < inputs || constant)) {
            makeFinite(values_[x]);
            (y < inputs ? values_[y] : nodes_[y - inputs]["attrs"]["values"]) = nearlyEqualValues(values_[x]);
          }
        }
      }
    }
  }

  // NaN and infinities made 1: at a stress point they would leave nothing to judge.
  static void makeFinite(json& values) {
    for (json& value : values)
      if (!std::isfinite(*parseValue<T>(value.get<std::string>()))) value = "1";
  }

  // Each value moved by a third of 2^-(p/2) of itself (p the carrier's precision), rounded, written
  // exactly: the moved values use every digit, so that products of them round.
  static json nearlyEqualValues(const json& values) {
    json out = json::array();
    const T step = std::ldexp(T(1), -std::numeric_limits<T>::digits / 2) / T(3);
    for (const json& text : values) {
      auto value = parseValue<T>(text.get<std::string>());
      out.push_back(value && std::isfinite(*value) ? Carrier<T>::format(*value + *value * step) : text.get<std::string>());
    }
    return out;
  }

  // Values of `shape` whose rows (along the last axis) count up from `centre` in steps of 2^-(p/2)/8
  // of it, rounded: each row nearly constant, within 3/8·2^-(p/2) of the centre for rows up to 4.
  static json nearlyConstantRows(const std::string& centre, const Shape& shape) {
    const T c = *parseValue<T>(centre);
    const T step = c * std::ldexp(T(1), -std::numeric_limits<T>::digits / 2) / T(8);
    json out = json::array();
    for (std::size_t i = 0, n = elementCount(shape); i < n; ++i)
      out.push_back(Carrier<T>::format(c + step * T(static_cast<int>(i % shape.back()))));
    return out;
  }

  // Puts an element of half the constrained input arguments of ops with a domain check
  // (ops::domainArgument) at a boundary: 0 on exact carriers; ±0, NaN or ±inf on IEEE carriers.
  // On IEEE carriers a few other nodes' input arguments get a NaN or ±inf, so that specials flow
  // into every family of ops (opaque nodes are rare, and few draws reach them otherwise).
  void placeAtDomainBoundaries() {
    static const std::vector<std::string> kIeeeBoundaries{"0", "-0", "nan", "inf", "-inf"};
    static const std::vector<std::string> kIeeeSpecials{"nan", "inf", "-inf"};
    if (options_.domain == Domain::exact) return;
    const std::size_t inputs = inputShapes_.size();
    for (const json& node : nodes_) {
      auto kind = opByName(node["op"].get<std::string>());
      auto argument = kind ? ops::domainArgument(*kind) : std::nullopt;
      const bool special = !argument && !kExact && node.contains("args") && pick_.percent(kind == OpKind::opaque ? 30 : 3);
      if (!special && (!argument || !pick_.percent(50))) continue;
      const std::size_t x = node["args"][argument.value_or(0)];
      if (x >= inputs || values_[x].empty()) continue;
      values_[x][pick_.below(values_[x].size())] =
          kExact ? "0" : special ? pick_.pick(kIeeeSpecials) : pick_.pick(kIeeeBoundaries);
    }
  }

  // Attributes of the op's schema, drawn in schema order. `subject` is the argument they refer
  // to; `shape` fixes a constant's shape.
  json drawAttributes(OpKind kind, std::optional<std::size_t> subject, std::optional<Shape> shape = std::nullopt) {
    json attrs = json::object();
    for (const AttrSpec<T>& spec : ops::attributes<T>(kind))
      attrs[std::string(spec.name)] = drawAttribute(spec.name, ops::signature(kind), subject, shape, attrs);
    return attrs;
  }

  json drawAttribute(std::string_view name, Signature signature, std::optional<std::size_t> subject,
                     const std::optional<Shape>& shape, const json& drawn) {
    auto rows = [&] { return shapeAt(*subject)[0]; };
    if (name == "c") return value();
    if (name == "lo") return pick_.pick(std::vector<std::string>{"-2", "-1", "-1/2", "0"});
    if (name == "hi") return pick_.pick(std::vector<std::string>{"0", "1/2", "1", "2"});
    if (name == "axis") return pick_.below(shapeAt(*subject).size());
    if (name == "start") return pick_.below(rows());
    if (name == "len") return 1 + pick_.below(rows() - drawn["start"].get<std::size_t>());
    if (name == "shape") {
      if (signature == Signature::none) return dims(shape ? *shape : pick_.pick(kShapes));
      const Shape& x = shapeAt(*subject);
      if (signature == Signature::reshape) {
        std::size_t n = elementCount(x);
        return dims(x.size() == 1 ? Shape{1, n} : Shape{n});
      }
      Shape target{2};  // broadcast: one leading copy axis
      for (std::size_t d : x) target.push_back(d);
      return dims(target);
    }
    if (name == "values") {
      std::vector<std::size_t> of = drawn["shape"];
      return values(elementCount(Shape(of.begin(), of.end())));
    }
    if (name == "key") return dataKey(signature, *subject);
    assert(false && "the generator has no drawer for this attribute; add one here");
    return {};
  }

  // A new data entry for the subject: an index list for ops that select rows, otherwise a tensor
  // of the subject's shape.
  std::string dataKey(Signature signature, std::size_t subject) {
    const Shape& x = shapeAt(subject);
    if (signature == Signature::leadingAxis) {
      std::vector<std::size_t> rows(1 + pick_.below(3));
      for (std::size_t& r : rows) r = pick_.below(x[0]);
      std::string key = fmt::format("g{}", dataKeys_++);
      data_[key] = {{"indices", rows}};
      builder_->addIndexList(key, rows);
      return key;
    }
    std::string key = fmt::format("m{}", dataKeys_++);
    data_[key] = {{"shape", dims(x)}, {"values", values(elementCount(x))}};
    auto declared = builder_->addDataTensor(key, x);
    assert(declared);
    (void)declared;
    return key;
  }

  void chooseOutputAndSeeds(json& doc) {
    std::size_t count = graph().positionCount();  // without a node the op's rules refused
    std::size_t inputs = inputShapes_.size();
    std::size_t output = count - 1;
    if (pick_.percent(15)) output = pick_.below(inputs);
    else if (pick_.percent(25) && count > inputs) output = inputs + pick_.below(count - inputs);
    doc["output"] = output;
    std::vector<Shape> shapes;
    for (std::size_t p = 0; p < count; ++p) shapes.push_back(shapeAt(p));
    chooseSeeds<T>(pick_, shapes, output, doc, options_.domain);
  }

  Choices pick_;
  Choices offDouble_;  // kOffDoublePoints' draws, apart from pick_'s: the other values stay as drawn
  int size_;
  std::vector<Shape> inputShapes_;
  std::optional<GraphBuilder<T>> builder_;
  json inputsJson_ = json::array(), nodes_ = json::array(), values_ = json::array(), data_ = json::object();
  std::vector<int> degree_;
  std::size_t dataKeys_ = 0;
  bool refused_ = false;  // the last node pushed was refused: the drawing ends there
  const CaseOptions options_;
  const bool kernelSized_;
  const std::vector<OpKind> allowed_ = allowedOps();
  const std::optional<OpKind> fallbackOp_ = firstWith(Signature::any, false);
  const std::optional<OpKind> constantOp_ = firstWith(Signature::none, true);
};

}  // namespace tc::gen::detail
