#pragma once
#include <limits>

#include "core/ops/kernels.h"
#include "properties/compare.h"

namespace tc::props {

template <class T>
Pack<T> probeCotangents(const Shape& shape, std::size_t salt) {
  const std::size_t n = elementCount(shape);
  Pack<T> probes{Tensor<T>::filled(shape, zero<T>())};
  std::vector<T> varied;
  for (std::size_t i = 0; i < n; ++i) {
    T v = Carrier<T>::fromInt(static_cast<std::int64_t>((salt + 3 * i) % 7) - 3);
    if constexpr (Carrier<T>::caps.field) v = v / Carrier<T>::fromInt(2);
    varied.push_back(v);
  }
  probes.push_back(Tensor<T>(shape, std::move(varied)));
  if constexpr (std::numeric_limits<T>::has_quiet_NaN) {
    const T specials[] = {T(-0.0), std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                          T(16777216)};
    std::vector<T> values;
    for (std::size_t i = 0; i < n; ++i) values.push_back(specials[(salt + i) % 4]);
    probes.push_back(Tensor<T>(shape, std::move(values)));
  }
  Shape wrong = shape;
  if (wrong.size() < kMaxRank) wrong.push_back(2);
  else wrong[0] = static_cast<Shape::Dim>(wrong[0] + 1);
  probes.push_back(Tensor<T>::filled(wrong, one<T>()));
  return probes;
}

// A contribution without a gradient is the zero of the other side's shape: observationally the
// same as a zero tensor given explicitly.
template <class T>
std::string contributionsDifference(const Contributions<T>& left, const Contributions<T>& right) {
  if (left.size() != right.size()) return fmt::format("{} contributions vs {}", left.size(), right.size());
  for (std::size_t i = 0; i < left.size(); ++i) {
    const auto& [position, a] = left[i];
    const auto& b = right[i].second;
    if (position != right[i].first)
      return fmt::format("contribution {} targets position {} vs {}", i, position, right[i].first);
    if (!a && !b) continue;
    std::string d = tensorDifference(a ? *a : kernels::zeros<T>(b->shape), b ? *b : kernels::zeros<T>(a->shape));
    if (!d.empty()) return fmt::format("contribution {} to position {}: {}", i, position, d);
  }
  return {};
}

template <class T>
Mismatch tapeDifference(const Tape<T>& left, const Tape<T>& right) {
  if (left.nodes.size() != right.nodes.size())
    return fmt::format("{} tape nodes vs {}", left.nodes.size(), right.nodes.size());
  for (std::size_t id = 0; id < left.nodes.size(); ++id) {
    const TapeNode<T>& a = left.nodes[id];
    const TapeNode<T>& b = right.nodes[id];
    auto at = [&](const std::string& what) {
      return Mismatch(fmt::format("tape node {} ({}): {}", id, a.name, what), {id});
    };
    if (a.name != b.name) return at(fmt::format("name '{}' vs '{}'", a.name, b.name));
    if (a.requiresGrad != b.requiresGrad) return at("requiresGrad differs");
    if (a.parents != b.parents) return at("parents differ");
    std::string value = packDifference(Pack<T>{a.value}, Pack<T>{b.value});
    if (!value.empty()) return at("value " + value);
    for (const Tensor<T>& probe : probeCotangents<T>(a.value.shape, id)) {
      Mismatch d = resultDifference(a.backward(probe), b.backward(probe),
                                    [](const auto& x, const auto& y) { return contributionsDifference<T>(x, y); });
      if (!d.empty()) return at(fmt::format("backward on a probe of shape {}: {}", formatShape(probe.shape), d.text));
    }
  }
  return {};
}

template <class T>
Mismatch loweringDifference(const TapeAndContext<T>& a, const TapeAndContext<T>& b) {
  Mismatch context = packMismatch(*a.context, *b.context);
  if (context.empty()) return tapeDifference(a.tape, b.tape);
  return {"context " + context.text, context.positions};
}

}  // namespace tc::props
