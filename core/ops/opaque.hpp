#pragma once
#include <fmt/format.h>

#include "core/ops/opaque.h"
#include "core/ops/kernels.h"

namespace tc {

template <class T>
OpaqueRegistry<T>& OpaqueRegistry<T>::instance() {
  static OpaqueRegistry registry;
  return registry;
}

template <class T>
const OpaqueDef<T>* OpaqueRegistry<T>::find(std::string_view name) const {
  for (const auto& def : defs_)
    if (def.name == name) return &def;
  return nullptr;
}

template <class T>
Result<const OpaqueDef<T>*> OpaqueRegistry<T>::add(OpaqueDef<T> def) {
  if (find(def.name)) return fail(fmt::format("opaque op '{}' is already registered", def.name));
  defs_.push_back(std::move(def));
  return &defs_.back();
}

namespace builtin_opaque {

template <class T>
Result<Shape> sameAsArgument(std::span<const Shape* const> args) {
  return *args[0];
}

// `const3`: forward copies x; its program returns 3 at every earlier position, whatever ct is.
template <class T>
OpaqueDef<T> const3() {
  OpaqueDef<T> def;
  def.name = "const3";
  def.description = "forward copies x; its program writes 3 into every earlier position whatever the cotangent "
                    "(not linear in it, no certified support)";
  def.linearInCotangent = false;
  def.shape = sameAsArgument<T>;
  def.forward = [](std::span<const Tensor<T>* const> args) { return *args[0]; };
  def.program = [](const OpaqueProgramCall<T>& call) {
    Pack<T> result;
    for (const Tensor<T>& p : call.prefix) result.push_back(Tensor<T>::filled(p.shape, Carrier<T>::fromInt(3)));
    return result;
  };
  return def;
}

// `twice`: forward 2x; a correct dense program (2·ct at x, zero elsewhere) with no certificate.
template <class T>
OpaqueDef<T> twice() {
  OpaqueDef<T> def;
  def.name = "twice";
  def.description = "forward 2·x; its program writes 2·ct into x and 0 into every other earlier position "
                    "(correct, but without certified support)";
  def.shape = sameAsArgument<T>;
  def.forward = [](std::span<const Tensor<T>* const> args) {
    const T two = Carrier<T>::fromInt(2);
    return kernels::map(*args[0], [&](const T& x) { return two * x; });
  };
  def.program = [](const OpaqueProgramCall<T>& call) {
    const T two = Carrier<T>::fromInt(2);
    Pack<T> result;
    for (const Tensor<T>& p : call.prefix) result.push_back(kernels::zeros<T>(p.shape));
    result[call.args[0]] = kernels::map(call.ct, [&](const T& g) { return two * g; });
    return result;
  };
  return def;
}

}  // namespace builtin_opaque

template <class T>
OpaqueRegistry<T>::OpaqueRegistry() {
  defs_.push_back(builtin_opaque::const3<T>());
  defs_.push_back(builtin_opaque::twice<T>());
}

}  // namespace tc
