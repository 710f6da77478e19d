// libtorch's autograd as tc::Engine<T> (libtorch_engine.h). Every mapping below is the Python
// adapter's (adapters/python/torch_engine.py) spelled in C++: the same ATen ops with the same
// arguments, so both adapters run the same kernels on the same tensors and must give the same bits.
// The only translation unit that includes torch.
#include "adapters/libtorch/libtorch_engine.h"

#include <torch/csrc/autograd/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/graph/node_program.h"
#include "core/graph/pack_checks.h"
#include "core/ops/op_kind.h"
#include "properties/engines/profile_json.h"

namespace tc::libtorch {
namespace {

// The Python adapter's PROFILE under the name "libtorch", key for key: the conventions are what
// `tapecheck run --survey` measured on PyTorch 1.13 (see torch_engine.py for why each one).
// tests/adapters/libtorch_engine_test.cpp checks it against what torch_engine.py announces.
constexpr std::string_view kProfileJson = R"({
  "name": "libtorch",
  "carriers": ["double", "float"],
  "ops": ["add", "sub", "mul", "div", "max", "min", "neg", "square", "scale", "inv", "relu", "abs", "clamp",
          "exp", "log", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos",
          "sum", "sum_axis", "mean", "dot", "matmul", "transpose", "linear",
          "reshape", "broadcast", "concat0", "slice0", "const", "detach", "mask", "gather0",
          "mse_loss", "softmax_last", "log_softmax_last"],
  "single_output": "ancestors",
  "zero_sign": "unspecified",
  "kinks": {"relu": "zero", "abs": "sign", "clamp": "pass", "max": "split", "min": "split"},
  "nan": "propagate",
  "kink_conventions_declared": true
})";

template <class T>
constexpr torch::ScalarType kDtype = std::is_same_v<T, double> ? torch::kFloat64 : torch::kFloat32;

// One thread, as the Python adapter: torch's intra-op pool could split reductions by the thread
// count, and many engines run side by side. Set once, before torch runs anything: its native
// thread pool ignores (with a warning) a change once parallel work has started.
void useOneThread() {
  [[maybe_unused]] static const bool once = (torch::set_num_threads(1), true);
}

std::vector<std::int64_t> sizesOf(const Shape& shape) { return {shape.begin(), shape.end()}; }

// A fresh tensor holding `values` in `shape`: its own storage, not a view of another tensor.
template <class T>
torch::Tensor tensorOf(const Shape& shape, const std::vector<T>& values) {
  torch::Tensor out = torch::empty(sizesOf(shape), torch::TensorOptions().dtype(kDtype<T>));
  std::copy(values.begin(), values.end(), out.data_ptr<T>());
  return out;
}

// A leaf that gradients can be asked for: an input, or the output of `const` or `detach`.
template <class T>
torch::Tensor leaf(const Shape& shape, const std::vector<T>& values) {
  return tensorOf<T>(shape, values).requires_grad_();
}

// The values of a torch tensor, row-major, as position `shape`. A count that does not fit the
// shape (an adapter bug) keeps its count as a rank-1 tensor, as the Python client does, so it
// shows as a difference at that position instead of breaking the run.
template <class T>
Tensor<T> valuesOf(const torch::Tensor& tensor, const Shape& shape) {
  torch::Tensor flat = tensor.detach().to(kDtype<T>).contiguous();
  const T* data = flat.data_ptr<T>();
  std::vector<T> values(data, data + flat.numel());
  if (values.size() != elementCount(shape)) return Tensor<T>(Shape{values.size()}, std::move(values));
  return Tensor<T>(shape, std::move(values));
}

// log's domain check, where torch.log would give NaN or -inf: the specification fails there too,
// so both sides agree that the case has no values (docs/semantics.md §1.10).
Result<void> checkLogDomain(std::size_t position, const torch::Tensor& x) {
  if ((x > 0).all().item<bool>()) return {};
  return fail(describeNode(position, opName(OpKind::log)) + ": input contains values <= 0 or NaN");
}

