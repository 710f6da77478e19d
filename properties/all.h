#pragma once
// Every property, by name: the seven theorems of the seed, then the oracles.
#include <string_view>
#include <vector>

#include "properties/adjoint_identity.h"
#include "properties/backwardDenseAllFrom_eq_dense.h"
#include "properties/compileChecked_backwardDenseFrom.h"
#include "properties/compileChecked_backwardDenseFrom_eq_tape.h"
#include "properties/compileChecked_context.h"
#include "properties/compileChecked_eq_lowerToTapeChecked.h"
#include "properties/determinism.h"
#include "properties/linearity.h"
#include "properties/lowerChecked_toTape.h"
#include "properties/ofGraph_toTape.h"

namespace tc::props {

//! A property and its name (the theorem's, for the seven theorem properties).
template <class T>
struct NamedProperty {
  std::string_view name;
  Verdict (*check)(const Case<T>&);
};

template <class T>
std::vector<NamedProperty<T>> allProperties() {
  return {{"ofGraph_toTape", &ofGraph_toTape<T>},
          {"lowerChecked_toTape", &lowerChecked_toTape<T>},
          {"compileChecked_eq_lowerToTapeChecked", &compileChecked_eq_lowerToTapeChecked<T>},
          {"compileChecked_context", &compileChecked_context<T>},
          {"compileChecked_backwardDenseFrom", &compileChecked_backwardDenseFrom<T>},
          {"compileChecked_backwardDenseFrom_eq_tape", &compileChecked_backwardDenseFrom_eq_tape<T>},
          {"backwardDenseAllFrom_eq_dense", &backwardDenseAllFrom_eq_dense<T>},
          {"determinism", &determinism<T>}};
}

//! The theorem properties and every oracle that applies to carrier T: linearity on exact
//! carriers, the adjoint identity where a dual carrier is instantiated (rational, modp).
template <class T>
std::vector<NamedProperty<T>> propertiesFor() {
  std::vector<NamedProperty<T>> all = allProperties<T>();
  if constexpr (std::is_same_v<T, Rational> || std::is_same_v<T, ModP>)
    all.push_back({"adjoint_identity", &adjoint_identity<T>});
  if constexpr (Carrier<T>::caps.exact) all.push_back({"linearity", &linearity<T>});
  return all;
}

}  // namespace tc::props
