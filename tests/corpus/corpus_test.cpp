// Replays the checked-in counterexample corpus: every tests/corpus/*.json is a case that once
// failed (a real bug or a deliberate fault), saved in the file format with its "failure" object.
// Each must load on its carrier and now pass its property on the engine it names.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/carriers/dispatch.h"
#include "properties/engines/engine.h"
#include "properties/runner/runner.h"

namespace tc {
namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(TAPECHECK_SOURCE_DIR "/tests/corpus"))
    if (entry.path().extension() == ".json") files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, ReplaysAndPasses) {
  std::ifstream in(std::string(TAPECHECK_SOURCE_DIR "/tests/corpus/") + GetParam());
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(text.str());
  ASSERT_TRUE(doc.contains("failure")) << "a corpus file records the failure it reproduces";
  const nlohmann::json& failure = doc["failure"];
  const std::string carrier = failure.at("carrier"), property = failure.at("property");
  const std::string engine = failure.value("engine", "compiled");
  ASSERT_NE(std::find(kCarrierNames.begin(), kCarrierNames.end(), carrier), kCarrierNames.end()) << carrier;
  ASSERT_NE(std::find(std::begin(kBuiltinEngineNames), std::end(kBuiltinEngineNames), engine),
            std::end(kBuiltinEngineNames)) << engine;
  withCarrier(carrier, [&]<class T>() {
    const props::NamedProperty<T>* named = props::findProperty<T>(property);
    EXPECT_NE(named, nullptr) << property << " does not apply to " << carrier;
    if (!named) return 0;
    props::Verdict verdict = props::checkDocument(*named, builtinEngine<T>(engine), doc);
    EXPECT_TRUE(verdict.holds) << property << " on " << carrier << ": " << verdict.why;
    EXPECT_EQ(verdict.skipped, "") << "the case no longer exercises " << property;
    return 0;
  });
}

INSTANTIATE_TEST_SUITE_P(Counterexamples, Corpus, ::testing::ValuesIn(corpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.size() - 5);
                           std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return name;
                         });

}  // namespace
}  // namespace tc
