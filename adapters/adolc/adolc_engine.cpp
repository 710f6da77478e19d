// ADOL-C's tape and reverse mode as tc::Engine<double> (adolc_engine.h). The only translation unit that
// includes ADOL-C.
#include "adapters/adolc/adolc_engine.h"

#include <adolc/adolc.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <limits>
#include <list>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/node_program.h"
#include "core/graph/pack_checks.h"
#include "core/ops/op_kind.h"
#include "properties/engines/profile_json.h"

namespace tc::adolc {
namespace {

// What `adolc_check run --survey` measured on ADOL-C 2.7.2 (Debian libadolc-dev 2.7.2-6), surveyed
// under the specification's profile (300 cases, seed 1); each convention from the ADOL-C operation that
// records the op:
// - relu: condassign(r, x, x, 0), which takes 0 unless x > 0, so 0 at x = 0 and at NaN (`zero`).
// - abs: fabs, whose reverse gives 0 at x = 0 (±0) and at NaN, whatever the adjoint (`zero`).
// - clamp: condassigns: x passes at a bound (`pass`); a NaN gets no gradient (`spec`), see recordOp.
// - max, min: fmax and fmin, whose reverse gives each argument half the adjoint at a tie (`split`)
//   and at an unordered pair, as the specification's NaN handling does (`spec`). ADOL-C's fmin(a, b)
//   is b < a ? b : a, so fmin(1, NaN) = 1 with the adjoint split; the engine puts a NaN argument
//   first (fmin(NaN, 1) = NaN), see maxOrMin.
// - single_output: a single-output pass is the dense sweep with the other weights 0, bit for bit
//   (`support`; backwardDenseAllFrom_eq_dense passes on every value).
// - zero_sign: ADOL-C's adjoints start at +0 and an operation whose result adjoint is 0 is skipped, so
//   a −0 seed stays −0 where the specification's dense order adds +0 (`unspecified`; the survey's
//   "seed: signed zero" kind).
// Left out: tanh. ADOL-C's tanh is not within 10 ulp of the exact value near 0: tanh(1e-5) is 706 ulp
// off, tanh(1e-10) 6.4e8 ulp, and below about 1e-16 it is 0 (the survey's "tanh: other"; the accuracy
// row fails on it at seeds 2 and 3). A profile's declared deviation is a constant or x over a region,
// which cannot say "a growing relative error near 0", so the op is not declared; the engine still
// records it (a profile given with --profile can ask for it).
constexpr std::string_view kProfileJson = R"({
  "name": "adolc",
  "carriers": ["double"],
  "ops": ["add", "sub", "mul", "div", "max", "min", "neg", "square", "scale", "inv", "relu", "abs", "clamp",
          "exp", "log", "sqrt", "sigmoid", "softplus", "sin", "cos",
          "sum", "sum_axis", "mean", "dot", "matmul", "transpose", "linear",
          "reshape", "broadcast", "concat0", "slice0", "const", "detach", "mask", "gather0",
          "mse_loss", "softmax_last", "log_softmax_last"],
  "single_output": "support",
  "zero_sign": "unspecified",
  "kinks": {"relu": "zero", "abs": "zero", "clamp": "pass", "max": "split", "min": "split"},
  "nan": "spec",
  "kink_conventions_declared": true
})";

// ADOL-C keeps its tapes, Taylor buffers and location store in process-wide state: every call into
// it holds this lock.
std::mutex& adolcLock() {
  static std::mutex lock;
  return lock;
}

using Values = std::vector<adouble>;

// A recording under way: the case, and each position recorded so far as adoubles (row-major).
struct Recording {
  const Graph<double>& graph;
  const Data<double>& data;
  PlantedBug bug;
  std::vector<Values> positions;  // one per position, in order
};

// A constant on the tape (its adjoint goes nowhere).
adouble constant(double value) {
  adouble c;
  c = value;
  return c;
}

// ADOL-C's fmax(a, b) is b > a ? b : a and fmin(a, b) is b < a ? b : a: at a tie they return a, as
// the specification does, but with a NaN second they return the first (fmax(1, NaN) = 1) while the
// reverse sweep still splits the adjoint as at a tie. With the NaN first both give NaN, the value the
// specification gives an unordered pair, with the same split. The tape is recorded for these values,
// so choosing the order by value is exact.
adouble maxOrMin(bool isMax, const adouble& a, const adouble& b) {
  const bool swap = std::isnan(b.getValue()) && !std::isnan(a.getValue());
  const adouble& first = swap ? b : a;
  const adouble& second = swap ? a : b;
  adouble r;
  r = isMax ? fmax(first, second) : fmin(first, second);
  return r;
}

