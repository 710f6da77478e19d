#pragma once
// Opaque ops: arbitrary dense reverse programs without certified support, looked up by name.
#include <deque>
#include <functional>
#include <span>
#include <string>

#include "core/carriers/carrier.h"
#include "core/ops/attributes.h"

namespace tc {

//! What an opaque program receives: every earlier position's value, the node's argument
//! positions, its value and its cotangent.
template <class T>
struct OpaqueProgramCall {
  std::span<const Tensor<T>> prefix;  //!< positions 0..k-1 of the context
  std::span<const std::size_t> args;  //!< the node's argument positions
  const Tensor<T>& out;
  const Tensor<T>& ct;
};

//! A registered opaque op: shape rule, forward and a dense reverse program returning one tensor
//! per earlier position (shaped like that position).
template <class T>
struct OpaqueDef {
  std::string name;
  //! What the program does, in one line, shown under the node in listings ("writes 3 into ...").
  std::string description;
  std::size_t arity = 1;
  Requirement needs = Requirement::ring;
  //! False when the program is not linear in the cotangent (oracles that need linearity skip it).
  bool linearInCotangent = true;
  std::function<Result<Shape>(std::span<const Shape* const> args)> shape;
  std::function<Tensor<T>(std::span<const Tensor<T>* const> args)> forward;
  std::function<Pack<T>(const OpaqueProgramCall<T>&)> program;
};

//! The opaque ops known for carrier T: the built-ins `const3` and `twice`, plus any a user adds.
template <class T>
class OpaqueRegistry {
 public:
  static OpaqueRegistry& instance();
  //! The entry named `name`, or nullptr.
  const OpaqueDef<T>* find(std::string_view name) const;
  //! Adds an entry; fails if the name is taken. Entries live as long as the program.
  Result<const OpaqueDef<T>*> add(OpaqueDef<T> def);

 private:
  OpaqueRegistry();
  std::deque<OpaqueDef<T>> defs_;
};

}  // namespace tc