// A node's tensor from its arguments' tensors, as torch_engine.py's OP_TABLE has it op for op; an
// undefined tensor for an op it does not map.
template <class T>
torch::Tensor mapped(const Graph<T>& graph, const Data<T>& data, const Node<T>& node, std::span<const torch::Tensor> a) {
  const Attrs<T>& at = node.attrs;
  switch (node.op) {
    case OpKind::add: return a[0] + a[1];
    case OpKind::sub: return a[0] - a[1];
    case OpKind::mul: return a[0] * a[1];
    case OpKind::div: return a[0] / a[1];  // IEEE on both carriers: 1/0 = inf, no domain check
    case OpKind::max: return torch::maximum(a[0], a[1]);
    case OpKind::min: return torch::minimum(a[0], a[1]);
    case OpKind::neg: return torch::neg(a[0]);
    case OpKind::square: return torch::square(a[0]);
    case OpKind::scale: return a[0] * static_cast<double>(*at.c);  // Python's c * x is x.mul(c)
    case OpKind::inv: return torch::reciprocal(a[0]);
    case OpKind::relu: return torch::relu(a[0]);
    case OpKind::abs: return torch::abs(a[0]);
    case OpKind::clamp: return torch::clamp(a[0], static_cast<double>(*at.lo), static_cast<double>(*at.hi));
    case OpKind::exp: return torch::exp(a[0]);
    case OpKind::log: return torch::log(a[0]);
    case OpKind::sqrt: return torch::sqrt(a[0]);
    case OpKind::tanh: return torch::tanh(a[0]);
    case OpKind::sigmoid: return torch::sigmoid(a[0]);
    // F.softplus's defaults (beta 1, threshold 20): above 20 it returns x with gradient ct, where
    // the specification computes x + log1p(exp(-x)); a real difference the survey shows.
    case OpKind::softplus: return torch::softplus(a[0], 1, 20);
    case OpKind::sin: return torch::sin(a[0]);
    case OpKind::cos: return torch::cos(a[0]);
    case OpKind::sum: return a[0].sum();
    case OpKind::sum_axis: return a[0].sum(std::vector<std::int64_t>{static_cast<std::int64_t>(at.axis)});
    case OpKind::mean: return a[0].mean();
    case OpKind::dot: return torch::dot(a[0], a[1]);
    case OpKind::matmul: return torch::matmul(a[0], a[1]);  // [m,k]x[k,n] or [m,k]x[k]
    case OpKind::transpose: return a[0].t();
    case OpKind::linear: return torch::mv(a[0], a[1]) + a[2];  // the fold, then the bias (§2.2)
    case OpKind::reshape: return a[0].reshape(sizesOf(at.shape));
    case OpKind::broadcast: return a[0].expand(sizesOf(at.shape));  // x's shape is a suffix
    case OpKind::concat0: return torch::cat({a[0], a[1]}, 0);
    case OpKind::slice0: return a[0].narrow(0, static_cast<std::int64_t>(at.start), static_cast<std::int64_t>(at.len));
    case OpKind::mask: {
      const Tensor<T>& m = data.at(at.key);
      return a[0] * tensorOf<T>(m.shape, m.values);  // m is data: no gradient
    }
    case OpKind::gather0: {
      const std::vector<std::size_t>& rows = graph.schema.indices.at(at.key);
      std::vector<std::int64_t> index(rows.begin(), rows.end());
      return a[0].index_select(0, torch::tensor(index, torch::kLong));
    }
    // F.mse_loss with its mean reduction (F's broadcast_tensors is a no-op on equal shapes).
    case OpKind::mse_loss: return torch::mse_loss(a[0], a[1]);
    case OpKind::softmax_last: return torch::softmax(a[0], -1);
    case OpKind::log_softmax_last: return torch::log_softmax(a[0], -1);
    // const and detach are leaves (apply); opaque programs have no torch counterpart.
    case OpKind::constant: case OpKind::detach: case OpKind::opaque: break;
  }
  return {};  // undefined: not mapped
}

// The tensor of the node at `position`, or why the node has none.
template <class T>
Result<torch::Tensor> apply(const Graph<T>& graph, const Data<T>& data, std::size_t position,
                            std::span<const torch::Tensor> tensors) {
  const Node<T>& node = graph.nodeAt(position);
  std::vector<torch::Tensor> args;
  for (std::size_t arg : node.args) args.push_back(tensors[arg]);
  if (node.op == OpKind::constant) return leaf<T>(node.attrs.shape, node.attrs.values);
  if (node.op == OpKind::detach) return args[0].detach().requires_grad_();  // receives cotangent, passes none on
  if (node.op == OpKind::log)
    if (auto ok = checkLogDomain(position, args[0]); !ok) return std::unexpected(ok.error());
  torch::Tensor out = mapped(graph, data, node, std::span<const torch::Tensor>(args));
  if (!out.defined()) return fail(describeNode(graph, position) + ": not supported by the libtorch engine");
  // Every position must be its own autograd node, or a seed given to one would reach the other.
  // No op above returns its argument itself in 1.13 (reshape and expand to the same shape, or a
  // full narrow, give views), but a later version may.
  for (const torch::Tensor& arg : args)
    if (out.is_same(arg)) return out.view_as(out);
  return out;
}

// Runs `body`, turning an exception from torch (an adapter bug: torch refused what it was given)
// into an EngineFault naming it, so the case fails and shrinks as a crashing engine's would.
template <class Body>
auto guarded(Body body) -> decltype(body()) {
  try {
    return body();
  } catch (const c10::Error& error) {
    throw EngineFault(std::string("libtorch: ") + error.what_without_backtrace());
  }
}

// A seed and the position it is given at.
template <class T>
struct Seed {
  std::size_t position;
  const Tensor<T>* cotangent;
};