// log1p(e) for e >= 0 from ADOL-C's log, which has no log1p: Goldberg's w = 1 + e, then
// log(w)·e/(w − 1) (w − 1 is exact, and the quotient corrects log's argument for the rounding of
// 1 + e), or e itself where 1 + e rounds to 1. Within a few ulp, where log(1 + e) loses every digit
// of a small e.
adouble log1pOf(const adouble& e) {
  adouble w = 1.0 + e;
  if (w.getValue() == 1.0) return e;
  adouble r = log(w) * e / (w - 1.0);
  return r;
}

// The specification's forms (docs/semantics.md §2.1), each branch chosen by the recorded value: the
// tape holds this case only, and each branch is differentiable on its side.
adouble sigmoidOf(const adouble& x) {
  if (x.getValue() < 0) {
    adouble e = exp(x);
    adouble r = e / (1.0 + e);
    return r;
  }
  adouble r = 1.0 / (1.0 + exp(-x));
  return r;
}

adouble softplusOf(const adouble& x) {
  if (x.getValue() > 0) {
    adouble r = x + log1pOf(exp(-x));
    return r;
  }
  return log1pOf(exp(x));
}

// The planted bug: sigmoid as y0 + s·(x − x0), with y0 its value and s = x0·(1 − x0), its derivative
// y·(1 − y) taken from the input. x − x0 is 0 for a finite x, so the values are sigmoid's.
adouble sigmoidPlanted(const adouble& x) {
  const double x0 = x.getValue();
  adouble r = sigmoidOf(x).getValue() + (x0 * (1.0 - x0)) * (x - x0);
  return r;
}

// The row count and the elements per row of a shape with at least one axis.
std::pair<std::size_t, std::size_t> rowsOf(const Shape& shape) {
  const std::size_t rows = shape[0];
  return {rows, rows == 0 ? 0 : elementCount(shape) / rows};
}

// Sum of `n` terms term(i) as a left fold from +0, as the specification adds (§2.2).
template <class Term>
adouble foldFromZero(std::size_t n, Term term) {
  adouble sum = constant(0.0);
  for (std::size_t i = 0; i < n; ++i) sum += term(i);
  return sum;
}

