// The coverage categories, tested: the hand-tagged corpus (generators/coverage_corpus.h), each
// example with the categories it must and must not fall in, and a check that every category
// coverageFloors can produce has a positive and a negative example there, so that a category added
// without examples fails.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "generators/coverage.h"
#include "generators/coverage_corpus.h"

namespace tc {
namespace {

using Example = gen::TaggedExample;

template <class T>
Result<std::vector<std::string>> tagsOn(const std::string& doc) {
  auto loaded = parseCase<T>(doc);
  if (!loaded) return std::unexpected(loaded.error());
  return gen::coverageTags(*loaded);
}

Result<std::vector<std::string>> tagsOn(const std::string& carrier, const std::string& doc) {
  if (carrier == "rational") return tagsOn<Rational>(doc);
  if (carrier == "rational-noeq") return tagsOn<RationalNoEq>(doc);
  if (carrier == "modp") return tagsOn<ModP>(doc);
  if (carrier == "double") return tagsOn<double>(doc);
  if (carrier == "float") return tagsOn<float>(doc);
  if (carrier == "interval") return tagsOn<Interval>(doc);
  ADD_FAILURE() << "no carrier " << carrier;
  return std::unexpected(Error{"no carrier " + carrier});
}


TEST(CoverageCorpus, EveryExampleHasItsCategoriesAndNotItsNearMisses) {
  for (const Example& example : gen::coverageCorpus()) {
    auto tags = tagsOn(example.carrier, example.doc);
    ASSERT_TRUE(tags) << tags.error().message << "\n" << example.doc;
    const std::set<std::string> got(tags->begin(), tags->end());
    for (const std::string& category : example.has)
      EXPECT_TRUE(got.contains(category)) << example.carrier << ": missing '" << category << "' in\n" << example.doc;
    for (const std::string& category : example.hasNot)
      EXPECT_FALSE(got.contains(category)) << example.carrier << ": '" << category << "' should not be in\n" << example.doc;
  }
}

// Every category a floor can name, on every carrier, in both domains, with and without an op
// restriction and kinks.
template <class T>
void addFloorCategories(std::set<std::string>& categories) {
  const std::vector<OpKind> some{OpKind::add, OpKind::tanh, OpKind::mse_loss};
  for (gen::Domain domain : {gen::Domain::general, gen::Domain::exact})
    for (bool restricted : {false, true})
      for (bool avoidKinks : {false, true}) {
        gen::CaseOptions options{restricted ? std::optional(some) : std::nullopt, domain, avoidKinks};
        for (const gen::CoverageFloor& floor : gen::coverageFloors<T>(options)) categories.insert(floor.tag);
      }
}

TEST(CoverageCorpus, EveryCategoryWithAFloorHasAPositiveAndANegativeExample) {
  std::set<std::string> categories;
  addFloorCategories<Rational>(categories);
  addFloorCategories<RationalNoEq>(categories);
  addFloorCategories<ModP>(categories);
  addFloorCategories<double>(categories);
  addFloorCategories<float>(categories);
  addFloorCategories<Interval>(categories);
  std::set<std::string> positive, negative;
  for (const Example& example : gen::coverageCorpus()) {
    positive.insert(example.has.begin(), example.has.end());
    negative.insert(example.hasNot.begin(), example.hasNot.end());
  }
  for (const std::string& category : categories) {
    EXPECT_TRUE(positive.contains(category)) << "no example falls in '" << category << "'";
    EXPECT_TRUE(negative.contains(category)) << "no near miss for '" << category << "'";
  }
  EXPECT_GT(categories.size(), 80u);  // the enumeration itself works
}

// −0 is put at the kinks of relu and abs only (max, min and clamp meet it by chance), so the floor of
// "-0 into relu, abs, clamp, max or min" needs one of those two among the ops, kinks not avoided, and
// is not judged on the exact domain, where only forward_oracle's cases draw −0.
TEST(CoverageFloors, MinusZeroIntoAKinkedOpHasAFloorOnlyWhereTheGeneratorPutsItThere) {
  auto hasFloor = [](std::vector<OpKind> ops, gen::Domain domain, bool avoidKinks) {
    gen::CaseOptions options{std::move(ops), domain, avoidKinks};
    for (const gen::CoverageFloor& floor : gen::coverageFloors<double>(options))
      if (floor.tag == "-0 into relu, abs, clamp, max or min") return true;
    return false;
  };
  EXPECT_TRUE(hasFloor({OpKind::add, OpKind::relu}, gen::Domain::general, false));
  EXPECT_TRUE(hasFloor({OpKind::abs}, gen::Domain::general, false));
  EXPECT_FALSE(hasFloor({OpKind::add, OpKind::max, OpKind::min, OpKind::clamp}, gen::Domain::general, false));
  EXPECT_FALSE(hasFloor({OpKind::relu}, gen::Domain::general, true));
  EXPECT_FALSE(hasFloor({OpKind::relu}, gen::Domain::exact, false));
}

}  // namespace
}  // namespace tc