//! One forward execution: a torch tensor per position (holding torch's graph, whose saved values
//! every pass reuses: retain_graph) and their values.
template <class T>
class Execution final : public tc::Execution<T> {
 public:
  //! `graph` outlives the execution; `tensors` holds one distinct tensor per position.
  Execution(const Graph<T>& graph, std::vector<torch::Tensor> tensors) : graph_(graph), tensors_(std::move(tensors)) {
    for (std::size_t p = 0; p < tensors_.size(); ++p) context_.push_back(valuesOf<T>(tensors_[p], graph_.shapeAt(p)));
  }

  const Context<T>& context() const override { return context_; }

  //! Every position seeded, zeros included: torch then runs each node's backward, also on a zero
  //! cotangent where one reaches it, as the Python adapter's dense pass does.
  Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override {
    if (auto ok = checkSeedPack(graph_, seeds); !ok) return std::unexpected(ok.error());
    std::vector<Seed<T>> seeded;
    for (std::size_t p = 0; p < seeds.size(); ++p) seeded.push_back({p, &seeds[p]});
    return guarded([&] { return backward(seeded); });
  }

  //! Only `output` seeded, so torch visits only its ancestors (the profile's single_output); the
  //! engine does not count the programs it runs.
  Result<SingleOutputResult<T>> backwardSingle(std::size_t output, const Tensor<T>& seed) const override {
    if (auto ok = checkOutputSeed(graph_, output, seed); !ok) return std::unexpected(ok.error());
    std::vector<Seed<T>> seeded{{output, &seed}};
    return SingleOutputResult<T>{guarded([&] { return backward(seeded); }), std::nullopt};
  }

 private:
  // One torch::autograd::grad call from the seeded positions to every position, as the Python
  // adapter's backward: autograd includes each position's own seed in its gradient once, as the
  // dense semantics does; a position nothing reached (allow_unused) gets +0s; a seeded position
  // that cannot take gradients (none here: every position requires them) keeps its seed.
  Pack<T> backward(std::span<const Seed<T>> seeds) const {
    Pack<T> result;
    for (std::size_t p = 0; p < tensors_.size(); ++p) result.push_back(Tensor<T>::filled(graph_.shapeAt(p), T(0)));
    torch::autograd::variable_list outputs, gradOutputs, inputs;
    for (const Seed<T>& seed : seeds) {
      const torch::Tensor& t = tensors_[seed.position];
      if (!t.requires_grad()) {
        result[seed.position] = *seed.cotangent;
        continue;
      }
      outputs.push_back(t);
      gradOutputs.push_back(tensorOf<T>(seed.cotangent->shape, seed.cotangent->values));
    }
    std::vector<std::size_t> wanted;
    for (std::size_t p = 0; p < tensors_.size(); ++p)
      if (tensors_[p].requires_grad()) wanted.push_back(p);
    if (outputs.empty() || wanted.empty()) return result;
    for (std::size_t p : wanted) inputs.push_back(tensors_[p]);
    auto grads = torch::autograd::grad(outputs, inputs, gradOutputs, /*retain_graph=*/true, /*create_graph=*/false,
                                       /*allow_unused=*/true);
    for (std::size_t k = 0; k < wanted.size(); ++k)
      if (grads[k].defined()) result[wanted[k]] = valuesOf<T>(grads[k], graph_.shapeAt(wanted[k]));
    return result;
  }

  const Graph<T>& graph_;
  std::vector<torch::Tensor> tensors_;
  Context<T> context_;
};

// Every position's tensor in position order: the inputs as leaves, then each node.
template <class T>
Result<std::vector<torch::Tensor>> build(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  std::vector<torch::Tensor> tensors;
  tensors.reserve(graph.positionCount());
  for (const Tensor<T>& input : inputs) tensors.push_back(leaf<T>(input.shape, input.values));
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    auto tensor = apply(graph, data, p, tensors);
    if (!tensor) return std::unexpected(tensor.error());
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}

}  // namespace

template <class T>
Engine<T>::Engine() {
  useOneThread();
}

template <class T>
Result<std::unique_ptr<const tc::Execution<T>>> Engine<T>::compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                                   const Data<T>& data) const {
  if (auto ok = checkInputs(graph, inputs); !ok) return std::unexpected(ok.error());
  if (auto ok = checkData(graph, data); !ok) return std::unexpected(ok.error());
  return guarded([&]() -> Result<std::unique_ptr<const tc::Execution<T>>> {
    auto tensors = build(graph, inputs, data);
    if (!tensors) return std::unexpected(tensors.error());
    return std::make_unique<const Execution<T>>(graph, std::move(*tensors));
  });
}

template class Engine<double>;
template class Engine<float>;

const EngineProfile& profile() {
  static const EngineProfile parsed = builtInProfile("libtorch", kProfileJson);
  return parsed;
}

}  // namespace tc::libtorch