// One op's output elements from its arguments' (before the δ of the file comment is added), or an
// empty result for an op the engine does not record.
std::optional<Values> recordOp(const Recording& rec, std::size_t position) {
  const Node<double>& node = rec.graph.nodeAt(position);
  const Attrs<double>& at = node.attrs;
  std::vector<const Values*> a;
  for (std::size_t arg : node.args) a.push_back(&rec.positions[arg]);
  const std::size_t n = elementCount(node.shape);
  Values out;
  out.reserve(n);
  auto elementwise = [&](auto f) -> std::optional<Values> {
    for (std::size_t i = 0; i < n; ++i) out.push_back(f(i));
    return std::move(out);
  };
  auto x = [&](std::size_t i) -> const adouble& { return (*a[0])[i]; };
  auto y = [&](std::size_t i) -> const adouble& { return (*a[1])[i]; };
  switch (node.op) {
    case OpKind::add: return elementwise([&](std::size_t i) -> adouble { return x(i) + y(i); });
    case OpKind::sub: return elementwise([&](std::size_t i) -> adouble { return x(i) - y(i); });
    case OpKind::mul: return elementwise([&](std::size_t i) -> adouble { return x(i) * y(i); });
    case OpKind::div: return elementwise([&](std::size_t i) -> adouble { return x(i) / y(i); });
    case OpKind::max: return elementwise([&](std::size_t i) { return maxOrMin(true, x(i), y(i)); });
    case OpKind::min: return elementwise([&](std::size_t i) { return maxOrMin(false, x(i), y(i)); });
    case OpKind::neg: return elementwise([&](std::size_t i) -> adouble { return -x(i); });
    case OpKind::square: return elementwise([&](std::size_t i) -> adouble { return x(i) * x(i); });
    case OpKind::scale: return elementwise([&](std::size_t i) -> adouble { return *at.c * x(i); });
    case OpKind::inv: return elementwise([&](std::size_t i) -> adouble { return 1.0 / x(i); });
    case OpKind::relu:
      return elementwise([&](std::size_t i) {
        adouble r;
        condassign(r, x(i), x(i), constant(0.0));  // r = x > 0 ? x : +0
        return r;
      });
    case OpKind::abs: return elementwise([&](std::size_t i) -> adouble { return fabs(x(i)); });
    case OpKind::clamp:
      return elementwise([&](std::size_t i) {
        // Three conditional assignments, no branch on the value: x − hi > 0 exactly where x > hi (a
        // difference of distinct doubles is never 0) and hi − x >= 0 exactly where x <= hi, likewise
        // for lo. A NaN fails every test, so it ends at the NaN constant: its value, and no gradient.
        adouble above;
        condassign(above, x(i) - *at.hi, constant(*at.hi), constant(std::numeric_limits<double>::quiet_NaN()));
        adouble upTo;
        condeqassign(upTo, *at.hi - x(i), x(i), above);  // x <= hi ? x : (x > hi ? hi : NaN)
        adouble r;
        condassign(r, *at.lo - x(i), constant(*at.lo), upTo);  // x < lo ? lo : that
        return r;
      });
    case OpKind::exp: return elementwise([&](std::size_t i) -> adouble { return exp(x(i)); });
    case OpKind::log: return elementwise([&](std::size_t i) -> adouble { return log(x(i)); });
    case OpKind::sqrt: return elementwise([&](std::size_t i) -> adouble { return sqrt(x(i)); });
    case OpKind::tanh: return elementwise([&](std::size_t i) -> adouble { return tanh(x(i)); });
    case OpKind::sigmoid:
      if (rec.bug == PlantedBug::sigmoidSlopeFromInput)
        return elementwise([&](std::size_t i) { return sigmoidPlanted(x(i)); });
      return elementwise([&](std::size_t i) { return sigmoidOf(x(i)); });
    case OpKind::softplus: return elementwise([&](std::size_t i) { return softplusOf(x(i)); });
    case OpKind::sin: return elementwise([&](std::size_t i) -> adouble { return sin(x(i)); });
    case OpKind::cos: return elementwise([&](std::size_t i) -> adouble { return cos(x(i)); });
    case OpKind::sum: out.push_back(foldFromZero(a[0]->size(), x)); return out;
    case OpKind::mean: {
      adouble r = foldFromZero(a[0]->size(), x) / static_cast<double>(a[0]->size());
      out.push_back(r);
      return out;
    }
    case OpKind::sum_axis: {
      const Shape& shape = rec.graph.shapeAt(node.args[0]);
      std::size_t outer = 1, inner = 1;
      for (std::size_t d = 0; d < at.axis; ++d) outer *= shape[d];
      for (std::size_t d = at.axis + 1; d < shape.size(); ++d) inner *= shape[d];
      const std::size_t along = shape[at.axis];
      for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t i = 0; i < inner; ++i)
          out.push_back(foldFromZero(along, [&](std::size_t j) -> const adouble& { return x((o * along + j) * inner + i); }));
      return out;
    }
    case OpKind::dot:
      out.push_back(foldFromZero(a[0]->size(), [&](std::size_t i) -> adouble { return x(i) * y(i); }));
      return out;
    case OpKind::matmul: {
      const Shape& left = rec.graph.shapeAt(node.args[0]);
      const Shape& right = rec.graph.shapeAt(node.args[1]);
      const std::size_t m = left[0], k = left[1], cols = right.size() == 2 ? right[1] : 1;
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < cols; ++j)
          out.push_back(foldFromZero(k, [&](std::size_t l) -> adouble { return x(i * k + l) * y(l * cols + j); }));
      return out;
    }
    case OpKind::transpose: {
      const Shape& shape = rec.graph.shapeAt(node.args[0]);
      for (std::size_t j = 0; j < shape[1]; ++j)
        for (std::size_t i = 0; i < shape[0]; ++i) out.push_back(x(i * shape[1] + j));
      return out;
    }
    case OpKind::linear: {
      const Shape& weights = rec.graph.shapeAt(node.args[0]);
      const std::size_t m = weights[0], k = weights[1];
      for (std::size_t i = 0; i < m; ++i) {
        adouble r = foldFromZero(k, [&](std::size_t l) -> adouble { return x(i * k + l) * y(l); }) + (*a[2])[i];
        out.push_back(r);
      }
      return out;
    }
    case OpKind::reshape: return elementwise([&](std::size_t i) -> adouble { return x(i); });
    case OpKind::broadcast: return elementwise([&](std::size_t i) -> adouble { return x(i % a[0]->size()); });
    case OpKind::concat0:
      for (const adouble& v : *a[0]) out.push_back(v);
      for (const adouble& v : *a[1]) out.push_back(v);
      return out;
    case OpKind::slice0: {
      const auto [rows, rowSize] = rowsOf(rec.graph.shapeAt(node.args[0]));
      for (std::size_t i = at.start * rowSize; i < (at.start + at.len) * rowSize; ++i) out.push_back(x(i));
      return out;
    }
    case OpKind::constant: return elementwise([&](std::size_t i) { return constant(at.values[i]); });
    case OpKind::detach: return elementwise([&](std::size_t i) { return constant(x(i).getValue()); });
    case OpKind::mask: {
      const Tensor<double>& m = rec.data.at(at.key);
      return elementwise([&](std::size_t i) -> adouble { return x(i) * m[i]; });
    }
    case OpKind::gather0: {
      const auto [rows, rowSize] = rowsOf(rec.graph.shapeAt(node.args[0]));
      for (std::size_t row : rec.graph.schema.indices.at(at.key))
        for (std::size_t i = 0; i < rowSize; ++i) out.push_back(x(row * rowSize + i));
      return out;
    }
    case OpKind::mse_loss: {
      adouble r = foldFromZero(a[0]->size(),
                               [&](std::size_t i) -> adouble {
                                 adouble d = x(i) - y(i);
                                 return d * d;
                               }) /
                  static_cast<double>(a[0]->size());
      out.push_back(r);
      return out;
    }
    case OpKind::softmax_last:
    case OpKind::log_softmax_last: {
      // Per row of the last axis, shifted by the row's maximum (the first element, replaced where
      // x > max, §2.2) taken as a constant: the result does not depend on the shift, so its
      // derivative is the same without differentiating the maximum.
      const std::size_t width = node.shape.back();
      for (std::size_t row = 0; row < n / width; ++row) {
        double max = x(row * width).getValue();
        for (std::size_t j = 1; j < width; ++j)
          if (x(row * width + j).getValue() > max) max = x(row * width + j).getValue();
        Values shifted;
        for (std::size_t j = 0; j < width; ++j) shifted.push_back(x(row * width + j) - max);
        Values exps;
        for (const adouble& s : shifted) exps.push_back(exp(s));
        adouble total = foldFromZero(width, [&](std::size_t j) -> const adouble& { return exps[j]; });
        if (node.op == OpKind::softmax_last) {
          for (const adouble& e : exps) out.push_back(e / total);
        } else {
          adouble logTotal = log(total);
          for (const adouble& s : shifted) out.push_back(s - logTotal);
        }
      }
      return out;
    }
    case OpKind::opaque: break;  // a registered C++ program: nothing ADOL-C can record
  }
  return std::nullopt;
}

