#pragma once
// Hand-made cases run on one engine, for the tests of engines that are not tapecheck's own: a
// case document loaded, and compiled by the engine, or the test stops with why not.
#include <memory>
#include <stdexcept>
#include <string>

#include "core/io/case_file.h"
#include "properties/engine.h"

namespace tc::testing {

//! The case a document describes; throws (failing the test) when it does not load.
template <class T>
Case<T> loadedCase(const std::string& doc) {
  auto c = parseCase<T>(doc);
  if (!c) throw std::runtime_error("the case does not load: " + c.error().message);
  return std::move(*c);
}

//! The engine's execution of the case; throws (failing the test) when the engine does not compile it.
template <class T>
std::unique_ptr<const Execution<T>> compiledBy(const Engine<T>& engine, const Case<T>& c) {
  auto execution = engine.compile(c.graph, *c.inputs, c.data);
  if (!execution) throw std::runtime_error(std::string(engine.name()) + " does not compile it: " + execution.error().message);
  return std::move(*execution);
}

}  // namespace tc::testing
