#pragma once
// A hand-tagged corpus for the coverage categories (generators/coverage.h): small case documents,
// each with the categories it must fall in and near misses it must not (a normal number is no
// IEEE special value, a value an ulp from a stress value is not at it). tests/generators/
// coverage_test.cpp checks that every category a floor can name has a positive and a negative
// example here; `tapecheck run` checks the tags against it before it trusts a floor (a tagger that
// counts normal numbers as special would let a floor pass that was never reached).
#include <string>
#include <string_view>
#include <vector>

namespace tc::gen {

//! A case document, the carrier it is read on, and the categories it must and must not fall in.
struct TaggedExample {
  std::string carrier;
  std::string doc;
  std::vector<std::string> has;
  std::vector<std::string> hasNot;
};

//! Every example, on every carrier (built once).
const std::vector<TaggedExample>& coverageCorpus();

//! How coverageTags disagrees with the examples on `carrier` (a name of kCarrierNames): one line
//! per example that does not load, misses a category it must have or has a near miss; empty when
//! the tags are the corpus's.
std::vector<std::string> coverageCorpusDisagreements(std::string_view carrier);

}  // namespace tc::gen