// log's domain check, where ADOL-C's log gives NaN or −inf: the specification fails there, so both
// sides agree that the case has no values (docs/semantics.md §1.10).
Result<void> checkLogDomain(std::size_t position, const Values& x) {
  for (const adouble& v : x)
    if (!(v.getValue() > 0)) return fail(describeNode(position, opName(OpKind::log)) + ": input contains values <= 0 or NaN");
  return {};
}

// A generous bound on the operations (and so the locations, values and Taylor entries) a graph's
// recording puts on the tape. ADOL-C writes a tape that outgrows its buffers to files in the working
// directory (ADOLC-*.tap); buffers this large keep every tape in memory.
std::size_t tapeSizeBound(const Graph<double>& graph) {
  std::size_t bound = 1024;
  for (const Shape& shape : graph.inputs) bound += 4 * elementCount(shape);
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    const Node<double>& node = graph.nodeAt(p);
    std::size_t elements = elementCount(node.shape);
    for (std::size_t arg : node.args) elements += elementCount(graph.shapeAt(arg));
    std::size_t work = 32 * elements;  // softplus, the widest elementwise recording, is about 12
    if (node.op == OpKind::matmul) {
      const Shape& left = graph.shapeAt(node.args[0]);
      work += 4 * elementCount(node.shape) * left[1];
    }
    if (node.op == OpKind::linear) work += 4 * elementCount(graph.shapeAt(node.args[0]));
    bound += work;
  }
  return bound;
}

//! A tape in ADOL-C and the execution it belongs to. ADOL-C holds at most 32 Taylor buffers (its
//! TBUFNUM) and frees one only with its tape, so at most kLiveTapes executions keep a tape; the least
//! recently used one gives its tape up and records it again when next asked for a pass.
struct LiveTape {
  std::optional<short> tag;
};

class Tapes {
 public:
  static constexpr std::size_t kLiveTapes = 16;

  //! A tag for `owner`, which becomes the most recently used; the least recently used tape is
  //! removed first when kLiveTapes are alive. Called with adolcLock() held.
  short acquire(LiveTape& owner) {
    if (live_.size() >= kLiveTapes) release(*live_.front());
    short tag;
    if (!free_.empty()) {
      tag = free_.back();
      free_.pop_back();
    } else {
      tag = next_++;
    }
    owner.tag = tag;
    live_.push_back(&owner);
    return tag;
  }

  //! Marks `owner`'s tape most recently used. Called with adolcLock() held.
  void touch(LiveTape& owner) {
    live_.remove(&owner);
    live_.push_back(&owner);
  }

  //! Removes `owner`'s tape from ADOL-C, if it has one. Called with adolcLock() held.
  void release(LiveTape& owner) {
    if (!owner.tag) return;
    removeTape(*owner.tag, ADOLC_REMOVE_COMPLETELY);
    free_.push_back(*owner.tag);
    owner.tag.reset();
    live_.remove(&owner);
  }

 private:
  std::list<LiveTape*> live_;
  std::vector<short> free_;
  short next_ = 1;
};

Tapes& tapes() {
  static Tapes instance;
  return instance;
}

// Runs `body`, turning an exception from ADOL-C (an adapter bug, or ADOL-C refusing what it was given)
// into an EngineFault naming it, so the case fails and shrinks as a crashing engine's would.
template <class Body>
auto guarded(Body body) -> decltype(body()) {
  try {
    return body();
  } catch (const EngineFault&) {
    throw;
  } catch (const std::exception& error) {
    throw EngineFault(std::string("ADOL-C: ") + error.what());
  }
}

//! What one recording gives: every position's value, and the independents' values it was recorded at
//! (the inputs flattened, then one −0 per node element).
struct Recorded {
  Context<double> context;
  std::vector<double> independents;
};

//! The buffer sizes of a tape (trace_on's last four arguments): operations, locations, values and
//! Taylor entries.
struct BufferSizes {
  std::size_t operations, locations, values, taylors;
};

// Records every node of the case, each element plus its δ, then every position as dependents; the
// first domain error or unsupported op, if any.
Result<void> recordNodesAndDependents(Recording& rec, Recorded& recorded) {
  const Graph<double>& graph = rec.graph;
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    const Node<double>& node = graph.nodeAt(p);
    if (node.op == OpKind::log)
      if (auto ok = checkLogDomain(p, rec.positions[node.args[0]]); !ok) return ok;
    std::optional<Values> out = recordOp(rec, p);
    if (!out) return fail(describeNode(graph, p) + ": not supported by the ADOL-C engine");
    for (adouble& v : *out) {
      adouble delta;
      delta <<= -0.0;
      recorded.independents.push_back(-0.0);
      v += delta;
    }
    rec.positions.push_back(std::move(*out));
  }
  for (std::size_t p = 0; p < graph.positionCount(); ++p) {
    std::vector<double> values(rec.positions[p].size());
    for (std::size_t i = 0; i < values.size(); ++i) rec.positions[p][i] >>= values[i];
    recorded.context.push_back(Tensor<double>(graph.shapeAt(p), std::move(values)));
  }
  return {};
}

// Records the graph on tape `tag` with these buffers: the inputs as independents, each node's elements
// plus an independent δ = −0, and every position's elements as dependents in position order. The first
// domain error or unsupported op is returned, the tape then left for the caller to remove.
Result<Recorded> recordOnce(short tag, const Graph<double>& graph, const Pack<double>& inputs, const Data<double>& data,
                            PlantedBug bug, const BufferSizes& sizes) {
  trace_on(tag, 0, sizes.operations, sizes.locations, sizes.values, sizes.taylors);
  Recording rec{graph, data, bug, {}};
  rec.positions.reserve(graph.positionCount());
  Recorded recorded;
  Result<void> ok;
  try {
    for (const Tensor<double>& input : inputs) {
      Values values(input.size());
      for (std::size_t i = 0; i < input.size(); ++i) {
        values[i] <<= input[i];
        recorded.independents.push_back(input[i]);
      }
      rec.positions.push_back(std::move(values));
    }
    ok = recordNodesAndDependents(rec, recorded);
  } catch (...) {
    rec.positions.clear();
    trace_off();  // ADOL-C must not stay recording: the next case starts a tape of its own
    throw;
  }
  rec.positions.clear();  // the adoubles give their locations back before the tape closes
  trace_off();
  if (!ok) return std::unexpected(ok.error());
  return recorded;
}

// Records the graph on tape `tag` (recordOnce) entirely in memory. ADOL-C writes the part of a tape that
// outgrows its buffers to files in the working directory (ADOLC-*.tap), and a forward sweep with Taylor
// values kept writes those beyond the Taylor buffer too; how many Taylor entries a tape needs (its
// TAY_STACK_SIZE) depends on ADOL-C's location store as well as on the graph, so it is known only once
// recorded. A tape that outgrew any buffer is removed (with its files) and recorded again with buffers
// of the sizes ADOL-C counted.
Result<Recorded> record(short tag, const Graph<double>& graph, const Pack<double>& inputs, const Data<double>& data,
                        PlantedBug bug) {
  const std::size_t bound = tapeSizeBound(graph);
  BufferSizes sizes{bound, 4 * bound, bound, 4 * bound};
  for (int attempt = 0;; ++attempt) {
    auto recorded = recordOnce(tag, graph, inputs, data, bug, sizes);
    if (!recorded) return recorded;
    size_t stats[STAT_SIZE] = {};
    tapestats(tag, stats);
    const bool inMemory = !stats[OP_FILE_ACCESS] && !stats[LOC_FILE_ACCESS] && !stats[VAL_FILE_ACCESS] &&
                          stats[TAY_STACK_SIZE] <= stats[TAY_BUFFER_SIZE];
    if (inMemory) return recorded;
    removeTape(tag, ADOLC_REMOVE_COMPLETELY);
    if (attempt == 1)
      throw EngineFault("ADOL-C: the tape of this graph outgrew its buffers twice (" + std::to_string(stats[NUM_OPERATIONS]) +
                        " operations, " + std::to_string(stats[TAY_STACK_SIZE]) + " Taylor entries)");
    sizes = {std::max(sizes.operations, 2 * stats[NUM_OPERATIONS]), std::max(sizes.locations, 2 * stats[NUM_LOCATIONS]),
             std::max(sizes.values, 2 * stats[NUM_VALUES]), std::max(sizes.taylors, 2 * stats[TAY_STACK_SIZE])};
  }
}


//! One recorded case: its tape (while it is alive, see Tapes), its values, and reverse sweeps on it.
class Execution final : public tc::Execution<double> {
  struct Private {};

 public:
  //! The recorded case, or its first error (a domain error or an unsupported op; the tape is then
  //! removed with the execution). `graph` and `data` outlive the execution.
  static Result<std::unique_ptr<const tc::Execution<double>>> create(const Graph<double>& graph, const Data<double>& data,
                                                                     PlantedBug bug, const Pack<double>& inputs) {
    auto execution = std::make_unique<Execution>(Private{}, graph, data, bug, inputs);
    Result<Recorded> recorded;
    {
      std::scoped_lock lock(adolcLock());
      recorded = execution->recordTape();
    }
    if (!recorded) return std::unexpected(recorded.error());
    execution->recorded_ = std::move(*recorded);
    for (const Tensor<double>& value : execution->recorded_.context) {
      execution->offsets_.push_back(execution->dependents_);
      execution->dependents_ += value.size();
    }
    return execution;
  }

  Execution(Private, const Graph<double>& graph, const Data<double>& data, PlantedBug bug, const Pack<double>& inputs)
      : graph_(graph), data_(data), bug_(bug), inputs_(inputs) {}

  ~Execution() override {
    std::scoped_lock lock(adolcLock());
    tapes().release(tape_);
  }

  const Context<double>& context() const override { return recorded_.context; }

  //! Every position's seed in the weight vector: one fos_reverse.
  Result<Pack<double>> backwardDense(const Pack<double>& seeds) const override {
    if (auto ok = checkSeedPack(graph_, seeds); !ok) return std::unexpected(ok.error());
    std::vector<double> weights;
    weights.reserve(dependents_);
    for (const Tensor<double>& seed : seeds) weights.insert(weights.end(), seed.values.begin(), seed.values.end());
    return guarded([&] { return reverse(weights); });
  }

  //! The same sweep with the weight vector zero but at `output`, so the dense pass on that one seed bit
  //! for bit (the profile's single_output `support`); it does not count the operations it runs.
  Result<SingleOutputResult<double>> backwardSingle(std::size_t output, const Tensor<double>& seed) const override {
    if (auto ok = checkOutputSeed(graph_, output, seed); !ok) return std::unexpected(ok.error());
    std::vector<double> weights(dependents_, 0.0);
    std::copy(seed.values.begin(), seed.values.end(), weights.begin() + static_cast<std::ptrdiff_t>(offsets_[output]));
    return SingleOutputResult<double>{guarded([&] { return reverse(weights); }), std::nullopt};
  }

 private:
  // Records the case on a tape of its own. Called with adolcLock() held.
  Result<Recorded> recordTape() const { return record(tapes().acquire(tape_), graph_, inputs_, data_, bug_); }

  // uᵀ·F'(x) by fos_reverse on this execution's tape (recorded again first if it was given up), split
  // into one gradient per position: the inputs' independents, then each node element's δ.
  Pack<double> reverse(std::vector<double>& weights) const {
    std::scoped_lock lock(adolcLock());
    if (!tape_.tag) {
      auto again = recordTape();
      if (!again) throw EngineFault("ADOL-C: recording the case again failed: " + again.error().message);
    } else {
      tapes().touch(tape_);
    }
    // A forward sweep keeping its Taylor values, which the reverse sweep reads (the recording keeps
    // none, so a tape holds no Taylor buffer until its first pass).
    std::vector<double> values(dependents_);
    const int forward = zos_forward(*tape_.tag, static_cast<int>(dependents_), static_cast<int>(recorded_.independents.size()),
                                    1, recorded_.independents.data(), values.data());
    if (forward < 0) throw EngineFault("ADOL-C: zos_forward failed with status " + std::to_string(forward));
    std::vector<double> adjoints(recorded_.independents.size(), 0.0);
    const int status = fos_reverse(*tape_.tag, static_cast<int>(dependents_), static_cast<int>(adjoints.size()),
                                   weights.data(), adjoints.data());
    if (status < 0) throw EngineFault("ADOL-C: fos_reverse failed with status " + std::to_string(status));
    Pack<double> gradients;
    auto next = adjoints.begin();
    for (std::size_t p = 0; p < graph_.positionCount(); ++p) {
      const auto count = static_cast<std::ptrdiff_t>(elementCount(graph_.shapeAt(p)));
      gradients.push_back(Tensor<double>(graph_.shapeAt(p), std::vector<double>(next, next + count)));
      next += count;
    }
    return gradients;
  }

  const Graph<double>& graph_;
  const Data<double>& data_;
  PlantedBug bug_;
  Pack<double> inputs_;
  Recorded recorded_;
  mutable LiveTape tape_;
  std::vector<std::size_t> offsets_;  // each position's first dependent
  std::size_t dependents_ = 0;
};

}  // namespace

Result<std::unique_ptr<const tc::Execution<double>>> Engine::compile(const Graph<double>& graph,
                                                                     const Pack<double>& inputs,
                                                                     const Data<double>& data) const {
  if (auto ok = checkInputs(graph, inputs); !ok) return std::unexpected(ok.error());
  if (auto ok = checkData(graph, data); !ok) return std::unexpected(ok.error());
  return guarded([&] { return Execution::create(graph, data, bug_, inputs); });
}

const EngineProfile& profile() {
  static const EngineProfile parsed = builtInProfile("ADOL-C", kProfileJson);
  return parsed;
}

}  // namespace tc::adolc
